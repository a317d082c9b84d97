#pragma once

#include "approval/commandanalyser.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>

namespace zeus {

// One call waiting for the user's answer (SPEC §11): what the dialog shows. Plain data.
struct ApprovalQuestion {
    QString callId;
    QString sessionId;
    QString command;
    QString folder;             // the approved folder the call would run in (canonical)
    ApprovalDecision decision;  // why it is asked, the part no rule covers, the prefix to offer
    QDateTime askedAt;          // UTC
    QDateTime deadline;         // UTC: no answer by then is Deny
};

// The answer to one question.
//   RunOnce     - run this call; ask again next time;
//   AlwaysAllow - run it, and add `prefix` to the folder's allow rules;
//   Deny        - refuse it (approval_denied), also what the timeout and a headless run answer.
struct ApprovalAnswer {
    enum class Kind { RunOnce, AlwaysAllow, Deny };
    enum class By { User, Timeout, Nobody };  // Nobody: no one can be asked (headless, no dialog)
    Kind kind = Kind::Deny;
    By by = By::User;
    QString prefix;  // AlwaysAllow only
};

// One approval decision, for the session log and diagnostics: who decided, and by what rule.
struct ApprovalRecord {
    QDateTime time;  // UTC
    QString callId;
    QString sessionId;
    QString folder;
    QString command;
    ApprovalDecision::Verdict verdict = ApprovalDecision::Verdict::Ask;
    QString decidedBy;  // "rule", "read-only list", "user", "timeout", "no one to ask", "mode auto"
    QString rule;       // the rule that decided, or the one the user added
    QString reason;

    // One line for the logs and the report: verdict, who decided, the rule. Never the command, which may hold
    // anything the agent typed (the session log shows it beside the line).
    QString summary() const;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ApprovalQuestion)
Q_DECLARE_METATYPE(zeus::ApprovalAnswer)
Q_DECLARE_METATYPE(zeus::ApprovalRecord)
