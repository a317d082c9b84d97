// Composition root: choose the application class, parse the command line, run a mode.
#include "appoptions.h"
#include "modes.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <memory>

#ifdef ZEUS_HAS_GUI
#include <QApplication>
#endif

#ifdef Q_OS_UNIX
#include <sys/resource.h>
#endif

namespace {

// Every tunnel of every session holds descriptors of this process (its socket to the server; a handed-over one the
// client's and a pipe too, docs/agent-protocol.md): up to the hard limit, at most 65536, as browsers do, so that
// busy sessions do not run the app out of them at the usual soft limit of 1024.
void raiseOpenFileLimit() {
#ifdef Q_OS_UNIX
    struct rlimit limit {};
    const rlim_t wanted = 65536;
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < std::min(limit.rlim_max, wanted)) {
        limit.rlim_cur = std::min(limit.rlim_max, wanted);
        ::setrlimit(RLIMIT_NOFILE, &limit);
    }
#endif
}

}  // namespace

int main(int argc, char** argv) {
    raiseOpenFileLimit();
    QCoreApplication::setOrganizationName(QStringLiteral("ZeusDesktop"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("zeusdesktop.io"));
    QCoreApplication::setApplicationName(QStringLiteral("zeus-desktop"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ZEUS_VERSION));

    std::unique_ptr<QCoreApplication> app;
#ifdef ZEUS_HAS_GUI
    if (zeus::wantsConsoleMode(argc, argv)) {
        app = std::make_unique<QCoreApplication>(argc, argv);
    } else {
        app = std::make_unique<QApplication>(argc, argv);
    }
#else
    app = std::make_unique<QCoreApplication>(argc, argv);
#endif

    const zeus::AppOptions options = zeus::parseAppOptions(QCoreApplication::arguments());
    if (!options.error.isEmpty()) {
        QTextStream(stderr) << "zeus-desktop: " << options.error << "\n"
                            << "Try 'zeus-desktop --help'.\n";
        return 2;
    }

    switch (options.mode) {
        case zeus::AppOptions::Mode::Version:
            QTextStream(stdout) << ZEUS_APP_NAME << " " << ZEUS_VERSION << " (Qt " << qVersion() << ")\n";
            return 0;
        case zeus::AppOptions::Mode::Diagnose:
            return zeus::runDiagnoseMode(options);
        case zeus::AppOptions::Mode::Exec:
            return zeus::runExecMode(options);
        case zeus::AppOptions::Mode::BuildImage:
            return zeus::runBuildImageMode(options);
        case zeus::AppOptions::Mode::Headless:
            return zeus::runHeadlessMode(options);
        case zeus::AppOptions::Mode::Secrets:
            return zeus::runSecretsMode(options);
        case zeus::AppOptions::Mode::Review:
            return zeus::runReviewMode(options);
        case zeus::AppOptions::Mode::Mcp:
            return zeus::runMcpMode(options);
        case zeus::AppOptions::Mode::McpHttp:
            return zeus::runMcpHttpMode(options);
        case zeus::AppOptions::Mode::Gui:
#ifdef ZEUS_HAS_GUI
            return zeus::runGuiMode(options);
#else
            QTextStream(stderr) << "zeus-desktop: this build has no GUI; use --headless, --exec or --diagnose.\n";
            return 2;
#endif
    }
    return 2;
}
