#include "backend/secretgate.h"

#include "support/logging.h"

#include <QCoreApplication>

namespace zeus {

SecretGate::SecretGate(QObject* parent) : QObject(parent) {}

SecretGate::~SecretGate() = default;

void SecretGate::setBroker(SecretBroker* broker) {
    if (m_broker) {
        m_broker->disconnect(this);
    }
    m_broker = broker;
    if (broker) {
        connect(broker, &SecretBroker::answered, this, &SecretGate::onAnswered);
    }
}

QStringList SecretGate::knownNames() const {
    return m_broker ? m_broker->knownNames() : QStringList();
}

void SecretGate::ask(const ToolCallMessage& call, const QString& folder) {
    if (m_awaiting.contains(call.callId)) {
        qCInfo(lcBackend) << "call" << call.callId << "already waits for its secrets; not asked again";
        return;
    }
    if (!m_broker) {
        // The words keep the translation context they were written in (the dispatcher's).
        Q_EMIT refused(
            call.callId, ProtocolErrorCode::SecretUnknown,
            QCoreApplication::translate("zeus::ToolDispatcher", "No secret named %1 is stored on this computer.")
                .arg(call.secrets.join(QStringLiteral(", "))));
        return;
    }
    m_awaiting.insert(call.callId, call);
    m_broker->request(SecretBroker::Request{call.callId, call.sessionId, folder, call.command, call.secrets});
}

bool SecretGate::cancel(const QString& callId) {
    if (!m_awaiting.contains(callId) || !m_broker) {
        return false;
    }
    m_broker->cancel(callId);  // its answer ends the call as cancelled
    return true;
}

void SecretGate::endSession(const QString& sessionId) {
    if (m_broker) {
        m_broker->endSession(sessionId);
    }
}

void SecretGate::onAnswered(const SecretBroker::Answer& answer) {
    const auto it = m_awaiting.find(answer.id);
    if (it == m_awaiting.end()) {
        return;
    }
    const ToolCallMessage call = *it;
    m_awaiting.erase(it);
    switch (answer.outcome) {
        case SecretBroker::Outcome::Granted:
            m_granted.insert(call.callId, answer.values);
            Q_EMIT granted(call);  // every check again: the folder or the runtime may have gone meanwhile
            m_granted.remove(call.callId);
            return;
        case SecretBroker::Outcome::Cancelled:
            Q_EMIT cancelled(call.callId);
            return;
        case SecretBroker::Outcome::Unknown:
            qCInfo(lcBackend) << "call" << call.callId << "refused: unknown secret";
            Q_EMIT refused(call.callId, ProtocolErrorCode::SecretUnknown, answer.message);
            return;
        case SecretBroker::Outcome::Denied:
        case SecretBroker::Outcome::Failed:
            qCInfo(lcBackend) << "call" << call.callId << "refused: secret not approved or not readable";
            Q_EMIT refused(call.callId, ProtocolErrorCode::SecretDenied, answer.message);
            return;
    }
}

}  // namespace zeus
