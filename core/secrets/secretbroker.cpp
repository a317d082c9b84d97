#include "secrets/secretbroker.h"

#include "support/logging.h"

#include <QTimer>

#include <utility>

namespace zeus {

SecretBroker::SecretBroker(QString service, QObject* parent) : QObject(parent), m_service(std::move(service)) {
    qRegisterMetaType<zeus::SecretBroker::Request>();
    qRegisterMetaType<zeus::SecretBroker::Answer>();
}

SecretBroker::~SecretBroker() = default;

void SecretBroker::setKnownNames(const QStringList& names) {
    m_known = names;
}

QStringList SecretBroker::needingApproval(const Request& request) const {
    QStringList needing;
    const QStringList forFolder = m_folderApprovals.value(request.folder);
    const QSet<QString> forSession = m_sessionApprovals.value(request.sessionId);
    for (const QString& name : request.names) {
        if (!m_preApproved.contains(name) && !forFolder.contains(name) && !forSession.contains(name)) {
            needing.append(name);
        }
    }
    return needing;
}

void SecretBroker::request(const Request& request) {
    if (m_pending.contains(request.id) || m_fetching.contains(request.id)) {
        return;  // already being decided
    }
    QStringList unknown;
    for (const QString& name : request.names) {
        if (!m_known.contains(name)) {
            unknown.append(name);
        }
    }
    if (!unknown.isEmpty()) {
        qCInfo(lcSecrets).noquote() << "call" << request.id << "asks for unknown secrets" << unknown.join(u',');
        const Answer answer{request.id,
                            Outcome::Unknown,
                            {},
                            tr("No secret named %1 is stored on this computer. Stored: %2.")
                                .arg(unknown.join(QStringLiteral(", ")),
                                     m_known.isEmpty() ? tr("none") : m_known.join(QStringLiteral(", ")))};
        QTimer::singleShot(0, this, [this, answer] { finish(answer); });
        return;
    }
    const QStringList needing = needingApproval(request);
    if (needing.isEmpty()) {
        fetch(request);
        return;
    }
    if (!m_interactive) {
        qCInfo(lcSecrets).noquote() << "call" << request.id << "denied secrets" << needing.join(u',')
                                    << "(not pre-approved)";
        const Answer answer{request.id,
                            Outcome::Denied,
                            {},
                            tr("The secret %1 was not approved for this command: without a user to ask, only the "
                               "names given with --allow-secret are approved.")
                                .arg(needing.join(QStringLiteral(", ")))};
        QTimer::singleShot(0, this, [this, answer] { finish(answer); });
        return;
    }
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    const QString id = request.id;
    connect(timer, &QTimer::timeout, this, [this, id] {
        if (!m_pending.contains(id)) {
            return;
        }
        qCInfo(lcSecrets) << "call" << id << "secret approval timed out";
        settle(id);
        finish(Answer{id,
                      Outcome::Denied,
                      {},
                      tr("Nobody approved the use of the secret within %1 seconds, so the command did not run.")
                          .arg(m_approvalTimeoutMs / 1000)});
    });
    m_pending.insert(id, Pending{request, timer});
    m_pendingOrder.append(id);
    timer->start(m_approvalTimeoutMs);
    qCInfo(lcSecrets).noquote() << "call" << id << "waits for the user's approval of" << needing.join(u',');
    Q_EMIT approvalNeeded(request);
}

void SecretBroker::decide(const QString& id, Decision decision) {
    const auto it = m_pending.constFind(id);
    if (it == m_pending.cend()) {
        return;
    }
    const Request request = it->request;
    settle(id);
    qCInfo(lcSecrets) << "call" << id << "secret approval:" << decision;
    switch (decision) {
        case Decision::Deny:
            finish(Answer{id, Outcome::Denied, {}, tr("The user denied the use of the secret for this command.")});
            return;
        case Decision::Once:
            break;
        case Decision::Session:
            for (const QString& name : request.names) {
                m_sessionApprovals[request.sessionId].insert(name);
            }
            break;
        case Decision::AlwaysForFolder:
            for (const QString& name : request.names) {
                QStringList& names = m_folderApprovals[request.folder];
                if (!names.contains(name)) {
                    names.append(name);
                    Q_EMIT alwaysApproved(name, request.folder);
                }
            }
            break;
    }
    fetch(request);
}

void SecretBroker::cancel(const QString& id) {
    if (m_pending.contains(id)) {
        settle(id);
        finish(Answer{id, Outcome::Cancelled, {}, tr("Cancelled while waiting for the approval of a secret.")});
        return;
    }
    const auto fetching = m_fetching.find(id);
    if (fetching != m_fetching.end()) {
        if (fetching->store) {
            fetching->store->disconnect(this);
            fetching->store->deleteLater();
        }
        m_fetching.erase(fetching);
        finish(Answer{id, Outcome::Cancelled, {}, tr("Cancelled while reading the secret from the keychain.")});
    }
}

void SecretBroker::endSession(const QString& sessionId) {
    m_sessionApprovals.remove(sessionId);
}

QList<SecretBroker::Request> SecretBroker::waiting() const {
    QList<Request> requests;
    for (const QString& id : m_pendingOrder) {
        requests.append(m_pending.value(id).request);
    }
    return requests;
}

void SecretBroker::settle(const QString& id) {
    const auto it = m_pending.find(id);
    if (it == m_pending.end()) {
        return;
    }
    it->timer->deleteLater();
    m_pending.erase(it);
    m_pendingOrder.removeAll(id);
    Q_EMIT approvalSettled(id);
}

void SecretBroker::fetch(const Request& request) {
    auto* store = m_service.isEmpty() ? new SecretStore(this) : new SecretStore(m_service, this);
    m_fetching.insert(request.id, Fetch{request, {}, store});
    const QString id = request.id;
    connect(
        store, &SecretStore::finished, this,
        [this, id](SecretStore::Operation, const QString& name, const SecretStore::Result& result) {
            const auto it = m_fetching.find(id);
            if (it == m_fetching.end()) {
                return;
            }
            if (result.status != SecretStore::Status::Ok) {
                it->store->deleteLater();
                m_fetching.erase(it);
                const Outcome outcome =
                    result.status == SecretStore::Status::Missing ? Outcome::Unknown : Outcome::Failed;
                finish(Answer{id,
                              outcome,
                              {},
                              tr("The secret %1 could not be read from the keychain: %2").arg(name, result.message)});
                return;
            }
            it->values.append(SecretValue{name, result.value});
            fetchNext(id);
        });
    fetchNext(id);
}

void SecretBroker::fetchNext(const QString& id) {
    const auto it = m_fetching.find(id);
    if (it == m_fetching.end()) {
        return;
    }
    if (it->values.size() < it->request.names.size()) {
        it->store->read(it->request.names.at(it->values.size()));
        return;
    }
    Answer answer{id, Outcome::Granted, it->values, {}};
    const QStringList names = it->request.names;
    it->store->deleteLater();
    m_fetching.erase(it);
    Q_EMIT used(names);
    finish(answer);
}

void SecretBroker::finish(const Answer& answer) {
    Q_EMIT answered(answer);
}

}  // namespace zeus
