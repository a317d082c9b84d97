#pragma once

#include "backend/backendconnection.h"
#include "backend/tooldispatcher.h"
#include "mcp/mcpapprovals.h"
#include "mcp/mcphttpserver.h"
#include "mcp/mcphttptoken.h"
#include "mcp/mcplocalbackend.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>

namespace zeus {

class AgentHostService;
class McpBridgeChannel;
class SandboxHost;

// The tray app's MCP server for `zeus-desktop --mcp` (SPEC §12 "stdio", docs/mcp.md "The tray app serves --mcp"):
// each bridge the single-instance socket hands on is one McpSession of one McpLocalBackend in this process, whose
// calls reach the sandbox through a second BackendConnection and ToolDispatcher -- the MCP door -- next to the
// backend's. The door is served the same SessionManager by the SandboxHost, and GuiService configures it as the
// backend's dispatcher (the tray's approvals, its ApprovalQueue and dialog, its secrets), so an MCP call passes
// every gate a backend call passes, and its session shows in the dashboard.
//
// The door's session and call ids live in ToolDispatcher::mcpSessionPrefix() and it takes no others, while the
// backend's dispatcher takes none of those: neither side can reach, end or hear about the other's sessions. It
// starts nothing (no loopback socket) until the first bridge. It must never serve a bridge a folder the tray has
// not approved, nor keep a session after its bridge closed (the container is removed).
class GuiMcpHost : public QObject {
    Q_OBJECT
public:
    static constexpr int kCloseWaitMs = 2000;  // for the last answers to leave before a refused bridge closes

    GuiMcpHost(SandboxHost& sandbox, AgentHostService& core, QObject* parent = nullptr);
    ~GuiMcpHost() override;

    // The door: configured by the tray app like its backend's dispatcher.
    ToolDispatcher& dispatcher() { return m_dispatcher; }
    // Takes a bridge the single-instance socket read the request of: refuses it (a folder the tray has not
    // approved, none approved, no loopback) or answers with its session and serves it until it closes.
    void accept(McpBridgeChannel* channel, const QStringList& workspaces);
    // Every bridge is closed (the app quits); their sessions end with the sandbox.
    void closeAll();
    int bridges() const;

    // Command approval (SPEC §12): a client that declared elicitation is asked; any other question goes to
    // `dialog`, the tray's queue (null: denied). Set before the first bridge.
    void setApprovalFallback(ApprovalQueue* dialog) { m_approvals.setFallback(dialog); }

    // The MCP server over Streamable HTTP (SPEC §12, Settings > Agents): serves on 127.0.0.1:port with the token
    // from the keychain, or stops (0). A new token (renewToken) restarts it with that one; its sessions end.
    void setHttpPort(int port);
    void renewToken() { setHttpPort(m_httpPort, true); }
    int httpPort() const { return m_httpPort; }
    // The tray's approvals changed: an HTTP call that names no folder runs in the first approved one.
    void foldersChanged();
    // Serving over HTTP now (the port is open).
    bool isServingHttp() const { return m_http != nullptr; }
    // Why the HTTP server does not serve although a port is set (the port is taken, the keychain failed), or empty.
    QString httpProblem() const { return m_httpProblem; }

Q_SIGNALS:
    // The HTTP server started, stopped or failed (httpProblem()).
    void httpStateChanged();

private:
    bool ensureStarted();
    // The folders a bridge asked for, each an approval of the tray (its string), or a refusal.
    struct Folders {
        QStringList approved;
        QString code;
        QString message;
    };
    Folders foldersFor(const QStringList& requested) const;
    static void refuse(McpBridgeChannel* channel, const QString& code, const QString& message);

    SandboxHost& m_sandbox;
    McpLocalBackend m_backend;
    BackendConnection m_connection;
    ToolDispatcher m_dispatcher{&m_connection};
    QList<QPointer<McpBridgeChannel>> m_channels;
    bool m_started = false;
    McpApprovals m_approvals{m_backend};
    // The HTTP transport: the port asked for, the token read for it (each read cancels the one before), the server.
    void setHttpPort(int port, bool reread);
    void startHttp(const QString& token);
    int m_httpPort = 0;
    quint64 m_tokenReads = 0;
    std::unique_ptr<McpHttpServer> m_http;
    QString m_httpProblem;
};

}  // namespace zeus
