#pragma once

#include "backend/protocolmessages.h"
#include "backend/reconnectpolicy.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <optional>
#include <utility>

class QWebSocket;

namespace zeus {

// The WebSocket to the backend (protocol v1, docs/protocol.md): opens it with the sign-in token as
// `Authorization: Bearer` on the upgrade request, keeps it alive with pings, reconnects with backoff, parses every
// inbound text frame into a typed message, and keeps a bounded history for the diagnostics panel.
// It owns the socket, its timers and the reconnect policy. It must never put the token in the URL, a log line or
// the history, never ignore a TLS error, never speak plain ws:// to anything but loopback, and never retry a
// token the backend refused until it is given a new one. It does not interpret messages: the dispatcher does.
class BackendConnection : public QObject {
    Q_OBJECT
public:
    // What the user sees.
    enum class State {
        Disconnected,  // not started, or stopped by the user: no attempt is made
        SignedOut,     // no token: the user has to sign in first
        Connecting,    // opening the connection (TCP, TLS, HTTP upgrade)
        Connected,     // upgraded; messages flow
        Reconnecting,  // the last attempt failed or the connection dropped; will retry at nextAttemptAt()
        AuthFailed,    // the backend refused the token (HTTP 401/403); waits for a new token, no retry loop
        Error,         // the settings are unusable (bad URL, plain ws:// to a remote host); waits for new ones
    };
    Q_ENUM(State)

    struct Settings {
        qint64 pingIntervalMs = 20000;
        qint64 pongTimeoutMs = 20000;       // no pong for this long after a ping: the connection is dead
        qint64 handshakeTimeoutMs = 30000;  // TCP + TLS + upgrade must finish within this
        qint64 maxIncomingMessageBytes = 1024 * 1024;
        // SPEC §5 "Bounded outbound queue": bytes handed to the socket and not yet written. A frame that would
        // pass it (unless the queue is empty) closes the connection with 1013 and reconnects: a backend that
        // stops reading must not make the app queue gigabytes before the ping timeout.
        qint64 maxPendingWriteBytes = 64 * 1024 * 1024;
        ReconnectPolicy::Settings reconnect;
        int historyLimit = 200;
    };

    // Where a frame ends in this connection's outbound stream: isWritten() says whether it has left the queue.
    struct WriteMark {
        quint64 socket = 0;
        qint64 position = 0;
    };

    // The close code sent when the outbound queue passes its cap (RFC 6455 1013 "try again later").
    static constexpr int kCloseQueueFull = 1013;

    struct HistoryEntry {
        QDateTime when;
        State state = State::Disconnected;
        QString event;       // what happened, for support staff; never the token
        int closeCode = -1;  // WebSocket close code when the event is a closed connection
    };

    explicit BackendConnection(QObject* parent = nullptr);
    ~BackendConnection() override;

    // Take effect on the next connection attempt.
    void setSettings(const Settings& settings);
    void setRandomSource(ReconnectPolicy::RandomSource random);

    // A new URL or token reconnects at once when started (and leaves Error / AuthFailed / SignedOut).
    void setUrl(const QUrl& url);
    void setToken(const QString& token);

    // Connect and stay connected until stop().
    void start();
    void stop();

    State state() const { return m_state; }
    // When the next attempt is due; valid in Reconnecting only.
    QDateTime nextAttemptAt() const { return m_state == State::Reconnecting ? m_nextAttemptAt : QDateTime(); }
    // The user-facing reason of the last failure (Reconnecting, AuthFailed, Error), empty otherwise.
    QString lastError() const { return m_lastError; }
    QList<HistoryEntry> history() const { return m_history; }
    // Attempts made since start(), for diagnostics and tests.
    int attemptCount() const { return m_attemptCount; }

    // Sends one message as a text frame. False when not connected, or when the frame would pass
    // maxPendingWriteBytes (the connection is then closed with 1013 and reconnects): the caller keeps what must
    // not be lost.
    bool send(const QJsonObject& message);
    // The same for a frame already serialised (Protocol's UTF-8 JSON text). Taken by value: a big frame is
    // released as soon as Qt has its own copy.
    bool sendFrame(QByteArray frame);
    // Whether a frame of this size can be sent now without passing maxPendingWriteBytes (always when nothing is
    // queued, so a frame larger than the cap still goes out alone). False when not connected.
    bool hasRoomFor(qint64 frameBytes) const;
    // The end of the last frame sent on the current connection.
    WriteMark writeMark() const { return WriteMark{m_socketSerial, m_queuedBytes}; }
    // True once everything up to the mark has left the socket's queue, or the connection it was sent on is gone.
    bool isWritten(const WriteMark& mark) const;
    // Bytes handed to the socket and not yet written to the network: what a sender that can wait (command
    // output) watches to slow down. 0 when not connected (nothing is queued then: send() refuses).
    qint64 pendingWriteBytes() const;

    // The HTTP status of a refused upgrade, read from QWebSocket's error string (Qt 6.4 exposes nothing better);
    // 0 when there is none.
    static int httpStatusFromHandshakeError(const QString& errorString);
    static QString stateName(State state);
    // Who listens on a loopback port (uids); by default /proc/net/tcp{,6}. A seam for tests.
    void setListenerLookup(std::function<QList<uint>(quint16)> lookup) { m_listenerUids = std::move(lookup); }

Q_SIGNALS:
    void stateChanged(zeus::BackendConnection::State state);
    // Emitted on every (re)connection: the dispatcher sends `hello` then.
    void connected();
    // Every inbound text frame, parsed; a ProtocolError for a bad one (the dispatcher replies with `error`).
    void messageReceived(const zeus::IncomingMessage& message);
    void historyChanged();
    // The socket wrote some of its queue, or the queue was dropped with the connection (then 0).
    void pendingWriteBytesChanged(qint64 pendingBytes);

private:
    void openSocket();
    void onSocketConnected();
    void onSocketDisconnected();
    void onSocketError();
    void onTextMessage(const QString& text);
    void onPingTick();
    void onPongTimeout();
    void onHandshakeTimeout();
    void closeQueueFull(qint64 pendingBytes, qint64 frameBytes);
    // The current attempt or connection is over: clean up and decide what comes next.
    void endAttempt(const QString& reason, int closeCode);
    void releaseSocket();
    void scheduleReconnect();
    // Why not to connect to a ws:// loopback backend: its port is held by another local user (who would get the
    // token and could send commands). Empty when it is this user's, nobody's, or not a loopback URL.
    QString loopbackSquatter() const;
    void setState(State state, const QString& event, int closeCode = -1);
    void record(const QString& event, int closeCode = -1);

    Settings m_settings;
    ReconnectPolicy m_policy;
    QUrl m_url;
    QString m_token;
    bool m_started = false;
    State m_state = State::Disconnected;
    QString m_lastError;
    std::function<QList<uint>(quint16)> m_listenerUids;
    QDateTime m_nextAttemptAt;
    QList<HistoryEntry> m_history;
    int m_attemptCount = 0;

    QPointer<QWebSocket> m_socket;
    quint64 m_socketSerial = 0;  // a new one per socket: marks of an earlier connection are void
    qint64 m_queuedBytes = 0;    // payload bytes handed to the current socket so far
    bool m_socketConnected = false;
    int m_refusedStatus = 0;  // 401/403 seen on the current attempt
    QString m_socketError;
    QElapsedTimer m_connectedFor;
    QTimer m_reconnectTimer;
    QTimer m_pingTimer;
    QTimer m_pongTimer;
    QTimer m_handshakeTimer;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::BackendConnection::HistoryEntry)
