// Secrets on real engines (Docker and Podman rows; tst_secrets_plain runs it again through plain exec): an approved
// secret is in its command's environment and no other's, and every encoded form of it printed by the command arrives
// redacted in the live output (tool_output), the result (tool_result) and the session log; neither the engine's
// inspect nor any process's argv holds it. The value is never printed by the test: it compares hashes.
#include "sessionfixture.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>

using namespace zeus;
using namespace zeus::test;

class TestSecrets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void injectedAndRedacted_data();
    void injectedAndRedacted();
    void splitBetweenStreamsIsRedacted_data();
    void splitBetweenStreamsIsRedacted();

private:
    QTemporaryDir m_dir;
    QString m_owner;
    QString m_engine;
};

void TestSecrets::initTestCase() {
    QVERIFY(m_dir.isValid());
}

void TestSecrets::cleanup() {
    if (!m_owner.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

void TestSecrets::splitBetweenStreamsIsRedacted_data() {
    injectedAndRedacted_data();
}

// SPEC §9: a value printed half on stdout and half on stderr is whole only in tool_result.output (stdout and
// stderr in arrival order): each stream's redactor sees half, so the combined output is redacted as well.
void TestSecrets::splitBetweenStreamsIsRedacted() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    m_engine = engine;
    m_owner = uniqueOwner();
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), testConfig(m_owner));
    Recorder rec(manager);
    const QByteArray value = "zeus" + QUuid::createUuid().toString(QUuid::Id128).toLatin1() + "t0ken";
    ExecRequest request;
    request.callId = QStringLiteral("split");
    request.sessionId = QStringLiteral("s");
    request.workspace = makeWorkspace(m_dir, QStringLiteral("split-") + engine);
    request.secrets = {SecretValue{QStringLiteral("ZEUS_T_SPLIT"), value}};
    request.command = QStringLiteral(
        "v=\"$ZEUS_T_SPLIT\"; printf %s \"${v%t0ken}\"; sleep 0.3; printf '%s\\n' t0ken >&2; sleep 0.3; echo end");
    manager.execute(request);
    QVERIFY(rec.waitFor(request.callId, 60000));
    const ExecResult result = rec.results.value(request.callId);
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QVERIFY2(!result.output.toUtf8().contains(value), qPrintable(result.output));
    QVERIFY2(result.output.contains(QLatin1String("[REDACTED:ZEUS_T_SPLIT]")), qPrintable(result.output));
    QVERIFY(result.redacted >= 1);
    // Each stream on its own never held the whole value.
    QVERIFY(!rec.stdoutOf.value(request.callId).toUtf8().contains(value));
    QVERIFY(!rec.stderrOf.value(request.callId).toUtf8().contains(value));
}

void TestSecrets::injectedAndRedacted_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestSecrets::injectedAndRedacted() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    m_engine = engine;
    m_owner = uniqueOwner();
    SandboxConfig config = testConfig(m_owner);
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    Recorder rec(manager);
    QHash<QString, QByteArray> live;  // what tool_output would carry
    connect(&manager, &SessionManager::outputUtf8, this,
            [&live](const QString& callId, OutputStream, const QByteArray& utf8) { live[callId] += utf8; });

    // '/' and '+' make the URL-encoded and base64 forms differ from the raw one.
    const QByteArray value = "zeus/" + QUuid::createUuid().toString(QUuid::Id128).toLatin1() + "+t0ken";
    const QByteArray hash = QCryptographicHash::hash(value, QCryptographicHash::Sha256).toHex();
    const QString name = QStringLiteral("ZEUS_T_SECRET");
    const QString ws = makeWorkspace(m_dir, QStringLiteral("secrets-") + engine);

    ExecRequest request;
    request.callId = QStringLiteral("with-secret");
    request.sessionId = QStringLiteral("s");
    request.workspace = ws;
    request.secrets = {SecretValue{name, value}};
    request.command =
        QStringLiteral(
            "v=\"$ZEUS_T_SECRET\"\n"
            "[ \"$(printf %s \"$v\" | sha256sum | cut -d' ' -f1)\" = %1 ] && echo SEES-IT\n"
            "sleep 2\n"
            "env | grep '^ZEUS_T_SECRET='\n"  // printenv, where the image has no printenv
            "printf %s \"$v\" | base64\n"
            "echo \"$v\" | base64\n"
            "printf %s \"$v\" | base64 | tr '+/' '-_' | tr -d '='\n"
            "printf %s \"$v\" | xxd -p | tr -d '\\n'; echo\n"
            "printf %s \"$v\" | od -An -v -tx1 | tr -d ' \\n' | tr a-f A-F; echo\n"
            "printf %s \"$v\" | sed 's,/,%2F,g; s,+,%2B,g'; echo\n"
            "printf %s \"$v\" >&2; echo >&2\n"
            "printf '%s\\n' \"$v\" | fold -w1 | while IFS= read -r c; do printf %s \"$c\"; sleep 0.01; done; echo\n")
            .arg(QString::fromLatin1(hash));
    manager.execute(request);
    (void)QTest::qWaitFor(
        [&] { return live.value(request.callId).contains("SEES-IT") || rec.results.contains(request.callId); }, 60000);
    QVERIFY2(live.value(request.callId).contains("SEES-IT"),
             qPrintable(rec.results.value(request.callId).errorMessage + rec.results.value(request.callId).output));

    // While it runs: in no process's argv on the host, not in the container's configuration.
    QStringList holders;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& pid : pids) {
        QFile cmdline(QStringLiteral("/proc/") + pid + QStringLiteral("/cmdline"));
        if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(value)) {
            holders << pid;
        }
    }
    QVERIFY2(holders.isEmpty(), qPrintable(QStringLiteral("argv of %1 holds the secret").arg(holders.join(u','))));
    const QString container = manager.containerId(request.sessionId);
    QVERIFY(!container.isEmpty());
    const ProcessOutput inspect = runProgram(engine, {QStringLiteral("inspect"), container});
    QCOMPARE(inspect.exitCode, 0);
    QVERIFY2(!inspect.out.contains(value), "inspect holds the secret");

    QVERIFY(rec.waitFor(request.callId, 60000));
    const ExecResult result = rec.results.value(request.callId);
    QVERIFY2(result.errorCode == ExecError::None, qPrintable(result.errorMessage));
    QCOMPARE(result.exitCode.value_or(-1), 0);

    const QList<QByteArray> forms = {value,
                                     value.toHex(),
                                     value.toHex().toUpper(),
                                     value.toBase64(),
                                     value.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals),
                                     value.toPercentEncoding()};
    const QByteArray marker = "[REDACTED:ZEUS_T_SECRET]";
    const QByteArray kept = result.output.toUtf8();
    for (const QByteArray& form : forms) {
        QVERIFY2(!live.value(request.callId).contains(form), "a form of the secret reached tool_output");
        QVERIFY2(!kept.contains(form), "a form of the secret reached the result");
    }
    QVERIFY(kept.contains("SEES-IT"));
    // env, base64 (2), base64url, hex (xxd -p, od upper case), URL-encoded, stderr, one byte per write.
    QVERIFY2(kept.count(marker) >= 9, kept.constData());
    QVERIFY(live.value(request.callId).count(marker) >= 9);
    QVERIFY(result.redacted >= 9);

    // A second command of the same session, without the secret: not in its environment, nor in pid 1's.
    const ExecResult other = rec.run(request.sessionId, ws,
                                     QStringLiteral("env | grep -q '^ZEUS_T_SECRET=' && echo PRESENT || echo ABSENT\n"
                                                    "grep -c ZEUS_T_SECRET /proc/1/environ 2>/dev/null || true\n"
                                                    "cat /proc/[0-9]*/cmdline 2>/dev/null | grep -c %1 || true")
                                         .arg(QString::fromLatin1(value.toHex())));
    QCOMPARE(other.exitCode.value_or(-1), 0);
    QVERIFY2(other.output.startsWith(QLatin1String("ABSENT\n0\n")), qPrintable(other.output));

    for (const SessionLogEntry& entry : manager.sessionLog(request.sessionId)) {
        QVERIFY(!entry.command.toUtf8().contains(value));
        QVERIFY(!entry.message.toUtf8().contains(value));
    }
}

QTEST_GUILESS_MAIN(TestSecrets)
#include "tst_secrets.moc"
