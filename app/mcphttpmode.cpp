// --mcp-http PORT [--workspace DIR]…: an MCP server over Streamable HTTP on 127.0.0.1:PORT for agents on this
// computer (docs/mcp.md "Streamable HTTP transport"). Every session's tool calls run through the GUI-free core that
// headless mode runs (runHeadlessCore), connected to this process's own loopback backend (McpLocalBackend), as in
// --mcp; McpHttpServer serves the HTTP side, one McpSession per Mcp-Session-Id. The bearer token is kept in the
// keychain (McpHttpToken) and shown on stderr by the run that made it, never logged. SIGINT or SIGTERM end every
// session, remove the containers and exit 0.
#include "agenthostservice.h"
#include "appsettings.h"
#include "mcp/mcpapprovals.h"
#include "mcp/mcphttpserver.h"
#include "mcp/mcphttptoken.h"
#include "mcp/mcplocalbackend.h"
#include "modes.h"
#include "support/logging.h"

#include <QCoreApplication>
#include <QTextStream>

#include <memory>

namespace zeus {

namespace {

constexpr int kExitNoToken = 3;  // as headless mode without a token

void say(const QString& line) {
    QTextStream(stderr) << "zeus-desktop: " << line << "\n";
}

}  // namespace

int runMcpHttpMode(const AppOptions& options) {
    installHeadlessLogFormat();
    AppSettings settings;
    QStringList workspaces;
    if (const int exitCode = mcpWorkspaces(options, settings, workspaces); exitCode != 0) {
        return exitCode;
    }
    const auto port = static_cast<quint16>(options.mcpHttpPort.toUInt());

    McpLocalBackend backend;
    if (!backend.listen()) {
        say(QStringLiteral("cannot listen on 127.0.0.1 for the sandbox's own connection"));
        return 1;
    }
    backend.setDefaultWorkingDirectory(workspaces.constFirst());
    McpHttpToken tokenStore;
    McpApprovals approvals(backend);        // a command to ask about is asked of the client's user (elicitation)
    std::unique_ptr<McpHttpServer> server;  // made once the token is known; goes before the backend

    HeadlessCore core;
    core.backend = backend.url();
    core.workspaces = workspaces;
    core.token = backend.token();
    core.journal = false;  // every result is acked at once; the URL is new each run (docs/mcp.md)
    core.notice = say;
    core.description = QStringLiteral("mcp-http: serving %1 on 127.0.0.1").arg(workspaces.join(QStringLiteral(", ")));
    const bool directMode =
        options.workspaceMode.value_or(settings.workspaceMode(workspaces.constFirst())) == WorkspaceMode::Direct;
    core.wire = [&backend, &approvals, &tokenStore, &server, port, directMode, allowApply = options.allowApply,
                 reset = options.mcpHttpTokenReset](AgentHostService& service,
                                                    const std::function<void(int)>& endWith) {
        wireMcpReviewTools(backend, service, directMode, allowApply);
        service.dispatcher().setApprovalQueue(&approvals.queue());
        QObject::connect(
            &tokenStore, &McpHttpToken::ready, &backend,
            [&backend, &server, port, endWith](McpHttpToken::Status status, const QString& token,
                                               const QString& problem) {
                if (status == McpHttpToken::Status::Failed) {
                    say(problem + QStringLiteral(": --mcp-http needs the keychain to keep its token"));
                    endWith(kExitNoToken);
                    return;
                }
                server = std::make_unique<McpHttpServer>(backend, token.toLatin1());
                if (!server->listen(port)) {
                    say(QStringLiteral("cannot listen on 127.0.0.1:%1").arg(port));
                    server.reset();
                    endWith(1);
                    return;
                }
                if (status == McpHttpToken::Status::Created) {
                    // Shown here once, on this terminal only: never in a log line. Later runs read it from the
                    // keychain; --mcp-http-token-reset makes a new one.
                    say(QStringLiteral("new MCP HTTP token (kept in the keychain, shown only now): %1").arg(token));
                }
                say(QStringLiteral("MCP over HTTP at http://127.0.0.1:%1/mcp").arg(server->port()));
                qCInfo(lcApp) << "MCP over HTTP listening on 127.0.0.1 port" << server->port();
            });
        QObject::connect(&service, &AgentHostService::stateChanged, &backend,
                         [&backend, &server](AgentHostService::State s) {
                             if (s == AgentHostService::State::ShuttingDown) {
                                 if (server) {
                                     server->closeAll();
                                 }
                                 backend.cancelAll();
                             }
                         });
        tokenStore.obtain(reset);
    };
    const int exitCode = runHeadlessCore(options, settings, core);
    server.reset();
    return exitCode;
}

}  // namespace zeus
