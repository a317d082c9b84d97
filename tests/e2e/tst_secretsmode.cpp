// End to end, on the test keyring (tests/harness/engines.sh with_keyring) and the real Docker engine: the secrets CLI
// (--set-secret from stdin, --list-secrets, --delete-secret), hello.secrets (names only), and a headless app that
// denies a secret not given with --allow-secret (secret_denied), refuses an unknown one (secret_unknown) -- the
// command never runs in either case -- and runs one that was allowed, its output redacted.
#include "appsettings.h"
#include "backendserver.h"
#include "testenvironment.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

using zeus::test::BackendServer;

namespace {

const QString kName = QStringLiteral("ZEUS_T_SECRET");

zeus::test::ProcessOutput app(const QStringList& arguments, const QByteArray& stdinData = {}) {
    return zeus::test::runProgram(QStringLiteral(ZEUS_APP_BINARY), arguments, 30000, stdinData);
}

QJsonObject toolCall(const QString& callId, const QString& sessionId, const QString& command,
                     const QString& workingDirectory, const QStringList& secrets) {
    QJsonObject call = BackendServer::toolCall(callId, sessionId, command, workingDirectory);
    QJsonObject args = call.value(QStringLiteral("args")).toObject();
    args.insert(QStringLiteral("secrets"), QJsonArray::fromStringList(secrets));
    call.insert(QStringLiteral("args"), args);
    return call;
}

}  // namespace

class TestSecretsMode : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_workspace;
    QByteArray m_value;
    QStringList m_sessions;

    bool haveKeyring() const { return qEnvironmentVariable("ZEUS_TEST_KEYRING") == QLatin1String("1"); }

    // A headless app on this backend, with these --allow-secret names; true once hello arrived.
    bool startHeadless(QProcess& process, BackendServer& server, const QStringList& allowed,
                       const QStringList& more = {}) {
        if (!server.listen()) {
            return false;
        }
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("e2e-token"));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), m_root.filePath(QStringLiteral("data")));
        process.setProcessEnvironment(environment);
        QStringList arguments{QStringLiteral("--headless"),
                              QStringLiteral("--backend"),
                              server.url(),
                              QStringLiteral("--workspace"),
                              m_workspace,
                              QStringLiteral("--runtime"),
                              QStringLiteral("docker"),
                              QStringLiteral("--image"),
                              zeus::test::testImage()};
        for (const QString& name : allowed) {
            arguments << QStringLiteral("--allow-secret") << name;
        }
        arguments << more;
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(QStringLiteral(ZEUS_APP_BINARY), arguments);
        return server.waitForType(QStringLiteral("hello"), 30000);
    }
    static void stop(QProcess& process) {
        process.terminate();
        if (!process.waitForFinished(20000)) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    QString session() {
        m_sessions << QStringLiteral("e2e-") + QUuid::createUuid().toString(QUuid::Id128).left(10);
        return m_sessions.last();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_root.isValid());
        // The CLI and the headless app read the settings of this folder only.
        qputenv("XDG_CONFIG_HOME", m_root.filePath(QStringLiteral("config")).toUtf8());
        QVERIFY(QDir(m_root.path()).mkpath(QStringLiteral("workspace")));
        m_workspace = QDir(m_root.filePath(QStringLiteral("workspace"))).canonicalPath();
        m_value = "e2e/" + QUuid::createUuid().toString(QUuid::Id128).toLatin1() + "+v";
    }

    void cleanupTestCase() {
        if (haveKeyring()) {
            app({QStringLiteral("--delete-secret"), kName});
        }
        for (const QString& id : std::as_const(m_sessions)) {
            const zeus::test::ProcessOutput ids = zeus::test::runProgram(
                QStringLiteral("docker"), {QStringLiteral("ps"), QStringLiteral("-aq"), QStringLiteral("--filter"),
                                           QStringLiteral("label=zeus.desktop.session=") + id});
            for (const QByteArray& container : ids.out.split('\n')) {
                if (!container.trimmed().isEmpty()) {
                    zeus::test::runProgram(QStringLiteral("docker"), {QStringLiteral("rm"), QStringLiteral("-f"),
                                                                      QString::fromUtf8(container.trimmed())});
                }
            }
        }
    }

    void cliRefusesBadNamesAndShortValues() {
        QCOMPARE(app({QStringLiteral("--set-secret"), QStringLiteral("lower_case")}, "long-enough-value\n").exitCode,
                 2);
        const zeus::test::ProcessOutput shortValue = app({QStringLiteral("--set-secret"), kName}, "short\n");
        QCOMPARE(shortValue.exitCode, 2);
        QVERIFY(shortValue.err.contains("at least 8 bytes"));
        QCOMPARE(app({QStringLiteral("--allow-secret"), QStringLiteral("1BAD"), QStringLiteral("--headless")}).exitCode,
                 2);
    }

    void cliSetListDelete() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring: run under tests/harness/engines.sh with_keyring");
        }
        const zeus::test::ProcessOutput set = app({QStringLiteral("--set-secret"), kName}, m_value + '\n');
        QVERIFY2(set.exitCode == 0, set.err.constData());
        QVERIFY(!set.out.contains(m_value) && !set.err.contains(m_value));
        const zeus::test::ProcessOutput list = app({QStringLiteral("--list-secrets")});
        QCOMPARE(list.exitCode, 0);
        QVERIFY2(list.out.startsWith(QByteArray(kName.toUtf8() + "\tnever used")), list.out.constData());
        QVERIFY(!list.out.contains(m_value));
        // Never in the settings file, only the name.
        QDirIterator files(m_root.filePath(QStringLiteral("config")), QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY2(!file.readAll().contains(m_value), qPrintable(file.fileName()));
        }
    }

    void headlessDeniesUnknownAndUnapproved() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring");
        }
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        BackendServer server;
        QProcess process;
        QVERIFY(startHeadless(process, server, {}));
        const QJsonObject hello = server.ofType(QStringLiteral("hello")).first();
        QCOMPARE(hello.value(QStringLiteral("secrets")).toArray(), QJsonArray({kName}));
        QVERIFY(!QJsonDocument(hello).toJson().contains(m_value));

        const QString s = session();
        server.send(toolCall(QStringLiteral("denied"), s, QStringLiteral("touch ran-denied"), m_workspace, {kName}));
        server.send(toolCall(QStringLiteral("unknown"), s, QStringLiteral("touch ran-unknown"), m_workspace,
                             {QStringLiteral("NOT_STORED")}));
        QVERIFY(server.waitForResult(QStringLiteral("denied"), 30000));
        QVERIFY(server.waitForResult(QStringLiteral("unknown"), 30000));
        const QJsonObject denied = server.resultsFor(QStringLiteral("denied")).first();
        const QJsonObject unknown = server.resultsFor(QStringLiteral("unknown")).first();
        stop(process);
        QCOMPARE(denied.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
        QCOMPARE(denied.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("secret_denied"));
        QCOMPARE(unknown.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("secret_unknown"));
        QVERIFY(!QFile::exists(m_workspace + QStringLiteral("/ran-denied")));
        QVERIFY(!QFile::exists(m_workspace + QStringLiteral("/ran-unknown")));
        QVERIFY(server.ofType(QStringLiteral("tool_output")).isEmpty());
    }

    void headlessRunsAnAllowedSecretRedacted() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring");
        }
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        BackendServer server;
        QProcess process;
        QVERIFY(startHeadless(process, server, {kName}));
        const QByteArray hash = QCryptographicHash::hash(m_value, QCryptographicHash::Sha256).toHex();
        const QString s = session();
        server.send(
            toolCall(QStringLiteral("allowed"), s,
                     QStringLiteral("[ \"$(printf %s \"$ZEUS_T_SECRET\" | sha256sum | cut -d' ' -f1)\" = %1 ] "
                                    "&& echo SEES-IT; echo \"$ZEUS_T_SECRET\"; echo \"$ZEUS_T_SECRET\" | base64")
                         .arg(QString::fromLatin1(hash)),
                     m_workspace, {kName}));
        QVERIFY(server.waitForResult(QStringLiteral("allowed"), 60000));
        const QJsonObject result = server.resultsFor(QStringLiteral("allowed")).first();
        stop(process);
        QCOMPARE(result.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        const QString output = result.value(QStringLiteral("output")).toString();
        QVERIFY2(output.startsWith(QLatin1String("SEES-IT\n[REDACTED:ZEUS_T_SECRET]\n[REDACTED:ZEUS_T_SECRET]")),
                 qPrintable(output));
        QCOMPARE(result.value(QStringLiteral("redacted")).toInt(), 2);
        for (const QJsonObject& message : std::as_const(server.messages)) {
            QVERIFY(!QJsonDocument(message).toJson().contains(m_value));
        }
        const zeus::test::ProcessOutput list = app({QStringLiteral("--list-secrets")});
        QVERIFY2(!list.out.contains("never used"), list.out.constData());
    }

    // --bind-secret (SPEC §9): the run reads or makes the interception CA on the keyring, and the command gets the
    // session's placeholder, never the value (tests/engine/tst_boundsecrets.cpp has the proxy's side).
    void headlessGivesABoundSecretAsItsPlaceholder() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring");
        }
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        BackendServer server;
        QProcess process;
        QVERIFY(startHeadless(process, server, {kName},
                              {QStringLiteral("--bind-secret"), kName + QStringLiteral("=api.example.invalid")}));
        const QString s = session();
        server.send(toolCall(QStringLiteral("bound"), s,
                             QStringLiteral("echo \"$ZEUS_T_SECRET\"; grep -c 'BEGIN CERTIFICATE' \"$SSL_CERT_FILE\""),
                             m_workspace, {kName}));
        QVERIFY(server.waitForResult(QStringLiteral("bound"), 60000));
        const QJsonObject result = server.resultsFor(QStringLiteral("bound")).first();
        stop(process);
        const QString output = result.value(QStringLiteral("output")).toString();
        QVERIFY2(output.startsWith(QStringLiteral("zeus-secret-ZEUS_T_SECRET-")), qPrintable(output));
        QCOMPARE(result.value(QStringLiteral("redacted")).toInt(), 0);
        for (const QJsonObject& message : std::as_const(server.messages)) {
            QVERIFY(!QJsonDocument(message).toJson().contains(m_value));
        }
    }

    // Settings → Secrets "Use only with…" (SPEC §9) binds in every mode: a headless run with no --bind-secret reads
    // the binding from the settings, loads the CA, and the command gets the placeholder, never the value.
    void headlessHonoursABindingOfTheSettings() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring");
        }
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        QDirIterator files(m_root.filePath(QStringLiteral("config")), {QStringLiteral("*.conf")}, QDir::Files,
                           QDirIterator::Subdirectories);
        QVERIFY2(files.hasNext(), "the CLI wrote no settings file");
        const QString file = files.next();
        {
            zeus::AppSettings settings(file);
            QVERIFY(settings.secretNames().contains(kName));
            settings.secrets().setBinding(kName, {QStringLiteral("api.example.invalid")});
        }
        BackendServer server;
        QProcess process;
        QVERIFY(startHeadless(process, server, {kName}));
        server.send(toolCall(QStringLiteral("bound-by-settings"), session(), QStringLiteral("echo \"$ZEUS_T_SECRET\""),
                             m_workspace, {kName}));
        QVERIFY(server.waitForResult(QStringLiteral("bound-by-settings"), 60000));
        const QJsonObject result = server.resultsFor(QStringLiteral("bound-by-settings")).first();
        stop(process);
        zeus::AppSettings(file).secrets().setBinding(kName, {});
        const QString output = result.value(QStringLiteral("output")).toString();
        QVERIFY2(output.startsWith(QStringLiteral("zeus-secret-ZEUS_T_SECRET-")), qPrintable(output));
        for (const QJsonObject& message : std::as_const(server.messages)) {
            QVERIFY(!QJsonDocument(message).toJson().contains(m_value));
        }
    }

    void cliDeletes() {
        if (!haveKeyring()) {
            if (zeus::test::isCi()) {
                QFAIL("no test keyring: run under tests/harness/engines.sh with_keyring");
            }
            QSKIP("no test keyring");
        }
        QCOMPARE(app({QStringLiteral("--delete-secret"), kName}).exitCode, 0);
        QVERIFY(!app({QStringLiteral("--list-secrets")}).out.contains(kName.toUtf8()));
    }
};

QTEST_GUILESS_MAIN(TestSecretsMode)
#include "tst_secretsmode.moc"
