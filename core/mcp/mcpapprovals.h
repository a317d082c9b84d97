#pragma once

#include "approval/approvalqueue.h"

#include <QObject>
#include <QPointer>
#include <QString>

namespace zeus {

class McpLocalBackend;
struct ApprovalQuestion;

// Command approval for MCP clients (SPEC §11, §12 "Same gates as the backend"; docs/mcp.md "Command approval"):
// the ApprovalQueue the core's dispatcher asks when a command needs the user's word. A question about a call
// whose client declared elicitation is put to that client's user (elicitation/create: Run once / Always allow the
// prefix in this folder / Deny); any other question goes to the fallback queue when there is one (the tray app's
// dialog), else is denied at once as headless mode denies it. No answer within the timeout (120 s) is Deny.
//
// It owns the queue and the questions it forwarded. It must never answer for the user: only an explicit
// `accept` with a known decision runs the command; decline, cancel, an error, a malformed answer or a session
// that went away is Deny.
class McpApprovals : public QObject {
    Q_OBJECT
public:
    // `backend` must outlive this object.
    explicit McpApprovals(McpLocalBackend& backend, QObject* parent = nullptr);
    ~McpApprovals() override;

    // For ToolDispatcher::setApprovalQueue().
    ApprovalQueue& queue() { return m_queue; }
    // Where a question the client cannot be asked goes instead (the tray app's dialog), or null: denied at once.
    // It must outlive this object or be reset first.
    void setFallback(ApprovalQueue* fallback);

    // The elicitation request's parts for one question (public for its tests).
    static QString questionText(const ApprovalQuestion& question);
    static QJsonObject questionSchema(const ApprovalQuestion& question);

private:
    void onQuestion(const ApprovalQuestion& question);
    void onElicited(const ApprovalQuestion& question, const std::optional<QJsonObject>& result);

    McpLocalBackend& m_backend;
    ApprovalQueue m_queue;
    QPointer<ApprovalQueue> m_fallback;
};

}  // namespace zeus
