// The tray app (SPEC §6): one instance per user, then a GuiService that owns the objects and connects them. This
// file only decides whether this launch runs the tray app and wires it to the process (instance, signals).
#include "apptranslator.h"
#include "backend/backendurl.h"
#include "guimcphost.h"
#include "guiservice.h"
#include "modes.h"
#include "quitsignals.h"
#include "singleinstance.h"
#include "support/logging.h"

#include <QApplication>
#include <QTextStream>

namespace zeus {

int runGuiMode(const AppOptions& options) {
    AppTranslator::install(QCoreApplication::instance());
    if (!options.backend.isEmpty()) {
        // Validated like the setting; a bad URL is a usage error, not a window.
        const QString problem = BackendUrl::problem(options.backend);
        if (!problem.isEmpty()) {
            QTextStream(stderr) << "zeus-desktop: --backend " << options.backend << ": " << problem << "\n";
            return 2;
        }
    }

    SingleInstance instance;
    if (!instance.claim()) {
        // Another tray app runs for this user: ask it to show its dashboard, then leave.
        int code = 1;
        instance.activateRunningInstance([&code](bool ok) {
            code = ok ? 0 : 1;
            QCoreApplication::exit(code);
        });
        const int result = QCoreApplication::exec();
        if (result != 0) {
            QTextStream(stderr) << "zeus-desktop: another instance seems to run but did not answer\n";
        }
        return result;
    }

    AppSettings settings;
    GuiService service(options, &settings);
    QObject::connect(&instance, &SingleInstance::activationRequested, &service, [&service] {
        qCInfo(lcApp) << "another launch asked for the dashboard";
        service.activate();
    });
    // `zeus-desktop --mcp` while the tray runs: its sessions, approvals and folders are the tray's (SPEC §12).
    QObject::connect(&instance, &SingleInstance::mcpBridgeRequested, &service,
                     [&service](McpBridgeChannel* channel, const QStringList& workspaces) {
                         service.mcpHost().accept(channel, workspaces);
                     });
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, &service, [] { qCInfo(lcApp) << "bye"; });
    // SIGTERM (logout, system shutdown) and SIGINT quit like the Quit menu entry, so the containers are removed.
    QuitSignals quitSignals;
    quitSignals.install();
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &service, [&service](int signal) {
        qCInfo(lcApp) << "signal" << signal << "received: quitting";
        service.beginShutdown();
    });
    service.start();
    return QApplication::exec();
}

}  // namespace zeus
