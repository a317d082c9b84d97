#pragma once

#include "backend/protocolmessages.h"
#include "secrets/secretbroker.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

namespace zeus {

// The secrets gate of a tool_call (SPEC §9), passed after the workspace and runtime checks and before command
// approval: a call that names args.secrets waits here while the SecretBroker decides, and goes through every gate
// again (granted()) only once they are granted, holding their values until its ExecRequest takes them; otherwise it
// ends as secret_unknown / secret_denied (refused()) or cancelled (cancelled()), never having run. It never decides
// itself which secret a call may have, never keeps a value past the call's start, and never runs a call.
class SecretGate : public QObject {
    Q_OBJECT

public:
    explicit SecretGate(QObject* parent = nullptr);
    ~SecretGate() override;

    // Who decides; null: every call that asks for a secret gets secret_unknown.
    void setBroker(SecretBroker* broker);
    // The broker's known names (hello.secrets); none without a broker.
    QStringList knownNames() const;

    // Whether the call must wait here: it asks for secrets and none were granted to it yet.
    bool mustAsk(const ToolCallMessage& call) const {
        return !call.secrets.isEmpty() && !m_granted.contains(call.callId);
    }
    // Asks the broker for the call's secrets (folder: the approval the call runs in).
    void ask(const ToolCallMessage& call, const QString& folder);
    // The granted values, handed over once (the call starts now).
    QList<SecretValue> take(const QString& callId) { return m_granted.take(callId); }
    // Cancels the decision of a call waiting here; false when it does not wait here (or there is no broker).
    bool cancel(const QString& callId);
    // The session ended: its "for this session" approvals go.
    void endSession(const QString& sessionId);

Q_SIGNALS:
    // The secrets were granted: the call goes through every gate again (the folder or the runtime may have gone).
    void granted(const zeus::ToolCallMessage& call);
    void refused(const QString& callId, zeus::ProtocolErrorCode code, const QString& message);
    void cancelled(const QString& callId);

private:
    void onAnswered(const SecretBroker::Answer& answer);

    QPointer<SecretBroker> m_broker;
    QHash<QString, ToolCallMessage> m_awaiting;    // calls whose secrets are being decided
    QHash<QString, QList<SecretValue>> m_granted;  // granted values, until the call's ExecRequest takes them
};

}  // namespace zeus
