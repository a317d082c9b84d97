#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace zeus {

class AppSettings;
class SecretApprovalDialog;
class SecretBroker;
class TrayNotifier;

// Asks the user about a secret a command wants (SPEC §9): a tray notice and a dialog naming the secret, the command
// and the folder, one dialog per request, closed when the broker settles it (answered, timed out or cancelled).
// "Always in this folder" is remembered in the settings (names only), and the broker learns the names and those
// grants from the settings whenever they change.
class SecretPrompter : public QObject {
    Q_OBJECT
public:
    // `dialogParent`: the window the dialogs belong to (the dashboard).
    SecretPrompter(SecretBroker& broker, AppSettings* settings, TrayNotifier* notifier, QWidget* dialogParent,
                   QObject* parent = nullptr);

private:
    void syncFromSettings();

    SecretBroker& m_broker;
    AppSettings* m_settings;
    TrayNotifier* m_notifier;
    QPointer<QWidget> m_dialogParent;
    QHash<QString, QPointer<SecretApprovalDialog>> m_dialogs;
};

}  // namespace zeus
