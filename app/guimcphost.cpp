#include "guimcphost.h"

#include "agenthostservice.h"
#include "backend/protocol.h"
#include "backend/workspacegate.h"
#include "mcp/mcpsession.h"
#include "mcpbridgechannel.h"
#include "modes.h"
#include "sandboxhost.h"
#include "support/logging.h"

#include <QLocalSocket>
#include <QTimer>

#include <algorithm>

namespace zeus {

GuiMcpHost::GuiMcpHost(SandboxHost& sandbox, AgentHostService& core, QObject* parent)
    : QObject(parent), m_sandbox(sandbox) {
    m_backend.setIdPrefix(ToolDispatcher::mcpSessionPrefix());
    m_dispatcher.setIdNamespace(ToolDispatcher::mcpSessionPrefix());
    // Elicitation first, then the tray's dialog (setApprovalFallback), as SPEC §12 orders them.
    m_dispatcher.setApprovalQueue(&m_approvals.queue());
    // The review copies are the tray's own (its Changes page applies them); nobody is asked here, so
    // apply_changes points there. Direct mode is told by the copy that is missing.
    wireMcpReviewTools(m_backend, core, false, false);
    // open_port asks the user in the tray for the backend's sessions; for a bridged session it is not offered yet.
    m_backend.setToolHandler(
        McpTool::OpenPort, [](const McpToolCall&, const QString& session, const McpLocalBackend::Answer& answer) {
            answer(McpLocalBackend::toolResult(
                QStringLiteral("open_port is not available through the tray app yet: publish the port of session %1 "
                               "from the Sessions page (Open Port...)")
                    .arg(session),
                true));
        });
}

GuiMcpHost::~GuiMcpHost() {
    m_http.reset();  // its sessions cancel through m_backend
    m_sandbox.removeDispatcher(&m_dispatcher);
    // The sessions (children of their channels) cancel through m_backend: they go while it still exists.
    for (const QPointer<McpBridgeChannel>& channel : std::as_const(m_channels)) {
        delete channel.data();
    }
    m_dispatcher.setApprovalQueue(nullptr);
}

bool GuiMcpHost::ensureStarted() {
    if (m_started) {
        return true;
    }
    if (!m_backend.listen()) {
        qCWarning(lcApp) << "MCP: cannot listen on 127.0.0.1 for the sandbox's own connection";
        return false;
    }
    m_started = true;
    // The door connects to this process's own loopback backend with its in-process token (never on a command
    // line, in a file or a log line), and is served the sandbox's manager from now on.
    m_sandbox.addDispatcher(&m_dispatcher);
    m_connection.setUrl(m_backend.url());
    m_connection.setToken(m_backend.token());
    m_connection.start();
    return true;
}

int GuiMcpHost::bridges() const {
    return int(std::count_if(m_channels.cbegin(), m_channels.cend(),
                             [](const QPointer<McpBridgeChannel>& channel) { return !channel.isNull(); }));
}

GuiMcpHost::Folders GuiMcpHost::foldersFor(const QStringList& requested) const {
    Folders folders;
    if (requested.isEmpty()) {
        folders.approved = m_dispatcher.activeWorkspaces();
        if (folders.approved.isEmpty()) {
            folders.code = QStringLiteral("workspace_not_approved");
            folders.message = QStringLiteral(
                "no folder is approved in the tray app: approve one there, or name one with --workspace DIR");
        }
        return folders;
    }
    WorkspaceGate gate;
    gate.setApproved(m_dispatcher.approvedWorkspaces());
    for (const QString& folder : requested) {
        const WorkspaceGate::Check check = gate.check(folder);
        if (const std::optional<WorkspaceGate::Refusal> refused = gate.refusalFor(QString(), check)) {
            folders.code = Protocol::errorCodeName(refused->code);
            folders.message =
                QStringLiteral("refused workspace %1: %2 (approve it in the tray app)").arg(folder, refused->message);
            folders.approved.clear();
            return folders;
        }
        folders.approved << check.approved;  // the approval's string, never the client's spelling
    }
    folders.approved.removeDuplicates();
    return folders;
}

void GuiMcpHost::refuse(McpBridgeChannel* channel, const QString& code, const QString& message) {
    qCInfo(lcApp).noquote() << "MCP bridge refused:" << code << message;
    channel->sendLine(McpBridgeChannel::refuseLine(code, message));
    channel->close();
    connect(channel, &McpBridgeChannel::closed, channel, &QObject::deleteLater);
    // A client that does not read the answer must not hold the connection.
    QTimer::singleShot(kCloseWaitMs, channel, [channel] { channel->socket()->abort(); });
}

void GuiMcpHost::accept(McpBridgeChannel* channel, const QStringList& workspaces) {
    channel->setParent(this);
    if (!channel->isOpen()) {
        channel->deleteLater();  // the client left before its answer
        return;
    }
    const Folders folders = foldersFor(workspaces);
    if (!folders.code.isEmpty()) {
        refuse(channel, folders.code, folders.message);
        return;
    }
    if (!ensureStarted()) {
        refuse(channel, QStringLiteral("container_failed"),
               QStringLiteral("the tray app cannot listen on 127.0.0.1 for the sandbox's own connection"));
        return;
    }
    McpSession* session = m_backend.createSession(channel);
    m_backend.setSessionWorkingDirectory(session, folders.approved.constFirst());
    m_channels.removeIf([](const QPointer<McpBridgeChannel>& known) { return known.isNull(); });
    m_channels.append(channel);
    const QString sessionId = m_backend.coreSessionId(session->sessionId());
    qCInfo(lcApp).noquote() << "MCP bridge: session" << sessionId << "in"
                            << folders.approved.join(QStringLiteral(", "));

    connect(session, &McpSession::messageOut, channel, &McpBridgeChannel::sendLine);
    connect(channel, &McpBridgeChannel::lineReceived, session, &McpSession::handleMessage);
    connect(channel, &McpBridgeChannel::oversizedLine, session, &McpSession::refuseOversizedMessage);
    connect(channel, &McpBridgeChannel::closed, this, [this, channel, session, sessionId] {
        // The client is gone: its calls are cancelled, unanswered, and its container is removed.
        qCInfo(lcApp).noquote() << "MCP bridge closed: ending session" << sessionId;
        session->cancelAll();
        m_backend.endSession(session->sessionId());
        channel->deleteLater();
    });
    channel->sendLine(McpBridgeChannel::acceptLine(sessionId));
}

void GuiMcpHost::closeAll() {
    for (const QPointer<McpBridgeChannel>& channel : std::as_const(m_channels)) {
        if (channel) {
            channel->close();
        }
    }
    if (m_http) {
        m_http->closeAll();
    }
}

void GuiMcpHost::foldersChanged() {
    // A call that names no folder runs in the first approved one, as for a bridge without --workspace.
    const QStringList folders = m_dispatcher.activeWorkspaces();
    m_backend.setDefaultWorkingDirectory(folders.isEmpty() ? QString() : folders.constFirst());
}

void GuiMcpHost::setHttpPort(int port) {
    setHttpPort(port, false);
}

void GuiMcpHost::setHttpPort(int port, bool reread) {
    if (port == m_httpPort && !reread && (m_http || !m_httpProblem.isEmpty() || port == 0)) {
        return;
    }
    m_httpPort = port;
    const quint64 read = ++m_tokenReads;  // an answer for an older port or token is dropped
    if (m_http) {
        qCInfo(lcApp) << "MCP over HTTP: stopping on port" << m_http->port();
        m_http->closeAll();
        m_http.reset();
    }
    m_httpProblem.clear();
    if (port == 0) {
        Q_EMIT httpStateChanged();
        return;
    }
    auto* token = new McpHttpToken(this);
    connect(token, &McpHttpToken::ready, this,
            [this, token, read](McpHttpToken::Status status, const QString& value, const QString& problem) {
                token->deleteLater();
                if (read != m_tokenReads) {
                    return;
                }
                if (status == McpHttpToken::Status::Failed) {
                    m_httpProblem = tr("MCP over HTTP is off: the keychain could not keep its token (%1)").arg(problem);
                    qCWarning(lcApp).noquote() << m_httpProblem;
                    Q_EMIT httpStateChanged();
                    return;
                }
                startHttp(value);
            });
    token->obtain(false);
}

void GuiMcpHost::startHttp(const QString& token) {
    if (!ensureStarted()) {
        m_httpProblem = tr("MCP over HTTP is off: the app cannot listen on 127.0.0.1 for the sandbox's own connection");
        Q_EMIT httpStateChanged();
        return;
    }
    foldersChanged();
    auto server = std::make_unique<McpHttpServer>(m_backend, token.toLatin1());
    if (!server->listen(quint16(m_httpPort))) {
        m_httpProblem = tr("MCP over HTTP is off: 127.0.0.1:%1 is in use").arg(m_httpPort);
        qCWarning(lcApp).noquote() << m_httpProblem;
        Q_EMIT httpStateChanged();
        return;
    }
    m_http = std::move(server);
    qCInfo(lcApp) << "MCP over HTTP listening on 127.0.0.1 port" << m_http->port();
    Q_EMIT httpStateChanged();
}

}  // namespace zeus
