#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace zeus {

class AppSettings;
class SecretStore;

// Settings -> Secrets (SPEC §9): the names of the stored secrets, the hosts each is bound to and when each was last
// used; add, replace, bind ("Use only with…") and delete. A value is typed once into a password field and goes
// straight to the keychain (SecretStore): it is never shown back, never kept by this page, never written to the
// settings (only its name and its hosts are).
class SecretsPage : public QWidget {
    Q_OBJECT
public:
    // `store` may be shared; the page only listens to the operations it started.
    SecretsPage(AppSettings* settings, SecretStore* store, QWidget* parent = nullptr);

    void refresh();
    // Stores a value under a name (add or replace); the status line says how it went.
    void storeSecret(const QString& name, const QByteArray& value);
    void deleteSecret(const QString& name);
    // Binds a stored secret to host rules (SPEC §8 rules, presets as `@word`; empty: unbound). False, and the
    // status line says why, when a rule does not parse: nothing is changed then.
    bool bindSecret(const QString& name, const QStringList& rules);
    QString statusText() const;
    // The "Use only with" cell of a name: the presets by their names, then the other rules; "" when unbound.
    QString bindingText(const QString& name) const;
    bool isBusy() const { return !m_busyName.isEmpty(); }

private:
    void askForValue(const QString& name);
    void askForHosts(const QString& name);
    void setBusy(const QString& name);

    AppSettings* m_settings;
    SecretStore* m_store;
    QTableWidget* m_table;
    QPushButton* m_add;
    QPushButton* m_replace;
    QPushButton* m_bind;
    QPushButton* m_delete;
    QLabel* m_status;
    QString m_busyName;
};

}  // namespace zeus
