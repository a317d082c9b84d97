#pragma once

#include "secrets/redactor.h"
#include "secrets/secretstore.h"

#include <QHash>
#include <QMetaType>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <memory>

class QTimer;

namespace zeus {

// Decides whether one command may have the secrets it asks for, and fetches their values (SPEC §9).
//
// It owns the known names (the index the settings keep), the names pre-approved for every use (headless:
// --allow-secret), the approvals "for this session" and "always for this folder", and the requests waiting for the
// user. request() ends in exactly one answered(): Unknown when a name is not stored here; Denied when it is not
// approved and no user can be asked (headless), the user said no, or nobody answered within the approval timeout
// (120 s); Failed when the keychain could not give a value; Cancelled after cancel(); else Granted with the values.
// approvalNeeded() asks the user (the tray's dialog answers with decide()). It must never hand a value to anything
// but the answer of the request that asked for it, never log a value, and never approve on its own.
class SecretBroker : public QObject {
    Q_OBJECT
public:
    // The user's answer to one request.
    enum class Decision {
        Deny,             // the command does not run
        Once,             // this command only
        Session,          // every command of this session that asks for these names
        AlwaysForFolder,  // every command in this folder, remembered in the settings
    };
    Q_ENUM(Decision)

    enum class Outcome { Granted, Unknown, Denied, Failed, Cancelled };
    Q_ENUM(Outcome)

    struct Request {
        QString id;  // the call id
        QString sessionId;
        QString folder;  // canonical
        QString command;
        QStringList names;
    };

    struct Answer {
        QString id;
        Outcome outcome = Outcome::Denied;
        QList<SecretValue> values;  // Granted only
        QString message;            // for the backend and the user; empty when Granted
    };

    static constexpr int kDefaultApprovalTimeoutMs = 120 * 1000;

    // `service`: the keychain service (tests use their own).
    explicit SecretBroker(QString service = QString(), QObject* parent = nullptr);
    ~SecretBroker() override;

    void setKnownNames(const QStringList& names);
    QStringList knownNames() const { return m_known; }
    // Names approved for every command without asking (headless --allow-secret NAME).
    void setPreApproved(const QStringList& names) { m_preApproved = names; }
    QStringList preApproved() const { return m_preApproved; }
    // Whether a user can be asked (the tray app); otherwise anything not pre-approved is denied at once.
    void setInteractive(bool interactive) { m_interactive = interactive; }
    // "Always for this folder" approvals: folder (canonical) -> names.
    void setFolderApprovals(const QHash<QString, QStringList>& approvals) { m_folderApprovals = approvals; }
    void setApprovalTimeoutMs(int timeoutMs) { m_approvalTimeoutMs = timeoutMs; }
    int approvalTimeoutMs() const { return m_approvalTimeoutMs; }

    void request(const Request& request);
    // The user's answer to a request that approvalNeeded() announced; ignored for any other id.
    void decide(const QString& id, Decision decision);
    void cancel(const QString& id);
    // The session ended: its "for this session" approvals go.
    void endSession(const QString& sessionId);
    // The requests waiting for the user, oldest first.
    QList<Request> waiting() const;
    // The names of `request` that still need the user's approval (pure on the broker's approvals).
    QStringList needingApproval(const Request& request) const;

Q_SIGNALS:
    void approvalNeeded(const zeus::SecretBroker::Request& request);
    // The request no longer waits for the user (answered, timed out or cancelled): its dialog goes.
    void approvalSettled(const QString& id);
    void answered(const zeus::SecretBroker::Answer& answer);
    // The user chose "always for this folder": the caller remembers it in the settings.
    void alwaysApproved(const QString& name, const QString& folder);
    // These secrets were handed to a command now (their "last used").
    void used(const QStringList& names);

private:
    struct Pending {
        Request request;
        QTimer* timer = nullptr;
    };
    struct Fetch {
        Request request;
        QList<SecretValue> values;
        SecretStore* store = nullptr;
    };
    void fetch(const Request& request);
    void fetchNext(const QString& id);
    void finish(const Answer& answer);
    void settle(const QString& id);

    QString m_service;
    QStringList m_known;
    QStringList m_preApproved;
    bool m_interactive = false;
    QHash<QString, QStringList> m_folderApprovals;
    QHash<QString, QSet<QString>> m_sessionApprovals;  // session id -> names
    QHash<QString, Pending> m_pending;
    QStringList m_pendingOrder;
    QHash<QString, Fetch> m_fetching;
    int m_approvalTimeoutMs = kDefaultApprovalTimeoutMs;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::SecretBroker::Request)
Q_DECLARE_METATYPE(zeus::SecretBroker::Answer)
