// `zeus-desktop --exec` as a user runs it: the real binary, a real engine, the test image.
#include "testenvironment.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace zeus::test;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

}  // namespace

class TestExecMode : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void runsAndCleansUp_data();
    void runsAndCleansUp();
    void refusals_data();
    void refusals();
    void timeoutExits124();
    void interruptCancelsAndCleansUp();

private:
    Run runApp(const QStringList& arguments, int waitMs = 60000);
    QStringList containersFor(const QString& engine, const QString& workspace);
    QTemporaryDir m_config;
    QTemporaryDir m_dir;
    QString m_ws;
};

void TestExecMode::initTestCase() {
    QVERIFY(m_config.isValid() && m_dir.isValid());
    m_ws = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/项目 a,b:c");
    QVERIFY(QDir().mkpath(m_ws));
}

Run TestExecMode::runApp(const QStringList& arguments, int waitMs) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_config.path());  // never the user's settings
    environment.remove(QStringLiteral("QT_LOGGING_RULES"));
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(ZEUS_APP_BINARY), arguments);
    Run run;
    if (!process.waitForStarted(10000) || !process.waitForFinished(waitMs)) {
        process.kill();
        process.waitForFinished(5000);
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QStringList TestExecMode::containersFor(const QString& engine, const QString& workspace) {
    const ProcessOutput out =
        runProgram(engine, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"),
                            QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.workspace=") + workspace});
    return QString::fromUtf8(out.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

void TestExecMode::runsAndCleansUp_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestExecMode::runsAndCleansUp() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    QFile file(m_ws + QStringLiteral("/hello.txt"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("from the host\n");
    file.close();
    // The test engines have no bridge network: the hardened profile (network none) runs there.
    const Run run =
        runApp({QStringLiteral("--workspace"), m_ws, QStringLiteral("--runtime"), engine, QStringLiteral("--profile"),
                QStringLiteral("hardened"), QStringLiteral("--image"), testImage(), QStringLiteral("--exec"),
                QStringLiteral("cat hello.txt; pwd; echo oops >&2; echo made > out.txt; exit 7")});
    QCOMPARE(run.exitCode, 7);
    QCOMPARE(run.out, QByteArray("from the host\n/workspace\n"));
    QCOMPARE(run.err, QByteArray("oops\n"));
    QCOMPARE(QFile(m_ws + QStringLiteral("/out.txt")).exists(), true);
    QVERIFY(containersFor(engine, m_ws).isEmpty());
}

void TestExecMode::refusals_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("reason");
    const QString ws = QFileInfo(m_dir.path()).canonicalFilePath() + QStringLiteral("/项目 a,b:c");
    QTest::newRow("root") << QStringList{QStringLiteral("--workspace"), QStringLiteral("/")}
                          << QStringLiteral("file_system_root");
    QTest::newRow("etc") << QStringList{QStringLiteral("--workspace"), QStringLiteral("/etc")}
                         << QStringLiteral("system_tree");
    QTest::newRow("missing") << QStringList{QStringLiteral("--workspace"), ws + QStringLiteral("/nope")}
                             << QStringLiteral("not_found");
    QTest::newRow("no such runtime binary")
        << QStringList{QStringLiteral("--workspace"), ws, QStringLiteral("--runtime"), QStringLiteral("apple")}
        << QStringLiteral("not installed");
    QTest::newRow("missing image")
        << QStringList{QStringLiteral("--workspace"), ws,
                       QStringLiteral("--runtime"),   QStringLiteral("docker"),
                       QStringLiteral("--profile"),   QStringLiteral("hardened"),
                       QStringLiteral("--image"),     QStringLiteral("zeus-desktop-sandbox:absent")}
        << QStringLiteral("build -t zeus-desktop-sandbox:absent");
}

void TestExecMode::refusals() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, reason);
    if (reason.startsWith(QLatin1String("build"))) {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    }
    const Run run = runApp(arguments + QStringList{QStringLiteral("--exec"), QStringLiteral("echo never")});
    QCOMPARE(run.exitCode, 125);
    QVERIFY(!run.out.contains("never"));
    QVERIFY2(QString::fromUtf8(run.err).contains(reason), run.err.constData());
}

void TestExecMode::timeoutExits124() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    QElapsedTimer clock;
    clock.start();
    const Run run = runApp({QStringLiteral("--workspace"), m_ws, QStringLiteral("--runtime"), QStringLiteral("docker"),
                            QStringLiteral("--profile"), QStringLiteral("hardened"), QStringLiteral("--image"),
                            testImage(), QStringLiteral("--timeout"), QStringLiteral("2"), QStringLiteral("--exec"),
                            QStringLiteral("echo started; sleep 300")});
    QCOMPARE(run.exitCode, 124);
    QCOMPARE(run.out, QByteArray("started\n"));
    QVERIFY(clock.elapsed() < 30000);
    QVERIFY(containersFor(QStringLiteral("docker"), m_ws).isEmpty());
}

void TestExecMode::interruptCancelsAndCleansUp() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), m_config.path());
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(ZEUS_APP_BINARY),
                  {QStringLiteral("--workspace"), m_ws, QStringLiteral("--runtime"), QStringLiteral("docker"),
                   QStringLiteral("--profile"), QStringLiteral("hardened"), QStringLiteral("--image"), testImage(),
                   QStringLiteral("--exec"), QStringLiteral("echo started; sleep 300")});
    QVERIFY(process.waitForStarted(10000));
    QByteArray out;
    QVERIFY(QTest::qWaitFor(
        [&] {
            process.waitForReadyRead(100);
            out += process.readAllStandardOutput();
            return out.contains("started");
        },
        60000));
    QCOMPARE(containersFor(QStringLiteral("docker"), m_ws).size(), 1);
    ::kill(pid_t(process.processId()), SIGINT);  // Ctrl-C
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    QVERIFY(containersFor(QStringLiteral("docker"), m_ws).isEmpty());
}

QTEST_GUILESS_MAIN(TestExecMode)
#include "tst_execmode.moc"
