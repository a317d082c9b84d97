#include "secrets/secretstore.h"

#include "secrets/redactor.h"
#include "support/keychainjob.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QRegularExpression>
#include <QTimer>

#include <utility>

namespace zeus {

namespace {

QString keyFor(const QString& name) {
    return QStringLiteral("secret:") + name;
}

}  // namespace

SecretStore::SecretStore(QObject* parent) : SecretStore(QStringLiteral(ZEUS_APP_ID), parent) {}

SecretStore::SecretStore(QString service, QObject* parent) : QObject(parent), m_service(std::move(service)) {
    qRegisterMetaType<Result>();
}

bool SecretStore::isValidName(const QString& name) {
    return nameProblem(name).isEmpty();
}

QString SecretStore::nameProblem(const QString& name) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Z_][A-Z0-9_]{0,127}$"));
    if (!pattern.match(name).hasMatch()) {
        return tr(
            "A secret's name is an environment variable name: capital letters, digits and _, not starting "
            "with a digit (e.g. GITHUB_TOKEN).");
    }
    // Names the sandbox sets itself, or that change what a shell or the loader runs: a secret must not replace them.
    static const QStringList reserved = {QStringLiteral("PATH"), QStringLiteral("HOME"), QStringLiteral("SHELL"),
                                         QStringLiteral("IFS"),  QStringLiteral("ENV"),  QStringLiteral("BASH_ENV"),
                                         QStringLiteral("PWD"),  QStringLiteral("USER"), QStringLiteral("TERM")};
    if (reserved.contains(name) || name.startsWith(QLatin1String("ZEUS_CALL_TAG"))
        || name.startsWith(QLatin1String("ZEUS_COMMAND")) || name.startsWith(QLatin1String("LD_"))) {
        return tr("%1 is a name the sandbox or the shell relies on; choose another.").arg(name);
    }
    return {};
}

QString SecretStore::valueProblem(const QByteArray& value) {
    if (value.size() < Redactor::kMinValueBytes) {
        return tr("A secret must be at least %1 bytes long: a shorter one would be redacted from ordinary output.")
            .arg(Redactor::kMinValueBytes);
    }
    if (value.size() > Redactor::kMaxValueBytes) {
        return tr("A secret may be at most %1 bytes long.").arg(Redactor::kMaxValueBytes);
    }
    if (value.contains('\0')) {
        return tr("A secret cannot contain a NUL byte (it goes into an environment variable).");
    }
    return {};
}

void SecretStore::read(const QString& name) {
    if (!isValidName(name)) {
        finishLater(Operation::Read, name, Result{Status::Invalid, {}, nameProblem(name)});
        return;
    }
    run(new KeychainJob(KeychainJob::Operation::Read, m_service, keyFor(name), this), Operation::Read, name);
}

void SecretStore::write(const QString& name, const QByteArray& value) {
    QString problem = nameProblem(name);
    if (problem.isEmpty()) {
        problem = valueProblem(value);
    }
    if (!problem.isEmpty()) {
        finishLater(Operation::Write, name, Result{Status::Invalid, {}, problem});
        return;
    }
    auto* job = new KeychainJob(KeychainJob::Operation::Write, m_service, keyFor(name), this);
    job->setBinaryData(value);
    run(job, Operation::Write, name);
}

void SecretStore::remove(const QString& name) {
    if (!isValidName(name)) {
        finishLater(Operation::Delete, name, Result{Status::Invalid, {}, nameProblem(name)});
        return;
    }
    run(new KeychainJob(KeychainJob::Operation::Delete, m_service, keyFor(name), this), Operation::Delete, name);
}

void SecretStore::finishLater(Operation operation, const QString& name, const Result& result) {
    // Still asynchronous, so callers see one behaviour whatever the outcome.
    QTimer::singleShot(0, this, [this, operation, name, result] { Q_EMIT finished(operation, name, result); });
}

void SecretStore::run(KeychainJob* job, Operation operation, const QString& name) {
    job->setTimeoutMs(m_timeoutMs);
    const int timeoutMs = m_timeoutMs;
    connect(job, &KeychainJob::finished, this, [this, operation, name, timeoutMs](const KeychainJob::Outcome& outcome) {
        Result result = resultFor(operation, outcome.failure, outcome.errorString, timeoutMs);
        if (operation == Operation::Read && result.status == Status::Ok) {
            result.value = outcome.data;
        }
        if (result.status == Status::TimedOut) {
            qCWarning(lcSecrets) << "keychain job for secret" << name << "timed out after" << timeoutMs << "ms";
        }
        if (outcome.failure != KeychainFailure::None && outcome.failure != KeychainFailure::NotFound
            && outcome.failure != KeychainFailure::TimedOut) {
            qCWarning(lcSecrets).noquote() << "keychain" << name << "failed:" << outcome.errorString;
        }
        Q_EMIT finished(operation, name, result);
    });
    job->start();
}

SecretStore::Result SecretStore::classify(Operation operation, int keychainError, const QString& errorString) {
    return resultFor(operation, KeychainJob::classify(keychainError, errorString), errorString, kDefaultTimeoutMs);
}

SecretStore::Result SecretStore::resultFor(Operation operation, KeychainFailure failure, const QString& errorString,
                                           int timeoutMs) {
    switch (failure) {
        case KeychainFailure::None:
            return Result{Status::Ok, {}, {}};
        case KeychainFailure::NotFound:
            if (operation == Operation::Delete) {
                return Result{Status::Ok, {}, {}};  // gone, as asked
            }
            return Result{Status::Missing, {}, tr("No value is stored in the keychain for this secret.")};
        case KeychainFailure::LockedOrDenied:
            return Result{Status::AccessDenied,
                          {},
                          tr("The keychain is locked or access to it was denied. Unlock it and try again.")};
        case KeychainFailure::TimedOut:
            return Result{Status::TimedOut,
                          {},
                          tr("The keychain did not answer within %1 seconds. It may be locked and waiting for "
                             "its password.")
                              .arg(timeoutMs / 1000.0)};
        case KeychainFailure::Other:
            return Result{Status::Failed, {}, tr("The keychain reported an error: %1").arg(errorString)};
        case KeychainFailure::NoService:
            break;
    }
    return Result{Status::NoKeyring,
                  {},
                  tr("No keychain is available for secrets (%1). Zeus Desktop never stores a secret in plain text: "
                     "start a keyring such as GNOME Keyring or KWallet.")
                      .arg(errorString.isEmpty() ? tr("no keychain service") : errorString)};
}

}  // namespace zeus
