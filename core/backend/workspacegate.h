#pragma once

#include "backend/protocolmessages.h"
#include "sandbox/workspaceapproval.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// The first gate of a tool_call (SPEC §3): the folders the user approved, and whether a call's working_directory
// names one of them that is usable now. It holds the approvals as the exact strings stored when they were approved,
// matches lexically before anything touches the file system, and asks the resolver only about a path that matched.
// It decides and words a refusal; it never runs, ends or reports a call, and never turns an approval into the path it
// resolves to (an approval whose component became a symlink would otherwise approve the symlink's target).
class WorkspaceGate {
public:
    // Approved: it names an approval that resolves to itself; Gone: it names an approved folder that no longer
    // exists (deleted, moved, replaced by a file): workspace_invalid; Changed: it names an approval that resolves
    // elsewhere now (a component became a symlink): inactive until approved again; Nested: it names an approval
    // inside or around another one; NotApproved: anything else, decided without touching the file system.
    enum class Approval { Approved, Gone, Changed, Nested, NotApproved };
    struct Check {
        Approval approval = Approval::NotApproved;
        QString approved;  // the approval's string, when one matched
    };
    struct Refusal {
        ProtocolErrorCode code = ProtocolErrorCode::WorkspaceNotApproved;
        QString message;
    };

    // Replaces the approvals (cleaned, duplicates dropped) and returns the ones that are no longer approved.
    QStringList setApproved(const QStringList& workspaces);
    QStringList approved() const { return m_approved; }
    // The approvals that resolve to themselves now (what hello.workspaces says).
    QStringList active() const;
    // The file system seam (tests count and steer what is resolved).
    void setResolver(const WorkspaceApproval::Resolver& resolver) { m_resolver = resolver; }

    Check check(const QString& workingDirectory) const;
    // Why call `callId` may not run with `check` (logged), or nullopt when it names an active approval.
    std::optional<Refusal> refusalFor(const QString& callId, const Check& check) const;

private:
    QStringList m_approved;  // as the settings hold them (canonical when approved), cleaned
    WorkspaceApproval::Resolver m_resolver = WorkspaceApproval::hostResolver();
};

}  // namespace zeus
