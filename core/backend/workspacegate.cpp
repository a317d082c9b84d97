#include "backend/workspacegate.h"

#include "sandbox/workspaceguard.h"
#include "support/logging.h"

#include <QCoreApplication>

namespace zeus {

namespace {

Qt::CaseSensitivity hostCaseSensitivity() {
    return WorkspaceGuard::hostEnvironment().caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
}

}  // namespace

QStringList WorkspaceGate::setApproved(const QStringList& workspaces) {
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
    QStringList revoked;
    for (const QString& previous : before) {
        if (!m_approved.contains(previous)) {
            revoked.append(previous);
        }
    }
    return revoked;
}

QStringList WorkspaceGate::active() const {
    const Qt::CaseSensitivity cs = hostCaseSensitivity();
    QStringList active;
    for (const QString& approved : m_approved) {
        if (WorkspaceApproval::stateAmong(approved, m_approved, m_resolver, cs) == WorkspaceApproval::State::Active) {
            active.append(approved);
        }
    }
    return active;
}

WorkspaceGate::Check WorkspaceGate::check(const QString& workingDirectory) const {
    const Qt::CaseSensitivity cs = hostCaseSensitivity();
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

// The refusals keep the translation context they were written in (the dispatcher's), so the translations filed
// under it still apply; lupdate reads the context from each call, so it is spelled out there.
std::optional<WorkspaceGate::Refusal> WorkspaceGate::refusalFor(const QString& callId, const Check& check) const {
    switch (check.approval) {
        case Approval::Approved:
            return std::nullopt;
        case Approval::Gone:
            qCWarning(lcBackend) << "call" << callId << "refused: the approved folder no longer exists";
            return Refusal{ProtocolErrorCode::WorkspaceInvalid,
                           QCoreApplication::translate(
                               "zeus::ToolDispatcher",
                               "The approved folder %1 no longer exists on this computer (deleted, moved or "
                               "replaced by a file). Restore it, or approve another folder in Zeus Desktop.")
                               .arg(check.approved)};
        case Approval::Changed:
            qCWarning(lcBackend).noquote()
                << "call" << callId << "refused: the approved folder" << check.approved << "changed since approval";
            return Refusal{ProtocolErrorCode::WorkspaceNotApproved,
                           QCoreApplication::translate(
                               "zeus::ToolDispatcher",
                               "The approved folder %1 changed since it was approved (a part of its path is now "
                               "a symbolic link to somewhere else). It stays inactive until the user approves "
                               "it again in Zeus Desktop.")
                               .arg(check.approved)};
        case Approval::Nested:
            qCWarning(lcBackend).noquote() << "call" << callId << "refused: the approved folder" << check.approved
                                           << "is inside or around another approval";
            return Refusal{ProtocolErrorCode::WorkspaceNotApproved,
                           QCoreApplication::translate(
                               "zeus::ToolDispatcher",
                               "The approved folder %1 is inside or around another approved folder (approved "
                               "before Zeus Desktop refused that). Neither is used until the user revokes one "
                               "of them in Zeus Desktop.")
                               .arg(check.approved)};
        case Approval::NotApproved:
            break;
    }
    qCWarning(lcBackend) << "call" << callId << "refused: working directory not approved";
    const QStringList approvedNow = active();
    return Refusal{ProtocolErrorCode::WorkspaceNotApproved,
                   QStringLiteral("The working directory is not one the user approved in Zeus Desktop. Approved: %1")
                       .arg(approvedNow.isEmpty() ? QStringLiteral("none") : approvedNow.join(QStringLiteral(", ")))};
}

}  // namespace zeus
