#include "backend/tooldispatcher.h"

#include "backend/backendconnection.h"
#include "backend/protocol.h"
#include "backend/resultjournal.h"
#include "sandbox/sessionmanager.h"
#include "support/logging.h"

#include <algorithm>

namespace zeus {

ToolDispatcher::ToolDispatcher(BackendConnection* connection, QObject* parent)
    : QObject(parent), m_connection(connection) {
    qRegisterMetaType<zeus::ToolResultMessage>();
    Q_ASSERT(connection);
    connect(connection, &BackendConnection::connected, this, &ToolDispatcher::onConnected);
    connect(connection, &BackendConnection::messageReceived, this, &ToolDispatcher::onMessage);
    connect(connection, &BackendConnection::pendingWriteBytesChanged, this, &ToolDispatcher::onPendingWriteBytes);
    connect(&m_secrets, &SecretGate::granted, this, &ToolDispatcher::onToolCall);
    connect(&m_secrets, &SecretGate::refused, this, &ToolDispatcher::onRefused);
    connect(&m_secrets, &SecretGate::cancelled, this, &ToolDispatcher::onCancelledBeforeRun);
    connect(&m_commands, &CommandApprovalGate::released, this, &ToolDispatcher::onToolCall);
    connect(&m_commands, &CommandApprovalGate::waitingForUser, this,
            [this](const QString& callId) { send(Protocol::makeCallState(callId, CallState::WaitingApproval)); });
    connect(&m_commands, &CommandApprovalGate::refused, this, &ToolDispatcher::onRefused);
    connect(&m_commands, &CommandApprovalGate::cancelled, this, &ToolDispatcher::onCancelledBeforeRun);
    connect(&m_commands, &CommandApprovalGate::decided, this, &ToolDispatcher::approvalDecided);
    connect(&m_commands, &CommandApprovalGate::rulesMatched, this, &ToolDispatcher::approvalRulesMatched);
    connect(&m_commands, &CommandApprovalGate::ruleAdded, this, &ToolDispatcher::approvalRuleAdded);
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
    connect(manager, &SessionManager::egressDecided, this, &ToolDispatcher::onEgressDecided);
    connect(manager, &SessionManager::callQueued, this, &ToolDispatcher::onCallQueued);
    connect(manager, &SessionManager::callRunning, this, &ToolDispatcher::onCallRunning);
}

void ToolDispatcher::setClientInfo(const HelloMessage& info) {
    const RuntimeReport runtime = m_client.runtime;
    m_client = info;
    m_client.runtime = runtime;
}

void ToolDispatcher::setApprovedWorkspaces(const QStringList& workspaces) {
    const QStringList revokedNow = m_workspaces.setApproved(workspaces);
    // A revoked approval ends every session on that folder at once (SPEC §3), background jobs included: the
    // containers are removed, not left to the idle timeout.
    for (const QString& revoked : revokedNow) {
        if (m_manager) {
            const int ended = m_manager->endSessionsIn(revoked);
            if (ended > 0) {
                qCInfo(lcBackend).noquote() << "approval of" << revoked << "revoked:" << ended << "sessions ended";
            }
        }
    }
}

void ToolDispatcher::setResultLimits(const ResultStore::Limits& limits) {
    ResultStore store(limits);
    for (const ToolResultMessage& result : m_results.pending()) {
        store.add(result);
    }
    m_results = store;
    compactJournal();
}

void ToolDispatcher::setJournalPath(const QString& path) {
    m_journal = std::make_unique<ResultJournal>(path);
    const ResultJournal::Loaded loaded = m_journal->load();
    for (const QString& problem : loaded.problems) {
        qCWarning(lcBackend).noquote() << "result journal" << path << "damaged:" << problem;
    }
    for (const ToolResultMessage& result : loaded.results) {
        m_results.add(result);
    }
    for (const QString& callId : loaded.interrupted) {
        qCWarning(lcBackend) << "call" << callId << "was running when the app stopped; reported as interrupted";
        m_results.add(ResultJournal::interruptedResult(callId));
    }
    if (!loaded.results.isEmpty() || !loaded.interrupted.isEmpty()) {
        qCInfo(lcBackend) << m_results.size() << "unacknowledged results from the last run kept";
    }
    compactJournal();  // only what is live, damage dropped
}

void ToolDispatcher::compactJournal() {
    if (m_journal && !m_journal->rewrite(m_running.keys(), m_results.pending())) {
        qCWarning(lcBackend).noquote() << "cannot write the result journal" << m_journal->path();
    }
}

void ToolDispatcher::forget(const QString& callId) {
    if (!m_journal) {
        return;
    }
    m_journal->recordForgotten(callId);
    if (m_journal->needsCompaction()) {
        compactJournal();
    }
}

HelloMessage ToolDispatcher::hello() const {
    HelloMessage hello = m_client;
    hello.secrets = m_secrets.knownNames();
    hello.workspaces = activeWorkspaces();
    hello.pending = m_results.pendingIds();
    return hello;
}

void ToolDispatcher::cancelAll() {
    m_commands.endAllWaiting(QStringLiteral("the app is stopping"));
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
    result.redacted = exec.redacted;
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
    // Everything the backend has not acknowledged, oldest first, as the socket takes it; it acks what it
    // already had.
    m_inFlight.clear();
    m_unsent = m_results.pendingIds();
    pumpResults();
    if (m_manager) {
        const QStringList sessions = m_manager->sessionIds();
        for (const QString& sessionId : sessions) {
            if (!m_backendSessions.contains(sessionId)) {
                continue;  // the local console's, or gone: not the backend's business
            }
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

bool ToolDispatcher::isLocalSessionId(const QString& sessionId) {
    return sessionId.startsWith(localSessionPrefix(), Qt::CaseInsensitive);
}

QString ToolDispatcher::namespaceProblem(const char* field, const QString& id) const {
    const QString name = QLatin1String(field);
    if (m_idNamespace.isEmpty()) {
        return isLocalSessionId(id)
                   ? QStringLiteral("%1 must not start with \"%2\": those %3 belong to this computer")
                         .arg(name, localSessionPrefix(),
                              name == QLatin1String("call_id") ? QStringLiteral("calls") : QStringLiteral("sessions"))
                   : QString();
    }
    return id.startsWith(m_idNamespace) ? QString()
                                        : QStringLiteral("%1 must start with \"%2\" here").arg(name, m_idNamespace);
}

void ToolDispatcher::onToolCall(const ToolCallMessage& call) {
    QString problem = namespaceProblem("session_id", call.sessionId);
    if (problem.isEmpty()) {
        problem = namespaceProblem("call_id", call.callId);
    }
    if (!problem.isEmpty()) {
        qCWarning(lcBackend).noquote() << "call" << call.callId << "refused:" << problem;
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage, problem, call.callId));
        return;
    }
    if (m_running.contains(call.callId) || (m_commands.isWaiting(call.callId) && !m_commands.isReleased(call.callId))) {
        qCInfo(lcBackend) << "call" << call.callId << "is already running or waiting for approval; not run again";
        return;
    }
    if (m_results.contains(call.callId)) {
        const auto copy = m_inFlight.constFind(call.callId);
        const bool waiting = m_unsent.contains(call.callId)
                             || (copy != m_inFlight.cend() && m_connection && !m_connection->isWritten(*copy));
        if (waiting) {
            // A backend that repeats the call without reading must not make us queue the result again and again.
            ++m_repeatsAbsorbed;
            qCDebug(lcBackend) << "call" << call.callId << "already finished; its result is still on its way";
            return;
        }
        qCInfo(lcBackend) << "call" << call.callId << "already finished; result sent again";
        queueResult(call.callId);
        return;
    }
    if (m_results.wasAcknowledged(call.callId)) {
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage,
                                 QStringLiteral("this call_id already ran and its result was acknowledged"),
                                 call.callId));
        return;
    }
    const WorkspaceGate::Check check = m_workspaces.check(call.workingDirectory);
    if (const std::optional<WorkspaceGate::Refusal> refused = m_workspaces.refusalFor(call.callId, check)) {
        finish(refusal(call.callId, refused->code, refused->message));
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
    if (m_secrets.mustAsk(call)) {
        m_secrets.ask(call, check.approved);
        return;
    }
    if (!m_commands.passes(call, check.approved)) {
        return;
    }
    ExecRequest request;
    request.callId = call.callId;
    request.sessionId = call.sessionId;
    request.workspace = check.approved;  // the approval's string, never the backend's spelling
    request.command = call.command;
    request.timeoutSeconds = call.timeoutMs ? int((*call.timeoutMs + 999) / 1000) : 0;
    request.secrets = m_secrets.take(call.callId);
    m_running.insert(call.callId, RunningCall{call.sessionId, 0});
    m_backendSessions.insert(call.sessionId);
    if (m_journal && !m_journal->recordStarted(call.callId)) {
        qCWarning(lcBackend).noquote() << "cannot write the result journal" << m_journal->path();
    }
    Q_EMIT callStarted(call.callId, call.sessionId, call.command, request.workspace);
    m_manager->execute(request);
}

void ToolDispatcher::onCancel(const CancelMessage& cancel) {
    if (m_commands.isWaiting(cancel.callId)) {
        m_commands.endWaiting(cancel.callId, QStringLiteral("cancelled by the backend while waiting for approval"));
        return;
    }
    if (m_secrets.cancel(cancel.callId)) {
        return;  // its answer ends the call as cancelled
    }
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
    // Checked first: the secret broker is shared with the other dispatcher, so ending another namespace's
    // session there would withdraw its questions.
    if (const QString problem = namespaceProblem("session_id", end.sessionId); !problem.isEmpty()) {
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage, problem));
        return;
    }
    m_commands.endWaitingInSession(end.sessionId, QStringLiteral("its session ended while it waited for approval"));
    m_secrets.endSession(end.sessionId);
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
    m_inFlight.remove(ack.callId);
    m_unsent.removeAll(ack.callId);
    if (m_results.acknowledge(ack.callId)) {
        forget(ack.callId);
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
    pumpResults();
}

void ToolDispatcher::queueResult(const QString& callId) {
    if (!m_unsent.contains(callId)) {
        m_unsent.append(callId);
    }
    pumpResults();
}

void ToolDispatcher::pumpResults() {
    while (!m_unsent.isEmpty() && m_connection && m_connection->state() == BackendConnection::State::Connected) {
        const QString callId = m_unsent.constFirst();
        if (m_nextFrameId != callId || m_nextFrame.isEmpty()) {
            const std::optional<ToolResultMessage> kept = m_results.result(callId);
            if (!kept) {
                m_unsent.removeFirst();  // acknowledged or dropped meanwhile
                continue;
            }
            m_nextFrame = Protocol::toolResultFrame(*kept);
            m_nextFrameId = callId;
        }
        if (!m_connection->hasRoomFor(m_nextFrame.size())) {
            return;  // the socket's bytesWritten brings us back
        }
        QByteArray frame;
        frame.swap(m_nextFrame);
        m_unsent.removeFirst();
        if (!sendFrame(std::move(frame))) {
            return;  // the connection ended; the next one sends the whole store again
        }
        m_inFlight.insert(callId, m_connection->writeMark());
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
    if (m_journal && !m_journal->recordResult(result)) {
        qCWarning(lcBackend).noquote() << "cannot write the result journal" << m_journal->path();
    }
    for (const QString& id : dropped) {
        m_unsent.removeAll(id);
        m_inFlight.remove(id);
        forget(id);
    }
    queueResult(result.callId);
    if (m_unsent.contains(result.callId)) {
        qCInfo(lcBackend) << "call" << result.callId << "result kept until the backend can take it";
    }
    Q_EMIT callFinished(result);
}

void ToolDispatcher::onEgressDecided(const EgressEvent& event) {
    if ((event.allowed && !event.tlsUntrusted) || !m_backendSessions.contains(event.sessionId)) {
        return;  // only denials and refused certificates, and never the local console's
    }
    // The tunnel does not say which command opened it: the call is named when it is the session's only one.
    QString callId;
    int calls = 0;
    for (auto it = m_running.cbegin(); it != m_running.cend(); ++it) {
        if (it->sessionId == event.sessionId) {
            callId = it.key();
            calls++;
        }
    }
    send(Protocol::makeNetworkEvent(event.sessionId, calls == 1 ? callId : QString(), event.host, event.port,
                                    event.decisionWord(), event.rule));
}

void ToolDispatcher::onSessionStateChanged(const QString& sessionId, SessionState state, const QString& containerId) {
    if (!m_backendSessions.contains(sessionId)) {
        return;  // the local console's (or an ended one's): never reported to the backend
    }
    if (state == SessionState::Stopped) {
        m_backendSessions.remove(sessionId);  // its last word; a new call starts it again
    }
    send(Protocol::makeSessionState(sessionId, state, containerId));
}

void ToolDispatcher::onRefused(const QString& callId, ProtocolErrorCode code, const QString& message) {
    finish(refusal(callId, code, message));
}

void ToolDispatcher::onCancelledBeforeRun(const QString& callId) {
    ToolResultMessage result;
    result.callId = callId;
    result.status = ExecStatus::Cancelled;
    finish(result);
}

}  // namespace zeus
