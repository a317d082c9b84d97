#include "backend/portrequests.h"

#include "backend/backendconnection.h"
#include "backend/protocol.h"
#include "backend/tooldispatcher.h"
#include "sandbox/sandboxsession.h"
#include "sandbox/sessionmanager.h"
#include "support/logging.h"

#include <utility>

namespace zeus {

PortRequests::PortRequests(BackendConnection* connection, ManagerSource manager, QObject* parent)
    : QObject(parent), m_connection(connection), m_manager(std::move(manager)) {
    connect(connection, &BackendConnection::messageReceived, this, [this](const IncomingMessage& message) {
        if (const auto* request = std::get_if<OpenPortMessage>(&message)) {
            handle(*request);
        }
    });
}

void PortRequests::handle(const OpenPortMessage& request) {
    if (ToolDispatcher::isLocalSessionId(request.sessionId)) {
        refuse(ProtocolErrorCode::InvalidMessage,
               QStringLiteral("session_id must not start with \"%1\": those sessions belong to this computer")
                   .arg(ToolDispatcher::localSessionPrefix()));
        return;
    }
    if (!m_approved && m_asker) {
        m_asker(request, [self = QPointer<PortRequests>(this), request](bool approved) {
            if (!self) {
                return;
            }
            if (approved) {
                self->publish(request);
            } else {
                self->refuse(ProtocolErrorCode::ApprovalDenied,
                             QStringLiteral("the user did not approve publishing port %1").arg(request.port));
            }
        });
        return;
    }
    if (!m_approved) {
        qCInfo(lcBackend) << "open_port" << request.port << "of session" << request.sessionId
                          << "refused: not approved";
        refuse(ProtocolErrorCode::ApprovalDenied,
               QStringLiteral("publishing port %1 needs the user's approval (headless: --allow-publish)")
                   .arg(request.port));
        return;
    }
    publish(request);
}

void PortRequests::publish(const OpenPortMessage& request) {
    SandboxSession* session = nullptr;
    if (SessionManager* manager = m_manager ? m_manager() : nullptr) {
        // The manager keeps its sessions as children: the lookup needs nothing of it but that.
        const QList<SandboxSession*> sessions = manager->findChildren<SandboxSession*>(Qt::FindDirectChildrenOnly);
        for (SandboxSession* candidate : sessions) {
            if (candidate->id() == request.sessionId) {
                session = candidate;
            }
        }
    }
    if (session == nullptr) {
        refuse(ProtocolErrorCode::ContainerFailed,
               QStringLiteral("session %1 has no running container: a port is published after its first command")
                   .arg(request.sessionId.left(128)));
        return;
    }
    QString error;
    const std::optional<PublishedPorts::Port> port = session->publishPort({0, quint16(request.port)}, &error);
    if (!port) {
        refuse(
            ProtocolErrorCode::ContainerFailed,
            QStringLiteral("port %1 of session %2 not published: %3").arg(request.port).arg(request.sessionId, error));
        return;
    }
    if (m_connection) {
        m_connection->send(
            Protocol::makePortOpened(request.sessionId, request.port, port->hostPort, port->url().toString()));
    }
}

void PortRequests::refuse(ProtocolErrorCode code, const QString& message) {
    if (m_connection) {
        m_connection->send(Protocol::makeError(code, message));
    }
}

}  // namespace zeus
