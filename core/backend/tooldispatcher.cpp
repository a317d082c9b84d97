#include "backend/tooldispatcher.h"

#include "approval/approvalqueue.h"
#include "approval/commandanalyser.h"
#include "backend/backendconnection.h"
#include "backend/protocol.h"
#include "backend/resultjournal.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "support/logging.h"

#include <QDir>

#include <algorithm>

namespace zeus {

namespace {

constexpr int kApprovalHistoryLimit = 200;

}  // namespace

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
    // Strings only: resolving them here would turn an approval whose component was swapped for a symlink into an
    // approval of the symlink's target (issue: a nested approval became ~/.local/bin after a restart).
    const QStringList before = m_approved;
    m_approved.clear();
    for (const QString& path : workspaces) {
        const QString lexical = WorkspaceApproval::lexicalForm(path);
        if (!lexical.isEmpty() && !m_approved.contains(lexical)) {
            m_approved.append(lexical);
        }
    }
    // A revoked approval ends every session on that folder at once (SPEC §3), background jobs included: the
    // containers are removed, not left to the idle timeout.
    for (const QString& revoked : before) {
        if (!m_approved.contains(revoked) && m_manager) {
            const int ended = m_manager->endSessionsIn(revoked);
            if (ended > 0) {
                qCInfo(lcBackend).noquote() << "approval of" << revoked << "revoked:" << ended << "sessions ended";
            }
        }
    }
}

QStringList ToolDispatcher::activeWorkspaces() const {
    const Qt::CaseSensitivity cs =
        WorkspaceGuard::hostEnvironment().caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    QStringList active;
    for (const QString& approved : m_approved) {
        if (WorkspaceApproval::stateAmong(approved, m_approved, m_resolver, cs) == WorkspaceApproval::State::Active) {
            active.append(approved);
        }
    }
    return active;
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

void ToolDispatcher::setSecretBroker(SecretBroker* broker) {
    if (m_secretBroker) {
        m_secretBroker->disconnect(this);
    }
    m_secretBroker = broker;
    if (broker) {
        connect(broker, &SecretBroker::answered, this, &ToolDispatcher::onSecretsAnswered);
    }
}

HelloMessage ToolDispatcher::hello() const {
    HelloMessage hello = m_client;
    hello.secrets = m_secretBroker ? m_secretBroker->knownNames() : QStringList();
    hello.workspaces = activeWorkspaces();
    hello.pending = m_results.pendingIds();
    return hello;
}

void ToolDispatcher::cancelAll() {
    const QStringList waiting = m_waiting.keys();
    for (const QString& id : waiting) {
        endWaiting(id, QStringLiteral("the app is stopping"));
    }
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

ToolDispatcher::ApprovalCheck ToolDispatcher::approvalOf(const QString& workingDirectory) const {
    const Qt::CaseSensitivity cs =
        WorkspaceGuard::hostEnvironment().caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    // Lexical first: a path that names no approval is refused without a stat, a canonicalisation or a mount (a
    // network path would leak the user's credentials or hang, an automounter would fire).
    const QString approved = WorkspaceApproval::match(workingDirectory, m_approved, cs);
    if (approved.isEmpty()) {
        return {};
    }
    switch (WorkspaceApproval::stateAmong(approved, m_approved, m_resolver, cs)) {
        case WorkspaceApproval::State::Active:
            return {Approval::Approved, approved};
        case WorkspaceApproval::State::Missing:
            return {Approval::Gone, approved};
        case WorkspaceApproval::State::Changed:
            return {Approval::Changed, approved};
        case WorkspaceApproval::State::Nested:
            return {Approval::Nested, approved};
    }
    return {};
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

void ToolDispatcher::onToolCall(const ToolCallMessage& call) {
    if (isLocalSessionId(call.sessionId)) {
        qCWarning(lcBackend) << "call" << call.callId << "refused: session id in this computer's own namespace";
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage,
                                 QStringLiteral("session_id must not start with \"%1\": those sessions belong to "
                                                "this computer")
                                     .arg(localSessionPrefix()),
                                 call.callId));
        return;
    }
    if (m_running.contains(call.callId)
        || (m_waiting.contains(call.callId) && !m_approvedCalls.contains(call.callId))) {
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
    const ApprovalCheck check = approvalOf(call.workingDirectory);
    if (check.approval == Approval::Gone) {
        qCWarning(lcBackend) << "call" << call.callId << "refused: the approved folder no longer exists";
        finish(refusal(call.callId, ProtocolErrorCode::WorkspaceInvalid,
                       tr("The approved folder %1 no longer exists on this computer (deleted, moved or replaced by a "
                          "file). Restore it, or approve another folder in Zeus Desktop.")
                           .arg(check.approved)));
        return;
    }
    if (check.approval == Approval::Changed) {
        qCWarning(lcBackend).noquote() << "call" << call.callId << "refused: the approved folder" << check.approved
                                       << "changed since approval";
        finish(refusal(call.callId, ProtocolErrorCode::WorkspaceNotApproved,
                       tr("The approved folder %1 changed since it was approved (a part of its path is now a symbolic "
                          "link to somewhere else). It stays inactive until the user approves it again in Zeus "
                          "Desktop.")
                           .arg(check.approved)));
        return;
    }
    if (check.approval == Approval::Nested) {
        qCWarning(lcBackend).noquote() << "call" << call.callId << "refused: the approved folder" << check.approved
                                       << "is inside or around another approval";
        finish(refusal(call.callId, ProtocolErrorCode::WorkspaceNotApproved,
                       tr("The approved folder %1 is inside or around another approved folder (approved before Zeus "
                          "Desktop refused that). Neither is used until the user revokes one of them in Zeus "
                          "Desktop.")
                           .arg(check.approved)));
        return;
    }
    if (check.approval != Approval::Approved) {
        qCWarning(lcBackend) << "call" << call.callId << "refused: working directory not approved";
        const QStringList active = activeWorkspaces();
        finish(refusal(call.callId, ProtocolErrorCode::WorkspaceNotApproved,
                       QStringLiteral("The working directory is not one the user approved in Zeus Desktop. "
                                      "Approved: %1")
                           .arg(active.isEmpty() ? QStringLiteral("none") : active.join(QStringLiteral(", ")))));
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
    if (!call.secrets.isEmpty() && !m_grantedSecrets.contains(call.callId)) {
        awaitSecrets(call, check.approved);
        return;
    }
    if (!passesApproval(call, check.approved)) {
        return;
    }
    ExecRequest request;
    request.callId = call.callId;
    request.sessionId = call.sessionId;
    request.workspace = check.approved;  // the approval's string, never the backend's spelling
    request.command = call.command;
    request.timeoutSeconds = call.timeoutMs ? int((*call.timeoutMs + 999) / 1000) : 0;
    request.secrets = m_grantedSecrets.take(call.callId);
    m_running.insert(call.callId, RunningCall{call.sessionId, 0});
    m_backendSessions.insert(call.sessionId);
    if (m_journal && !m_journal->recordStarted(call.callId)) {
        qCWarning(lcBackend).noquote() << "cannot write the result journal" << m_journal->path();
    }
    Q_EMIT callStarted(call.callId, call.sessionId, call.command, request.workspace);
    m_manager->execute(request);
}

void ToolDispatcher::onCancel(const CancelMessage& cancel) {
    if (m_waiting.contains(cancel.callId)) {
        endWaiting(cancel.callId, QStringLiteral("cancelled by the backend while waiting for approval"));
        return;
    }
    if (m_awaitingSecrets.contains(cancel.callId) && m_secretBroker) {
        m_secretBroker->cancel(cancel.callId);  // its answer ends the call as cancelled
        return;
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
    for (auto it = m_waiting.cbegin(); it != m_waiting.cend();) {
        const QString callId = it.key();
        const bool ofSession = it->sessionId == end.sessionId;
        ++it;  // endWaiting removes the entry
        if (ofSession) {
            endWaiting(callId, QStringLiteral("its session ended while it waited for approval"));
        }
    }
    if (m_secretBroker) {
        m_secretBroker->endSession(end.sessionId);
    }
    if (isLocalSessionId(end.sessionId)) {
        send(Protocol::makeError(ProtocolErrorCode::InvalidMessage,
                                 QStringLiteral("session_id must not start with \"%1\": those sessions belong to "
                                                "this computer")
                                     .arg(localSessionPrefix())));
        return;
    }
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

void ToolDispatcher::awaitSecrets(const ToolCallMessage& call, const QString& folder) {
    if (m_awaitingSecrets.contains(call.callId)) {
        qCInfo(lcBackend) << "call" << call.callId << "already waits for its secrets; not asked again";
        return;
    }
    if (!m_secretBroker) {
        finish(
            refusal(call.callId, ProtocolErrorCode::SecretUnknown,
                    tr("No secret named %1 is stored on this computer.").arg(call.secrets.join(QStringLiteral(", ")))));
        return;
    }
    m_awaitingSecrets.insert(call.callId, call);
    m_secretBroker->request(SecretBroker::Request{call.callId, call.sessionId, folder, call.command, call.secrets});
}

void ToolDispatcher::onSecretsAnswered(const SecretBroker::Answer& answer) {
    const auto it = m_awaitingSecrets.find(answer.id);
    if (it == m_awaitingSecrets.end()) {
        return;
    }
    const ToolCallMessage call = *it;
    m_awaitingSecrets.erase(it);
    switch (answer.outcome) {
        case SecretBroker::Outcome::Granted:
            m_grantedSecrets.insert(call.callId, answer.values);
            onToolCall(call);  // every check again: the folder or the runtime may have gone meanwhile
            m_grantedSecrets.remove(call.callId);
            return;
        case SecretBroker::Outcome::Cancelled: {
            ToolResultMessage result;
            result.callId = call.callId;
            result.status = ExecStatus::Cancelled;
            finish(result);
            return;
        }
        case SecretBroker::Outcome::Unknown:
            qCInfo(lcBackend) << "call" << call.callId << "refused: unknown secret";
            finish(refusal(call.callId, ProtocolErrorCode::SecretUnknown, answer.message));
            return;
        case SecretBroker::Outcome::Denied:
        case SecretBroker::Outcome::Failed:
            qCInfo(lcBackend) << "call" << call.callId << "refused: secret not approved or not readable";
            finish(refusal(call.callId, ProtocolErrorCode::SecretDenied, answer.message));
            return;
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

// ---- command approval (SPEC §11) --------------------------------------------------------------------------

void ToolDispatcher::setApprovalPolicies(const QHash<QString, ApprovalPolicy>& byFolder) {
    m_approvalPolicies.clear();
    for (auto it = byFolder.cbegin(); it != byFolder.cend(); ++it) {
        // Keys are approvals as stored: exact strings, compared lexically like the approvals themselves (SPEC §3).
        m_approvalPolicies.insert(QDir::cleanPath(it.key()), it.value());
    }
}

void ToolDispatcher::setApprovalOverrides(const ApprovalPolicy& rules, std::optional<ApprovalMode> mode) {
    m_approvalOverrides = rules;
    m_approvalModeOverride = mode;
}

ApprovalPolicy ToolDispatcher::approvalPolicyFor(const QString& folder) const {
    ApprovalPolicy policy = m_approvalPolicies.value(folder).mergedWith(m_approvalOverrides);
    if (m_approvalModeOverride) {
        policy.mode = *m_approvalModeOverride;
    }
    return policy;
}

void ToolDispatcher::setApprovalQueue(ApprovalQueue* queue) {
    if (m_approvals) {
        m_approvals->disconnect(this);
    }
    m_approvals = queue;
    if (queue) {
        connect(queue, &ApprovalQueue::answered, this, &ToolDispatcher::onApprovalAnswered);
    }
}

bool ToolDispatcher::passesApproval(const ToolCallMessage& call, const QString& folder) {
    if (m_approvedCalls.remove(call.callId)) {
        return true;  // the user said yes: it runs now, and its timeout starts now
    }
    const ApprovalPolicy policy = approvalPolicyFor(folder);
    const ApprovalDecision decision = CommandAnalyser::decide(call.command, policy);
    switch (decision.verdict) {
        case ApprovalDecision::Verdict::Allow:
            if (!decision.matchedRules.isEmpty()) {
                Q_EMIT approvalRulesMatched(folder, decision.matchedRules);
            }
            if (policy.mode != ApprovalMode::Auto) {
                recordApproval(
                    call, folder, decision.verdict,
                    decision.matchedRules.isEmpty() ? QStringLiteral("read-only list") : QStringLiteral("rule"),
                    decision.matchedRules.join(QStringLiteral(", ")), decision.reason);
            }
            return true;
        case ApprovalDecision::Verdict::Deny:
            recordApproval(call, folder, decision.verdict, QStringLiteral("rule"), decision.rule, decision.reason);
            finish(refusal(call.callId, ProtocolErrorCode::ApprovalDenied, decision.reason));
            return false;
        case ApprovalDecision::Verdict::Ask:
            break;
    }
    m_waiting.insert(call.callId, call);
    if (!m_approvals || !m_approvals->isInteractive()) {
        // Headless: there is nobody to ask, so what would be asked is denied at once.
        ApprovalAnswer nobody;
        nobody.by = ApprovalAnswer::By::Nobody;
        onApprovalAnswered(call.callId, nobody);
        return false;
    }
    recordApproval(call, folder, decision.verdict, QStringLiteral("policy ") + approvalModeName(policy.mode), QString(),
                   decision.reason);
    send(Protocol::makeCallState(call.callId, CallState::WaitingApproval));
    ApprovalQuestion question;
    question.callId = call.callId;
    question.sessionId = call.sessionId;
    question.command = call.command;
    question.folder = folder;
    question.decision = decision;
    m_approvals->ask(question);
    return false;
}

void ToolDispatcher::onApprovalAnswered(const QString& callId, const ApprovalAnswer& answer) {
    const auto it = m_waiting.constFind(callId);
    if (it == m_waiting.cend()) {
        return;
    }
    // A copy: the map changes below (the call leaves it, onToolCall may add others).
    const ToolCallMessage call = m_waiting.value(callId);
    const QString folder = approvalOf(call.workingDirectory).approved;  // lexical: no file system access
    if (answer.kind == ApprovalAnswer::Kind::Deny) {
        m_waiting.remove(callId);
        QString by;
        QString reason;
        switch (answer.by) {
            case ApprovalAnswer::By::User:
                by = QStringLiteral("user");
                reason = QStringLiteral(
                    "The user denied this command in Zeus Desktop. Do not retry it as is; ask the "
                    "user, or do the task another way.");
                break;
            case ApprovalAnswer::By::Timeout:
                by = QStringLiteral("timeout");
                reason = QStringLiteral(
                    "Nobody approved this command in Zeus Desktop in time, so it was denied. Ask "
                    "the user to approve it, or to allow it with a rule.");
                break;
            case ApprovalAnswer::By::Nobody:
                by = QStringLiteral("no one to ask");
                reason = QStringLiteral(
                    "Command approval is on for this folder and nobody can be asked here (headless). "
                    "Only commands its allow rules cover run (--allow-command PREFIX).");
                break;
        }
        const ApprovalDecision decision = CommandAnalyser::decide(call.command, approvalPolicyFor(folder));
        if (!decision.reason.isEmpty() && decision.verdict == ApprovalDecision::Verdict::Ask) {
            reason += QStringLiteral(" Why it needed approval: ") + decision.reason + QLatin1Char('.');
        }
        recordApproval(call, folder, ApprovalDecision::Verdict::Deny, by, QString(), reason);
        finish(refusal(callId, ProtocolErrorCode::ApprovalDenied, reason));
        return;
    }
    QString rule;
    if (answer.kind == ApprovalAnswer::Kind::AlwaysAllow && !CommandAnalyser::ruleWords(answer.prefix).isEmpty()) {
        rule = answer.prefix.simplified();
        ApprovalPolicy& policy = m_approvalPolicies[folder];
        if (!policy.allow.contains(rule)) {
            policy.allow.append(rule);  // at once: the next call need not wait for the settings to come back
        }
        Q_EMIT approvalRuleAdded(folder, rule);
    }
    recordApproval(
        call, folder, ApprovalDecision::Verdict::Allow, QStringLiteral("user"), rule,
        answer.kind == ApprovalAnswer::Kind::RunOnce ? QStringLiteral("run once") : QStringLiteral("always allowed"));
    m_approvedCalls.insert(callId);
    onToolCall(call);  // checked again (the folder may be gone); passes the gate once
    m_waiting.remove(callId);
    m_approvedCalls.remove(callId);
}

void ToolDispatcher::endWaiting(const QString& callId, const QString& why) {
    const auto it = m_waiting.constFind(callId);
    if (it == m_waiting.cend()) {
        return;
    }
    m_waiting.remove(callId);
    if (m_approvals) {
        m_approvals->withdraw(callId);
    }
    qCInfo(lcApproval) << "call" << callId << "no longer waits for approval:" << why;
    ToolResultMessage result;
    result.callId = callId;
    result.status = ExecStatus::Cancelled;
    finish(result);
}

void ToolDispatcher::recordApproval(const ToolCallMessage& call, const QString& folder,
                                    ApprovalDecision::Verdict verdict, const QString& by, const QString& rule,
                                    const QString& reason) {
    ApprovalRecord record;
    record.time = QDateTime::currentDateTimeUtc();
    record.callId = call.callId;
    record.sessionId = call.sessionId;
    record.folder = folder;
    record.command = call.command;
    record.verdict = verdict;
    record.decidedBy = by;
    record.rule = rule;
    record.reason = reason;
    qCInfo(lcApproval).noquote() << "call" << call.callId << "of session" << call.sessionId << "in" << folder
                                 << record.summary();
    m_approvalHistory.append(record);
    while (m_approvalHistory.size() > kApprovalHistoryLimit) {
        m_approvalHistory.removeFirst();
    }
    Q_EMIT approvalDecided(record);
}

}  // namespace zeus
