#include "support/keychainjob.h"

#include <QCoreApplication>
#include <QPointer>
#include <qt6keychain/keychain.h>

#include <utility>

namespace zeus {

namespace {

bool mentionsMissingService(const QString& text) {
    static const char* const markers[] = {"d-bus",
                                          "dbus",
                                          "autolaunch",
                                          "secret service",
                                          "org.freedesktop.secrets",
                                          "no such interface",
                                          "not provided by any .service",
                                          "kwallet"};
    const QString lower = text.toLower();
    for (const char* marker : markers) {
        if (lower.contains(QLatin1String(marker))) {
            return true;
        }
    }
    return false;
}

}  // namespace

KeychainJob::KeychainJob(Operation operation, QString service, QString key, QObject* parent)
    : QObject(parent), m_operation(operation), m_service(std::move(service)), m_key(std::move(key)) {
    m_timer.setSingleShot(true);
}

void KeychainJob::setText(const QString& text) {
    m_text = text;
    m_binary = false;
}

void KeychainJob::setBinaryData(const QByteArray& data) {
    m_data = data;
    m_binary = true;
}

void KeychainJob::start() {
    // The keychain's job belongs to the application, not to this job nor to whoever asked: one that answers late
    // (a locked keychain, a bus that hangs) outlives the timeout and the asker, and finishes on its own. Deleting
    // it while the keychain library still has its answer to deliver crashes in that library (tst_keychainjob).
    QObject* const owner = QCoreApplication::instance();
    QKeychain::Job* job = nullptr;
    switch (m_operation) {
        case Operation::Read:
            job = new QKeychain::ReadPasswordJob(m_service, owner);
            break;
        case Operation::Write: {
            auto* write = new QKeychain::WritePasswordJob(m_service, owner);
            if (m_binary) {
                write->setBinaryData(m_data);
            } else {
                write->setTextData(m_text);
            }
            job = write;
            break;
        }
        case Operation::Delete:
            job = new QKeychain::DeletePasswordJob(m_service, owner);
            break;
    }
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(m_key);

    const QPointer<QKeychain::Job> guard(job);
    connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job* answered) {
        if (m_settled) {
            return;
        }
        Outcome outcome{classify(int(answered->error()), answered->errorString()), {}, answered->errorString()};
        if (m_operation == Operation::Read && outcome.failure == KeychainFailure::None) {
            outcome.data = static_cast<QKeychain::ReadPasswordJob*>(answered)->binaryData();
        }
        settle(outcome);
    });
    connect(&m_timer, &QTimer::timeout, this, [this, guard] {
        if (m_settled) {
            return;
        }
        if (guard) {
            guard->disconnect(this);
        }
        settle(Outcome{KeychainFailure::TimedOut, {}, {}});
    });
    m_timer.start(m_timeoutMs);
    job->start();
}

void KeychainJob::settle(const Outcome& outcome) {
    m_settled = true;
    m_timer.stop();
    Q_EMIT finished(outcome);
    deleteLater();
}

KeychainFailure KeychainJob::classify(int keychainError, const QString& errorString) {
    switch (QKeychain::Error(keychainError)) {
        case QKeychain::NoError:
            return KeychainFailure::None;
        case QKeychain::EntryNotFound:
            return KeychainFailure::NotFound;
        case QKeychain::AccessDenied:
        case QKeychain::AccessDeniedByUser:
            return KeychainFailure::LockedOrDenied;
        case QKeychain::NoBackendAvailable:
        case QKeychain::NotImplemented:
            return KeychainFailure::NoService;
        case QKeychain::CouldNotDeleteEntry:
        case QKeychain::OtherError:
            break;
    }
    if (mentionsMissingService(errorString)) {
        return KeychainFailure::NoService;
    }
    if (errorString.contains(QLatin1String("locked"), Qt::CaseInsensitive)
        || errorString.contains(QLatin1String("denied"), Qt::CaseInsensitive)) {
        return KeychainFailure::LockedOrDenied;
    }
    return KeychainFailure::Other;
}

}  // namespace zeus
