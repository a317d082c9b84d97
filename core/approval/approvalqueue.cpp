#include "approval/approvalqueue.h"

#include "support/logging.h"

#include <QTimer>

namespace zeus {

QString ApprovalRecord::summary() const {
    QString verdictWord;
    switch (verdict) {
        case ApprovalDecision::Verdict::Allow:
            verdictWord = QStringLiteral("allowed");
            break;
        case ApprovalDecision::Verdict::Ask:
            verdictWord = QStringLiteral("waiting for approval");
            break;
        case ApprovalDecision::Verdict::Deny:
            verdictWord = QStringLiteral("denied");
            break;
    }
    QString line = QStringLiteral("approval: %1 by %2").arg(verdictWord, decidedBy);
    if (!rule.isEmpty()) {
        line += QStringLiteral(" (rule “%1”)").arg(rule);
    }
    return line;
}

ApprovalQueue::ApprovalQueue(QObject* parent) : QObject(parent) {
    qRegisterMetaType<zeus::ApprovalQuestion>();
    qRegisterMetaType<zeus::ApprovalAnswer>();
    qRegisterMetaType<zeus::ApprovalRecord>();
}

ApprovalQueue::~ApprovalQueue() = default;

bool ApprovalQueue::isWaiting(const QString& callId) const {
    return m_timers.contains(callId);
}

void ApprovalQueue::ask(ApprovalQuestion question) {
    if (isWaiting(question.callId)) {
        return;
    }
    if (!m_interactive) {
        ApprovalAnswer deny;
        deny.kind = ApprovalAnswer::Kind::Deny;
        deny.by = ApprovalAnswer::By::Nobody;
        Q_EMIT answered(question.callId, deny);
        return;
    }
    question.askedAt = QDateTime::currentDateTimeUtc();
    question.deadline = question.askedAt.addMSecs(m_timeoutMs);
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    const QString callId = question.callId;
    connect(timer, &QTimer::timeout, this, [this, callId] {
        if (!remove(callId)) {
            return;
        }
        qCInfo(lcApproval) << "call" << callId << "not answered in time: denied";
        ApprovalAnswer deny;
        deny.kind = ApprovalAnswer::Kind::Deny;
        deny.by = ApprovalAnswer::By::Timeout;
        Q_EMIT answered(callId, deny);
    });
    m_timers.insert(callId, timer);
    m_pending.append(question);
    timer->start(m_timeoutMs);
    Q_EMIT questionAdded(question);
}

void ApprovalQueue::answer(const QString& callId, const ApprovalAnswer& answer) {
    if (!remove(callId)) {
        return;
    }
    Q_EMIT answered(callId, answer);
}

void ApprovalQueue::withdraw(const QString& callId) {
    remove(callId);
}

bool ApprovalQueue::remove(const QString& callId) {
    QTimer* timer = m_timers.take(callId);
    if (!timer) {
        return false;
    }
    timer->stop();
    timer->deleteLater();
    m_pending.erase(std::remove_if(m_pending.begin(), m_pending.end(),
                                   [&callId](const ApprovalQuestion& q) { return q.callId == callId; }),
                    m_pending.end());
    Q_EMIT questionRemoved(callId);
    return true;
}

}  // namespace zeus
