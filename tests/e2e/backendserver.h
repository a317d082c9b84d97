#pragma once
// An in-process backend for tests (as Qt's own tst_qwebsocket does): a QWebSocketServer on 127.0.0.1 that
// records every JSON message the app sends, can send any frame, drop the connection, stop listening and listen
// again on the same port. No Q_OBJECT: header-only, wired with lambdas.

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QTest>
#include <QWebSocket>
#include <QWebSocketServer>

#include <functional>

namespace zeus::test {

class BackendServer {
public:
    BackendServer() : m_server(QStringLiteral("test-backend"), QWebSocketServer::NonSecureMode) {
        QObject::connect(&m_server, &QWebSocketServer::newConnection, &m_server, [this] { onConnection(); });
    }
    ~BackendServer() { close(); }

    bool listen(quint16 port = 0) {
        if (!m_server.listen(QHostAddress::LocalHost, port)) {
            return false;
        }
        m_port = m_server.serverPort();
        return true;
    }
    quint16 port() const { return m_port; }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1/v1/desktop").arg(m_port); }
    int connections() const { return m_connections; }
    // The Authorization header of every connection, in order.
    QList<QByteArray> authorizations() const { return m_authorizations; }
    bool isConnected() const { return m_client && m_client->state() == QAbstractSocket::ConnectedState; }

    // Drops the app's connection (abort: like a killed backend) and optionally stops listening.
    void dropClient() {
        if (m_client) {
            m_client->abort();
            m_client->deleteLater();
            m_client = nullptr;
        }
    }
    void close() {
        dropClient();
        m_server.close();
    }

    void send(const QJsonObject& message) {
        sendText(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
    }
    void sendText(const QString& text) {
        if (m_client) {
            m_client->sendTextMessage(text);
        }
    }

    // Every message received, in order.
    QList<QJsonObject> messages;
    // Automatically ack every tool_result (on by default, like a real backend).
    bool autoAck = true;

    QList<QJsonObject> ofType(const QString& type) const {
        QList<QJsonObject> found;
        for (const QJsonObject& m : messages) {
            if (m.value(QStringLiteral("type")).toString() == type) {
                found.append(m);
            }
        }
        return found;
    }
    QList<QJsonObject> resultsFor(const QString& callId) const {
        QList<QJsonObject> found;
        for (const QJsonObject& m : ofType(QStringLiteral("tool_result"))) {
            if (m.value(QStringLiteral("call_id")).toString() == callId) {
                found.append(m);
            }
        }
        return found;
    }
    // Waits until a message matching the predicate arrives at or after index `from`.
    bool waitFor(const std::function<bool(const QJsonObject&)>& match, int timeoutMs, int from = 0) {
        return QTest::qWaitFor(
            [&] {
                for (int i = from; i < messages.size(); ++i) {
                    if (match(messages.at(i))) {
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
    }
    bool waitForType(const QString& type, int timeoutMs, int from = 0) {
        return waitFor([type](const QJsonObject& m) { return m.value(QStringLiteral("type")).toString() == type; },
                       timeoutMs, from);
    }
    bool waitForResult(const QString& callId, int timeoutMs, int from = 0) {
        return waitFor(
            [callId](const QJsonObject& m) {
                return m.value(QStringLiteral("type")).toString() == QLatin1String("tool_result")
                       && m.value(QStringLiteral("call_id")).toString() == callId;
            },
            timeoutMs, from);
    }

    static QJsonObject toolCall(const QString& callId, const QString& sessionId, const QString& command,
                                const QString& workingDirectory, double timeoutSeconds = 0) {
        QJsonObject args{{QStringLiteral("command"), command}, {QStringLiteral("working_directory"), workingDirectory}};
        if (timeoutSeconds > 0) {
            args.insert(QStringLiteral("timeout_s"), timeoutSeconds);
        }
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_call")},
                           {QStringLiteral("call_id"), callId},
                           {QStringLiteral("session_id"), sessionId},
                           {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
                           {QStringLiteral("args"), args}};
    }
    static QJsonObject simple(const QString& type, const QString& key, const QString& value) {
        return QJsonObject{{QStringLiteral("type"), type}, {key, value}};
    }

    // The combined tool_output data of one call, in seq order, and whether the seqs were 0,1,2,... without gaps.
    QString streamed(const QString& callId, const QString& stream, bool* contiguous = nullptr) const {
        QString text;
        qint64 expected = 0;
        bool ok = true;
        for (const QJsonObject& m : ofType(QStringLiteral("tool_output"))) {
            if (m.value(QStringLiteral("call_id")).toString() != callId) {
                continue;
            }
            ok = ok && qint64(m.value(QStringLiteral("seq")).toDouble()) == expected;
            ++expected;
            if (stream.isEmpty() || m.value(QStringLiteral("stream")).toString() == stream) {
                text += m.value(QStringLiteral("data")).toString();
            }
        }
        if (contiguous) {
            *contiguous = ok;
        }
        return text;
    }

private:
    void onConnection() {
        while (QWebSocket* socket = m_server.nextPendingConnection()) {
            ++m_connections;
            m_authorizations.append(socket->request().rawHeader("Authorization"));
            dropClient();
            m_client = socket;
            QObject::connect(socket, &QWebSocket::textMessageReceived, socket, [this, socket](const QString& text) {
                const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
                messages.append(message);
                if (autoAck && message.value(QStringLiteral("type")).toString() == QLatin1String("tool_result")) {
                    socket->sendTextMessage(
                        QString::fromUtf8(QJsonDocument(simple(QStringLiteral("ack"), QStringLiteral("call_id"),
                                                               message.value(QStringLiteral("call_id")).toString()))
                                              .toJson(QJsonDocument::Compact)));
                }
            });
        }
    }

    QWebSocketServer m_server;
    QPointer<QWebSocket> m_client;
    quint16 m_port = 0;
    int m_connections = 0;
    QList<QByteArray> m_authorizations;
};

}  // namespace zeus::test
