#include "settings/secretspage.h"

#include "appsettings.h"
#include "sandbox/egress/secretbinding.h"
#include "secrets/secretstore.h"

#include <QCheckBox>
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

namespace {

enum Column { NameColumn, BoundColumn, LastUsedColumn, Columns };

// The presets of "Use only with…" by the names people know them by (SecretBinding::presetNames()).
QString presetLabel(const QString& word) {
    if (word == QLatin1String("github")) {
        return SecretsPage::tr("GitHub");
    }
    if (word == QLatin1String("npm")) {
        return SecretsPage::tr("npm registry");
    }
    if (word == QLatin1String("pypi")) {
        return SecretsPage::tr("PyPI");
    }
    return word;
}

// The "Use only with" cell: presets by their names, then the other rules as written.
QString rulesLabel(const QStringList& rules) {
    QStringList parts;
    for (const QString& rule : rules) {
        parts << (rule.startsWith(QLatin1Char('@')) ? presetLabel(rule.mid(1)) : rule);
    }
    return parts.join(QStringLiteral(", "));
}

}  // namespace

SecretsPage::SecretsPage(AppSettings* settings, SecretStore* store, QWidget* parent)
    : QWidget(parent), m_settings(settings), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Secrets live in the system keychain. A command gets one only when it asks for it by "
                                "name and you allow it."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_table = new QTableWidget(0, Columns, this);
    m_table->setObjectName(QStringLiteral("secrets"));
    m_table->setHorizontalHeaderLabels({tr("Name"), tr("Use only with"), tr("Last used")});
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(BoundColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(LastUsedColumn, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table);
    auto* row = new QHBoxLayout;
    m_add = new QPushButton(tr("&Add…"), this);
    m_replace = new QPushButton(tr("&Replace value…"), this);
    m_bind = new QPushButton(tr("&Use only with…"), this);
    m_bind->setObjectName(QStringLiteral("useOnlyWith"));
    m_bind->setToolTip(tr("Keep the value out of the sandbox: the app puts it into requests to these hosts only."));
    m_delete = new QPushButton(tr("De&lete"), this);
    row->addWidget(m_add);
    row->addWidget(m_replace);
    row->addWidget(m_bind);
    row->addWidget(m_delete);
    row->addStretch();
    layout->addLayout(row);
    // SPEC §9: what each form protects against, where the user chooses it (docs/secrets.md has the whole table).
    auto* forms = new QLabel(tr("<b>Bound to hosts:</b> the value never enters the sandbox. Commands get a "
                                "placeholder (<tt>zeus-secret-NAME-…</tt>) and the app puts the value into HTTPS "
                                "requests to those hosts only; sent anywhere else, the request is refused.<br>"
                                "<b>Not bound:</b> the value goes into the environment of the command you allow and "
                                "is redacted from its output. That stops an accidental echo, not a command that "
                                "transforms the value before printing it."),
                             this);
    forms->setObjectName(QStringLiteral("secretForms"));
    forms->setWordWrap(true);
    forms->setTextFormat(Qt::RichText);
    layout->addWidget(forms);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    const auto selectedName = [this]() -> QString {
        const QList<QTableWidgetItem*> items = m_table->selectedItems();
        return items.isEmpty() ? QString() : m_table->item(items.first()->row(), NameColumn)->text();
    };
    connect(m_add, &QPushButton::clicked, this, [this] { askForValue(QString()); });
    connect(m_replace, &QPushButton::clicked, this, [this, selectedName] {
        if (!selectedName().isEmpty()) {
            askForValue(selectedName());
        }
    });
    connect(m_bind, &QPushButton::clicked, this, [this, selectedName] {
        if (!selectedName().isEmpty()) {
            askForHosts(selectedName());
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
        m_bind->setEnabled(selected && !isBusy());
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
    const QString selected = m_table->selectedItems().isEmpty()
                                 ? QString()
                                 : m_table->item(m_table->selectedItems().first()->row(), NameColumn)->text();
    const QHash<QString, QStringList> bindings = m_settings->secrets().bindings();  // read once, not per row
    for (int i = 0; i < names.size(); ++i) {
        m_table->setItem(i, NameColumn, new QTableWidgetItem(names.at(i)));
        const QString bound = rulesLabel(bindings.value(names.at(i)));
        auto* boundItem = new QTableWidgetItem(bound.isEmpty() ? tr("any command you allow (environment)") : bound);
        if (bound.isEmpty()) {
            boundItem->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
        }
        boundItem->setToolTip(bound.isEmpty()
                                  ? tr("Goes into the environment of a command you allow, redacted from "
                                       "its output.")
                                  : tr("Never enters the sandbox: put into requests to %1 only.").arg(bound));
        m_table->setItem(i, BoundColumn, boundItem);
        if (names.at(i) == selected) {
            m_table->selectRow(i);
        }
        const QDateTime used = m_settings->secretLastUsed(names.at(i));
        m_table->setItem(
            i, LastUsedColumn,
            new QTableWidgetItem(used.isValid() ? QLocale().toString(used.toLocalTime(), QLocale::ShortFormat)
                                                : tr("never")));
    }
    m_add->setEnabled(!isBusy());
    const bool hasSelection = !m_table->selectedItems().isEmpty();
    m_replace->setEnabled(hasSelection && !isBusy());
    m_bind->setEnabled(hasSelection && !isBusy());
    m_delete->setEnabled(hasSelection && !isBusy());
}

void SecretsPage::setBusy(const QString& name) {
    m_busyName = name;
    if (!name.isEmpty()) {
        m_status->setText(tr("Waiting for the keychain…"));
    }
    refresh();
}

QString SecretsPage::bindingText(const QString& name) const {
    return rulesLabel(m_settings->secrets().bindings().value(name));
}

bool SecretsPage::bindSecret(const QString& name, const QStringList& rules) {
    QString error;
    if (!rules.isEmpty() && !SecretBinding::fromRules(name, rules, &error)) {
        m_status->setText(error);
        return false;
    }
    m_settings->secrets().setBinding(name, rules);
    m_status->setText(rules.isEmpty()
                          ? tr("%1 goes into the environment of the commands you allow again.").arg(name)
                          : tr("%1 is bound to %2: it never enters the sandbox.").arg(name, bindingText(name)));
    refresh();
    return true;
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

void SecretsPage::askForHosts(const QString& name) {
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setObjectName(QStringLiteral("useOnlyWithDialog"));
    dialog->setWindowTitle(tr("Use %1 only with…").arg(name));
    auto* layout = new QVBoxLayout(dialog);
    auto* intro = new QLabel(tr("The value of %1 never enters the sandbox: commands get a placeholder, and the app "
                                "puts the value into requests to these hosts only.")
                                 .arg(name),
                             dialog);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    const QStringList current = m_settings->secrets().bindings().value(name);
    QList<QCheckBox*> presets;
    for (const QString& word : SecretBinding::presetNames()) {
        const QStringList hosts = SecretBinding::presetRules(word);
        auto* box = new QCheckBox(tr("%1 (%2)").arg(presetLabel(word), hosts.join(QStringLiteral(", "))), dialog);
        box->setObjectName(QStringLiteral("preset_") + word);
        box->setProperty("rule", QString(QStringLiteral("@") + word));
        box->setChecked(current.contains(QStringLiteral("@") + word));
        layout->addWidget(box);
        presets.append(box);
    }
    QStringList others;
    for (const QString& rule : current) {
        if (!rule.startsWith(QLatin1Char('@'))) {
            others << rule;
        }
    }
    auto* form = new QFormLayout;
    auto* otherEdit = new QLineEdit(others.join(QStringLiteral(", ")), dialog);
    otherEdit->setObjectName(QStringLiteral("otherHosts"));
    otherEdit->setPlaceholderText(QStringLiteral("git.example.com, *.registry.example.com:8443"));
    form->addRow(tr("&Other hosts:"), otherEdit);
    layout->addLayout(form);
    auto* hint = new QLabel(tr("Host rules as in Settings → Network. With none, the secret goes into the environment "
                               "of the commands you allow, as before."),
                            dialog);
    hint->setWordWrap(true);
    layout->addWidget(hint);
    auto* error = new QLabel(dialog);
    error->setObjectName(QStringLiteral("bindingError"));
    error->setWordWrap(true);
    error->setStyleSheet(QStringLiteral("color: #b42318;"));
    error->hide();
    layout->addWidget(error);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, dialog);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, name, presets, otherEdit, error] {
        QStringList rules;
        for (QCheckBox* box : presets) {
            if (box->isChecked()) {
                rules << box->property("rule").toString();
            }
        }
        for (const QString& part : otherEdit->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            if (!part.trimmed().isEmpty()) {
                rules << part.trimmed();
            }
        }
        if (bindSecret(name, rules)) {
            dialog->accept();
            return;
        }
        error->setText(statusText());  // the rule that does not parse; the dialog stays open with the user's text
        error->show();
    });
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    dialog->open();
}

}  // namespace zeus
