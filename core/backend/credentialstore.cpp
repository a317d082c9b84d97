#include "backend/credentialstore.h"

#include "support/keychainerror.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QPointer>
#include <QTimer>

#include <memory>
#include <utility>

namespace zeus {

namespace {

const char* operationName(CredentialStore::Operation operation) {
    switch (operation) {
        case CredentialStore::Operation::Read:
            return "read";
        case CredentialStore::Operation::Write:
            return "write";
        case CredentialStore::Operation::Delete:
            return "delete";
    }
    return "?";
}

}  // namespace

CredentialStore::CredentialStore(QObject* parent) : CredentialStore(QStringLiteral(ZEUS_APP_ID), parent) {}

CredentialStore::CredentialStore(QString service, QObject* parent) : QObject(parent), m_service(std::move(service)) {
    qRegisterMetaType<Result>();
}

void CredentialStore::readToken(const QString& backendUrl) {
    const QString fromEnvironment = qEnvironmentVariable(kTokenVariable);
    if (!fromEnvironment.isEmpty()) {
        qCInfo(lcSecrets) << "using the token from" << kTokenVariable;
        Result result{Status::Ok, fromEnvironment, {}, true};
        // Still asynchronous, so callers see one behaviour whatever the source.
        QTimer::singleShot(0, this, [this, backendUrl, result] { finish(Operation::Read, backendUrl, result); });
        return;
    }
    run(new QKeychain::ReadPasswordJob(m_service, this), Operation::Read, backendUrl);
}

void CredentialStore::writeToken(const QString& backendUrl, const QString& token) {
    auto* job = new QKeychain::WritePasswordJob(m_service, this);
    job->setTextData(token);
    run(job, Operation::Write, backendUrl);
}

void CredentialStore::deleteToken(const QString& backendUrl) {
    run(new QKeychain::DeletePasswordJob(m_service, this), Operation::Delete, backendUrl);
}

void CredentialStore::run(QKeychain::Job* job, Operation operation, const QString& backendUrl) {
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(backendUrl);

    // Whichever comes first, the job's answer or the timeout, ends the operation; the other is ignored. A job
    // that never answers cannot be cancelled (QtKeychain has no API for it): it is left to finish on its own.
    auto settled = std::make_shared<bool>(false);
    auto* timer = new QTimer(this);
    timer->setSingleShot(true);
    const QPointer<QKeychain::Job> guard(job);

    connect(job, &QKeychain::Job::finished, this, [this, operation, backendUrl, settled, timer](QKeychain::Job* j) {
        timer->deleteLater();
        if (*settled) {
            return;
        }
        *settled = true;
        timer->stop();
        Result result = classify(operation, j->error(), j->errorString());
        if (operation == Operation::Read && result.status == Status::Ok) {
            result.token = static_cast<QKeychain::ReadPasswordJob*>(j)->textData();
        }
        if (result.status == Status::SignedOut) {
            qCInfo(lcSecrets) << "no token stored for this backend";
        } else if (result.status != Status::Ok) {
            qCWarning(lcSecrets).noquote() << "keychain" << operationName(operation) << "failed:" << j->errorString();
        }
        finish(operation, backendUrl, result);
    });
    connect(timer, &QTimer::timeout, this, [this, operation, backendUrl, settled, timer, guard] {
        timer->deleteLater();
        if (*settled) {
            return;
        }
        *settled = true;
        if (guard) {
            guard->disconnect(this);
        }
        qCWarning(lcSecrets) << "keychain" << operationName(operation) << "timed out after" << m_timeoutMs << "ms";
        finish(operation, backendUrl, Result{Status::TimedOut, {}, timeoutMessage(m_timeoutMs), false});
    });
    timer->start(m_timeoutMs);
    job->start();
}

void CredentialStore::finish(Operation operation, const QString& backendUrl, const Result& result) {
    switch (operation) {
        case Operation::Read:
            Q_EMIT readFinished(backendUrl, result);
            break;
        case Operation::Write:
            Q_EMIT writeFinished(backendUrl, result);
            break;
        case Operation::Delete:
            Q_EMIT deleteFinished(backendUrl, result);
            break;
    }
}

CredentialStore::Result CredentialStore::classify(Operation operation, QKeychain::Error error,
                                                  const QString& errorString) {
    switch (classifyKeychainError(error, errorString)) {
        case KeychainFailure::None:
            return Result{Status::Ok, {}, {}, false};
        case KeychainFailure::NotFound:
            // Deleting what is not there leaves the user signed out, which is what they asked for.
            if (operation == Operation::Delete) {
                return Result{Status::Ok, {}, {}, false};
            }
            return Result{Status::SignedOut, {}, tr("Not signed in: no token is stored for this backend."), false};
        case KeychainFailure::LockedOrDenied:
            return Result{Status::AccessDenied,
                          {},
                          tr("The keychain is locked or access to it was denied. Unlock it and try again."),
                          false};
        case KeychainFailure::Other:
            return Result{Status::Failed, {}, tr("The keychain reported an error: %1").arg(errorString), false};
        case KeychainFailure::NoService:
            break;
    }
    return Result{
        Status::NoKeyring,
        {},
        tr("No keychain is available to store the sign-in token (%1). Zeus Desktop never stores it in "
           "plain text: start a keyring such as GNOME Keyring or KWallet, or set %2 for headless use.")
            .arg(errorString.isEmpty() ? tr("no keychain service") : errorString, QLatin1String(kTokenVariable)),
        false};
}

QString CredentialStore::timeoutMessage(int timeoutMs) {
    return tr("The keychain did not answer within %1 seconds. It may be locked and waiting for its password.")
        .arg(timeoutMs / 1000.0);
}

}  // namespace zeus
