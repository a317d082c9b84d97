#include "dashboard/workspacepanel.h"

#include "appsettings.h"
#include "support/logging.h"

#include <QDir>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace zeus {

WorkspacePanel::WorkspacePanel(AppSettings* settings, QWidget* parent)
    : QWidget(parent), m_settings(settings), m_environment(WorkspaceGuard::hostEnvironment()) {
    setObjectName(QStringLiteral("WorkspacePanel"));
    m_path = new QLabel(tr("No working directory chosen."), this);
    m_path->setObjectName(QStringLiteral("chosenPath"));
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_path->setWordWrap(true);
    QFont bold = m_path->font();
    bold.setBold(true);
    m_path->setFont(bold);

    m_choose = new QPushButton(tr("C&hoose Folder…"), this);
    m_choose->setObjectName(QStringLiteral("chooseFolder"));
    m_choose->setAccessibleDescription(tr("Pick the folder that commands may see, mounted at /workspace"));
    m_approve = new QPushButton(tr("&Approve"), this);
    m_approve->setObjectName(QStringLiteral("approveFolder"));
    m_approve->setAccessibleDescription(tr("Allow commands from the backend to run in this folder"));
    m_approve->setEnabled(false);

    m_verdictIcon = new QLabel(this);
    m_verdictIcon->setFixedSize(20, 20);
    m_verdictText = new QLabel(this);
    m_verdictText->setObjectName(QStringLiteral("verdict"));
    m_verdictText->setWordWrap(true);
    m_verdictText->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // What direct mode leaves open, said where the user approves (SPEC §3; docs/security.md).
    m_caveat = new QLabel(tr("Commands can change every file in the approved folder. Git's config and hooks are "
                             "protected; build files, scripts and editor tasks are not: look at what changed before "
                             "you build or open the project on this computer."),
                          this);
    m_caveat->setObjectName(QStringLiteral("directModeCaveat"));
    m_caveat->setWordWrap(true);
    m_caveat->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_recent = new QListWidget(this);
    m_recent->setObjectName(QStringLiteral("recentFolders"));
    m_recent->setAccessibleName(tr("Recent folders"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_path, 1);
    top->addWidget(m_choose);
    top->addWidget(m_approve);
    auto* verdictRow = new QHBoxLayout;
    verdictRow->addWidget(m_verdictIcon, 0, Qt::AlignTop);
    verdictRow->addWidget(m_verdictText, 1);
    auto* recentLabel = new QLabel(tr("&Recent folders:"), this);
    recentLabel->setBuddy(m_recent);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(verdictRow);
    layout->addWidget(m_caveat);
    layout->addWidget(recentLabel);
    layout->addWidget(m_recent);

    connect(m_choose, &QPushButton::clicked, this, &WorkspacePanel::openFolderDialog);
    connect(m_approve, &QPushButton::clicked, this, &WorkspacePanel::approveChosen);
    connect(m_recent, &QListWidget::itemActivated, this, &WorkspacePanel::onRecentActivated);
    connect(m_recent, &QListWidget::itemClicked, this, &WorkspacePanel::onRecentActivated);
    connect(m_settings, &AppSettings::recentFoldersChanged, this, &WorkspacePanel::reloadRecent);
    connect(m_settings, &AppSettings::approvedWorkspacesChanged, this, &WorkspacePanel::showVerdict);

    reloadRecent();
    const QStringList recent = m_settings->recentFolders();
    if (!recent.isEmpty()) {
        m_chosen = recent.first();
        m_verdict = WorkspaceGuard::check(m_chosen, m_environment);
    }
    showVerdict();
}

void WorkspacePanel::setGuardEnvironment(const WorkspaceGuard::Environment& environment) {
    m_environment = environment;
    if (!m_chosen.isEmpty()) {
        m_verdict = WorkspaceGuard::check(m_chosen, m_environment);
    }
    showVerdict();
}

void WorkspacePanel::openFolderDialog() {
    auto* dialog = new QFileDialog(this, tr("Choose the Working Directory"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly, true);
    if (!m_verdict.canonicalPath.isEmpty()) {
        dialog->setDirectory(m_verdict.canonicalPath);
    }
    connect(dialog, &QFileDialog::fileSelected, this, &WorkspacePanel::chooseFolder);
    // open(), not exec(): no nested event loop.
    dialog->open();
}

void WorkspacePanel::chooseFolder(const QString& path) {
    const QString before = currentWorkspace();
    m_chosen = path;
    m_verdict = WorkspaceGuard::check(path, m_environment);
    if (m_verdict.accepted()) {
        m_settings->addRecentFolder(m_verdict.canonicalPath);
    }
    showVerdict();
    const QString now = currentWorkspace();
    if (!now.isEmpty() && now != before) {
        Q_EMIT currentWorkspaceChanged(now);
    }
}

bool WorkspacePanel::approveChosen() {
    if (!m_verdict.accepted() || !m_settings->approveWorkspace(m_verdict.canonicalPath)) {
        showVerdict();  // says why (a folder inside or around an approved one)
        return false;
    }
    showVerdict();
    Q_EMIT currentWorkspaceChanged(m_verdict.canonicalPath);
    return true;
}

bool WorkspacePanel::approveForThisRun(const QString& path) {
    const QString before = currentWorkspace();
    m_chosen = path;
    m_verdict = WorkspaceGuard::check(path, m_environment);
    if (!m_verdict.accepted()) {
        qCWarning(lcApp).noquote() << "refused workspace" << path << ":" << m_verdict.message
                                   << "(rule:" << WorkspaceGuard::ruleName(m_verdict.rule) << ")";
        showVerdict();
        return false;
    }
    m_settings->addRecentFolder(m_verdict.canonicalPath);
    m_runApproved = m_verdict.canonicalPath;
    qCInfo(lcApp).noquote() << "workspace for this run:" << m_runApproved;
    showVerdict();
    if (currentWorkspace() != before) {
        Q_EMIT currentWorkspaceChanged(m_runApproved);
    }
    return true;
}

bool WorkspacePanel::isApproved(const QString& canonicalPath) const {
    return (!m_runApproved.isEmpty() && canonicalPath == m_runApproved)
           || m_settings->isWorkspaceApproved(canonicalPath);
}

QString WorkspacePanel::missingApprovedWorkspace() const {
    if (m_chosen.isEmpty() || m_verdict.accepted()
        || (m_verdict.rule != WorkspaceGuard::Rule::NotFound
            && m_verdict.rule != WorkspaceGuard::Rule::NotADirectory)) {
        return {};
    }
    // The folder cannot be resolved any more: compare the spellings, as the approval was stored.
    const Qt::CaseSensitivity cs = m_environment.caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    const QString chosen = QDir::cleanPath(m_chosen);
    QStringList approved = m_settings->approvedWorkspaces();
    if (!m_runApproved.isEmpty()) {
        approved << m_runApproved;
    }
    for (const QString& folder : std::as_const(approved)) {
        if (QDir::cleanPath(folder).compare(chosen, cs) == 0) {
            return folder;
        }
    }
    return {};
}

QString WorkspacePanel::changedApprovedWorkspace() const {
    if (m_chosen.isEmpty()) {
        return {};
    }
    const Qt::CaseSensitivity cs = m_environment.caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    QString approved = WorkspaceApproval::match(m_chosen, m_settings->approvedWorkspaces(), cs);
    if (!approved.isEmpty() && m_settings->approvalState(approved) == WorkspaceApproval::State::Changed) {
        return approved;
    }
    return {};
}

void WorkspacePanel::recheck() {
    if (m_chosen.isEmpty()) {
        return;
    }
    const QString before = currentWorkspace();
    m_verdict = WorkspaceGuard::check(m_chosen, m_environment);
    showVerdict();
    const QString now = currentWorkspace();
    if (now != before) {
        Q_EMIT currentWorkspaceChanged(now);
    }
}

QString WorkspacePanel::currentWorkspace() const {
    if (m_verdict.accepted() && isApproved(m_verdict.canonicalPath)) {
        return m_verdict.canonicalPath;
    }
    return {};
}

void WorkspacePanel::showVerdict() {
    const int iconSize = 20;
    if (m_chosen.isEmpty()) {
        m_path->setText(tr("No working directory chosen."));
        m_verdictIcon->clear();
        m_verdictText->setText(
            tr("Choose the one folder that commands may see. It is mounted at /workspace inside "
               "the container; nothing else on this computer is visible to them."));
        m_approve->setEnabled(false);
        return;
    }
    const QString shown =
        QDir::toNativeSeparators(m_verdict.canonicalPath.isEmpty() ? m_chosen : m_verdict.canonicalPath);
    m_path->setText(shown);
    m_path->setToolTip(shown);
    if (const QString missing = missingApprovedWorkspace(); !missing.isEmpty()) {
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
        m_verdictText->setText(
            tr("Approved, but the folder no longer exists: %1. Commands for it are refused (workspace_invalid) until "
               "it is back. Restore it, choose another folder, or revoke the approval in Settings.")
                .arg(QDir::toNativeSeparators(missing)));
        m_approve->setEnabled(false);
        m_approve->setText(tr("&Approve"));
    } else if (const QString changed = changedApprovedWorkspace(); !changed.isEmpty()) {
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
        m_verdictText->setText(
            tr("Changed since approval: %1 now leads to %2 (a part of its path was replaced by a symbolic link). "
               "Commands for it are refused until it is the approved folder again; revoke it in Settings if it "
               "should stay this way.")
                .arg(QDir::toNativeSeparators(changed), QDir::toNativeSeparators(m_verdict.canonicalPath)));
        m_approve->setEnabled(false);
        m_approve->setText(tr("&Approve"));
    } else if (!m_verdict.accepted()) {
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxCritical).pixmap(iconSize, iconSize));
        m_verdictText->setText(tr("Refused (%1): %2").arg(WorkspaceGuard::ruleName(m_verdict.rule), m_verdict.message));
        m_approve->setEnabled(false);
        m_approve->setText(tr("&Approve"));
    } else if (isApproved(m_verdict.canonicalPath)) {
        // Approved for this run only: Approve still offers to keep it for the next runs.
        const bool kept = m_settings->isWorkspaceApproved(m_verdict.canonicalPath);
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_DialogApplyButton).pixmap(iconSize, iconSize));
        m_verdictText->setText(
            kept ? tr("Approved. Commands run with this folder mounted at /workspace: %1")
                       .arg(QDir::toNativeSeparators(m_verdict.canonicalPath))
                 : tr("Approved for this run (--workspace). Commands run with this folder mounted at /workspace: %1")
                       .arg(QDir::toNativeSeparators(m_verdict.canonicalPath)));
        m_approve->setEnabled(!kept);
        m_approve->setText(kept ? tr("Approved") : tr("&Approve"));
    } else if (const QString problem = m_settings->approvalProblem(m_verdict.canonicalPath); !problem.isEmpty()) {
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
        m_verdictText->setText(problem);
        m_approve->setEnabled(false);
        m_approve->setText(tr("&Approve"));
    } else {
        m_verdictIcon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxInformation).pixmap(iconSize, iconSize));
        m_verdictText->setText(tr("This folder can be used: %1. Approve it to let the backend run commands in it.")
                                   .arg(QDir::toNativeSeparators(m_verdict.canonicalPath)));
        m_approve->setEnabled(true);
        m_approve->setText(tr("&Approve"));
    }
    m_verdictText->setAccessibleName(m_verdictText->text());
}

void WorkspacePanel::reloadRecent() {
    m_recent->clear();
    for (const QString& folder : m_settings->recentFolders()) {
        auto* item = new QListWidgetItem(QDir::toNativeSeparators(folder), m_recent);
        item->setData(Qt::UserRole, folder);
        if (isApproved(folder)) {
            item->setToolTip(tr("Approved"));
        }
    }
    // As tall as its rows (two to five), not a large empty box under one folder.
    const int rows = qBound(2, m_recent->count(), 5);
    const int rowHeight = m_recent->count() > 0 ? m_recent->sizeHintForRow(0) : fontMetrics().height() + 4;
    m_recent->setFixedHeight(rows * rowHeight + 2 * m_recent->frameWidth() + 2);
}

void WorkspacePanel::onRecentActivated(QListWidgetItem* item) {
    if (item) {
        chooseFolder(item->data(Qt::UserRole).toString());
    }
}

}  // namespace zeus
