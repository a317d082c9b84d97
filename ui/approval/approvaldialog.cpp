#include "approval/approvaldialog.h"

#include "approval/approvalqueue.h"
#include "approval/commandanalyser.h"

#include <QComboBox>
#include <QDir>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace zeus {

namespace {

constexpr int kCallIdRole = Qt::UserRole;

QLabel* makeSelectableLabel(QWidget* parent, const QString& name) {
    auto* label = new QLabel(parent);
    label->setObjectName(name);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setWordWrap(true);
    return label;
}

}  // namespace

ApprovalDialog::ApprovalDialog(ApprovalQueue* queue, QWidget* parent) : QDialog(parent), m_queue(queue) {
    setObjectName(QStringLiteral("approvalDialog"));
    setWindowTitle(tr("Command waiting for approval"));

    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("waitingCalls"));
    m_list->setAccessibleName(tr("Commands waiting for approval"));
    m_list->setMaximumHeight(90);

    m_command = new QPlainTextEdit(this);
    m_command->setObjectName(QStringLiteral("command"));
    m_command->setAccessibleName(tr("Command"));
    m_command->setReadOnly(true);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_command->setMinimumHeight(90);

    m_folder = makeSelectableLabel(this, QStringLiteral("folder"));
    m_session = makeSelectableLabel(this, QStringLiteral("session"));
    m_uncovered = makeSelectableLabel(this, QStringLiteral("uncovered"));
    m_uncovered->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_reason = makeSelectableLabel(this, QStringLiteral("reason"));
    m_countdown = new QLabel(this);
    m_countdown->setObjectName(QStringLiteral("countdown"));

    m_prefix = new QComboBox(this);
    m_prefix->setObjectName(QStringLiteral("prefix"));
    m_prefix->setAccessibleName(tr("Command prefix to allow"));
    m_prefix->setEditable(true);
    m_prefix->setInsertPolicy(QComboBox::NoInsert);
    m_prefix->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_prefix->setSizeAdjustPolicy(QComboBox::AdjustToContents);

    m_runOnce = new QPushButton(tr("&Run Once"), this);
    m_runOnce->setObjectName(QStringLiteral("runOnce"));
    m_alwaysAllow = new QPushButton(this);
    m_alwaysAllow->setObjectName(QStringLiteral("alwaysAllow"));
    m_deny = new QPushButton(tr("&Deny"), this);
    m_deny->setObjectName(QStringLiteral("deny"));
    m_deny->setDefault(true);  // Enter never runs a command by accident

    auto* form = new QFormLayout;
    form->addRow(tr("Folder:"), m_folder);
    form->addRow(tr("Session:"), m_session);
    form->addRow(tr("Not covered:"), m_uncovered);
    form->addRow(tr("Why:"), m_reason);
    form->addRow(tr("Rule prefix:"), m_prefix);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_countdown, 1);
    buttons->addWidget(m_deny);
    buttons->addWidget(m_alwaysAllow);
    buttons->addWidget(m_runOnce);

    auto* heading = new QLabel(tr("The agent wants to run this command in the sandbox:"), this);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_list);
    layout->addWidget(heading);
    layout->addWidget(m_command, 1);
    layout->addLayout(form);
    layout->addLayout(buttons);

    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, &ApprovalDialog::updateCountdown);
    connect(m_list, &QListWidget::currentRowChanged, this, &ApprovalDialog::showCurrent);
    connect(m_prefix, &QComboBox::editTextChanged, this, &ApprovalDialog::updateAlwaysAllow);
    connect(m_runOnce, &QPushButton::clicked, this, &ApprovalDialog::runOnce);
    connect(m_alwaysAllow, &QPushButton::clicked, this, &ApprovalDialog::alwaysAllow);
    connect(m_deny, &QPushButton::clicked, this, &ApprovalDialog::deny);
    if (m_queue) {
        connect(m_queue, &ApprovalQueue::questionAdded, this, &ApprovalDialog::addQuestion);
        connect(m_queue, &ApprovalQueue::questionRemoved, this, &ApprovalDialog::removeQuestion);
        for (const ApprovalQuestion& question : m_queue->pending()) {
            addQuestion(question);
        }
    }
    showCurrent();
    resize(640, 420);
}

ApprovalDialog::~ApprovalDialog() = default;

QString ApprovalDialog::currentCallId() const {
    const QListWidgetItem* item = m_list->currentItem();
    return item ? item->data(kCallIdRole).toString() : QString();
}

int ApprovalDialog::waitingCount() const {
    return m_list->count();
}

void ApprovalDialog::addQuestion(const ApprovalQuestion& question) {
    auto* item = new QListWidgetItem(question.command.simplified().left(120), m_list);
    item->setData(kCallIdRole, question.callId);
    item->setToolTip(question.command.left(2000));
    if (!m_list->currentItem()) {
        m_list->setCurrentItem(item);
    }
    m_list->setVisible(m_list->count() > 1);
    setWindowTitle(m_list->count() > 1 ? tr("%1 commands waiting for approval").arg(m_list->count())
                                       : tr("Command waiting for approval"));
    if (!isVisible()) {
        show();
    }
    raise();
    activateWindow();
}

void ApprovalDialog::removeQuestion(const QString& callId) {
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->data(kCallIdRole).toString() == callId) {
            delete m_list->takeItem(row);
            break;
        }
    }
    m_list->setVisible(m_list->count() > 1);
    setWindowTitle(m_list->count() > 1 ? tr("%1 commands waiting for approval").arg(m_list->count())
                                       : tr("Command waiting for approval"));
    if (m_list->count() == 0) {
        hide();
    } else if (!m_list->currentItem()) {
        m_list->setCurrentRow(0);
    }
    showCurrent();
}

void ApprovalDialog::showCurrent() {
    const QString callId = currentCallId();
    ApprovalQuestion question;
    bool found = false;
    if (m_queue) {
        for (const ApprovalQuestion& each : m_queue->pending()) {
            if (each.callId == callId) {
                question = each;
                found = true;
            }
        }
    }
    m_runOnce->setEnabled(found);
    m_deny->setEnabled(found);
    m_command->setPlainText(found ? question.command : QString());
    m_folder->setText(found ? QDir::toNativeSeparators(question.folder) : QString());
    m_session->setText(question.sessionId);
    m_uncovered->setText(found ? question.decision.uncovered : QString());
    m_reason->setText(!found                            ? QString()
                      : question.decision.why.isEmpty() ? question.decision.reason
                                                        : question.decision.why);
    m_prefix->clear();
    if (found && !question.decision.suggestedPrefix.isEmpty()) {
        m_prefix->addItems(question.decision.prefixChoices);
        m_prefix->setCurrentText(question.decision.suggestedPrefix);
        m_prefix->setEnabled(true);
        m_prefix->setToolTip(tr("Commands starting with these words will run in this folder without asking."));
    } else {
        m_prefix->setEnabled(false);
        m_prefix->setToolTip(found ? tr("No rule can allow this part: it uses shell syntax that is always asked.")
                                   : QString());
    }
    updateAlwaysAllow();
    updateCountdown();
    if (found) {
        m_tick->start();
    } else {
        m_tick->stop();
    }
}

void ApprovalDialog::updateAlwaysAllow() {
    const QString prefix = m_prefix->currentText().simplified();
    const bool usable = m_prefix->isEnabled() && !CommandAnalyser::ruleWords(prefix).isEmpty();
    m_alwaysAllow->setEnabled(usable);
    m_alwaysAllow->setText(usable ? tr("&Always Allow “%1” Here").arg(prefix.left(40)) : tr("&Always Allow"));
}

void ApprovalDialog::updateCountdown() {
    if (!m_queue) {
        return;
    }
    for (const ApprovalQuestion& question : m_queue->pending()) {
        if (question.callId == currentCallId()) {
            const qint64 seconds = qMax<qint64>(0, QDateTime::currentDateTimeUtc().secsTo(question.deadline));
            m_countdown->setText(tr("Denied in %1 s without an answer").arg(seconds));
            return;
        }
    }
    m_countdown->clear();
}

void ApprovalDialog::runOnce() {
    if (m_queue && !currentCallId().isEmpty()) {
        m_queue->answer(currentCallId(), ApprovalAnswer{ApprovalAnswer::Kind::RunOnce, ApprovalAnswer::By::User, {}});
    }
}

void ApprovalDialog::alwaysAllow() {
    const QString prefix = m_prefix->currentText().simplified();
    if (m_queue && !currentCallId().isEmpty() && !CommandAnalyser::ruleWords(prefix).isEmpty()) {
        m_queue->answer(currentCallId(),
                        ApprovalAnswer{ApprovalAnswer::Kind::AlwaysAllow, ApprovalAnswer::By::User, prefix});
    }
}

void ApprovalDialog::deny() {
    if (m_queue && !currentCallId().isEmpty()) {
        m_queue->answer(currentCallId(), ApprovalAnswer{ApprovalAnswer::Kind::Deny, ApprovalAnswer::By::User, {}});
    }
}

}  // namespace zeus
