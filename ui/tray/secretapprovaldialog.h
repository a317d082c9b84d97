#pragma once

#include "secrets/secretbroker.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace zeus {

// Asks the user whether one command may have the secrets it asks for (SPEC §9): names the secrets, the command and
// the folder, and offers once / for this session / always in this folder / deny. Closing it is a denial; the broker's
// own timeout (120 s) denies when nobody answers. It shows no value and never decides by itself.
class SecretApprovalDialog : public QDialog {
    Q_OBJECT
public:
    explicit SecretApprovalDialog(const SecretBroker::Request& request, QWidget* parent = nullptr);

    const QString& requestId() const { return m_id; }
    // The question in words (pure; also the tray notification's text).
    static QString question(const SecretBroker::Request& request);

    // Closing the dialog (Escape, the window's close button) is a denial.
    void reject() override;

Q_SIGNALS:
    void decided(const QString& id, zeus::SecretBroker::Decision decision);

private:
    void answer(SecretBroker::Decision decision);

    QString m_id;
    bool m_answered = false;
};

}  // namespace zeus
