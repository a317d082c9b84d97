#include "settings/settingsdialog.h"

#include "approval/approvalsettingspanel.h"
#include "appsettings.h"
#include "backend/backendurl.h"
#include "engine/hardeningprofile.h"
#include "runtime/runtimekind.h"
#include "sandbox/sandboxconfig.h"
#include "settings/mcppage.h"
#include "settings/networkpage.h"
#include "settings/secretspage.h"
#include "settings/startatlogin.h"
#include "settings/tokenstore.h"
#include "support/vocabulary.h"

#include <zeus/buildinfo.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>

namespace zeus {

namespace {

QLabel* makeProblemLabel(QWidget* parent, const QString& name) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, QColor(0xb4, 0x23, 0x18));
    label->setPalette(palette);
    label->setVisible(false);
    return label;
}

QLabel* makeHint(QWidget* parent, const QString& text) {
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    QPalette palette = label->palette();
    palette.setColor(QPalette::WindowText, palette.color(QPalette::PlaceholderText));
    label->setPalette(palette);
    return label;
}

}  // namespace

SettingsDialog::SettingsDialog(AppSettings* settings, TokenStore* tokenStore, QWidget* parent)
    : QDialog(parent), m_settings(settings), m_tokens(tokenStore) {
    setWindowTitle(tr("%1 Settings").arg(QStringLiteral(ZEUS_APP_NAME)));
    setObjectName(QStringLiteral("SettingsDialog"));
    auto* tabs = new QTabWidget(this);

    tabs->addTab(buildConnectionPage(tabs), tr("&Connection"));
    tabs->addTab(buildSandboxPage(tabs), tr("&Sandbox"));
    m_network = new NetworkPage(m_settings, tabs);
    tabs->addTab(m_network, tr("&Network"));
    tabs->addTab(buildFoldersPage(tabs), tr("&Folders"));
    tabs->addTab(new ApprovalSettingsPanel(m_settings, tabs), tr("Command &Approval"));
    m_mcp = new McpPage(m_settings, tabs);
    tabs->addTab(m_mcp, tr("A&gents (MCP)"));
    tabs->addTab(buildGeneralPage(tabs), tr("&General"));

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::Apply, this);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    connect(m_buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, &SettingsDialog::apply);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(tabs, 1);
    layout->addWidget(m_buttons);

    connectTokenStore();
    load();
    resize(sizeHint().expandedTo(QSize(560, 420)));
}

// Connection: the backend URL and the sign-in token (kept in the keychain only).
QWidget* SettingsDialog::buildConnectionPage(QTabWidget* tabs) {
    auto* connection = new QWidget(tabs);
    auto* connectionForm = new QFormLayout(connection);
    m_url = new QLineEdit(connection);
    m_url->setObjectName(QStringLiteral("backendUrl"));
    m_url->setPlaceholderText(QStringLiteral("wss://backend.example.com/desktop"));
    m_url->setAccessibleName(tr("Backend URL"));
    m_url->setClearButtonEnabled(true);
    m_urlProblem = makeProblemLabel(connection, QStringLiteral("urlProblem"));
    connectionForm->addRow(tr("&Backend URL:"), m_url);
    connectionForm->addRow(QString(), m_urlProblem);
    connect(m_url, &QLineEdit::textChanged, this, &SettingsDialog::updateUrlProblem);

    m_token = new QLineEdit(connection);
    m_token->setObjectName(QStringLiteral("token"));
    m_token->setEchoMode(QLineEdit::Password);
    m_token->setPlaceholderText(tr("Paste a new sign-in token"));
    m_token->setAccessibleName(tr("Sign-in token"));
    m_token->setAccessibleDescription(tr("Stored in the system keychain only"));
    m_saveToken = new QPushButton(tr("&Save to Keychain"), connection);
    m_saveToken->setObjectName(QStringLiteral("saveToken"));
    m_removeToken = new QPushButton(tr("&Remove"), connection);
    m_removeToken->setObjectName(QStringLiteral("removeToken"));
    m_removeToken->setAccessibleName(tr("Remove the stored token"));
    auto* tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(m_saveToken);
    tokenRow->addWidget(m_removeToken);
    m_tokenStatus = new QLabel(connection);
    m_tokenStatus->setObjectName(QStringLiteral("tokenStatus"));
    m_tokenStatus->setWordWrap(true);
    auto* tokenLabel = new QLabel(tr("Sign-in &token:"), connection);
    tokenLabel->setBuddy(m_token);
    connectionForm->addRow(tokenLabel, tokenRow);
    connectionForm->addRow(QString(), m_tokenStatus);
    connectionForm->addRow(QString(), makeHint(connection, tr("The token is kept in the system keychain, never in a "
                                                              "file. It is sent only to the backend, in the "
                                                              "Authorization header.")));
    connect(m_token, &QLineEdit::textChanged, this, &SettingsDialog::updateTokenStatus);
    connect(m_saveToken, &QPushButton::clicked, this, &SettingsDialog::saveToken);
    connect(m_removeToken, &QPushButton::clicked, this, &SettingsDialog::removeToken);
    return connection;
}

// Sandbox: runtime, image, hardening profile, how commands run, limits and the idle timeout.
QWidget* SettingsDialog::buildSandboxPage(QTabWidget* tabs) {
    auto* sandbox = new QWidget(tabs);
    auto* sandboxForm = new QFormLayout(sandbox);
    m_runtime = new QComboBox(sandbox);
    m_runtime->setObjectName(QStringLiteral("runtimePreference"));
    // Each combo: one item per word of the enum's table (the item's data), shown by a translated label.
    const auto runtimeLabel = [](RuntimePreference preference) {
        switch (preference) {
            case RuntimePreference::Auto:
                return tr("Automatic (Apple Containerization, then Docker, then Podman)");
            case RuntimePreference::Apple:
                return tr("Apple Containerization");
            case RuntimePreference::Docker:
                return tr("Docker");
            case RuntimePreference::Podman:
                return tr("Podman");
        }
        return QString();
    };
    for (const RuntimePreference preference : valuesOf<RuntimePreference>()) {
        m_runtime->addItem(runtimeLabel(preference), wordOf(preference));
    }
    sandboxForm->addRow(tr("Container &runtime:"), m_runtime);

    m_image = new QLineEdit(sandbox);
    m_image->setObjectName(QStringLiteral("image"));
    m_image->setPlaceholderText(QStringLiteral(ZEUS_DEFAULT_IMAGE));
    m_image->setAccessibleName(tr("Sandbox image"));
    sandboxForm->addRow(tr("Sandbox &image:"), m_image);

    m_profile = new QComboBox(sandbox);
    m_profile->setObjectName(QStringLiteral("profile"));
    for (const HardeningProfile profile : valuesOf<HardeningProfile>()) {
        m_profile->addItem(profile == HardeningProfile::Hardened ? tr("Hardened") : tr("Standard"), wordOf(profile));
    }
    m_profileDescription = makeHint(sandbox, QString());
    m_profileDescription->setObjectName(QStringLiteral("profileDescription"));
    sandboxForm->addRow(tr("Hardening &profile:"), m_profile);
    sandboxForm->addRow(QString(), m_profileDescription);
    connect(m_profile, &QComboBox::currentIndexChanged, this, &SettingsDialog::updateProfileDescription);
    m_execMode = new QComboBox(sandbox);
    m_execMode->setObjectName(QStringLiteral("execMode"));
    for (const ExecMode mode : valuesOf<ExecMode>()) {
        m_execMode->addItem(
            mode == ExecMode::Agent ? tr("Through the sandbox agent (fast)") : tr("One engine exec per command"),
            wordOf(mode));
    }
    sandboxForm->addRow(tr("Run &commands:"), m_execMode);
    sandboxForm->addRow(QString(), makeHint(sandbox, tr("The agent keeps one channel open per session: a command "
                                                        "costs milliseconds instead of a new exec. Without it in "
                                                        "the container, commands use exec and the session log "
                                                        "says why.")));

    m_pids = new QSpinBox(sandbox);
    m_pids->setObjectName(QStringLiteral("pidsLimit"));
    m_pids->setRange(AppSettings::kMinPidsLimit, AppSettings::kMaxPidsLimit);
    m_pids->setAccessibleName(tr("Process limit"));
    sandboxForm->addRow(tr("Process li&mit:"), m_pids);
    m_memory = new QSpinBox(sandbox);
    m_memory->setObjectName(QStringLiteral("memoryMiB"));
    m_memory->setRange(AppSettings::kMinMemoryMiB, AppSettings::kMaxMemoryMiB);
    m_memory->setSingleStep(256);
    m_memory->setSuffix(tr(" MiB"));
    m_memory->setAccessibleName(tr("Memory limit in MiB"));
    sandboxForm->addRow(tr("Memory &limit:"), m_memory);
    m_cpus = new QDoubleSpinBox(sandbox);
    m_cpus->setObjectName(QStringLiteral("cpus"));
    m_cpus->setRange(AppSettings::kMinCpus, AppSettings::kMaxCpus);
    m_cpus->setDecimals(1);
    m_cpus->setSingleStep(0.5);
    m_cpus->setAccessibleName(tr("CPU limit"));
    sandboxForm->addRow(tr("C&PUs:"), m_cpus);
    m_idle = new QSpinBox(sandbox);
    m_idle->setObjectName(QStringLiteral("idleTimeout"));
    m_idle->setRange(AppSettings::kMinIdleTimeoutMinutes, AppSettings::kMaxIdleTimeoutMinutes);
    m_idle->setSuffix(tr(" min"));
    m_idle->setAccessibleName(tr("Idle timeout in minutes"));
    sandboxForm->addRow(tr("Remove idle containers &after:"), m_idle);
    sandboxForm->addRow(QString(),
                        makeHint(sandbox, tr("Changes apply to new containers once the current sessions have ended.")));
    return sandbox;
}

// Folders: the approved folders and Revoke.
QWidget* SettingsDialog::buildFoldersPage(QTabWidget* tabs) {
    auto* folders = new QWidget(tabs);
    auto* foldersLayout = new QVBoxLayout(folders);
    foldersLayout->addWidget(makeHint(folders, tr("Commands from the backend run only in folders you approved:")));
    m_approved = new QListWidget(folders);
    m_approved->setObjectName(QStringLiteral("approvedWorkspaces"));
    m_approved->setAccessibleName(tr("Approved folders"));
    m_approved->setSelectionMode(QAbstractItemView::ExtendedSelection);
    foldersLayout->addWidget(m_approved, 1);
    m_revoke = new QPushButton(tr("Re&voke Approval"), folders);
    m_revoke->setObjectName(QStringLiteral("revokeWorkspace"));
    m_revoke->setEnabled(false);
    auto* revokeRow = new QHBoxLayout;
    revokeRow->addStretch(1);
    revokeRow->addWidget(m_revoke);
    foldersLayout->addLayout(revokeRow);
    connect(m_approved, &QListWidget::itemSelectionChanged, this,
            [this] { m_revoke->setEnabled(!m_approved->selectedItems().isEmpty()); });
    connect(m_revoke, &QPushButton::clicked, this, &SettingsDialog::revokeSelected);
    return folders;
}

// General: start at login.
QWidget* SettingsDialog::buildGeneralPage(QTabWidget* tabs) {
    auto* general = new QWidget(tabs);
    auto* generalLayout = new QVBoxLayout(general);
    m_startAtLogin = new QCheckBox(tr("Start %1 when I &log in").arg(QStringLiteral(ZEUS_APP_NAME)), general);
    m_startAtLogin->setObjectName(QStringLiteral("startAtLogin"));
    m_startAtLoginProblem = makeProblemLabel(general, QStringLiteral("startAtLoginProblem"));
    generalLayout->addWidget(m_startAtLogin);
    generalLayout->addWidget(m_startAtLoginProblem);
    updateStartAtLoginAvailability();
    generalLayout->addStretch(1);
    return general;
}

// The keychain answers asynchronously: the status line follows it, and OK closes once a token is saved.
void SettingsDialog::connectTokenStore() {
    if (!m_tokens) {
        return;
    }
    connect(m_tokens, &TokenStore::statusChanged, this, &SettingsDialog::updateTokenStatus);
    connect(m_tokens, &TokenStore::finished, this, [this](bool ok) {
        if (ok) {
            m_token->clear();
        }
        updateTokenStatus();
        if (m_closeAfterTokenSaved) {
            m_closeAfterTokenSaved = false;
            if (ok) {
                QDialog::accept();
            } else {
                m_token->setFocus();
            }
        }
    });
    m_tokens->setAccount(m_settings->backendUrl());
    m_tokens->refresh();
}

void SettingsDialog::setSecretStore(SecretStore* store) {
    auto* tabs = findChild<QTabWidget*>();
    if (!store || !tabs || findChild<SecretsPage*>()) {
        return;
    }
    auto* page = new SecretsPage(m_settings, store, tabs);
    page->setObjectName(QStringLiteral("secretsPage"));
    tabs->insertTab(tabs->count() - 1, page, tr("Secre&ts"));
}

void SettingsDialog::setStartAtLogin(StartAtLogin* startAtLogin) {
    m_loginItem = startAtLogin;
    updateStartAtLoginAvailability();
    load();
}

void SettingsDialog::updateStartAtLoginAvailability() {
    const bool supported = m_loginItem && m_loginItem->isSupported();
    m_startAtLogin->setEnabled(supported);
    if (supported) {
        m_startAtLoginProblem->setVisible(false);
        return;
    }
    m_startAtLoginProblem->setText(m_loginItem ? m_loginItem->unsupportedReason()
                                               : tr("Start at login is not available in this build."));
    m_startAtLoginProblem->setVisible(true);
}

void SettingsDialog::load() {
    m_url->setText(m_settings->backendUrl());
    m_runtime->setCurrentIndex(std::max(0, m_runtime->findData(m_settings->runtimePreference())));
    const QString image = m_settings->image();
    m_image->setText(image == QLatin1String(ZEUS_DEFAULT_IMAGE) ? QString() : image);
    m_profile->setCurrentIndex(std::max(0, m_profile->findData(m_settings->hardeningProfile())));
    m_execMode->setCurrentIndex(std::max(0, m_execMode->findData(m_settings->execMode())));
    m_pids->setValue(m_settings->pidsLimit());
    m_memory->setValue(m_settings->memoryMiB());
    m_cpus->setValue(m_settings->cpus());
    m_idle->setValue(m_settings->idleTimeoutMinutes());
    if (m_loginItem && m_loginItem->isSupported()) {
        m_startAtLogin->setChecked(m_loginItem->isEnabled());
    }
    m_network->load();
    m_mcp->load();
    reloadApproved();
    updateUrlProblem();
    updateProfileDescription();
    updateTokenStatus();
}

void SettingsDialog::reloadApproved() {
    m_approved->clear();
    for (const QString& path : m_settings->approvedWorkspaces()) {
        QString label = QDir::toNativeSeparators(path);
        switch (m_settings->approvalState(path)) {
            case WorkspaceApproval::State::Active:
                break;
            case WorkspaceApproval::State::Missing:
                label = tr("%1 (missing: commands for it are refused)").arg(label);
                break;
            case WorkspaceApproval::State::Changed:
                // Part of its path is a symlink now: not the folder the user approved.
                label = tr("%1 (changed since approval: inactive until approved again)").arg(label);
                break;
            case WorkspaceApproval::State::Nested:
                // Stored before nesting was refused: one of the two must go.
                label = tr("%1 (inside or around another approved folder: inactive until one is revoked)").arg(label);
                break;
        }
        auto* item = new QListWidgetItem(label, m_approved);
        item->setData(Qt::UserRole, path);
    }
    if (m_approved->count() == 0) {
        auto* item = new QListWidgetItem(tr("No folder approved yet. Choose one from the dashboard."), m_approved);
        item->setFlags(Qt::NoItemFlags);
    }
}

void SettingsDialog::revokeSelected() {
    const auto items = m_approved->selectedItems();
    for (const QListWidgetItem* item : items) {
        m_settings->revokeWorkspace(item->data(Qt::UserRole).toString());
    }
    reloadApproved();
}

void SettingsDialog::updateUrlProblem() {
    const QString url = m_url->text().trimmed();
    const QString problem = url.isEmpty() ? QString() : BackendUrl::problem(url);
    m_urlProblem->setText(problem);
    m_urlProblem->setVisible(!problem.isEmpty());
    m_url->setAccessibleDescription(problem);
    // The token belongs to a backend: follow the URL being edited once it is usable.
    const QString account = problem.isEmpty() ? url : QString();
    if (m_tokens && account != m_tokens->account() && !m_tokens->isBusy()) {
        m_tokens->setAccount(account);
        m_tokens->refresh();
    }
}

void SettingsDialog::updateProfileDescription() {
    const bool hardened = fromWord<HardeningProfile>(m_profile->currentData().toString()) == HardeningProfile::Hardened;
    m_profileDescription->setText(hardened ? tr("Everything in Standard, plus a read-only root file system and no "
                                                "network access. Commands that download or install will fail.")
                                           : tr("No capabilities, no privilege escalation, process, memory and CPU "
                                                "limits, your user's file ownership, network access."));
}

void SettingsDialog::updateTokenStatus() {
    if (!m_tokens) {
        m_token->setEnabled(false);
        m_saveToken->setEnabled(false);
        m_removeToken->setEnabled(false);
        m_tokenStatus->setText(
            tr("This build cannot reach a system keychain, so a token cannot be stored. Use "
               "--headless with the ZEUS_DESKTOP_TOKEN environment variable instead."));
        return;
    }
    const TokenStore::Status status = m_tokens->status();
    const bool busy = m_tokens->isBusy();
    const bool keychainUsable = status != TokenStore::Status::Unavailable;
    m_token->setEnabled(keychainUsable && !busy);
    m_saveToken->setEnabled(keychainUsable && !busy && !m_token->text().trimmed().isEmpty());
    m_removeToken->setEnabled(!busy && status == TokenStore::Status::Stored);
    QString text = m_tokens->message();
    if (busy) {
        text = tr("Talking to the keychain…");
    } else if (text.isEmpty()) {
        switch (status) {
            case TokenStore::Status::Unknown:
                text = tr("Checking the keychain…");
                break;
            case TokenStore::Status::Stored:
                text = tr("A sign-in token is stored in the keychain.");
                break;
            case TokenStore::Status::NotStored:
                text = tr("No sign-in token is stored yet.");
                break;
            case TokenStore::Status::Unavailable:
                text = tr("No system keychain is available, so the token cannot be stored.");
                break;
            case TokenStore::Status::Locked:
                text = tr("The keychain is locked. Unlock it, then save the token again.");
                break;
            case TokenStore::Status::Failed:
                text = tr("The keychain reported an error.");
                break;
        }
    }
    m_tokenStatus->setText(text);
}

void SettingsDialog::saveToken() {
    const QString token = m_token->text().trimmed();
    if (!m_tokens || token.isEmpty()) {
        return;
    }
    m_tokens->store(token);
    updateTokenStatus();
}

void SettingsDialog::removeToken() {
    if (m_tokens) {
        m_tokens->remove();
        updateTokenStatus();
    }
}

bool SettingsDialog::apply() {
    const QString url = m_url->text().trimmed();
    if (!m_settings->setBackendUrl(url)) {
        updateUrlProblem();
        m_url->setFocus();
        return false;
    }
    if (!m_settings->setImage(m_image->text())) {
        m_image->setFocus();
        m_image->selectAll();
        return false;
    }
    if (!m_network->apply()) {
        return false;
    }
    m_mcp->apply();
    m_settings->setRuntimePreference(m_runtime->currentData().toString());
    m_settings->setHardeningProfile(m_profile->currentData().toString());
    m_settings->setExecMode(m_execMode->currentData().toString());
    m_settings->setPidsLimit(m_pids->value());
    m_settings->setMemoryMiB(m_memory->value());
    m_settings->setCpus(m_cpus->value());
    m_settings->setIdleTimeoutMinutes(m_idle->value());

    if (m_loginItem && m_loginItem->isSupported()) {
        const bool wanted = m_startAtLogin->isChecked();
        if (wanted != m_loginItem->isEnabled()) {
            QString error;
            if (m_loginItem->setEnabled(wanted, &error)) {
                m_startAtLoginProblem->setVisible(false);
            } else {
                m_startAtLoginProblem->setText(error);
                m_startAtLoginProblem->setVisible(true);
                m_startAtLogin->setChecked(!wanted);
            }
        }
        m_settings->setStartAtLogin(m_loginItem->isEnabled());
    }
    m_settings->sync();
    return true;
}

void SettingsDialog::accept() {
    if (!apply()) {
        return;
    }
    // A token typed but not saved yet is saved now; the dialog closes when the keychain
    // has it (and stays open with the keychain's message when it could not).
    if (m_tokens && !m_token->text().trimmed().isEmpty()) {
        m_closeAfterTokenSaved = true;
        saveToken();
        return;
    }
    QDialog::accept();
}

}  // namespace zeus
