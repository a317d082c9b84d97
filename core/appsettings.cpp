#include "appsettings.h"

#include "backend/backendurl.h"
#include "settings/settingsmigration.h"

#include <QSettings>
#include <QUuid>

namespace zeus {

const QLatin1String AppSettings::kBackendUrl("backend/url");
const QLatin1String AppSettings::kStartAtLogin("app/startAtLogin");
const QLatin1String AppSettings::kMcpHttpPort("mcp/httpPort");
const QLatin1String AppSettings::kInstallId("identity/installId");
const QLatin1String AppSettings::kDeviceId("identity/deviceId");

AppSettings::AppSettings(QObject* parent) : QObject(parent), m_settings(std::make_unique<QSettings>()) {
    open();
}

AppSettings::AppSettings(const QString& iniFilePath, QObject* parent)
    : QObject(parent), m_settings(std::make_unique<QSettings>(iniFilePath, QSettings::IniFormat)) {
    open();
}

AppSettings::~AppSettings() = default;

void AppSettings::open() {
    SettingsMigration::run(*m_settings);
    m_sandbox = std::make_unique<SandboxSettings>(*m_settings);
    m_network = std::make_unique<NetworkSettings>(*m_settings);
    m_folderPolicies = std::make_unique<FolderPolicies>(*m_settings);
    m_workspaceFolders = std::make_unique<WorkspaceFolders>(*m_settings, *m_folderPolicies);
    m_secrets = std::make_unique<SecretIndex>(*m_settings);

    connect(m_sandbox.get(), &SandboxSettings::runtimePreferenceChanged, this, &AppSettings::runtimePreferenceChanged);
    connect(m_sandbox.get(), &SandboxSettings::imageChanged, this, &AppSettings::imageChanged);
    connect(m_sandbox.get(), &SandboxSettings::hardeningChanged, this, &AppSettings::hardeningChanged);
    connect(m_sandbox.get(), &SandboxSettings::idleTimeoutMinutesChanged, this,
            &AppSettings::idleTimeoutMinutesChanged);
    // A network mode is part of how the sandbox is built; rules apply to live sessions.
    connect(m_network.get(), &NetworkSettings::modeChanged, this, &AppSettings::hardeningChanged);
    connect(m_network.get(), &NetworkSettings::policyChanged, this, &AppSettings::networkPolicyChanged);
    connect(m_workspaceFolders.get(), &WorkspaceFolders::recentChanged, this, &AppSettings::recentFoldersChanged);
    connect(m_workspaceFolders.get(), &WorkspaceFolders::approvedChanged, this,
            &AppSettings::approvedWorkspacesChanged);
    connect(m_folderPolicies.get(), &FolderPolicies::approvalPoliciesChanged, this,
            &AppSettings::approvalPoliciesChanged);
    connect(m_folderPolicies.get(), &FolderPolicies::approvalRuleMatched, this, &AppSettings::approvalRuleMatched);
    connect(m_folderPolicies.get(), &FolderPolicies::workspaceModesChanged, this, &AppSettings::workspaceModesChanged);
    connect(m_folderPolicies.get(), &FolderPolicies::gitWritesChanged, this, &AppSettings::gitWritesChanged);
    connect(m_folderPolicies.get(), &FolderPolicies::exposedHostPortsChanged, this,
            &AppSettings::exposedHostPortsChanged);
    connect(m_secrets.get(), &SecretIndex::changed, this, &AppSettings::secretsChanged);
}

QString AppSettings::backendUrl() const {
    const QString url = m_settings->value(kBackendUrl).toString();
    // A hand-edited store with a plaintext ws:// to a remote host is not used.
    return BackendUrl::problem(url).isEmpty() ? url : QString();
}

bool AppSettings::setBackendUrl(const QString& url) {
    const QString trimmed = url.trimmed();
    if (!trimmed.isEmpty() && !BackendUrl::problem(trimmed).isEmpty()) {
        return false;
    }
    if (m_settings->value(kBackendUrl).toString() == trimmed) {
        return true;
    }
    if (trimmed.isEmpty()) {
        m_settings->remove(kBackendUrl);
    } else {
        m_settings->setValue(kBackendUrl, trimmed);
    }
    Q_EMIT backendUrlChanged(trimmed);
    return true;
}

bool AppSettings::startAtLogin() const {
    return m_settings->value(kStartAtLogin, false).toBool();
}

void AppSettings::setStartAtLogin(bool enabled) {
    if (startAtLogin() != enabled) {
        m_settings->setValue(kStartAtLogin, enabled);
        Q_EMIT startAtLoginChanged(enabled);
    }
}

int AppSettings::mcpHttpPort() const {
    const int port = m_settings->value(kMcpHttpPort, 0).toInt();
    return port >= kMinMcpHttpPort && port <= 65535 ? port : 0;  // a hand-edited bad value reads as off
}

bool AppSettings::setMcpHttpPort(int port) {
    if (port != 0 && (port < kMinMcpHttpPort || port > 65535)) {
        return false;
    }
    if (mcpHttpPort() != port) {
        m_settings->setValue(kMcpHttpPort, port);
        Q_EMIT mcpHttpPortChanged(port);
    }
    return true;
}

QString AppSettings::generatedId(const QString& key) {
    QString stored = m_settings->value(key).toString();
    if (!QUuid::fromString(stored).isNull()) {
        return stored;
    }
    QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    m_settings->setValue(key, id);
    m_settings->sync();
    return id;
}

QString AppSettings::installId() {
    return generatedId(kInstallId);
}

QString AppSettings::deviceId() {
    return generatedId(kDeviceId);
}

QString AppSettings::fileName() const {
    return m_settings->fileName();
}

void AppSettings::sync() {
    m_settings->sync();
}

}  // namespace zeus
