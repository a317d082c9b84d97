#pragma once

#include <QDialog>
#include <QPointer>

class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace zeus {

class ApprovalQueue;
struct ApprovalQuestion;

// The one window that asks the user about commands waiting for approval (SPEC §11): the full command (monospace,
// scrollable), the folder, the session and the part no rule covers, with Run once / Always allow "PREFIX" in this
// folder / Deny. The prefix is editable and offered from the command word down to the part's words. Several
// waiting calls queue in its list; it shows itself when a question arrives and hides when none is left.
//
// It only shows and answers what the ApprovalQueue holds: it never decides, never runs anything, and closing it
// answers nothing (the deadline still denies).
class ApprovalDialog : public QDialog {
    Q_OBJECT
public:
    explicit ApprovalDialog(ApprovalQueue* queue, QWidget* parent = nullptr);
    ~ApprovalDialog() override;

    // The call shown now (empty when none).
    QString currentCallId() const;
    int waitingCount() const;

    void runOnce();
    void alwaysAllow();
    void deny();

private:
    void addQuestion(const ApprovalQuestion& question);
    void removeQuestion(const QString& callId);
    void showCurrent();
    void updateCountdown();
    void updateAlwaysAllow();

    QPointer<ApprovalQueue> m_queue;
    QListWidget* m_list = nullptr;
    QPlainTextEdit* m_command = nullptr;
    QLabel* m_folder = nullptr;
    QLabel* m_session = nullptr;
    QLabel* m_uncovered = nullptr;
    QLabel* m_reason = nullptr;
    QLabel* m_countdown = nullptr;
    QComboBox* m_prefix = nullptr;
    QPushButton* m_runOnce = nullptr;
    QPushButton* m_alwaysAllow = nullptr;
    QPushButton* m_deny = nullptr;
    QTimer* m_tick = nullptr;
};

}  // namespace zeus
