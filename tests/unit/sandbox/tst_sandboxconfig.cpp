// SandboxConfig's per-folder answers that decide what a session's container gets: the host services exposed to a
// folder (SPEC §8 "Ports": the run's --expose-host, then the folder's setting, each container port once, at most
// the agent's listeners) and what a change of them or of the folder's `.git` rule means for a live session.
#include "sandbox/sandboxconfig.h"

#include <QtTest>

using namespace zeus;

namespace {

QList<ExposeSpec> specs(const QString& texts) {
    QList<ExposeSpec> list;
    for (const QString& text : texts.split(u',', Qt::SkipEmptyParts)) {
        list.append(*ExposeSpec::parse(text));
    }
    return list;
}

QString spelled(const QList<ExposeSpec>& list) {
    QStringList texts;
    for (const ExposeSpec& spec : list) {
        texts << spec.text();
    }
    return texts.join(u',');
}

}  // namespace

class TestSandboxConfig : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exposeHostFor_data() {
        QTest::addColumn<QString>("run");     // --expose-host of the run
        QTest::addColumn<QString>("folder");  // the folder's setting
        QTest::addColumn<QString>("other");   // another folder's setting
        QTest::addColumn<QString>("expected");
        QTest::newRow("nothing") << ""
                                 << ""
                                 << ""
                                 << "";
        QTest::newRow("the run's only") << "5432"
                                        << ""
                                        << ""
                                        << "5432";
        QTest::newRow("the folder's only") << ""
                                           << "6379,18080:8080"
                                           << ""
                                           << "6379,18080:8080";
        QTest::newRow("both, run first") << "5432"
                                         << "6379"
                                         << ""
                                         << "5432,6379";
        QTest::newRow("one port inside: the run's wins") << "15432:5432"
                                                         << "25432:5432,6379"
                                                         << ""
                                                         << "15432:5432,6379";
        QTest::newRow("another folder's stay there") << ""
                                                     << ""
                                                     << "5432"
                                                     << "";
        QTest::newRow("the same twice in the folder") << ""
                                                      << "5432,5432"
                                                      << ""
                                                      << "5432";
    }

    void exposeHostFor() {
        QFETCH(QString, run);
        QFETCH(QString, folder);
        QFETCH(QString, other);
        QFETCH(QString, expected);
        SandboxConfig config;
        config.exposeHost = specs(run);
        config.folderExposeHost.insert(QStringLiteral("/p/one"), specs(folder));
        config.folderExposeHost.insert(QStringLiteral("/p/two"), specs(other));
        QCOMPARE(spelled(config.exposeHostFor(QStringLiteral("/p/one"))), expected);
    }

    // The agent has room for kMaxExposed listeners beside its proxies: no more are ever asked for.
    void exposeHostForStopsAtTheAgentsListeners() {
        SandboxConfig config;
        for (int port = 1; port <= 10; ++port) {
            config.exposeHost.append(ExposeSpec{quint16(20000 + port), quint16(port + 100)});
            config.folderExposeHost[QStringLiteral("/p")].append(
                ExposeSpec{quint16(30000 + port), quint16(port + 200)});
        }
        const QList<ExposeSpec> exposed = config.exposeHostFor(QStringLiteral("/p"));
        QCOMPARE(exposed.size(), ExposeSpec::kMaxExposed);
        QCOMPARE(exposed.first().hostPort, quint16(20001));  // the run's first
    }

    void folderAccessChange_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<bool>("gitBefore");
        QTest::addColumn<bool>("gitAfter");
        QTest::addColumn<bool>("reviewCopy");
        QTest::addColumn<QString>("said");
        QTest::newRow("unchanged") << "5432"
                                   << "5432" << false << false << false << "";
        QTest::newRow("exposed") << ""
                                 << "5432" << false << false << false << "host services";
        QTest::newRow("host port moved") << "1:5432"
                                         << "2:5432" << false << false << false << "host services";
        QTest::newRow(".git writable") << ""
                                       << "" << false << true << false << "may now write";
        QTest::newRow(".git read-only again") << ""
                                              << "" << true << false << false << "read-only again";
        QTest::newRow("a review copy's .git is its own") << ""
                                                         << "" << false << true << true << "";
        QTest::newRow("a review copy's host services") << ""
                                                       << "5432" << false << false << true << "host services";
    }

    void folderAccessChange() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(bool, gitBefore);
        QFETCH(bool, gitAfter);
        QFETCH(bool, reviewCopy);
        QFETCH(QString, said);
        const QString folder = QStringLiteral("/p/one");
        SandboxConfig old;
        old.folderExposeHost.insert(folder, specs(before));
        if (gitBefore) {
            old.folderGitWrites.insert(folder);
        }
        SandboxConfig now;
        now.folderExposeHost.insert(folder, specs(after));
        if (gitAfter) {
            now.folderGitWrites.insert(folder);
        }
        const QString change = now.folderAccessChange(old, folder, reviewCopy);
        if (said.isEmpty()) {
            QVERIFY2(change.isEmpty(), qPrintable(change));
        } else {
            QVERIFY2(change.contains(said) && change.contains(folder), qPrintable(change));
        }
    }
};

QTEST_GUILESS_MAIN(TestSandboxConfig)
#include "tst_sandboxconfig.moc"
