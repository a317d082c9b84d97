#include "mcp/mcphttptoken.h"

#include "support/keychainjob.h"

#include <zeus/buildinfo.h>

#include <QRandomGenerator>

#include <utility>

namespace zeus {

namespace {

QString keychainProblem(const QString& what, const KeychainJob::Outcome& outcome) {
    switch (outcome.failure) {
        case KeychainFailure::NoService:
            return what + QStringLiteral(": no keychain service is reachable");
        case KeychainFailure::LockedOrDenied:
            return what + QStringLiteral(": the keychain is locked or refused access");
        case KeychainFailure::TimedOut:
            return what + QStringLiteral(": the keychain did not answer in time");
        default:
            return what + QStringLiteral(": ") + outcome.errorString;
    }
}

}  // namespace

McpHttpToken::McpHttpToken(QObject* parent) : McpHttpToken(QStringLiteral(ZEUS_APP_ID), parent) {}

McpHttpToken::McpHttpToken(QString service, QObject* parent) : QObject(parent), m_service(std::move(service)) {}

QString McpHttpToken::generate() {
    QByteArray data(kTokenBytes, Qt::Uninitialized);
    QRandomGenerator* random = QRandomGenerator::system();
    for (char& byte : data) {
        byte = static_cast<char>(random->bounded(256));
    }
    return QString::fromLatin1(data.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

void McpHttpToken::obtain(bool reset) {
    if (reset) {
        create();
        return;
    }
    auto* job = new KeychainJob(KeychainJob::Operation::Read, m_service, QLatin1String(kKey), this);
    connect(job, &KeychainJob::finished, this, [this](const KeychainJob::Outcome& outcome) {
        const QString token = QString::fromUtf8(outcome.data).trimmed();
        if (outcome.failure == KeychainFailure::None && !token.isEmpty()) {
            Q_EMIT ready(Status::Existing, token, {});
        } else if (outcome.failure == KeychainFailure::NotFound
                   || (outcome.failure == KeychainFailure::None && token.isEmpty())) {
            create();
        } else {
            Q_EMIT ready(Status::Failed, {},
                         keychainProblem(QStringLiteral("cannot read the MCP HTTP token"), outcome));
        }
    });
    job->start();
}

void McpHttpToken::create() {
    const QString token = generate();
    auto* job = new KeychainJob(KeychainJob::Operation::Write, m_service, QLatin1String(kKey), this);
    job->setBinaryData(token.toLatin1());  // read back as binary: the same encoding both ways
    connect(job, &KeychainJob::finished, this, [this, token](const KeychainJob::Outcome& outcome) {
        if (outcome.failure == KeychainFailure::None) {
            Q_EMIT ready(Status::Created, token, {});
        } else {
            Q_EMIT ready(Status::Failed, {},
                         keychainProblem(QStringLiteral("cannot store the MCP HTTP token"), outcome));
        }
    });
    job->start();
}

}  // namespace zeus
