#include "backend/tooldispatcher.h"

#include "backend/backendconnection.h"
#include "backend/protocol.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "support/logging.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace zeus {

ToolDispatcher::ToolDispatcher(BackendConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection) {
    qRegisterMetaType<zeus::ToolResultMessage>();
    Q_ASSERT(connection);
    connect(connection, &BackendConnection::connected, this, &ToolDispatcher::onConnected);
    connect(connection, &BackendConnection::messageReceived, this, &ToolDispatcher::onMessage);
    connect(connection, &BackendConnection::pendingWriteBytesChanged, this, &ToolDispatcher::onPendingWriteBytes);
}

ToolDispatcher::~ToolDispatcher() = default;

void ToolDispatcher::setSessionManager(SessionManager* manager) {
    if (m_manager) {
        m_manager->disconnect(this);
    }
    m_manager = manager;
    if (!manager) {
        return;
    }
    connect(manager, &SessionManager::outputUtf8, this, &ToolDispatcher::onOutput);
    connect(manager, &SessionManager::callFinished, this, &ToolDispatcher::onExecFinished);
    connect(manager, &SessionManager::sessionStateChanged, this, &ToolDispatcher::onSessionStateChanged);
}

void ToolDispatcher::setClientInfo(const HelloMessage& info) {
    const RuntimeReport runtime = m_client.runtime;
    m_client = info;
    m_client.runtime = runtime;
}

void ToolDispatcher::setRuntimeReport(const RuntimeReport& runtime) {
    m_client.runtime = runtime;
}

void ToolDispatcher::setApprovedWorkspaces(const QStringList& workspaces) {
    m_approved.clear();
    m_approvedSpellings.clear();
    for (const QString& path : workspaces) {
        if (!path.isEmpty()) {
            m_approvedSpellings.append(QDir::cleanPath(path));
        }
        const QString canonical = canonicalFolder(path);
        if (!canonical.isEmpty() && !m_approved.contains(canonical)) {
            m_approved.append(canonical);
        }
    }
}

void ToolDispatcher::setResultLimits(const ResultStore::Limits& limits) {
    ResultStore store(limits);
    for (const ToolResultMessage& result : m_results.pending()) {
        store.add(result);
    }
    m_results = store;
}

HelloMessage ToolDispatcher::hello() const {
    HelloMessage hello = m_client;
    hello.workspaces = m_approved;
    hello.pending = m_results.pendingIds();
    return hello;
}

void ToolDispatcher::cancelAll() {
    if (m_running.isEmpty()) {
        Q_EMIT idle();
        return;
    }
    const QStringList ids = m_running.keys();
    for (const QString& id : ids) {
        if (m_manager) {
            m_manager->cancel(id);
        }
    }
}

ToolResultMessage ToolDispatcher::refusal(const QString& callId, ProtocolErrorCode code, const QString& message) {
    ToolResultMessage result;
    result.callId = callId;
    result.status = ExecStatus::Error;
    result.errorCode = code;
    result.errorMessage = message;
    return result;
}

ToolResultMessage ToolDispatcher::toResultMessage(const ExecResult& exec) {
    ToolResultMessage result;
    result.callId = exec.callId;
    result.status = exec.status;
    result.exitCode = exec.exitCode;
    result.output = exec.output;
    result.truncated = exec.truncated;
    result.durationMs = exec.durationMs;
    if (result.status == ExecStatus::Error) {
        result.errorCode = protocolErrorFor(exec.errorCode);
        result.errorMessage = exec.errorMessage;
    }
    return result;
}

ProtocolErrorCode ToolDispatcher::protocolErrorFor(ExecError error) {
    // No default: a new ExecError must be given its protocol code here, never fall into another one.
    switch (error) {
        case ExecError::WorkspaceInvalid:
            return ProtocolErrorCode::WorkspaceInvalid;
        case ExecError::ImageMissing:
            return ProtocolErrorCode::ImageMissing;
        case ExecError::Busy:
            return ProtocolErrorCode::Busy;
        case ExecError::NoRuntime:
            return ProtocolErrorCode::NoRuntime;
        case ExecError::ContainerFailed:
        case ExecError::None:
            // None: an Error status without a code; execution failed in a way it did not name,
            // and the container is what failed under the call.
            return ProtocolErrorCode::ContainerFailed;
    }
    return ProtocolErrorCode::ContainerFailed;  // not reached: the switch handles every value
}

QString ToolDispatcher::canonicalFolder(const QString& path) {
    if (path.isEmpty()) {
        return {};
    }
    const QFileInfo info(path);
    if (!info.isAbsolute() || !info.isDir()) {
        return {};
    }
    return QDir::cleanPath(info.canonicalFilePath());
}

ToolDispatcher::Approval ToolDispatcher::approvalOf(const QString& workingDirectory) const {
    const Qt::CaseSensitivity cs =
        WorkspaceGuard::hostEnvironment().caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    const QString canonical = canonicalFolder(workingDirectory);
    if (!canonical.isEmpty()) {
        for (const QString& approved : m_approved) {
            if (canonical.compare(approved, cs) == 0) {
                return Approval::Approved;
            }
        }
        return Approval::NotApproved;
    }
    // Nothing to resolve: the folder is gone. Said as such only for the exact (cleaned) spelling of an approval,
    // or of what it resolved to when it was loaded; never for a path the user did not approve.
    if (workingDirectory.isEmpty() || !QFileInfo(workingDirectory).isAbsolute()) {
        return Approval::NotApproved;
    }
    const QString cleaned = QDir::cleanPath(workingDirectory);
    const auto same = [&cleaned, cs](const QString& approved) { return cleaned.compare(approved, cs) == 0; };
    if (std::any_of(m_approved.cbegin(), m_approved.cend(), same)
        || std::any_of(m_approvedSpellings.cbegin(), m_approvedSpellings.cend(), same)) {
        return Approval::Gone;
    }
    return Approval::NotApproved;
}

bool ToolDispatcher::send(const QJsonObject& message) {
    return m_connection && m_connection->send(message);
}

bool ToolDispatcher::sendFrame(QByteArray frame) {
    return m_connection && m_connection->sendFrame(std::move(frame));
}

void ToolDispatcher::onConnected() {
    const HelloMessage message = hello();
    send(Protocol::makeHello(message));
    qCInfo(lcBackend) << "hello sent;" << message.pending.size() << "results pending";
    // Everything the backend has not acknowledged, oldest first; it acks what it already had.
    for (const ToolResultMessage& result : m_results.pending()) {
        sendFrame(Protocol::toolResultFrame(result));
    }
    if (m_manager) {
        const QStringList sessions = m_manager->sessionIds();
        for (const QString& sessionId : sessions) {
            send(Protocol::makeSessionState(sessionId, m_manager->sessionState(sessionId),
                                            m_manager->containerId(sessionId)));
        }
    }
}

void ToolDispatcher::onMessage(const IncomingMessage& message) {
    if (const auto* error = std::get_if<ProtocolError>(&message)) {
        qCWarning(lcBackend).noquote() << "bad message from the backend:" << Protocol::errorCodeName(error->code)
                                       << error->message;
        send(Protocol::makeError(*error));
    } else if (const auto* welcome = std::get_if<WelcomeMessage>(&message)) {
        qCInfo(lcBackend).noquote() << "welcome from" << welcome->server;
    } else if (const auto* call = std::get_if<ToolCallMessage>(&message)) {
        onToolCall(*call);
    } else if (const auto* cancel = std::get_if<CancelMessage>(&message)) {
        onCancel(*cancel);
    } else if (const auto* end = std::get_if<SessionEndMessage>(&message)) {
        onSessionEnd(*end);
    } else if (const auto* ack = std::get_if<AckMessage>(&message)) {
        onAck(*ack);
    }
}

void ToolDispatcher::onToolCall(const ToolCallMessage& call) {
    if (m_running.contains(call.callId)) {
        qCInfo(lcBackend) << "call" << call.callId << "is already running; not run again";
        return;
    }
    if (const std::optional<ToolResultMessage> kept = m_results.result(call.callId)) {
        qCInfo(lcBackend) << "call" << call.callId << "already finished; result sent again";
        sendFrame(Protocol::toolResultFrame(*kept));
        return;
    }
    if (m_results.wasAcknowledged(call.callId)) {
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage,
                                 QStringLiteral("this call_id already ran and its result was acknowledged"),
                                 call.callId));
        return;
    }
    const Approval approval = approvalOf(call.workingDirectory);
    if (approval == Approval::Gone) {
        qCWarning(lcBackend) << "call" << call.callId << "refused: the approved folder no longer exists";
        finish(refusal(call.callId, ProtocolErrorCode::WorkspaceInvalid,
                       tr("The approved folder %1 no longer exists on this computer (deleted, moved or replaced by a "
                          "file). Restore it, or approve another folder in Zeus Desktop.")
                           .arg(QDir::cleanPath(call.workingDirectory))));
        return;
    }
    if (approval != Approval::Approved) {
        qCWarning(lcBackend) << "call" << call.callId << "refused: working directory not approved";
        finish(
            refusal(call.callId, ProtocolErrorCode::WorkspaceNotApproved,
                    QStringLiteral("The working directory is not one the user approved in Zeus Desktop. "
                                   "Approved: %1")
                        .arg(m_approved.isEmpty() ? QStringLiteral("none") : m_approved.join(QStringLiteral(", ")))));
        return;
    }
    if (!m_manager) {
        // The runtime report says why in the words of the detection (SandboxSetup::runtimeReport
        // always gives a reason); without a report the detection has not finished yet.
        const QString reason = m_client.runtime.reason.isEmpty()
                                   ? QStringLiteral("The container runtime is still being checked; try again shortly.")
                                   : m_client.runtime.reason;
        finish(refusal(call.callId, ProtocolErrorCode::NoRuntime, reason));
        return;
    }
    ExecRequest request;
    request.callId = call.callId;
    request.sessionId = call.sessionId;
    request.workspace = canonicalFolder(call.workingDirectory);
    request.command = call.command;
    request.timeoutSeconds = call.timeoutMs ? int((*call.timeoutMs + 999) / 1000) : 0;
    m_running.insert(call.callId, RunningCall{call.sessionId, 0});
    Q_EMIT callStarted(call.callId, call.sessionId, call.command, request.workspace);
    m_manager->execute(request);
}

void ToolDispatcher::onCancel(const CancelMessage& cancel) {
    if (m_running.contains(cancel.callId)) {
        qCInfo(lcBackend) << "cancel of call" << cancel.callId;
        if (m_manager) {
            m_manager->cancel(cancel.callId);
        }
        return;
    }
    if (m_results.contains(cancel.callId) || m_results.wasAcknowledged(cancel.callId)) {
        return;  // finished before the cancel arrived: its result says how it ended
    }
    send(Protocol::makeError(ProtocolErrorCode::InvalidMessage, QStringLiteral("no call with this call_id is running"),
                             cancel.callId));
}

void ToolDispatcher::onSessionEnd(const SessionEndMessage& end) {
    qCInfo(lcBackend) << "session_end" << end.sessionId;
    if (m_manager && m_manager->sessionIds().contains(end.sessionId)
        && m_manager->sessionState(end.sessionId) != SessionState::Stopped) {
        m_manager->endSession(end.sessionId);  // session_state follows from the manager
        return;
    }
    if (m_manager) {
        m_manager->endSession(end.sessionId);
    }
    // Nothing was running: confirm at once, so the backend always hears back.
    send(Protocol::makeSessionState(end.sessionId, SessionState::Stopped, QString()));
}

void ToolDispatcher::onAck(const AckMessage& ack) {
    if (m_results.acknowledge(ack.callId)) {
        Q_EMIT resultAcknowledged(ack.callId);
    }
}

void ToolDispatcher::onOutput(const QString& callId, OutputStream stream, const QByteArray& utf8) {
    const auto it = m_running.find(callId);
    if (it == m_running.end()) {
        return;  // not a backend call (the local console)
    }
    const qint64 seq = it->nextSeq++;
    if (!sendFrame(Protocol::toolOutputFrame(callId, stream, seq, utf8))) {
        ++m_droppedChunks;
        return;
    }
    if (m_outputPaused) {
        // A call that started while paused, or a chunk read before the pause took effect.
        if (m_manager) {
            m_manager->setOutputPaused(callId, true);
        }
    } else if (m_connection && m_connection->pendingWriteBytes() > m_flow.pauseAboveBytes) {
        setOutputPaused(true);
    }
}

void ToolDispatcher::onPendingWriteBytes(qint64 pendingBytes) {
    if (m_outputPaused && pendingBytes <= m_flow.resumeBelowBytes) {
        setOutputPaused(false);
    }
}

void ToolDispatcher::setOutputPaused(bool paused) {
    m_outputPaused = paused;
    if (paused) {
        ++m_pauses;
    }
    qCDebug(lcBackend) << (paused ? "output paused:" : "output resumed:")
                       << (m_connection ? m_connection->pendingWriteBytes() : 0) << "bytes wait in the socket";
    if (!m_manager) {
        return;
    }
    for (auto it = m_running.cbegin(); it != m_running.cend(); ++it) {
        m_manager->setOutputPaused(it.key(), paused);
    }
}

void ToolDispatcher::onExecFinished(const ExecResult& exec) {
    if (m_running.remove(exec.callId) == 0) {
        return;
    }
    finish(toResultMessage(exec));
    if (m_running.isEmpty()) {
        Q_EMIT idle();
    }
}

void ToolDispatcher::finish(const ToolResultMessage& result) {
    const QStringList dropped = m_results.add(result);
    for (const QString& id : dropped) {
        qCWarning(lcBackend) << "result of call" << id << "dropped unacknowledged: more than"
                             << m_results.limits().maxResults << "results or" << m_results.limits().maxBytes
                             << "bytes are kept";
    }
    qCInfo(lcBackend).noquote() << "call" << result.callId << "finished:" << execStatusName(result.status)
                                << (result.exitCode ? QString::number(*result.exitCode) : QStringLiteral("-"));
    if (!sendFrame(Protocol::toolResultFrame(result))) {
        qCInfo(lcBackend) << "call" << result.callId << "result kept until the backend reconnects";
    }
    Q_EMIT callFinished(result);
}

void ToolDispatcher::onSessionStateChanged(const QString& sessionId, SessionState state, const QString& containerId) {
    send(Protocol::makeSessionState(sessionId, state, containerId));
}

}  // namespace zeus
