#pragma once

#include "backend/protocolmessages.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <utility>

namespace zeus {

class BackendConnection;
class SessionManager;

// The backend's open_port (SPEC §8 "Ports", docs/protocol.md): whether it is approved, the session it names, and
// the answer, port_opened {session_id, port, host_port, url} or an `error`.
//
// Owns nothing but that decision. The port itself is the session's (SandboxSession::publishPort(): 127.0.0.1
// only, through the agent, closed with the container). Approval: headless, --allow-publish approves every request;
// without it a request is refused with approval_denied; the tray app asks the user (setAsker()). Must never
// publish for a session id of this computer's own namespace, nor for a session that has no running container.
class PortRequests : public QObject {
    Q_OBJECT

public:
    // The manager the backend's sessions live in now (the sandbox may swap it on a runtime change; null: none).
    using ManagerSource = std::function<SessionManager*()>;
    PortRequests(BackendConnection* connection, ManagerSource manager, QObject* parent = nullptr);

    // Headless --allow-publish: every open_port is approved.
    void setApproved(bool approved) { m_approved = approved; }
    // The tray app asks the user (SPEC §8: the user approves): the asker shows the question and calls `answer`
    // once, true to publish, false to refuse with approval_denied. Without one (headless) nobody is asked.
    using Asker = std::function<void(const OpenPortMessage& request, std::function<void(bool)> answer)>;
    void setAsker(Asker asker) { m_asker = std::move(asker); }
    bool approved() const { return m_approved; }
    // One request; the answer goes to the backend.
    void handle(const OpenPortMessage& request);

private:
    void publish(const OpenPortMessage& request);
    void refuse(ProtocolErrorCode code, const QString& message);

    QPointer<BackendConnection> m_connection;
    ManagerSource m_manager;
    Asker m_asker;
    bool m_approved = false;
};

}  // namespace zeus
