#include "backend/commandapprovalgate.h"

#include "approval/approvalqueue.h"
#include "approval/commandanalyser.h"
#include "backend/workspacegate.h"
#include "support/logging.h"

#include <QDateTime>
#include <QDir>

namespace zeus {

namespace {

constexpr int kApprovalHistoryLimit = 200;

}  // namespace

CommandApprovalGate::CommandApprovalGate(const WorkspaceGate& workspaces, QObject* parent)
    : QObject(parent), m_workspaces(workspaces) {}

CommandApprovalGate::~CommandApprovalGate() = default;

void CommandApprovalGate::setPolicies(const QHash<QString, ApprovalPolicy>& byFolder) {
    m_policies.clear();
    for (auto it = byFolder.cbegin(); it != byFolder.cend(); ++it) {
        // Keys are approvals as stored: exact strings, compared lexically like the approvals themselves (SPEC §3).
        m_policies.insert(QDir::cleanPath(it.key()), it.value());
    }
}

void CommandApprovalGate::setOverrides(const ApprovalPolicy& rules, std::optional<ApprovalMode> mode) {
    m_overrides = rules;
    m_modeOverride = mode;
}

ApprovalPolicy CommandApprovalGate::policyFor(const QString& folder) const {
    ApprovalPolicy policy = m_policies.value(folder).mergedWith(m_overrides);
    if (m_modeOverride) {
        policy.mode = *m_modeOverride;
    }
    return policy;
}

void CommandApprovalGate::setQueue(ApprovalQueue* queue) {
    if (m_queue) {
        m_queue->disconnect(this);
    }
    m_queue = queue;
    if (queue) {
        connect(queue, &ApprovalQueue::answered, this, &CommandApprovalGate::onAnswered);
    }
}

bool CommandApprovalGate::passes(const ToolCallMessage& call, const QString& folder) {
    if (m_released.remove(call.callId)) {
        return true;  // the user said yes: it runs now, and its timeout starts now
    }
    const ApprovalPolicy policy = policyFor(folder);
    const ApprovalDecision decision = CommandAnalyser::decide(call.command, policy);
    switch (decision.verdict) {
        case ApprovalDecision::Verdict::Allow:
            if (!decision.matchedRules.isEmpty()) {
                Q_EMIT rulesMatched(folder, decision.matchedRules);
            }
            if (policy.mode != ApprovalMode::Auto) {
                recordDecision(
                    call, folder, decision.verdict,
                    decision.matchedRules.isEmpty() ? QStringLiteral("read-only list") : QStringLiteral("rule"),
                    decision.matchedRules.join(QStringLiteral(", ")), decision.reason);
            }
            return true;
        case ApprovalDecision::Verdict::Deny:
            recordDecision(call, folder, decision.verdict, QStringLiteral("rule"), decision.rule, decision.reason);
            Q_EMIT refused(call.callId, ProtocolErrorCode::ApprovalDenied, decision.reason);
            return false;
        case ApprovalDecision::Verdict::Ask:
            break;
    }
    m_waiting.insert(call.callId, call);
    if (!m_queue || !m_queue->isInteractive()) {
        // Headless: there is nobody to ask, so what would be asked is denied at once.
        ApprovalAnswer nobody;
        nobody.by = ApprovalAnswer::By::Nobody;
        onAnswered(call.callId, nobody);
        return false;
    }
    recordDecision(call, folder, decision.verdict, QStringLiteral("policy ") + approvalModeName(policy.mode), QString(),
                   decision.reason);
    Q_EMIT waitingForUser(call.callId);
    ApprovalQuestion question;
    question.callId = call.callId;
    question.sessionId = call.sessionId;
    question.command = call.command;
    question.folder = folder;
    question.decision = decision;
    m_queue->ask(question);
    return false;
}

void CommandApprovalGate::onAnswered(const QString& callId, const ApprovalAnswer& answer) {
    const auto it = m_waiting.constFind(callId);
    if (it == m_waiting.cend()) {
        return;
    }
    // A copy: the map changes below (the call leaves it, the next pass through the gates may add others).
    const ToolCallMessage call = m_waiting.value(callId);
    const QString folder = m_workspaces.check(call.workingDirectory).approved;  // lexical: no file system access
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
        const ApprovalDecision decision = CommandAnalyser::decide(call.command, policyFor(folder));
        if (!decision.reason.isEmpty() && decision.verdict == ApprovalDecision::Verdict::Ask) {
            reason += QStringLiteral(" Why it needed approval: ") + decision.reason + QLatin1Char('.');
        }
        recordDecision(call, folder, ApprovalDecision::Verdict::Deny, by, QString(), reason);
        Q_EMIT refused(callId, ProtocolErrorCode::ApprovalDenied, reason);
        return;
    }
    QString rule;
    if (answer.kind == ApprovalAnswer::Kind::AlwaysAllow && !CommandAnalyser::ruleWords(answer.prefix).isEmpty()) {
        rule = answer.prefix.simplified();
        ApprovalPolicy& policy = m_policies[folder];
        if (!policy.allow.contains(rule)) {
            policy.allow.append(rule);  // at once: the next call need not wait for the settings to come back
        }
        Q_EMIT ruleAdded(folder, rule);
    }
    recordDecision(
        call, folder, ApprovalDecision::Verdict::Allow, QStringLiteral("user"), rule,
        answer.kind == ApprovalAnswer::Kind::RunOnce ? QStringLiteral("run once") : QStringLiteral("always allowed"));
    m_released.insert(callId);
    Q_EMIT released(call);  // checked again (the folder may be gone); passes this gate once
    m_waiting.remove(callId);
    m_released.remove(callId);
}

void CommandApprovalGate::endWaiting(const QString& callId, const QString& why) {
    const auto it = m_waiting.constFind(callId);
    if (it == m_waiting.cend()) {
        return;
    }
    m_waiting.remove(callId);
    if (m_queue) {
        m_queue->withdraw(callId);
    }
    qCInfo(lcApproval) << "call" << callId << "no longer waits for approval:" << why;
    Q_EMIT cancelled(callId);
}

void CommandApprovalGate::endWaitingInSession(const QString& sessionId, const QString& why) {
    for (auto it = m_waiting.cbegin(); it != m_waiting.cend();) {
        const QString callId = it.key();
        const bool ofSession = it->sessionId == sessionId;
        ++it;  // endWaiting removes the entry
        if (ofSession) {
            endWaiting(callId, why);
        }
    }
}

void CommandApprovalGate::endAllWaiting(const QString& why) {
    const QStringList waiting = m_waiting.keys();
    for (const QString& id : waiting) {
        endWaiting(id, why);
    }
}

void CommandApprovalGate::recordDecision(const ToolCallMessage& call, const QString& folder,
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
    m_history.append(record);
    while (m_history.size() > kApprovalHistoryLimit) {
        m_history.removeFirst();
    }
    Q_EMIT decided(record);
}

}  // namespace zeus
