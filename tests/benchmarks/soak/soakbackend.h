#pragma once
// zeus-bench-soak's backend: a QWebSocketServer on 127.0.0.1 that plays the backend's side of the protocol (SPEC
// §5) and keeps, for every call it sent, what the app said about it. No Q_OBJECT: header-only, wired with lambdas.

#include "measure.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QPointer>
#include <QStringList>
#include <QWebSocket>
#include <QWebSocketServer>

#include <functional>

namespace zeus::bench {

// What a call runs: the warm-up's `true`; the mixed run's `true`, `echo`, 1 MiB of output, a `sleep 5` with
// timeout_s 1, a `sleep` cancelled as soon as it runs; the burst's ~30 KB of output.
enum class Kind { Warmup, Short, Echo, Big, Timeout, Cancel, Burst };

// One tool_call and what the app said about it.
struct Call {
    QString id;
    QString session;
    Kind kind = Kind::Short;
    int order = 0;          // its place among its session's calls, in sending order
    qint64 sentAt = -1;     // ns on the backend's clock, as the times below
    qint64 runningAt = -1;  // the first call_state running
    qint64 firstOutputAt = -1;
    qint64 resultAt = -1;
    int results = 0;
    QString status;  // "ok", "timeout", "cancelled" or "error <code>" of the first result
    int exitCode = -1;
    QString output;  // of `echo` calls only
    qsizetype outputChars = 0;
    QStringList states;  // the call_state states, in order
    bool cancelSent = false;
};

// The backend: sends tool_calls, cancels and session ends, records every message the app sends about a call,
// acks every result at once, and cancels a cancel-kind call at its first sign of running.
class SoakBackend {
public:
    SoakBackend() : m_server(QStringLiteral("soak"), QWebSocketServer::NonSecureMode) {
        QObject::connect(&m_server, &QWebSocketServer::newConnection, &m_server, [this] {
            while (QWebSocket* socket = m_server.nextPendingConnection()) {
                m_client = socket;
                socket->setMaxAllowedIncomingMessageSize(1LL << 30);
                socket->setMaxAllowedIncomingFrameSize(1LL << 30);
                QObject::connect(socket, &QWebSocket::textMessageReceived, socket, [this](const QString& text) {
                    handle(text);
                    zeus::bench::poke();
                });
            }
        });
        m_clock.start();
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1/").arg(m_server.serverPort()); }
    qint64 now() const { return m_clock.nsecsElapsed(); }

    void call(Call call, const QString& command, double timeoutSeconds = 0) {
        QJsonObject args{{QStringLiteral("command"), command}, {QStringLiteral("working_directory"), workspace}};
        if (timeoutSeconds > 0) {
            args.insert(QStringLiteral("timeout_s"), timeoutSeconds);
        }
        call.sentAt = now();
        const QString id = call.id;
        calls.insert(id, call);
        send(QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_call")},
                         {QStringLiteral("call_id"), id},
                         {QStringLiteral("session_id"), call.session},
                         {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
                         {QStringLiteral("args"), args}});
    }
    void cancel(const QString& callId) {
        Call& call = calls[callId];
        if (call.cancelSent || call.results > 0) {
            return;
        }
        call.cancelSent = true;
        send(QJsonObject{{QStringLiteral("type"), QStringLiteral("cancel")}, {QStringLiteral("call_id"), callId}});
    }
    void endSession(const QString& session) {
        send(QJsonObject{{QStringLiteral("type"), QStringLiteral("session_end")},
                         {QStringLiteral("session_id"), session}});
    }
    bool stopped(const QString& session) const { return sessionStates.value(session) == QLatin1String("stopped"); }

    QString workspace;
    int hellos = 0;
    QHash<QString, Call> calls;
    QHash<QString, QString> sessionStates;  // the latest session_state of each session
    QMap<QString, int> errors;              // `error` messages by code
    int strayResults = 0;                   // results for call ids never sent
    qint64 lastResultAt = 0;
    std::function<void(const QString& callId)> resultArrived;

private:
    void send(const QJsonObject& message) {
        if (m_client) {
            m_client->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
        }
    }
    void handle(const QString& text) {
        const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
        const QString type = m.value(QStringLiteral("type")).toString();
        const QString callId = m.value(QStringLiteral("call_id")).toString();
        if (type == QLatin1String("hello")) {
            ++hellos;
        } else if (type == QLatin1String("session_state")) {
            sessionStates.insert(m.value(QStringLiteral("session_id")).toString(),
                                 m.value(QStringLiteral("state")).toString());
        } else if (type == QLatin1String("error")) {
            ++errors[m.value(QStringLiteral("code")).toString()];
        } else if (type == QLatin1String("tool_result")) {
            onResult(callId, m);
        } else if (calls.contains(callId) && type == QLatin1String("tool_output")) {
            Call& call = calls[callId];
            if (call.firstOutputAt < 0) {
                call.firstOutputAt = now();
            }
            if (call.kind == Kind::Cancel) {
                cancel(callId);
            }
        } else if (calls.contains(callId) && type == QLatin1String("call_state")) {
            Call& call = calls[callId];
            const QString state = m.value(QStringLiteral("state")).toString();
            call.states.append(state);
            if (state == QLatin1String("running") && call.runningAt < 0) {
                call.runningAt = now();
                if (call.kind == Kind::Cancel) {
                    cancel(callId);
                }
            }
        }
    }
    void onResult(const QString& callId, const QJsonObject& m) {
        send(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("call_id"), callId}});
        lastResultAt = now();
        if (!calls.contains(callId)) {
            ++strayResults;
            return;
        }
        Call& call = calls[callId];
        if (++call.results > 1) {
            return;
        }
        call.resultAt = lastResultAt;
        call.status = m.value(QStringLiteral("status")).toString();
        if (call.status == QLatin1String("error")) {
            call.status +=
                QLatin1Char(' ') + m.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString();
        }
        call.exitCode = m.value(QStringLiteral("exit_code")).toInt(-1);
        const QString output = m.value(QStringLiteral("output")).toString();
        call.outputChars = output.size();
        if (call.kind == Kind::Echo) {
            call.output = output;
        }
        if (resultArrived) {
            resultArrived(callId);
        }
    }

    QWebSocketServer m_server;
    QPointer<QWebSocket> m_client;
    QElapsedTimer m_clock;
};

}  // namespace zeus::bench
