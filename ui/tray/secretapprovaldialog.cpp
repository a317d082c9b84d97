#include "tray/secretapprovaldialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace zeus {

SecretApprovalDialog::SecretApprovalDialog(const SecretBroker::Request& request, QWidget* parent)
    : QDialog(parent), m_id(request.id) {
    setWindowTitle(tr("Allow a secret?"));
    auto* layout = new QVBoxLayout(this);
    auto* text = new QLabel(question(request), this);
    text->setWordWrap(true);
    text->setTextFormat(Qt::PlainText);
    layout->addWidget(text);

    layout->addWidget(new QLabel(tr("Command:"), this));
    auto* command = new QPlainTextEdit(request.command, this);
    command->setReadOnly(true);
    command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    command->setMaximumHeight(72);
    layout->addWidget(command);

    auto* folder = new QLabel(tr("Folder: %1").arg(QDir::toNativeSeparators(request.folder)), this);
    folder->setTextFormat(Qt::PlainText);
    folder->setWordWrap(true);
    layout->addWidget(folder);
    auto* note = new QLabel(tr("The value goes into this command's environment only and is redacted from its output. "
                               "Without an answer within 2 minutes the command is denied."),
                            this);
    note->setWordWrap(true);
    layout->addWidget(note);

    auto* buttons = new QDialogButtonBox(this);
    QPushButton* once = buttons->addButton(tr("Allow &once"), QDialogButtonBox::AcceptRole);
    QPushButton* session = buttons->addButton(tr("Allow for this &session"), QDialogButtonBox::AcceptRole);
    QPushButton* always = buttons->addButton(tr("&Always in this folder"), QDialogButtonBox::AcceptRole);
    QPushButton* deny = buttons->addButton(tr("&Deny"), QDialogButtonBox::RejectRole);
    deny->setDefault(true);  // Enter never hands a secret out by accident
    layout->addWidget(buttons);
    connect(once, &QPushButton::clicked, this, [this] { answer(SecretBroker::Decision::Once); });
    connect(session, &QPushButton::clicked, this, [this] { answer(SecretBroker::Decision::Session); });
    connect(always, &QPushButton::clicked, this, [this] { answer(SecretBroker::Decision::AlwaysForFolder); });
    connect(deny, &QPushButton::clicked, this, [this] { answer(SecretBroker::Decision::Deny); });
    resize(560, sizeHint().height());
}

QString SecretApprovalDialog::question(const SecretBroker::Request& request) {
    const QString names = request.names.join(QStringLiteral(", "));
    return request.names.size() == 1 ? tr("The agent asks to run a command with the secret %1.").arg(names)
                                     : tr("The agent asks to run a command with the secrets %1.").arg(names);
}

void SecretApprovalDialog::reject() {
    answer(SecretBroker::Decision::Deny);
}

void SecretApprovalDialog::answer(SecretBroker::Decision decision) {
    if (!m_answered) {
        m_answered = true;
        Q_EMIT decided(m_id, decision);
    }
    QDialog::done(decision == SecretBroker::Decision::Deny ? QDialog::Rejected : QDialog::Accepted);
}

}  // namespace zeus
