#include "backend/backendconnection.h"

#include "backend/backendurl.h"
#include "backend/loopbackowner.h"
#include "backend/protocol.h"
#include "support/logging.h"
#include "support/vocabulary.h"

#include <QHostAddress>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QSslError>
#include <QWebSocket>

namespace zeus {

BackendConnection::BackendConnection(QObject* parent) : QObject(parent), m_policy(m_settings.reconnect) {
    qRegisterMetaType<IncomingMessage>();
    qRegisterMetaType<HistoryEntry>();
    m_reconnectTimer.setSingleShot(true);
    m_pongTimer.setSingleShot(true);
    m_handshakeTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &BackendConnection::openSocket);
    connect(&m_pingTimer, &QTimer::timeout, this, &BackendConnection::onPingTick);
    connect(&m_pongTimer, &QTimer::timeout, this, &BackendConnection::onPongTimeout);
    connect(&m_handshakeTimer, &QTimer::timeout, this, &BackendConnection::onHandshakeTimeout);
}

BackendConnection::~BackendConnection() {
    releaseSocket();
}

void BackendConnection::setSettings(const Settings& settings) {
    m_settings = settings;
    m_policy = ReconnectPolicy(settings.reconnect);
}

void BackendConnection::setRandomSource(ReconnectPolicy::RandomSource random) {
    m_policy = ReconnectPolicy(m_settings.reconnect, std::move(random));
}

void BackendConnection::setUrl(const QUrl& url) {
    if (url == m_url) {
        return;
    }
    m_url = url;
    if (m_started) {
        record(QStringLiteral("backend URL changed"));
        releaseSocket();
        m_policy.reset();
        openSocket();
    }
}

void BackendConnection::setToken(const QString& token) {
    if (token == m_token) {
        return;
    }
    m_token = token;
    if (m_started) {
        record(token.isEmpty() ? QStringLiteral("signed out") : QStringLiteral("sign-in token changed"));
        releaseSocket();
        m_policy.reset();
        openSocket();
    }
}

void BackendConnection::start() {
    if (m_started) {
        return;
    }
    m_started = true;
    m_attemptCount = 0;
    m_policy.reset();
    openSocket();
}

void BackendConnection::stop() {
    if (!m_started && m_state == State::Disconnected) {
        return;
    }
    m_started = false;
    releaseSocket();
    m_lastError.clear();
    setState(State::Disconnected, QStringLiteral("disconnected by the user"));
}

bool BackendConnection::send(const QJsonObject& message) {
    if (m_state != State::Connected || !m_socket) {
        return false;
    }
    return sendFrame(Protocol::toFrame(message));
}

bool BackendConnection::sendFrame(QByteArray frame) {
    if (m_state != State::Connected || !m_socket) {
        return false;
    }
    const qsizetype size = frame.size();
    if (!hasRoomFor(size)) {
        closeQueueFull(pendingWriteBytes(), size);
        return false;
    }
    // Qt 6.4 only sends text frames from a QString (it converts back to UTF-8 inside); there is no byte overload.
    QString text = QString::fromUtf8(frame);
    frame = QByteArray();
    if (m_socket->sendTextMessage(text) != size) {
        return false;
    }
    m_queuedBytes += size;
    return true;
}

bool BackendConnection::hasRoomFor(qint64 frameBytes) const {
    if (m_state != State::Connected || !m_socket) {
        return false;
    }
    const qint64 pending = pendingWriteBytes();
    return pending == 0 || pending + frameBytes <= m_settings.maxPendingWriteBytes;
}

bool BackendConnection::isWritten(const WriteMark& mark) const {
    if (mark.socket != m_socketSerial || !m_socket || !m_socketConnected) {
        return true;  // that connection is gone, and its queue with it
    }
    // The queue is FIFO: the frame has left once no more bytes wait than were queued after it. Frame headers
    // are not in m_queuedBytes, so this errs on the side of "still queued".
    return pendingWriteBytes() <= m_queuedBytes - mark.position;
}

void BackendConnection::closeQueueFull(qint64 pendingBytes, qint64 frameBytes) {
    const QString reason = tr("%1 bytes wait to be sent and %2 more would pass the limit of %3: the backend is not "
                              "reading; closing (1013) and reconnecting")
                               .arg(pendingBytes)
                               .arg(frameBytes)
                               .arg(m_settings.maxPendingWriteBytes);
    qCWarning(lcBackend).noquote() << reason;
    if (m_socket) {
        // Best effort: a backend that reads nothing never sees this frame; the abort that follows ends it anyway.
        m_socket->close(QWebSocketProtocol::CloseCode(kCloseQueueFull), QStringLiteral("outbound queue full"));
    }
    endAttempt(reason, kCloseQueueFull);
}

qint64 BackendConnection::pendingWriteBytes() const {
    if (!m_socket || !m_socketConnected) {
        return 0;
    }
    return m_socket->bytesToWrite();
}

int BackendConnection::httpStatusFromHandshakeError(const QString& errorString) {
    static const QRegularExpression status(QStringLiteral("status code: (\\d{3})\\b"));
    const QRegularExpressionMatch match = status.match(errorString);
    return match.hasMatch() ? match.captured(1).toInt() : 0;
}

QString BackendConnection::stateName(State state) {
    switch (state) {
        case State::Disconnected:
            return tr("Disconnected");
        case State::SignedOut:
            return tr("Signed out");
        case State::Connecting:
            return tr("Connecting…");
        case State::Connected:
            return tr("Connected");
        case State::Reconnecting:
            return tr("Reconnecting");
        case State::AuthFailed:
            return tr("Sign-in rejected");
        case State::Error:
            return tr("Error");
    }
    return {};
}

void BackendConnection::openSocket() {
    m_reconnectTimer.stop();
    if (!m_started) {
        return;
    }
    if (m_token.isEmpty()) {
        m_lastError.clear();
        setState(State::SignedOut, QStringLiteral("no sign-in token"));
        return;
    }
    if (const QString problem = BackendUrl::problem(m_url); !problem.isEmpty()) {
        m_lastError = problem;
        setState(State::Error, QStringLiteral("refused URL: ") + problem);
        return;
    }
    if (const QString squatter = loopbackSquatter(); !squatter.isEmpty()) {
        // Never connect: the token would go to that user. Tried again later (the real backend may start then).
        ++m_attemptCount;
        qCWarning(lcBackend).noquote() << squatter;
        record(squatter);
        m_lastError = squatter;
        scheduleReconnect();
        return;
    }

    releaseSocket();
    auto* socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
    m_socket = socket;
    ++m_socketSerial;
    m_queuedBytes = 0;
    m_socketConnected = false;
    m_refusedStatus = 0;
    m_socketError.clear();
    const auto limit = static_cast<quint64>(qMax<qint64>(1, m_settings.maxIncomingMessageBytes));
    // Over the limit Qt closes with 1009 as soon as the frame header announces the size, before buffering it.
    socket->setMaxAllowedIncomingMessageSize(limit);
    socket->setMaxAllowedIncomingFrameSize(limit);

    connect(socket, &QWebSocket::connected, this, &BackendConnection::onSocketConnected);
    connect(socket, &QWebSocket::disconnected, this, &BackendConnection::onSocketDisconnected);
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    connect(socket, &QWebSocket::errorOccurred, this, &BackendConnection::onSocketError);
#else
    connect(socket, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), this,
            &BackendConnection::onSocketError);
#endif
    connect(socket, &QWebSocket::textMessageReceived, this, &BackendConnection::onTextMessage);
    connect(socket, &QWebSocket::binaryMessageReceived, this, [this](const QByteArray&) {
        Q_EMIT messageReceived(ProtocolError{ProtocolErrorCode::InvalidMessage,
                                             QStringLiteral("binary frames are not supported; send JSON text frames"),
                                             {}});
    });
    connect(socket, &QWebSocket::bytesWritten, this, [this] {
        if (sender() == m_socket) {
            Q_EMIT pendingWriteBytesChanged(pendingWriteBytes());
        }
    });
    connect(socket, &QWebSocket::pong, this, [this](quint64, const QByteArray&) { m_pongTimer.stop(); });
    connect(socket, &QWebSocket::sslErrors, this, [this](const QList<QSslError>& errors) {
        // Never ignored: Qt aborts the handshake after this signal, and the attempt ends as a failure.
        QStringList texts;
        for (const QSslError& error : errors) {
            texts.append(error.errorString());
        }
        m_socketError = tr("TLS error: %1").arg(texts.join(QStringLiteral("; ")));
        record(m_socketError);
    });

    ++m_attemptCount;
    QNetworkRequest request(m_url);
    request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    setState(State::Connecting, QStringLiteral("connecting to %1 (attempt %2)")
                                    .arg(m_url.toString(QUrl::RemoveUserInfo | QUrl::RemoveQuery))
                                    .arg(m_attemptCount));
    m_handshakeTimer.start(static_cast<int>(m_settings.handshakeTimeoutMs));
    socket->open(request);
}

QString BackendConnection::loopbackSquatter() const {
    if (m_url.scheme() != QLatin1String("ws") || !BackendUrl::isLoopbackHost(m_url.host())) {
        return {};
    }
    const std::optional<uint> self = LoopbackOwner::currentUid();
    if (!self) {
        return {};
    }
    const auto port = static_cast<quint16>(m_url.port(80));
    const QList<uint> owners = m_listenerUids ? m_listenerUids(port) : LoopbackOwner::hostListenerUids(port);
    for (const uint owner : owners) {
        if (owner != *self) {
            return tr("Port %1 on this computer is held by another user (uid %2), not by the backend you run: Zeus "
                      "Desktop does not connect, so that user gets neither your token nor a way to send commands. "
                      "Stop that program or choose another port.")
                .arg(port)
                .arg(owner);
        }
    }
    return {};
}

void BackendConnection::onSocketConnected() {
    if (sender() != m_socket) {
        return;
    }
    m_handshakeTimer.stop();
    m_socketConnected = true;
    m_connectedFor.start();
    m_lastError.clear();
    m_pingTimer.start(static_cast<int>(m_settings.pingIntervalMs));
    setState(State::Connected, QStringLiteral("connected"));
    Q_EMIT connected();
}

void BackendConnection::onSocketError() {
    auto* socket = qobject_cast<QWebSocket*>(sender());
    if (!socket || socket != m_socket) {
        return;
    }
    const QString text = socket->errorString();
    if (const int status = httpStatusFromHandshakeError(text); status == 401 || status == 403) {
        m_refusedStatus = status;
    }
    if (m_socketError.isEmpty()) {
        m_socketError = text;
    }
    // Qt usually follows with disconnected(); if the socket is already down and says nothing more, end here.
    QTimer::singleShot(0, this, [this, guard = QPointer<QWebSocket>(socket)] {
        if (guard && guard == m_socket && guard->state() == QAbstractSocket::UnconnectedState) {
            endAttempt(m_socketError, -1);
        }
    });
}

void BackendConnection::onSocketDisconnected() {
    auto* socket = qobject_cast<QWebSocket*>(sender());
    if (!socket || socket != m_socket) {
        return;
    }
    const int closeCode = m_socketConnected ? int(socket->closeCode()) : -1;
    QString reason;
    if (m_socketConnected) {
        reason = tr("connection closed (code %1)").arg(closeCode);
        if (!socket->closeReason().isEmpty()) {
            reason += QStringLiteral(": ") + socket->closeReason();
        }
    } else {
        reason = m_socketError.isEmpty() ? tr("connection failed") : m_socketError;
    }
    endAttempt(reason, closeCode);
}

void BackendConnection::onTextMessage(const QString& text) {
    if (sender() != m_socket) {
        return;
    }
    Q_EMIT messageReceived(Protocol::parseIncoming(text.toUtf8()));
}

void BackendConnection::onPingTick() {
    if (!m_socket || !m_socketConnected) {
        return;
    }
    m_socket->ping();
    // One deadline per outstanding ping series: a later ping does not push it back.
    if (!m_pongTimer.isActive()) {
        m_pongTimer.start(static_cast<int>(m_settings.pongTimeoutMs));
    }
}

void BackendConnection::onPongTimeout() {
    if (!m_socket) {
        return;
    }
    endAttempt(tr("no answer to ping within %1 ms: connection is dead").arg(m_settings.pongTimeoutMs), -1);
}

void BackendConnection::onHandshakeTimeout() {
    if (!m_socket || m_socketConnected) {
        return;
    }
    endAttempt(tr("no answer from the backend within %1 ms").arg(m_settings.handshakeTimeoutMs), -1);
}

void BackendConnection::endAttempt(const QString& reason, int closeCode) {
    const bool wasConnected = m_socketConnected;
    const int refused = m_refusedStatus;
    releaseSocket();
    if (wasConnected) {
        m_policy.connectionEnded(m_connectedFor.elapsed());
    }
    qCInfo(lcBackend).noquote() << "connection ended:" << reason;
    record(reason, closeCode);

    if (!m_started) {
        setState(State::Disconnected, QStringLiteral("stopped"));
        return;
    }
    if (refused) {
        m_lastError = tr("The backend refused the sign-in token (HTTP %1). Sign in again.").arg(refused);
        setState(State::AuthFailed,
                 QStringLiteral("upgrade refused with HTTP %1; waiting for a new token").arg(refused));
        return;
    }
    m_lastError = reason;
    scheduleReconnect();
}

void BackendConnection::scheduleReconnect() {
    const qint64 delay = m_policy.nextDelayMs();
    m_nextAttemptAt = QDateTime::currentDateTime().addMSecs(delay);
    m_reconnectTimer.start(static_cast<int>(delay));
    setState(State::Reconnecting, QStringLiteral("next attempt in %1 ms").arg(delay));
}

void BackendConnection::releaseSocket() {
    m_handshakeTimer.stop();
    m_pingTimer.stop();
    m_pongTimer.stop();
    m_reconnectTimer.stop();
    const bool hadSocket = m_socket;
    m_socketConnected = false;
    if (QWebSocket* socket = m_socket) {
        m_socket = nullptr;
        socket->disconnect(this);
        socket->abort();
        socket->deleteLater();
    }
    if (hadSocket) {
        Q_EMIT pendingWriteBytesChanged(0);  // whatever was queued is gone: nobody waits for it any more
    }
}

void BackendConnection::setState(State state, const QString& event, int closeCode) {
    if (state == m_state && state != State::Reconnecting) {
        return;
    }
    m_state = state;
    // The state's stable word, not its translated name: the log is read by support staff in any language.
    qCInfo(lcBackend).noquote() << "state" << wordOf(state) << "-" << event;
    record(event, closeCode);
    Q_EMIT stateChanged(state);
}

void BackendConnection::record(const QString& event, int closeCode) {
    m_history.append(HistoryEntry{QDateTime::currentDateTime(), m_state, event, closeCode});
    const int limit = qMax(1, m_settings.historyLimit);
    if (m_history.size() > limit) {
        m_history.erase(m_history.begin(), m_history.begin() + (m_history.size() - limit));
    }
    Q_EMIT historyChanged();
}

}  // namespace zeus
