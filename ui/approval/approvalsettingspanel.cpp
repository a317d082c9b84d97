#include "approval/approvalsettingspanel.h"

#include "approval/commandanalyser.h"
#include "appsettings.h"
#include "sandbox/exposespec.h"
#include "support/vocabulary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

namespace zeus {

namespace {

constexpr int kKindRole = Qt::UserRole;

QString kindText(ApprovalRuleKind kind) {
    switch (kind) {
        case ApprovalRuleKind::Allow:
            return ApprovalSettingsPanel::tr("Allow");
        case ApprovalRuleKind::Ask:
            return ApprovalSettingsPanel::tr("Ask");
        case ApprovalRuleKind::Deny:
            return ApprovalSettingsPanel::tr("Deny");
    }
    return {};
}

}  // namespace

// The combos hold each enum's stable word (support/vocabulary.h) as item data and show these labels.
QString ApprovalSettingsPanel::modeLabel(ApprovalMode mode) {
    switch (mode) {
        case ApprovalMode::Auto:
            return tr("Never ask (the sandbox is the boundary)");
        case ApprovalMode::AskUnsafe:
            return tr("Ask for commands that are not read-only");
        case ApprovalMode::AskAll:
            return tr("Ask for every command");
    }
    return {};
}

QString ApprovalSettingsPanel::workspaceModeLabel(WorkspaceMode mode) {
    switch (mode) {
        case WorkspaceMode::Direct:
            return tr("Direct: the folder is mounted");
        case WorkspaceMode::Review:
            return tr("Review: a copy, changes reviewed before they apply");
    }
    return {};
}

ApprovalSettingsPanel::ApprovalSettingsPanel(AppSettings* settings, QWidget* parent)
    : QWidget(parent), m_settings(settings) {
    setObjectName(QStringLiteral("approvalSettings"));
    m_folder = new QComboBox(this);
    m_folder->setObjectName(QStringLiteral("approvalFolder"));
    m_folder->setAccessibleName(tr("Folder"));
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("approvalMode"));
    m_mode->setAccessibleName(tr("Approval mode"));
    for (const ApprovalMode mode : valuesOf<ApprovalMode>()) {
        m_mode->addItem(modeLabel(mode), wordOf(mode));
    }
    m_modeDescription = new QLabel(this);
    m_modeDescription->setWordWrap(true);
    m_workspaceMode = new QComboBox(this);
    m_workspaceMode->setObjectName(QStringLiteral("workspaceMode"));
    m_workspaceMode->setAccessibleName(tr("Workspace mode"));
    for (const WorkspaceMode mode : valuesOf<WorkspaceMode>()) {
        m_workspaceMode->addItem(workspaceModeLabel(mode), wordOf(mode));
    }
    m_workspaceModeDescription = new QLabel(this);
    m_workspaceModeDescription->setObjectName(QStringLiteral("workspaceModeDescription"));
    m_workspaceModeDescription->setWordWrap(true);

    createFolderAccess();

    m_rules = new QTableWidget(0, 3, this);
    m_rules->setObjectName(QStringLiteral("approvalRules"));
    m_rules->setAccessibleName(tr("Rules"));
    m_rules->setHorizontalHeaderLabels({tr("Rule"), tr("Command prefix"), tr("Last matched")});
    m_rules->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_rules->verticalHeader()->hide();
    m_rules->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_rules->setEditTriggers(QAbstractItemView::NoEditTriggers);

    m_newKind = new QComboBox(this);
    m_newKind->setObjectName(QStringLiteral("newRuleKind"));
    m_newKind->setAccessibleName(tr("Kind of the new rule"));
    for (const ApprovalRuleKind kind : {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny}) {
        m_newKind->addItem(kindText(kind), int(kind));
    }
    m_newPrefix = new QLineEdit(this);
    m_newPrefix->setObjectName(QStringLiteral("newRulePrefix"));
    m_newPrefix->setAccessibleName(tr("Command prefix of the new rule"));
    m_newPrefix->setPlaceholderText(tr("e.g. npm run test"));
    m_newPrefix->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_add = new QPushButton(tr("A&dd Rule"), this);
    m_add->setObjectName(QStringLiteral("addRule"));
    m_remove = new QPushButton(tr("Re&move Rule"), this);
    m_remove->setObjectName(QStringLiteral("removeRule"));
    m_remove->setEnabled(false);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("ruleProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_problem->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("&Folder:"), m_folder);
    form->addRow(tr("&Approval:"), m_mode);
    form->addRow(QString(), m_modeDescription);
    form->addRow(tr("&Workspace:"), m_workspaceMode);
    form->addRow(QString(), m_workspaceModeDescription);
    form->addRow(QString(), m_gitWrites);
    form->addRow(tr("Host &services:"), m_exposedPorts);
    form->addRow(QString(), m_exposedProblem);
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(m_newKind);
    addRow->addWidget(m_newPrefix, 1);
    addRow->addWidget(m_add);
    addRow->addWidget(m_remove);
    auto* hint = new QLabel(tr("A rule is a command prefix in words (\"git status\" also covers \"git status -s\"). "
                               "Deny beats ask beats allow, and deny rules apply in every mode. A command joined "
                               "with && ; | runs only if every part of it is allowed."),
                            this);
    hint->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_rules, 1);
    layout->addLayout(addRow);
    layout->addWidget(m_problem);
    layout->addWidget(hint);

    connect(m_folder, &QComboBox::currentIndexChanged, this, &ApprovalSettingsPanel::reloadPolicy);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
        updateModeDescription();
        if (m_loading || currentFolder().isEmpty()) {
            return;
        }
        if (const auto mode = fromWord<ApprovalMode>(m_mode->currentData().toString())) {
            m_settings->setApprovalMode(currentFolder(), *mode);
        }
    });
    connect(m_workspaceMode, &QComboBox::currentIndexChanged, this, [this] {
        updateWorkspaceModeDescription();
        if (m_loading || currentFolder().isEmpty()) {
            return;
        }
        if (const auto mode = fromWord<WorkspaceMode>(m_workspaceMode->currentData().toString())) {
            m_settings->setWorkspaceMode(currentFolder(), *mode);
        }
    });
    connect(m_settings, &AppSettings::workspaceModesChanged, this, &ApprovalSettingsPanel::reloadPolicy);
    connect(m_add, &QPushButton::clicked, this, &ApprovalSettingsPanel::addRule);
    connect(m_newPrefix, &QLineEdit::returnPressed, this, &ApprovalSettingsPanel::addRule);
    connect(m_remove, &QPushButton::clicked, this, &ApprovalSettingsPanel::removeSelectedRules);
    connect(m_rules, &QTableWidget::itemSelectionChanged, this,
            [this] { m_remove->setEnabled(!m_rules->selectedItems().isEmpty()); });
    connect(m_settings, &AppSettings::approvalPoliciesChanged, this, &ApprovalSettingsPanel::reloadPolicy);
    connect(m_settings, &AppSettings::approvalRuleMatched, this, &ApprovalSettingsPanel::reloadPolicy);
    connect(m_settings, &AppSettings::approvedWorkspacesChanged, this, &ApprovalSettingsPanel::reloadFolders);
    reloadFolders();
}

QString ApprovalSettingsPanel::currentFolder() const {
    return m_folder->currentData().toString();
}

void ApprovalSettingsPanel::selectFolder(const QString& folder) {
    int index = m_folder->findData(folder);
    if (index < 0) {
        m_folder->addItem(QDir::toNativeSeparators(folder), folder);
        index = m_folder->count() - 1;
    }
    m_folder->setCurrentIndex(index);
}

void ApprovalSettingsPanel::reloadFolders() {
    const QString current = currentFolder();
    QStringList folders = m_settings->approvedWorkspaces();
    for (const QString& folder : m_settings->approvalPolicies().keys()) {
        if (!folders.contains(folder)) {
            folders << folder;
        }
    }
    m_loading = true;
    m_folder->clear();
    for (const QString& folder : folders) {
        m_folder->addItem(QDir::toNativeSeparators(folder), folder);
    }
    m_loading = false;
    const int index = m_folder->findData(current);
    m_folder->setCurrentIndex(index >= 0 ? index : 0);
    reloadPolicy();
}

void ApprovalSettingsPanel::reloadPolicy() {
    const QString folder = currentFolder();
    const bool have = !folder.isEmpty();
    m_mode->setEnabled(have);
    m_add->setEnabled(have);
    m_newPrefix->setEnabled(have);
    m_loading = true;
    const ApprovalPolicy policy = have ? m_settings->approvalPolicy(folder) : ApprovalPolicy();
    m_mode->setCurrentIndex(qMax(0, m_mode->findData(wordOf(policy.mode))));
    m_workspaceMode->setEnabled(have);
    m_gitWrites->setEnabled(have);
    const WorkspaceMode workspaceMode = have ? m_settings->workspaceMode(folder) : WorkspaceMode::Direct;
    m_workspaceMode->setCurrentIndex(qMax(0, m_workspaceMode->findData(wordOf(workspaceMode))));
    m_gitWrites->setChecked(have && m_settings->gitWrites(folder));
    m_exposedPorts->setEnabled(have);
    m_exposedPorts->setText(have ? m_settings->exposedHostPorts(folder).join(QStringLiteral(", ")) : QString());
    m_exposedProblem->hide();
    m_rules->setRowCount(0);
    for (const ApprovalRuleKind kind : {ApprovalRuleKind::Deny, ApprovalRuleKind::Ask, ApprovalRuleKind::Allow}) {
        for (const QString& prefix : policy.rules(kind)) {
            const int row = m_rules->rowCount();
            m_rules->insertRow(row);
            auto* kindItem = new QTableWidgetItem(kindText(kind));
            kindItem->setData(kKindRole, int(kind));
            auto* prefixItem = new QTableWidgetItem(prefix);
            prefixItem->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
            const QDateTime last = m_settings->approvalRuleLastMatched(folder, prefix);
            auto* lastItem = new QTableWidgetItem(
                last.isValid() ? QLocale().toString(last.toLocalTime(), QLocale::ShortFormat) : tr("never"));
            m_rules->setItem(row, 0, kindItem);
            m_rules->setItem(row, 1, prefixItem);
            m_rules->setItem(row, 2, lastItem);
        }
    }
    m_rules->resizeColumnToContents(0);
    m_rules->resizeColumnToContents(2);
    m_loading = false;
    updateModeDescription();
    updateWorkspaceModeDescription();
}

void ApprovalSettingsPanel::updateWorkspaceModeDescription() {
    const auto mode =
        fromWord<WorkspaceMode>(m_workspaceMode->currentData().toString()).value_or(WorkspaceMode::Direct);
    const bool direct = mode == WorkspaceMode::Direct;
    const bool repository = QFileInfo(currentFolder() + QStringLiteral("/.git")).isDir();
    QString text = direct ? tr(
                       "Commands write straight into this folder. Needs a local engine: on a remote one it is "
                       "refused.")
                          : tr(
                              "Commands work on a copy of this folder in the container; you review the changes and "
                              "apply what you want (Changes in the dashboard). Works on local and remote engines.");
    if (direct && repository) {
        text += QLatin1Char(' ')
                + (m_gitWrites->isChecked()
                       ? tr("The sandbox may write .git: the host's git may run code the agent writes there.")
                       : tr("The repository's metadata (.git) is read-only in the sandbox, so nothing the agent "
                            "writes can make your git run code: git status, log and diff work, git add, commit "
                            "and checkout fail. Use review mode to let the agent commit; its commits come home under "
                            "refs/zeus/<session>/. Build files, editor tasks and .pre-commit-config.yaml are still "
                            "writable here: review mode checks those too."));
    }
    m_workspaceModeDescription->setText(text);
}

void ApprovalSettingsPanel::createFolderAccess() {
    m_gitWrites = new QCheckBox(tr("Let the sandbox write this repository's metadata (.git)"), this);
    m_gitWrites->setObjectName(QStringLiteral("gitWrites"));
    m_gitWrites->setToolTip(
        tr("Off by default. When on, the host's git may run code the agent writes into .git "
           "(hooks, config, commondir) the next time you or your shell prompt run git here."));
    connect(m_gitWrites, &QCheckBox::toggled, this, [this](bool on) {
        updateWorkspaceModeDescription();
        if (!m_loading && !currentFolder().isEmpty()) {
            m_settings->setGitWrites(currentFolder(), on);
        }
    });
    connect(m_settings, &AppSettings::gitWritesChanged, this, &ApprovalSettingsPanel::reloadPolicy);
    m_exposedPorts = new QLineEdit(this);
    m_exposedPorts->setObjectName(QStringLiteral("exposedHostPorts"));
    m_exposedPorts->setAccessibleName(tr("Host services reachable in the sandbox"));
    m_exposedPorts->setPlaceholderText(tr("none (e.g. 5432, 18080:8080)"));
    m_exposedPorts->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_exposedPorts->setToolTip(
        tr("Ports of services on this computer's 127.0.0.1 (a database, a local model server) that commands of "
           "this folder may reach inside the sandbox, at 127.0.0.1 there: PORT, or HOST_PORT:CONTAINER_PORT. "
           "Anything the sandbox runs can use them with whatever they allow a local client. Every connection is in "
           "the network log. A change ends this folder's running sandboxes."));
    m_exposedProblem = new QLabel(this);
    m_exposedProblem->setObjectName(QStringLiteral("exposedHostPortsProblem"));
    m_exposedProblem->setWordWrap(true);
    m_exposedProblem->setStyleSheet(QStringLiteral("color: #b00020"));
    m_exposedProblem->hide();
    connect(m_exposedPorts, &QLineEdit::editingFinished, this, &ApprovalSettingsPanel::applyExposedPorts);
    connect(m_settings, &AppSettings::exposedHostPortsChanged, this, &ApprovalSettingsPanel::reloadPolicy);
}

void ApprovalSettingsPanel::applyExposedPorts() {
    if (m_loading || currentFolder().isEmpty()) {
        return;
    }
    // Each entry as --expose-host spells it; nothing is stored unless every entry is valid.
    static const QRegularExpression kSeparators(QStringLiteral("[,\\s]+"));
    const QStringList entries = m_exposedPorts->text().split(kSeparators, Qt::SkipEmptyParts);
    QStringList specs;
    QSet<quint16> inside;
    QString problem;
    for (const QString& entry : entries) {
        QString error;
        const std::optional<ExposeSpec> spec = ExposeSpec::parse(entry, &error);
        if (!spec) {
            problem = tr("%1: %2").arg(entry, error);
        } else if (inside.contains(spec->containerPort)) {
            problem = tr("%1: port %2 in the sandbox is given twice").arg(entry).arg(spec->containerPort);
        } else {
            inside.insert(spec->containerPort);
            specs << spec->text();
            continue;
        }
        break;
    }
    if (problem.isEmpty() && specs.size() > ExposeSpec::kMaxExposed) {
        problem = tr("at most %1 host services per folder").arg(ExposeSpec::kMaxExposed);
    }
    m_exposedProblem->setText(problem);
    m_exposedProblem->setVisible(!problem.isEmpty());
    if (problem.isEmpty()) {
        m_settings->setExposedHostPorts(currentFolder(), specs);
    }
}

void ApprovalSettingsPanel::updateModeDescription() {
    const auto mode = fromWord<ApprovalMode>(m_mode->currentData().toString()).value_or(ApprovalMode::Auto);
    switch (mode) {
        case ApprovalMode::Auto:
            m_modeDescription->setText(tr("Commands run in the sandbox without asking; deny rules still refuse."));
            break;
        case ApprovalMode::AskUnsafe:
            m_modeDescription->setText(
                tr("Read-only commands (ls, cat, grep, git status…) and allowed prefixes run "
                   "at once; anything else waits for you. No answer in 2 minutes is Deny."));
            break;
        case ApprovalMode::AskAll:
            m_modeDescription->setText(
                tr("Only allowed prefixes run at once; every other command waits for you. No "
                   "answer in 2 minutes is Deny."));
            break;
    }
}

void ApprovalSettingsPanel::addRule() {
    const QString prefix = m_newPrefix->text().simplified();
    const auto kind = ApprovalRuleKind(m_newKind->currentData().toInt());
    if (CommandAnalyser::ruleWords(prefix).isEmpty()) {
        m_problem->setText(tr("A rule is plain words, such as “git status”: no && ; | $ * or quotes left open."));
        m_problem->show();
        return;
    }
    if (!m_settings->addApprovalRule(currentFolder(), kind, prefix)) {
        m_problem->setText(tr("The rule could not be added (too many rules for this folder)."));
        m_problem->show();
        return;
    }
    m_problem->hide();
    m_newPrefix->clear();
}

void ApprovalSettingsPanel::removeSelectedRules() {
    QList<QPair<ApprovalRuleKind, QString>> selected;
    for (const QModelIndex& index : m_rules->selectionModel()->selectedRows()) {
        selected.append({ApprovalRuleKind(m_rules->item(index.row(), 0)->data(kKindRole).toInt()),
                         m_rules->item(index.row(), 1)->text()});
    }
    const QString folder = currentFolder();
    for (const auto& rule : selected) {
        m_settings->removeApprovalRule(folder, rule.first, rule.second);
    }
}

}  // namespace zeus
