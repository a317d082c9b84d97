#include "backend/credentialstore.h"

#include "support/keychainjob.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QTimer>

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
    run(new KeychainJob(KeychainJob::Operation::Read, m_service, backendUrl, this), Operation::Read, backendUrl);
}

void CredentialStore::writeToken(const QString& backendUrl, const QString& token) {
    auto* job = new KeychainJob(KeychainJob::Operation::Write, m_service, backendUrl, this);
    job->setText(token);
    run(job, Operation::Write, backendUrl);
}

void CredentialStore::deleteToken(const QString& backendUrl) {
    run(new KeychainJob(KeychainJob::Operation::Delete, m_service, backendUrl, this), Operation::Delete, backendUrl);
}

void CredentialStore::run(KeychainJob* job, Operation operation, const QString& backendUrl) {
    job->setTimeoutMs(m_timeoutMs);
    const int timeoutMs = m_timeoutMs;
    connect(job, &KeychainJob::finished, this,
            [this, operation, backendUrl, timeoutMs](const KeychainJob::Outcome& outcome) {
                Result result = resultFor(operation, outcome.failure, outcome.errorString, timeoutMs);
                if (operation == Operation::Read && result.status == Status::Ok) {
                    result.token = QString::fromUtf8(outcome.data);
                }
                if (result.status == Status::SignedOut) {
                    qCInfo(lcSecrets) << "no token stored for this backend";
                } else if (result.status == Status::TimedOut) {
                    qCWarning(lcSecrets) << "keychain" << operationName(operation) << "timed out after" << timeoutMs
                                         << "ms";
                } else if (result.status != Status::Ok) {
                    qCWarning(lcSecrets).noquote()
                        << "keychain" << operationName(operation) << "failed:" << outcome.errorString;
                }
                finish(operation, backendUrl, result);
            });
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

CredentialStore::Result CredentialStore::classify(Operation operation, int keychainError, const QString& errorString) {
    return resultFor(operation, KeychainJob::classify(keychainError, errorString), errorString, kDefaultTimeoutMs);
}

CredentialStore::Result CredentialStore::resultFor(Operation operation, KeychainFailure failure,
                                                   const QString& errorString, int timeoutMs) {
    switch (failure) {
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
        case KeychainFailure::TimedOut:
            return Result{Status::TimedOut, {}, timeoutMessage(timeoutMs), false};
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
