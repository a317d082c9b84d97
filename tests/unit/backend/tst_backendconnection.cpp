// BackendConnection against in-process servers on 127.0.0.1 (random ports): a QWebSocketServer for the normal
// paths, and a raw QTcpServer that misbehaves on purpose (refuses with an HTTP status, never answers, upgrades
// then goes silent, or announces a 1 GiB frame). All intervals are injected, so the suite runs in seconds.
#include "backend/backendconnection.h"
#include "backend/loopbackowner.h"
#include "backend/protocol.h"
#include "testenvironment.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QWebSocket>
#include <QWebSocketServer>
#include <QtTest>

#include <memory>

using zeus::BackendConnection;
using State = zeus::BackendConnection::State;

namespace {

const QString kToken = QStringLiteral("tok-3f9c1e-secret");

BackendConnection::Settings fastSettings() {
    BackendConnection::Settings s;
    s.pingIntervalMs = 100;
    s.pongTimeoutMs = 300;
    s.handshakeTimeoutMs = 500;
    s.reconnect.initialDelayMs = 50;
    s.reconnect.maxDelayMs = 200;
    s.reconnect.jitter = 0;
    return s;
}

QUrl urlFor(quint16 port) {
    return QUrl(QStringLiteral("ws://127.0.0.1:%1/v1/desktop").arg(port));
}

qint64 residentKiB() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

// A backend that misbehaves at the HTTP or frame level, which QWebSocketServer cannot be made to do.
class RawServer : public QObject {
    Q_OBJECT
public:
    enum class Mode {
        RefuseWithStatus,   // answer the upgrade with `status`
        NeverAnswer,        // accept TCP, read, say nothing
        UpgradeThenSilent,  // complete the upgrade, then never answer (no pongs): a black hole
        UpgradeThenHugeFrame,
    };

    RawServer(Mode mode, int status = 0) : m_mode(mode), m_status(status) {
        connect(&m_server, &QTcpServer::newConnection, this, &RawServer::onNewConnection);
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    quint16 port() const { return m_server.serverPort(); }
    int connections() const { return m_connections; }

private:
    void onNewConnection() {
        while (QTcpSocket* socket = m_server.nextPendingConnection()) {
            ++m_connections;
            auto buffer = std::make_shared<QByteArray>();
            auto upgraded = std::make_shared<bool>(false);
            connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer, upgraded] {
                const QByteArray data = socket->readAll();
                if (*upgraded || m_mode == Mode::NeverAnswer)
                    return;  // swallowed: pings go unanswered
                buffer->append(data);
                if (!buffer->contains("\r\n\r\n"))
                    return;
                if (m_mode == Mode::RefuseWithStatus) {
                    socket->write("HTTP/1.1 " + QByteArray::number(m_status)
                                  + " Refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    socket->disconnectFromHost();
                    return;
                }
                *upgraded = true;
                socket->write(upgradeResponse(*buffer));
                if (m_mode == Mode::UpgradeThenHugeFrame) {
                    // FIN + text frame, 64-bit length: 1 GiB announced, 1 MiB actually sent.
                    QByteArray header("\x81\x7f", 2);
                    const quint64 length = 1ULL << 30;
                    for (int shift = 56; shift >= 0; shift -= 8)
                        header.append(char((length >> shift) & 0xff));
                    socket->write(header);
                    socket->write(QByteArray(1024 * 1024, 'a'));
                }
            });
        }
    }

    static QByteArray upgradeResponse(const QByteArray& request) {
        QByteArray key;
        for (const QByteArray& line : request.split('\n')) {
            if (line.toLower().startsWith("sec-websocket-key:"))
                key = line.mid(18).trimmed();
        }
        const QByteArray accept =
            QCryptographicHash::hash(QByteArray(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"), QCryptographicHash::Sha1)
                .toBase64();
        return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Accept: "
               + accept + "\r\n\r\n";
    }

    QTcpServer m_server;
    Mode m_mode;
    int m_status;
    int m_connections = 0;
};

// A well-behaved backend that remembers what it saw.
class WsServer : public QObject {
    Q_OBJECT
public:
    WsServer() : m_server(QStringLiteral("test backend"), QWebSocketServer::NonSecureMode) {
        connect(&m_server, &QWebSocketServer::newConnection, this, [this] {
            while (QWebSocket* socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                m_sockets.append(socket);
                m_requests.append(socket->request());
                connect(socket, &QWebSocket::textMessageReceived, this,
                        [this](const QString& text) { m_received.append(text); });
                connect(socket, &QWebSocket::disconnected, this,
                        [this, socket] { m_closeCodes.append(int(socket->closeCode())); });
            }
        });
    }
    ~WsServer() override {
        // The sockets outlive the lists their slots write to; silence them first.
        for (QWebSocket* socket : std::as_const(m_sockets))
            socket->disconnect(this);
        m_server.close();
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    quint16 port() const { return m_server.serverPort(); }
    QWebSocket* last() const { return m_sockets.isEmpty() ? nullptr : m_sockets.last(); }

    QWebSocketServer m_server;
    QList<QWebSocket*> m_sockets;
    QList<QNetworkRequest> m_requests;
    QStringList m_received;
    QList<int> m_closeCodes;
};

QString historyText(const BackendConnection& connection) {
    QStringList lines;
    for (const auto& entry : connection.history())
        lines.append(BackendConnection::stateName(entry.state) + QStringLiteral(" | ") + entry.event
                     + QStringLiteral(" | ") + QString::number(entry.closeCode));
    return lines.join(QLatin1Char('\n'));
}

QStringList g_logLines;
QtMessageHandler g_previousHandler = nullptr;

void captureLog(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    g_logLines.append(message);
    if (g_previousHandler)
        g_previousHandler(type, context, message);
}

}  // namespace

class TestBackendConnection : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void httpStatusFromHandshakeError_data();
    void httpStatusFromHandshakeError();
    void connectsWithBearerHeader();
    void badMessageKeepsConnection();
    void noTokenIsSignedOut();
    void authRefusedWithoutRetryStorm_data();
    void authRefusedWithoutRetryStorm();
    void serverDropReconnects();
    void refusedConnectionBacksOff();
    void heartbeatDetectsBlackHole();
    void handshakeTimeout();
    void oversizeMessageClosesWith1009AndReconnects();
    void hugeFrameKeepsMemoryFlat();
    void tlsErrorsAreNotIgnored();
    void plainWsToRemoteRefused_data();
    void plainWsToRemoteRefused();
    void stopStopsReconnecting();
    void historyIsBounded();
    void tokenNeverLogged();
    void pendingWriteBytesAreReported();
    void listenerUids_data();
    void listenerUids();
    void hostListenerIsThisUser();
    void loopbackPortOfAnotherUserIsNotContacted();
    void loopbackPortOfAnotherRealUser();
};

void TestBackendConnection::initTestCase() {
    g_previousHandler = qInstallMessageHandler(captureLog);
}

void TestBackendConnection::cleanupTestCase() {
    qInstallMessageHandler(g_previousHandler);
}

void TestBackendConnection::httpStatusFromHandshakeError_data() {
    QTest::addColumn<QString>("error");
    QTest::addColumn<int>("status");
    // The texts Qt 6.4 produces (seen against a raw server answering 401).
    QTest::newRow("401") << QStringLiteral(
        "QWebSocketPrivate::processHandshake: Unhandled http status code: 401 (Unauthorized).")
                         << 401;
    QTest::newRow("403") << QStringLiteral("QWebSocketPrivate::processHandshake: Unhandled http status code: 403 (x).")
                         << 403;
    QTest::newRow("500") << QStringLiteral("Unhandled http status code: 500 (Internal Server Error).") << 500;
    QTest::newRow("refused") << QStringLiteral("Connection refused") << 0;
    QTest::newRow("empty") << QString() << 0;
}

void TestBackendConnection::httpStatusFromHandshakeError() {
    QFETCH(QString, error);
    QFETCH(int, status);
    QCOMPARE(BackendConnection::httpStatusFromHandshakeError(error), status);
}

void TestBackendConnection::connectsWithBearerHeader() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    QSignalSpy connectedSpy(&connection, &BackendConnection::connected);
    QSignalSpy messages(&connection, &BackendConnection::messageReceived);
    QCOMPARE(connection.state(), State::Disconnected);
    connection.start();
    QCOMPARE(connection.state(), State::Connecting);
    QTRY_COMPARE(connection.state(), State::Connected);
    QCOMPARE(connectedSpy.count(), 1);

    QTRY_COMPARE(server.m_requests.size(), 1);
    const QNetworkRequest request = server.m_requests.first();
    QCOMPARE(request.rawHeader("Authorization"), QByteArray("Bearer ") + kToken.toUtf8());
    QVERIFY(!request.url().toString().contains(kToken));

    // Inbound: parsed into typed messages.
    zeus::ToolCallMessage call;
    call.callId = QStringLiteral("c1");
    call.sessionId = QStringLiteral("s1");
    call.tool = QStringLiteral("desktop_exec");
    call.command = QStringLiteral("echo hi");
    call.workingDirectory = QStringLiteral("/w");
    server.last()->sendTextMessage(QString::fromUtf8(zeus::Protocol::toFrame(zeus::Protocol::toJson(call))));
    QTRY_COMPARE(messages.count(), 1);
    const auto message = messages.first().first().value<zeus::IncomingMessage>();
    QVERIFY(std::holds_alternative<zeus::ToolCallMessage>(message));
    QVERIFY(std::get<zeus::ToolCallMessage>(message) == call);

    // Outbound: one text frame per message.
    QVERIFY(connection.send(zeus::Protocol::makeError(zeus::ProtocolErrorCode::Busy, QStringLiteral("later"))));
    QTRY_COMPARE(server.m_received.size(), 1);
    QCOMPARE(QJsonDocument::fromJson(server.m_received.first().toUtf8()).object().value(QStringLiteral("code")),
             QJsonValue(QStringLiteral("busy")));

    // Heartbeat answered by a live server: still connected after several ping intervals.
    QTest::qWait(800);
    QCOMPARE(connection.state(), State::Connected);
    QCOMPARE(server.m_sockets.size(), 1);
}

void TestBackendConnection::badMessageKeepsConnection() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    QSignalSpy messages(&connection, &BackendConnection::messageReceived);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    QTRY_VERIFY(server.last());

    server.last()->sendTextMessage(QStringLiteral("{not json"));
    server.last()->sendBinaryMessage(QByteArray("\x00\x01", 2));
    server.last()->sendTextMessage(QStringLiteral(R"({"type":"ack","call_id":"c9"})"));
    QTRY_COMPARE(messages.count(), 3);
    QVERIFY(std::holds_alternative<zeus::ProtocolError>(messages.at(0).first().value<zeus::IncomingMessage>()));
    QVERIFY(std::holds_alternative<zeus::ProtocolError>(messages.at(1).first().value<zeus::IncomingMessage>()));
    const auto ack = messages.at(2).first().value<zeus::IncomingMessage>();
    QVERIFY(std::holds_alternative<zeus::AckMessage>(ack));
    QCOMPARE(std::get<zeus::AckMessage>(ack).callId, QStringLiteral("c9"));
    QCOMPARE(connection.state(), State::Connected);
    QCOMPARE(server.m_sockets.size(), 1);
}

void TestBackendConnection::noTokenIsSignedOut() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.start();
    QCOMPARE(connection.state(), State::SignedOut);
    QTest::qWait(300);
    QCOMPARE(connection.state(), State::SignedOut);
    QCOMPARE(server.m_sockets.size(), 0);
    QCOMPARE(connection.attemptCount(), 0);

    connection.setToken(kToken);  // signing in connects at once
    QTRY_COMPARE(connection.state(), State::Connected);
    connection.setToken(QString());  // signing out drops the connection
    QCOMPARE(connection.state(), State::SignedOut);
    QTRY_COMPARE(server.m_closeCodes.size(), 1);
}

void TestBackendConnection::authRefusedWithoutRetryStorm_data() {
    QTest::addColumn<int>("status");
    QTest::newRow("401") << 401;
    QTest::newRow("403") << 403;
}

void TestBackendConnection::authRefusedWithoutRetryStorm() {
    QFETCH(int, status);
    RawServer server(RawServer::Mode::RefuseWithStatus, status);
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE(connection.state(), State::AuthFailed);
    QVERIFY2(connection.lastError().contains(QString::number(status)), qPrintable(connection.lastError()));
    QVERIFY(!connection.nextAttemptAt().isValid());

    // With a 50 ms backoff a retry loop would make dozens of attempts in two seconds.
    QTest::qWait(2000);
    QCOMPARE(connection.state(), State::AuthFailed);
    QCOMPARE(server.connections(), 1);
    QCOMPARE(connection.attemptCount(), 1);

    connection.setToken(kToken);  // the same token is not retried
    QTest::qWait(200);
    QCOMPARE(server.connections(), 1);
    connection.setToken(QStringLiteral("a-new-token"));  // a new one is
    QTRY_COMPARE(server.connections(), 2);
    QTRY_COMPARE(connection.state(), State::AuthFailed);
}

void TestBackendConnection::serverDropReconnects() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    BackendConnection::Settings settings = fastSettings();
    settings.reconnect.initialDelayMs = 400;  // long enough to observe Reconnecting
    settings.reconnect.maxDelayMs = 400;
    connection.setSettings(settings);
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    QSignalSpy connectedSpy(&connection, &BackendConnection::connected);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    QTRY_VERIFY(server.last());

    const QDateTime before = QDateTime::currentDateTime();
    server.last()->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("restarting"));
    QTRY_COMPARE(connection.state(), State::Reconnecting);
    const QDateTime next = connection.nextAttemptAt();
    QVERIFY(next.isValid());
    QVERIFY2(next >= before.addMSecs(300) && next <= QDateTime::currentDateTime().addMSecs(500),
             qPrintable(before.toString(Qt::ISODateWithMs) + QLatin1Char(' ') + next.toString(Qt::ISODateWithMs)));
    QVERIFY(connection.lastError().contains(QStringLiteral("1001")));
    QTRY_COMPARE(connection.state(), State::Connected);
    QCOMPARE(connectedSpy.count(), 2);
    QCOMPARE(server.m_sockets.size(), 2);

    bool closeRecorded = false;
    for (const auto& entry : connection.history())
        closeRecorded = closeRecorded || entry.closeCode == 1001;
    QVERIFY2(closeRecorded, qPrintable(historyText(connection)));
}

void TestBackendConnection::refusedConnectionBacksOff() {
    // Nothing listens: attempts are spaced by the backoff (50, 100, 200, 200 ms...), not a busy loop.
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        port = probe.serverPort();
    }
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(port));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Reconnecting);
    QTest::qWait(1000);
    // 1000 ms allows about 1 + 50/100/200/200/200/200 -> 6-7 attempts; a loop without backoff makes hundreds.
    QVERIFY2(connection.attemptCount() >= 3 && connection.attemptCount() <= 9,
             qPrintable(QString::number(connection.attemptCount())));
    QVERIFY(!connection.lastError().isEmpty());
}

void TestBackendConnection::heartbeatDetectsBlackHole() {
    RawServer server(RawServer::Mode::UpgradeThenSilent);
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());  // ping every 100 ms, dead after 300 ms without pong
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    QElapsedTimer timer;
    timer.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), State::Reconnecting, 2000);
    QVERIFY2(timer.elapsed() >= 250, qPrintable(QString::number(timer.elapsed())));
    QVERIFY2(connection.lastError().contains(QStringLiteral("ping")), qPrintable(connection.lastError()));
    QTRY_VERIFY(server.connections() >= 2);  // and it tries again
}

void TestBackendConnection::handshakeTimeout() {
    RawServer server(RawServer::Mode::NeverAnswer);
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());  // handshake within 500 ms
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    connection.start();
    QCOMPARE(connection.state(), State::Connecting);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), State::Reconnecting, 2000);
    QVERIFY2(connection.lastError().contains(QStringLiteral("500 ms")), qPrintable(connection.lastError()));
    QTRY_VERIFY(server.connections() >= 2);
}

void TestBackendConnection::oversizeMessageClosesWith1009AndReconnects() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    BackendConnection::Settings settings = fastSettings();
    settings.maxIncomingMessageBytes = 4096;
    connection.setSettings(settings);
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    QSignalSpy messages(&connection, &BackendConnection::messageReceived);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    QTRY_VERIFY(server.last());

    server.last()->sendTextMessage(QString(4096, QLatin1Char('x')));  // at the limit: delivered
    QTRY_COMPARE(messages.count(), 1);
    server.last()->sendTextMessage(QString(4097, QLatin1Char('x')));  // over it: closed
    QTRY_COMPARE(server.m_closeCodes.size(), 1);
    QCOMPARE(server.m_closeCodes.first(), 1009);
    QTRY_COMPARE(server.m_sockets.size(), 2);  // reconnected
    QTRY_COMPARE(connection.state(), State::Connected);
    QCOMPARE(messages.count(), 1);

    bool recorded = false;
    for (const auto& entry : connection.history())
        recorded = recorded || entry.closeCode == 1009;
    QVERIFY2(recorded, qPrintable(historyText(connection)));

    // The new connection works.
    server.last()->sendTextMessage(QStringLiteral(R"({"type":"ack","call_id":"c1"})"));
    QTRY_COMPARE(messages.count(), 2);
}

void TestBackendConnection::hugeFrameKeepsMemoryFlat() {
    RawServer server(RawServer::Mode::UpgradeThenHugeFrame);
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());  // default 1 MiB limit
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    const qint64 before = residentKiB();
    connection.start();
    QTRY_VERIFY(server.connections() >= 1);
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), State::Reconnecting, 3000);
    const qint64 after = residentKiB();
    bool recorded = false;
    for (const auto& entry : connection.history())
        recorded = recorded || entry.closeCode == 1009;
    QVERIFY2(recorded, qPrintable(historyText(connection)));
    // A 1 GiB frame was announced: the client closed on the header, it did not try to buffer it.
    QVERIFY2(after - before < 64 * 1024, qPrintable(QStringLiteral("RSS grew by %1 KiB").arg(after - before)));
    qInfo("RSS before %lld KiB, after %lld KiB", before, after);
}

void TestBackendConnection::tlsErrorsAreNotIgnored() {
    // A wss:// backend with a self-signed certificate: the connection must fail, never be accepted anyway.
    if (!QSslSocket::supportsSsl())
        QSKIP("no TLS backend in this Qt");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString certPath = dir.filePath(QStringLiteral("cert.pem"));
    const QString keyPath = dir.filePath(QStringLiteral("key.pem"));
    const zeus::test::ProcessOutput made = zeus::test::runProgram(
        QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("rsa:2048"),
         QStringLiteral("-nodes"), QStringLiteral("-keyout"), keyPath, QStringLiteral("-out"), certPath,
         QStringLiteral("-days"), QStringLiteral("1"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1"),
         QStringLiteral("-addext"), QStringLiteral("subjectAltName=IP:127.0.0.1")},
        30000);
    if (made.exitCode != 0) {
        if (zeus::test::isCi())
            QFAIL(made.err.constData());
        QSKIP("openssl could not make a test certificate");
    }
    QFile certFile(certPath);
    QFile keyFile(keyPath);
    QVERIFY(certFile.open(QIODevice::ReadOnly) && keyFile.open(QIODevice::ReadOnly));
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    tls.setLocalCertificate(QSslCertificate(certFile.readAll(), QSsl::Pem));
    tls.setPrivateKey(QSslKey(keyFile.readAll(), QSsl::Rsa, QSsl::Pem));
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    QWebSocketServer server(QStringLiteral("tls backend"), QWebSocketServer::SecureMode);
    server.setSslConfiguration(tls);
    QVERIFY(server.listen(QHostAddress::LocalHost));
    int accepted = 0;
    connect(&server, &QWebSocketServer::newConnection, this, [&] {
        while (QWebSocket* socket = server.nextPendingConnection()) {
            ++accepted;
            socket->deleteLater();
        }
    });

    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(QUrl(QStringLiteral("wss://127.0.0.1:%1/").arg(server.serverPort())));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), State::Reconnecting, 5000);
    QVERIFY2(connection.lastError().contains(QStringLiteral("TLS")), qPrintable(connection.lastError()));
    QVERIFY2(historyText(connection).contains(QStringLiteral("self-signed"), Qt::CaseInsensitive),
             qPrintable(historyText(connection)));
    QTest::qWait(300);
    QCOMPARE(accepted, 0);
    QVERIFY(connection.state() != State::Connected);
}

void TestBackendConnection::plainWsToRemoteRefused_data() {
    QTest::addColumn<QString>("url");
    QTest::newRow("hostname") << QStringLiteral("ws://backend.example.com/v1");
    QTest::newRow("documentation address") << QStringLiteral("ws://192.0.2.1:8080/");
}

void TestBackendConnection::plainWsToRemoteRefused() {
    QFETCH(QString, url);
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(QUrl(url));
    connection.setToken(kToken);
    connection.start();
    QCOMPARE(connection.state(), State::Error);
    QVERIFY2(connection.lastError().contains(QStringLiteral("wss://")), qPrintable(connection.lastError()));
    QTest::qWait(300);
    QCOMPARE(connection.state(), State::Error);
    QCOMPARE(connection.attemptCount(), 0);
}

void TestBackendConnection::stopStopsReconnecting() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    connection.stop();
    QCOMPARE(connection.state(), State::Disconnected);
    QVERIFY(!connection.send(QJsonObject{{QStringLiteral("type"), QStringLiteral("error")}}));
    QTRY_COMPARE(server.m_closeCodes.size(), 1);
    QTest::qWait(400);
    QCOMPARE(server.m_sockets.size(), 1);
    QCOMPARE(connection.state(), State::Disconnected);
}

void TestBackendConnection::historyIsBounded() {
    BackendConnection connection;
    BackendConnection::Settings settings = fastSettings();
    settings.historyLimit = 5;
    connection.setSettings(settings);
    connection.setUrl(QUrl(QStringLiteral("ws://198.51.100.7/")));
    connection.setToken(kToken);
    for (int i = 0; i < 20; ++i) {
        connection.start();
        connection.stop();
    }
    QCOMPARE(connection.history().size(), 5);
    QCOMPARE(connection.history().last().state, State::Disconnected);
}

void TestBackendConnection::tokenNeverLogged() {
    // Everything logged so far (the earlier tests too, when run in one go) and by a full connect/drop cycle here,
    // under QT_LOGGING_RULES=zeus.*.debug=true in ctest.
    {
        WsServer server;
        QVERIFY(server.listen());
        BackendConnection connection;
        connection.setSettings(fastSettings());
        connection.setUrl(urlFor(server.port()));
        connection.setToken(kToken);
        connection.start();
        QTRY_COMPARE(connection.state(), State::Connected);
        QTRY_VERIFY(server.last());
        server.last()->close();
        QTRY_COMPARE(connection.state(), State::Connected);
        QVERIFY(!historyText(connection).contains(kToken));
        connection.setToken(QStringLiteral("another-token"));
        QTRY_COMPARE(connection.state(), State::Connected);
    }
    QVERIFY(!g_logLines.isEmpty());
    for (const QString& line : std::as_const(g_logLines)) {
        QVERIFY2(!line.contains(kToken), qPrintable(line));
        QVERIFY2(!line.contains(QStringLiteral("another-token")), qPrintable(line));
    }
}

void TestBackendConnection::pendingWriteBytesAreReported() {
    // What flow control watches: a big frame is queued in the socket, the queue drains to 0 as the backend reads,
    // and a dropped connection reports 0 (nothing waits any more).
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    QCOMPARE(connection.pendingWriteBytes(), qint64(0));
    connection.start();
    QTRY_COMPARE(connection.state(), State::Connected);
    QSignalSpy pending(&connection, &BackendConnection::pendingWriteBytesChanged);
    const QByteArray frame = zeus::Protocol::toolOutputFrame(QStringLiteral("c1"), zeus::OutputStream::Stdout, 0,
                                                             QByteArray(8 * 1024 * 1024, 'x'));
    QVERIFY(connection.sendFrame(frame));
    QVERIFY2(connection.pendingWriteBytes() > 1024 * 1024, qPrintable(QString::number(connection.pendingWriteBytes())));
    QTRY_VERIFY_WITH_TIMEOUT(!pending.isEmpty() && pending.last().first().toLongLong() == 0, 10000);
    QCOMPARE(connection.pendingWriteBytes(), qint64(0));
    QTRY_COMPARE(server.m_received.size(), 1);
    QCOMPARE(server.m_received.first().toUtf8(), frame);

    QVERIFY(connection.sendFrame(frame));
    pending.clear();
    connection.stop();
    QCOMPARE(pending.size(), 1);
    QCOMPARE(pending.first().first().toLongLong(), qint64(0));
    QCOMPARE(connection.pendingWriteBytes(), qint64(0));
    QVERIFY(!connection.sendFrame(frame));
}

void TestBackendConnection::listenerUids_data() {
    // Lines as the kernel prints them (little-endian host): 127.0.0.1 is 0100007F, ::1 is 0...01000000.
    QTest::addColumn<QByteArray>("table");
    QTest::addColumn<int>("port");
    QTest::addColumn<QList<uint>>("uids");
    const QByteArray header =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
    QTest::newRow("loopback listener") << header + "   0: 0100007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 "
                                                   "00000000  1001        0 1507 1 0 100 0 0 10 0\n"
                                       << 8765 << QList<uint>{1001};
    QTest::newRow("any address") << header + "   0: 00000000:223D 00000000:0000 0A 00000000:00000000 00:00000000 "
                                             "00000000     0        0 1507 1 0 100 0 0 10 0\n"
                                 << 8765 << QList<uint>{0};
    QTest::newRow("127.0.0.2") << header + "   0: 0200007F:223D 00000000:0000 0A 00000000:00000000 00:00000000 "
                                           "00000000    33        0 1507 1 0 100 0 0 10 0\n"
                               << 8765 << QList<uint>{33};
    QTest::newRow("other port") << header + "   0: 0100007F:223E 00000000:0000 0A 00000000:00000000 00:00000000 "
                                            "00000000  1001        0 1507 1 0 100 0 0 10 0\n"
                                << 8765 << QList<uint>{};
    QTest::newRow("established, not listening")
        << header + "   0: 0100007F:223D 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1001 0 1 1 0\n"
        << 8765 << QList<uint>{};
    QTest::newRow("another interface") << header + "   0: 0A00000A:223D 00000000:0000 0A 00000000:00000000 "
                                                   "00:00000000 00000000  1001        0 1507 1 0 100 0 0 10 0\n"
                                       << 8765 << QList<uint>{};
    QTest::newRow("ipv6 loopback")
        << header + "   0: 00000000000000000000000001000000:223D 00000000000000000000000000000000:0000 0A "
                    "00000000:00000000 00:00000000 00000000  1002        0 1 1 0\n"
        << 8765 << QList<uint>{1002};
    QTest::newRow("ipv6 any") << header + "   0: 00000000000000000000000000000000:223D "
                                          "00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 "
                                          "00000000  1003        0 1 1 0\n"
                              << 8765 << QList<uint>{1003};
    QTest::newRow("garbage") << QByteArray("not a table\n\x01\x02 : : :\n") << 8765 << QList<uint>{};
    QTest::newRow("empty") << QByteArray() << 8765 << QList<uint>{};
}

void TestBackendConnection::listenerUids() {
    QFETCH(QByteArray, table);
    QFETCH(int, port);
    QFETCH(QList<uint>, uids);
    if (QSysInfo::ByteOrder != QSysInfo::LittleEndian && QByteArray(QTest::currentDataTag()).contains("127")) {
        QSKIP("rows written for a little-endian host");
    }
    QCOMPARE(zeus::LoopbackOwner::listenerUids(table, quint16(port)), uids);
}

void TestBackendConnection::hostListenerIsThisUser() {
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    const QList<uint> owners = zeus::LoopbackOwner::hostListenerUids(server.serverPort());
    QCOMPARE(owners, QList<uint>{*zeus::LoopbackOwner::currentUid()});
}

// SPEC §5 "No anonymous backends", the other way round: a local user who binds the backend's loopback port first
// would get the token and could send tool calls. The app does not connect to a port another uid listens on.
void TestBackendConnection::loopbackPortOfAnotherUserIsNotContacted() {
    WsServer server;
    QVERIFY(server.listen());
    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(server.port()));
    connection.setToken(kToken);
    const uint self = *zeus::LoopbackOwner::currentUid();
    uint owner = self + 1;
    connection.setListenerLookup([&owner](quint16) { return QList<uint>{owner}; });
    connection.start();
    QTRY_COMPARE(connection.state(), State::Reconnecting);
    QTest::qWait(300);
    QVERIFY(server.m_requests.isEmpty());  // nothing was sent there, the token least of all
    QVERIFY2(connection.lastError().contains(QLatin1String("held by another user")),
             qPrintable(connection.lastError()));
    // Once the port is this user's, the next attempt connects.
    owner = self;
    QTRY_COMPARE_WITH_TIMEOUT(connection.state(), State::Connected, 5000);
    QCOMPARE(server.m_requests.size(), 1);
}

// The same with a real second uid (nobody) listening: needs root to switch users; CI runs as root.
void TestBackendConnection::loopbackPortOfAnotherRealUser() {
    if (*zeus::LoopbackOwner::currentUid() != 0) {
        if (qEnvironmentVariable("CI") == QLatin1String("true")) {
            QFAIL("CI runs as root; this test needs root to listen as another user");
        }
        QSKIP("needs root to listen as another user (setpriv)");
    }
    const QString setpriv = QStandardPaths::findExecutable(QStringLiteral("setpriv"));
    const QString busybox = QStandardPaths::findExecutable(QStringLiteral("busybox"));
    QVERIFY2(!setpriv.isEmpty() && !busybox.isEmpty(), "setpriv (util-linux) and busybox (busybox-static) are needed");
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        port = probe.serverPort();
    }
    // The squatter: listens as uid 65534 and prints whatever a client sends it.
    QProcess squatter;
    squatter.start(setpriv,
                   {QStringLiteral("--reuid=65534"), QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups"),
                    busybox, QStringLiteral("nc"), QStringLiteral("-l"), QStringLiteral("-p"), QString::number(port)});
    QVERIFY(squatter.waitForStarted(5000));
    QTRY_VERIFY_WITH_TIMEOUT(!zeus::LoopbackOwner::hostListenerUids(port).isEmpty(), 10000);
    QCOMPARE(zeus::LoopbackOwner::hostListenerUids(port), QList<uint>{65534});

    BackendConnection connection;
    connection.setSettings(fastSettings());
    connection.setUrl(urlFor(port));
    connection.setToken(kToken);
    connection.start();
    QTRY_COMPARE(connection.state(), State::Reconnecting);
    QTest::qWait(500);
    const QString error = connection.lastError();
    connection.stop();
    const QByteArray received = squatter.readAllStandardOutput();
    squatter.kill();
    squatter.waitForFinished(5000);
    QVERIFY2(!received.contains(kToken.toUtf8()) && received.isEmpty(), received.constData());
    QVERIFY2(error.contains(QLatin1String("uid 65534")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestBackendConnection)
#include "tst_backendconnection.moc"
