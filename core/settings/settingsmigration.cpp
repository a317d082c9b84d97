#include "settingsmigration.h"

#include "settings/folderpolicies.h"
#include "settings/networksettings.h"
#include "support/logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

namespace zeus {

const QLatin1String SettingsMigration::kFormatVersion("app/settingsFormat");
const QLatin1String SettingsMigration::kVersion1WorkspaceModes("workspaces/modes");
const QLatin1String SettingsMigration::kVersion1ApprovalPolicies("approval/folders");
const QLatin1String SettingsMigration::kVersion1FolderAllow("network/folderAllow");

namespace {

// Version 1's JSON text; anything that is not an object (a hand edit) held nothing then and holds nothing now.
QJsonObject jsonObjectAt(const QSettings& store, const QLatin1String& key) {
    return QJsonDocument::fromJson(store.value(key).toString().toUtf8()).object();
}

QList<FolderPolicies::StoredRule> storedRules(const QJsonArray& rules) {
    QList<FolderPolicies::StoredRule> out;
    for (const auto& value : rules) {
        const QJsonObject rule = value.toObject();
        const QString prefix = rule.value(QStringLiteral("prefix")).toString();
        // Version 1 read an entry without a text prefix as nothing.
        if (!prefix.isEmpty()) {
            out.append({prefix, rule.value(QStringLiteral("lastMatched")).toString()});
        }
    }
    return out;
}

}  // namespace

int SettingsMigration::run(QSettings& store) {
    bool ok = false;
    const int found = store.value(kFormatVersion).toInt(&ok);
    const int format = ok ? found : 1;
    if (format >= kCurrentFormat) {
        return format;
    }
    // Every step runs: each moves its own key.
    bool moved = moveWorkspaceModes(store);
    moved = moveApprovalPolicies(store) || moved;
    moved = moveFolderAllow(store) || moved;
    store.setValue(kFormatVersion, kCurrentFormat);
    if (moved) {
        qCInfo(lcApp) << "settings format" << format << "migrated to" << kCurrentFormat;
    }
    return format;
}

bool SettingsMigration::moveWorkspaceModes(QSettings& store) {
    if (!store.contains(kVersion1WorkspaceModes)) {
        return false;
    }
    const QJsonObject old = jsonObjectAt(store, kVersion1WorkspaceModes);
    FolderPolicies::StoredModes modes;
    for (auto it = old.constBegin(); it != old.constEnd(); ++it) {
        if (it.value().isString()) {
            modes.append({it.key(), it.value().toString()});
        }
    }
    store.remove(kVersion1WorkspaceModes);
    FolderPolicies::writeWorkspaceModes(store, modes);
    return true;
}

bool SettingsMigration::moveApprovalPolicies(QSettings& store) {
    if (!store.contains(kVersion1ApprovalPolicies)) {
        return false;
    }
    const QJsonObject old = jsonObjectAt(store, kVersion1ApprovalPolicies);
    QList<FolderPolicies::StoredApproval> approvals;
    for (auto it = old.constBegin(); it != old.constEnd(); ++it) {
        // A folder with a damaged entry stays listed, as version 1 listed every key.
        const QJsonObject entry = it.value().toObject();
        FolderPolicies::StoredApproval approval;
        approval.folder = it.key();
        approval.mode = entry.value(QStringLiteral("mode")).toString();
        for (const ApprovalRuleKind kind : {ApprovalRuleKind::Allow, ApprovalRuleKind::Ask, ApprovalRuleKind::Deny}) {
            approval.rules(kind) = storedRules(entry.value(QString(approvalRuleKindName(kind))).toArray());
        }
        approvals.append(approval);
    }
    store.remove(kVersion1ApprovalPolicies);
    FolderPolicies::writeApprovals(store, approvals);
    return true;
}

bool SettingsMigration::moveFolderAllow(QSettings& store) {
    if (!store.contains(kVersion1FolderAllow)) {
        return false;
    }
    const QVariantMap old = store.value(kVersion1FolderAllow).toMap();
    NetworkSettings::FolderRules rules;
    for (auto it = old.cbegin(); it != old.cend(); ++it) {
        rules.append({it.key(), it.value().toStringList()});
    }
    store.remove(kVersion1FolderAllow);
    NetworkSettings::writeFolderRules(store, rules);
    return true;
}

}  // namespace zeus
