// End to end with the local test backend: the real zeus-testbackend and zeus-desktop --headless binaries and a
// real Docker engine, driven the way the README's run command and scripts use them (first line gives the port,
// commands from a script file or stdin, results printed and acknowledged).
#include "testenvironment.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QNetworkRequest>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUuid>
#include <QWebSocket>
#include <QtTest>

namespace {

QString testBackendBinary() {
    return QFileInfo(QStringLiteral(ZEUS_APP_BINARY)).dir().filePath(QStringLiteral("testbackend/zeus-testbackend"));
}

// One process whose stdout and stderr are collected as they come.
class Program {
public:
    Program() {
        QObject::connect(&process, &QProcess::readyReadStandardOutput, &process,
                         [this] { out += process.readAllStandardOutput(); });
        QObject::connect(&process, &QProcess::readyReadStandardError, &process,
                         [this] { err += process.readAllStandardError(); });
    }
    ~Program() {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    bool waitForExit(int timeoutMs) {
        return QTest::qWaitFor([this] { return process.state() == QProcess::NotRunning; }, timeoutMs);
    }
    bool waitForOutput(const QByteArray& text, int timeoutMs) {
        return QTest::qWaitFor([&] { return out.contains(text); }, timeoutMs);
    }
    QString text() const { return QString::fromUtf8(out); }

    QProcess process;
    QByteArray out;
    QByteArray err;
};

}  // namespace

class TestTestBackend : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_workspace;

    QString m_token;  // of the last backend started

    // Starts the backend and returns its URL from the first line, or an empty string; m_token is its token, read
    // from the 0600 file it wrote.
    QString startBackend(Program& backend, const QStringList& arguments) {
        const QString tokenFile =
            m_root.filePath(QUuid::createUuid().toString(QUuid::Id128) + QStringLiteral(".token"));
        backend.process.start(testBackendBinary(), arguments + QStringList{QStringLiteral("--token-file"), tokenFile});
        if (!backend.waitForOutput("\n", 10000)) {
            return {};
        }
        QFile file(tokenFile);
        if (!file.open(QIODevice::ReadOnly)
            || file.permissions() != (QFile::ReadOwner | QFile::WriteOwner | QFile::ReadUser | QFile::WriteUser)) {
            return {};
        }
        m_token = QString::fromUtf8(file.readAll());
        const QByteArray first = backend.out.left(backend.out.indexOf('\n'));
        const QByteArray prefix("listening on ");
        return first.startsWith(prefix) ? QString::fromUtf8(first.mid(prefix.size())) : QString();
    }

    // A client in this process: connected (true) or refused (false) by the backend at `url`.
    static bool tryConnect(const QString& url, const QByteArray& authorization) {
        QWebSocket socket;
        QNetworkRequest request{QUrl(url)};
        if (!authorization.isEmpty()) {
            request.setRawHeader("Authorization", authorization);
        }
        bool connected = false;
        bool ended = false;
        QObject::connect(&socket, &QWebSocket::connected, &socket, [&] { connected = true; });
        QObject::connect(&socket, &QWebSocket::disconnected, &socket, [&] { ended = true; });
        socket.open(request);
        if (!QTest::qWaitFor([&] { return connected || ended; }, 10000)) {
            return false;  // neither in nor out: not in, and the test's QTRY on "refused 401" says more
        }
        if (connected) {
            socket.close();
        }
        return connected;
    }

    void startApp(Program& app, const QString& url, const QString& token) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        const QString config = m_root.filePath(QUuid::createUuid().toString(QUuid::Id128));
        QDir().mkpath(config);
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
        environment.insert(QStringLiteral("XDG_DATA_HOME"), config + QStringLiteral("/data"));
        environment.remove(QStringLiteral("ZEUS_DESKTOP_TOKEN"));
        if (!token.isEmpty()) {
            environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), token);
        }
        app.process.setProcessEnvironment(environment);
        app.process.start(
            QStringLiteral(ZEUS_APP_BINARY),
            {QStringLiteral("--headless"), QStringLiteral("--backend"), url, QStringLiteral("--workspace"), m_workspace,
             QStringLiteral("--runtime"), QStringLiteral("docker"), QStringLiteral("--image"), zeus::test::testImage(),
             QStringLiteral("--profile"), QStringLiteral("hardened")});
    }

    static void stopApp(Program& app) {
        app.process.terminate();
        QVERIFY(app.waitForExit(20000));
        QCOMPARE(app.process.exitCode(), 0);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_root.isValid());
        QVERIFY2(QFileInfo::exists(testBackendBinary()), qPrintable(testBackendBinary()));
        QVERIFY(QDir(m_root.path()).mkpath(QStringLiteral("my project")));
        m_workspace = QDir(m_root.filePath(QStringLiteral("my project"))).canonicalPath();
        QFile file(m_workspace + QStringLiteral("/notes.txt"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("first note\n");
    }

    void scriptThroughTheApp() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        const QString script = m_root.filePath(QStringLiteral("script.txt"));
        QFile file(script);
        QVERIFY(file.open(QIODevice::WriteOnly));
        // c3: escape sequences in the output (clear screen, window title, a C1 CSI) reach the terminal as text.
        file.write(
            "# a comment\nls /workspace\ncat /workspace/notes.txt; echo warned >&2; exit 2\n"
            "printf 'a\\033[2Jb\\033]0;pwned\\007c\\302\\233d\\n'\n:end\n");
        file.close();

        Program backend;
        const QString session = QStringLiteral("tb-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        const QString url = startBackend(backend, {QStringLiteral("--script"), script, QStringLiteral("--workspace"),
                                                   m_workspace, QStringLiteral("--session"), session});
        QVERIFY2(url.startsWith(QStringLiteral("ws://127.0.0.1:")), qPrintable(backend.text()));
        Program app;
        startApp(app, url, m_token);  // the token of this run, as run.sh hands it over
        QVERIFY2(backend.waitForExit(60000), qPrintable(backend.text() + QString::fromUtf8(app.err)));
        QCOMPARE(backend.process.exitCode(), 0);

        const QString out = backend.text();
        QVERIFY2(out.contains(QStringLiteral("hello {")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("\"status\":\"ready\"")), qPrintable(out));
        // The hello said for people, and each result with the app's duration and the round trip seen here.
        QVERIFY2(out.contains(QStringLiteral("\nruntime docker ")), qPrintable(out));
        QVERIFY2(QRegularExpression(QStringLiteral("\nresult c1 ok exit=0 truncated=false duration_ms=\\d+ "
                                                   "round_trip_ms=\\d+\n"))
                     .match(out)
                     .hasMatch(),
                 qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("[c1 stdout] notes.txt\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("result c1 ok exit=0")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("[c2 stdout] first note\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("[c2 stderr] warned\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("result c2 ok exit=2")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("session %1 stopped").arg(session)), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("[c3 stdout] a\\x1b[2Jb\\x1b]0;pwned\\x07c\\x9bd\n")), qPrintable(out));
        QVERIFY2(!backend.out.contains('\x1b') && !backend.out.contains('\x07') && !backend.out.contains("\xc2\x9b"),
                 "no control character reaches the terminal");
        QVERIFY2(out.contains(QStringLiteral("done: 3 results")), qPrintable(out));
        stopApp(app);
    }

    void stdinCommandsAndCancel() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        Program backend;
        const QString url = startBackend(backend, {QStringLiteral("--workspace"), m_workspace});
        QVERIFY(!url.isEmpty());
        Program app;
        startApp(app, url, m_token);
        QVERIFY2(backend.waitForOutput("hello {", 30000), qPrintable(backend.text()));
        backend.process.write("&echo started; sleep 30\n");
        QVERIFY2(backend.waitForOutput("[c1 stdout] started\n", 30000), qPrintable(backend.text()));
        backend.process.write(":cancel c1\n:wait\necho after\n");
        backend.process.closeWriteChannel();  // end of input: the backend exits once every result is in
        QVERIFY2(backend.waitForExit(30000), qPrintable(backend.text()));
        const QString out = backend.text();
        QVERIFY2(out.contains(QStringLiteral("result c1 cancelled exit=null")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("[c2 stdout] after\n")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("duplicate result")), qPrintable(out));
        stopApp(app);
    }

    void requiredToken_data() {
        QTest::addColumn<QString>("token");  // "RUN": the run's token from the file
        QTest::addColumn<bool>("accepted");
        QTest::newRow("the run's token") << QStringLiteral("RUN") << true;
        QTest::newRow("wrong token") << QStringLiteral("not-it") << false;
        QTest::newRow("the old fixed placeholder") << QStringLiteral("anonymous") << false;
    }

    // SPEC §5 "No anonymous backends": the app with the run's token gets in; anything else gets 401 and the
    // app stops (auth failed, no retry loop).
    void requiredToken() {
        QFETCH(QString, token);
        QFETCH(bool, accepted);
        Program backend;
        const QString url =
            startBackend(backend, {QStringLiteral("--workspace"), m_workspace, QStringLiteral("--stay")});
        QVERIFY(!url.isEmpty());
        QCOMPARE(m_token.size(), 64);
        Program app;
        startApp(app, url, token == QLatin1String("RUN") ? m_token : token);
        if (accepted) {
            QVERIFY2(backend.waitForOutput("hello {", 30000), qPrintable(backend.text()));
            stopApp(app);
            return;
        }
        QVERIFY2(app.waitForExit(20000), qPrintable(QString::fromUtf8(app.err)));
        QCOMPARE(app.process.exitCode(), 4);  // auth failed: no retry loop
        QCOMPARE(backend.out.count("refused 401"), 1);
        QVERIFY(!backend.out.contains("hello {"));
    }

    void tokensDifferPerRun() {
        Program first;
        QVERIFY(!startBackend(first, {QStringLiteral("--stay")}).isEmpty());
        const QString token = m_token;
        Program second;
        QVERIFY(!startBackend(second, {QStringLiteral("--stay")}).isEmpty());
        QVERIFY(m_token != token);
    }

    // Another local user connecting to the test backend: refused before the upgrade, whatever it sends but
    // the token; with the token, the same client gets in.
    void connectionsWithoutTheTokenAreRefused() {
        Program backend;
        const QString url = startBackend(backend, {QStringLiteral("--stay")});
        QVERIFY(!url.isEmpty());
        QVERIFY(!tryConnect(url, QByteArray()));
        QVERIFY(!tryConnect(url, "Bearer anonymous"));
        QVERIFY(!tryConnect(url, "Bearer " + m_token.toUtf8().left(63)));
        QVERIFY(!tryConnect(url, "Basic " + m_token.toUtf8()));
        QTRY_COMPARE(backend.out.count("refused 401"), 4);
        QVERIFY2(!backend.out.contains("connected\n"), qPrintable(backend.text()));
        QVERIFY(tryConnect(url, "Bearer " + m_token.toUtf8()));
        QTRY_VERIFY2(backend.out.contains("connected\n"), qPrintable(backend.text()));
    }

    // The app is connected; a newcomer without the token never replaces it, and the app keeps being served.
    void secondConnectionWithoutTheTokenDoesNotReplaceTheApp() {
        ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
        Program backend;
        const QString url = startBackend(backend, {QStringLiteral("--workspace"), m_workspace});
        QVERIFY(!url.isEmpty());
        Program app;
        startApp(app, url, m_token);
        QVERIFY2(backend.waitForOutput("hello {", 30000), qPrintable(backend.text()));
        QVERIFY(!tryConnect(url, QByteArray()));
        QVERIFY(!tryConnect(url, "Bearer anonymous"));
        backend.process.write("cat /workspace/notes.txt\n");
        backend.process.closeWriteChannel();
        QVERIFY2(backend.waitForExit(60000), qPrintable(backend.text()));
        const QString out = backend.text();
        QVERIFY2(out.contains(QStringLiteral("[c1 stdout] first note\n")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("replaced the previous connection")), qPrintable(out));
        QCOMPARE(backend.out.count("refused 401"), 2);
        QCOMPARE(backend.out.count("\nconnected\n"), 1);
        stopApp(app);
    }
};

QTEST_GUILESS_MAIN(TestTestBackend)
#include "tst_testbackend.moc"
