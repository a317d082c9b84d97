#include "mcp/mcpapprovals.h"

#include "approval/approvalquestion.h"
#include "mcp/mcplocalbackend.h"
#include "mcp/mcpsession.h"
#include "support/logging.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>

#include <optional>

namespace zeus {

namespace {

const QLatin1String kRunOnce("run_once");
const QLatin1String kAlwaysAllow("always_allow");
const QLatin1String kDeny("deny");

}  // namespace

McpApprovals::McpApprovals(McpLocalBackend& backend, QObject* parent) : QObject(parent), m_backend(backend) {
    m_queue.setInteractive(true);
    connect(&m_queue, &ApprovalQueue::questionAdded, this, &McpApprovals::onQuestion);
    // Timed out or withdrawn (the call was cancelled or ended): the client's late answer is dropped.
    connect(&m_queue, &ApprovalQueue::questionRemoved, this, [this](const QString& callId) {
        if (McpSession* session = m_backend.ownerOf(callId)) {
            session->withdrawElicitation(callId);
        }
        if (m_fallback) {
            m_fallback->withdraw(callId);  // answered by the timeout here, or the call ended: off the dialog too
        }
    });
}

McpApprovals::~McpApprovals() {
    setFallback(nullptr);
}

void McpApprovals::setFallback(ApprovalQueue* fallback) {
    if (m_fallback) {
        m_fallback->disconnect(this);
    }
    m_fallback = fallback;
    if (m_fallback) {
        connect(m_fallback, &ApprovalQueue::answered, this,
                [this](const QString& callId, const ApprovalAnswer& answer) {
                    if (m_queue.isWaiting(callId)) {
                        m_queue.answer(callId, answer);
                    }
                });
    }
}

QString McpApprovals::questionText(const ApprovalQuestion& question) {
    QString text = tr("Run this command in the Zeus Desktop sandbox?") + QStringLiteral("\n\n") + question.command
                   + QStringLiteral("\n\n") + tr("Folder: %1").arg(question.folder);
    if (!question.decision.reason.isEmpty()) {
        text += QLatin1Char('\n') + tr("Asked because: %1").arg(question.decision.reason);
    }
    return text;
}

QJsonObject McpApprovals::questionSchema(const ApprovalQuestion& question) {
    QJsonArray values{kRunOnce};
    QJsonArray names{tr("Run once")};
    if (!question.decision.suggestedPrefix.isEmpty()) {
        values.append(kAlwaysAllow);
        names.append(tr("Always allow \"%1\" in this folder").arg(question.decision.suggestedPrefix));
    }
    values.append(kDeny);
    names.append(tr("Deny"));
    const QJsonObject decision{{QStringLiteral("type"), QStringLiteral("string")},
                               {QStringLiteral("title"), tr("Decision")},
                               {QStringLiteral("enum"), values},
                               {QStringLiteral("enumNames"), names}};
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), QJsonObject{{QStringLiteral("decision"), decision}}},
                       {QStringLiteral("required"), QJsonArray{QStringLiteral("decision")}}};
}

void McpApprovals::onQuestion(const ApprovalQuestion& question) {
    McpSession* session = m_backend.ownerOf(question.callId);
    const QPointer<McpApprovals> self(this);
    const bool asked = session
                       && session->elicit(question.callId, questionText(question), questionSchema(question),
                                          [self, question](const std::optional<QJsonObject>& result) {
                                              if (self) {
                                                  self->onElicited(question, result);
                                              }
                                          });
    if (asked) {
        return;
    }
    if (session && m_fallback) {
        m_fallback->ask(question);  // the tray app's dialog; its answer comes back through answered()
        return;
    }
    // As headless: nobody to ask (the client cannot be asked, or the call is gone).
    m_queue.answer(question.callId, ApprovalAnswer{ApprovalAnswer::Kind::Deny, ApprovalAnswer::By::Nobody, {}});
}

void McpApprovals::onElicited(const ApprovalQuestion& question, const std::optional<QJsonObject>& result) {
    ApprovalAnswer answer{ApprovalAnswer::Kind::Deny, ApprovalAnswer::By::User, {}};
    if (result && result->value(QLatin1String("action")).toString() == QLatin1String("accept")) {
        const QString decision =
            result->value(QLatin1String("content")).toObject().value(QLatin1String("decision")).toString();
        if (decision == kRunOnce) {
            answer.kind = ApprovalAnswer::Kind::RunOnce;
        } else if (decision == kAlwaysAllow && !question.decision.suggestedPrefix.isEmpty()) {
            answer.kind = ApprovalAnswer::Kind::AlwaysAllow;
            answer.prefix = question.decision.suggestedPrefix;
        }
    }
    qCInfo(lcBackend) << "MCP approval of call" << question.callId << "answered by the client's user:"
                      << (answer.kind == ApprovalAnswer::Kind::Deny ? "deny" : "run");
    m_queue.answer(question.callId, answer);
}

}  // namespace zeus
