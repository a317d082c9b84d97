#include "settings/secretspage.h"

#include "appsettings.h"
#include "secrets/secretstore.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace zeus {

SecretsPage::SecretsPage(AppSettings* settings, SecretStore* store, QWidget* parent)
    : QWidget(parent), m_settings(settings), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Secrets live in the system keychain. A command gets one only when it asks for it by "
                                "name and you allow it; its value is never shown to the agent and is redacted from "
                                "the output."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(0, 2, this);
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Last used")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table);
    auto* row = new QHBoxLayout;
    m_add = new QPushButton(tr("&Add…"), this);
    m_replace = new QPushButton(tr("&Replace value…"), this);
    m_delete = new QPushButton(tr("De&lete"), this);
    row->addWidget(m_add);
    row->addWidget(m_replace);
    row->addWidget(m_delete);
    row->addStretch();
    layout->addLayout(row);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    const auto selectedName = [this]() -> QString {
        const QList<QTableWidgetItem*> items = m_table->selectedItems();
        return items.isEmpty() ? QString() : m_table->item(items.first()->row(), 0)->text();
    };
    connect(m_add, &QPushButton::clicked, this, [this] { askForValue(QString()); });
    connect(m_replace, &QPushButton::clicked, this, [this, selectedName] {
        if (!selectedName().isEmpty()) {
            askForValue(selectedName());
        }
    });
    connect(m_delete, &QPushButton::clicked, this, [this, selectedName] {
        const QString name = selectedName();
        if (name.isEmpty()) {
            return;
        }
        auto* box = new QMessageBox(QMessageBox::Question, tr("Delete secret"),
                                    tr("Delete the secret %1 from the keychain?").arg(name),
                                    QMessageBox::Yes | QMessageBox::No, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        connect(box, &QMessageBox::accepted, this, [this, name] { deleteSecret(name); });
        box->open();
    });
    connect(m_table, &QTableWidget::itemSelectionChanged, this, [this] {
        const bool selected = !m_table->selectedItems().isEmpty();
        m_replace->setEnabled(selected && !isBusy());
        m_delete->setEnabled(selected && !isBusy());
    });
    connect(m_settings, &AppSettings::secretsChanged, this, &SecretsPage::refresh);
    connect(m_store, &SecretStore::finished, this,
            [this](SecretStore::Operation operation, const QString& name, const SecretStore::Result& result) {
                if (name != m_busyName) {
                    return;  // not one this page started
                }
                setBusy(QString());
                if (result.status != SecretStore::Status::Ok) {
                    m_status->setText(result.message);
                    return;
                }
                if (operation == SecretStore::Operation::Write) {
                    m_settings->addSecretName(name);
                    m_status->setText(tr("%1 is stored in the keychain.").arg(name));
                } else if (operation == SecretStore::Operation::Delete) {
                    m_settings->removeSecretName(name);
                    m_status->setText(tr("%1 was deleted.").arg(name));
                }
                refresh();
            });
    refresh();
}

void SecretsPage::refresh() {
    const QStringList names = m_settings->secretNames();
    m_table->setRowCount(int(names.size()));
    for (int i = 0; i < names.size(); ++i) {
        m_table->setItem(i, 0, new QTableWidgetItem(names.at(i)));
        const QDateTime used = m_settings->secretLastUsed(names.at(i));
        m_table->setItem(
            i, 1,
            new QTableWidgetItem(used.isValid() ? QLocale().toString(used.toLocalTime(), QLocale::ShortFormat)
                                                : tr("never")));
    }
    const bool selected = !m_table->selectedItems().isEmpty();
    m_add->setEnabled(!isBusy());
    m_replace->setEnabled(selected && !isBusy());
    m_delete->setEnabled(selected && !isBusy());
}

void SecretsPage::setBusy(const QString& name) {
    m_busyName = name;
    if (!name.isEmpty()) {
        m_status->setText(tr("Waiting for the keychain…"));
    }
    refresh();
}

QString SecretsPage::statusText() const {
    return m_status->text();
}

void SecretsPage::storeSecret(const QString& name, const QByteArray& value) {
    QString problem = SecretStore::nameProblem(name);
    if (problem.isEmpty()) {
        problem = SecretStore::valueProblem(value);
    }
    if (!problem.isEmpty()) {
        m_status->setText(problem);
        return;
    }
    setBusy(name);
    m_store->write(name, value);
}

void SecretsPage::deleteSecret(const QString& name) {
    setBusy(name);
    m_store->remove(name);
}

void SecretsPage::askForValue(const QString& name) {
    // open(), not exec(): no nested event loop. The form goes away with its answer.
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(name.isEmpty() ? tr("Add a secret") : tr("Replace %1").arg(name));
    auto* form = new QFormLayout(dialog);
    auto* nameEdit = new QLineEdit(name, dialog);
    nameEdit->setPlaceholderText(QStringLiteral("GITHUB_TOKEN"));
    nameEdit->setReadOnly(!name.isEmpty());
    auto* valueEdit = new QLineEdit(dialog);
    valueEdit->setEchoMode(QLineEdit::Password);
    form->addRow(tr("&Name:"), nameEdit);
    form->addRow(tr("&Value:"), valueEdit);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, nameEdit, valueEdit] {
        QByteArray value = valueEdit->text().toUtf8();
        valueEdit->clear();
        storeSecret(nameEdit->text().trimmed(), value);
        value.fill('\0');
        dialog->accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    dialog->open();
}

}  // namespace zeus
