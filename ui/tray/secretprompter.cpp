#include "tray/secretprompter.h"

#include "appsettings.h"
#include "secrets/secretbroker.h"
#include "tray/secretapprovaldialog.h"
#include "tray/traynotifier.h"

namespace zeus {

SecretPrompter::SecretPrompter(SecretBroker& broker, AppSettings* settings, TrayNotifier* notifier,
                               QWidget* dialogParent, QObject* parent)
    : QObject(parent), m_broker(broker), m_settings(settings), m_notifier(notifier), m_dialogParent(dialogParent) {
    m_broker.setInteractive(true);
    syncFromSettings();
    connect(m_settings, &AppSettings::secretsChanged, this, &SecretPrompter::syncFromSettings);
    connect(&m_broker, &SecretBroker::alwaysApproved, this,
            [this](const QString& name, const QString& folder) { m_settings->addSecretFolderGrant(name, folder); });
    connect(&m_broker, &SecretBroker::approvalNeeded, this, [this](const SecretBroker::Request& request) {
        m_notifier->notify(tr("Allow a secret?"), SecretApprovalDialog::question(request));
        auto* dialog = new SecretApprovalDialog(request, m_dialogParent);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &SecretApprovalDialog::decided, &m_broker, &SecretBroker::decide);
        m_dialogs.insert(request.id, dialog);
        dialog->show();
        dialog->raise();
        dialog->activateWindow();
    });
    connect(&m_broker, &SecretBroker::approvalSettled, this, [this](const QString& id) {
        const QPointer<SecretApprovalDialog> dialog = m_dialogs.take(id);
        if (dialog) {
            dialog->close();
        }
    });
}

void SecretPrompter::syncFromSettings() {
    m_broker.setKnownNames(m_settings->secretNames());
    m_broker.setFolderApprovals(m_settings->secretFolderGrants());
}

}  // namespace zeus
