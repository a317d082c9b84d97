// zeus-desktop --build-image [--runtime R] [--image TAG]: builds the sandbox image from the bundled Dockerfile with
// the chosen engine, streams the engine's log to stdout and exits 0 on success.
#include "imagebuilder.h"
#include "modes.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QTextStream>
#include <QTimer>

#include <functional>
#include <memory>

namespace zeus {

namespace {

constexpr int kProbeTimeoutMs = 5000;

// Runs `<program> info` asynchronously and reports whether the engine answered in time.
void probeEngine(const QString& program, const std::function<void(bool)>& done) {
    auto* process = new QProcess(QCoreApplication::instance());
    auto* timer = new QTimer(process);
    timer->setSingleShot(true);
    auto reported = std::make_shared<bool>(false);
    const auto report = [process, done, reported](bool ok) {
        if (*reported) {
            return;
        }
        *reported = true;
        process->disconnect();
        process->deleteLater();
        done(ok);
    };
    QObject::connect(process, &QProcess::finished, process, [report](int exitCode, QProcess::ExitStatus status) {
        report(status == QProcess::NormalExit && exitCode == 0);
    });
    QObject::connect(process, &QProcess::errorOccurred, process, [report](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            report(false);
        }
    });
    QObject::connect(timer, &QTimer::timeout, process, [process, report] {
        process->kill();
        report(false);
    });
    process->setStandardInputFile(QProcess::nullDevice());
    process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
    process->setStandardOutputFile(QProcess::nullDevice());
    timer->start(kProbeTimeoutMs);
    process->start(program, {QStringLiteral("info")});
}

// Calls done(runtime) with "docker" when `docker info` works, else "podman" when `podman info` works, else "".
void chooseRuntime(const QString& requested, const std::function<void(const QString&)>& done) {
    if (!requested.isEmpty() && requested != QLatin1String("auto")) {
        done(requested);
        return;
    }
    probeEngine(QStringLiteral("docker"), [done](bool dockerWorks) {
        if (dockerWorks) {
            done(QStringLiteral("docker"));
            return;
        }
        probeEngine(QStringLiteral("podman"),
                    [done](bool podmanWorks) { done(podmanWorks ? QStringLiteral("podman") : QString()); });
    });
}

}  // namespace

int runBuildImageMode(const AppOptions& options) {
    QTextStream err(stderr);
    const QString dockerDir = ImageBuilder::locateDockerDirectory();
    if (dockerDir.isEmpty()) {
        err << "zeus-desktop: the sandbox Dockerfile was not found. Reinstall Zeus Desktop, or set ZEUS_DOCKER_DIR "
               "to the folder that holds it.\n";
        return 1;
    }

    ImageBuilder builder;
    int exitCode = 1;
    QObject::connect(&builder, &ImageBuilder::logLine, &builder, [](const QString& line) {
        QTextStream out(stdout);
        out << line << '\n';
        out.flush();
    });
    QObject::connect(&builder, &ImageBuilder::finished, &builder,
                     [&exitCode](bool success, int code, const QString& error) {
                         QTextStream errors(stderr);
                         if (success) {
                             errors << "zeus-desktop: the sandbox image is built.\n";
                             exitCode = 0;
                         } else {
                             errors << "zeus-desktop: " << error << " (exit code " << code << ")\n";
                             exitCode = 1;
                         }
                         QCoreApplication::exit(exitCode);
                     });

    const QString image = options.image.isEmpty() ? QStringLiteral(ZEUS_DEFAULT_IMAGE) : options.image;
    const QString requested = options.runtime;
    // Started from the event loop, so that an answer that comes at once can still end exec().
    QTimer::singleShot(0, &builder, [&builder, &exitCode, image, dockerDir, requested] {
        chooseRuntime(requested, [&builder, &exitCode, image, dockerDir, requested](const QString& runtime) {
            QTextStream errors(stderr);
            if (runtime.isEmpty()) {
                errors << "zeus-desktop: No container runtime detected. Please install Docker Desktop or upgrade to "
                          "macOS 26 for Apple Containerization.\n";
                exitCode = 1;
                QCoreApplication::exit(exitCode);
                return;
            }
            if (requested.isEmpty() || requested == QLatin1String("auto")) {
                errors << "zeus-desktop: using " << runtime << " (the first engine that answered)\n";
            }
            ImageBuilder::Request request;
            request.program = ImageBuilder::programForRuntime(runtime);
            request.tag = image;
            request.dockerfile = dockerDir + QStringLiteral("/Dockerfile");
            request.contextDir = dockerDir;
            request.version = QStringLiteral(ZEUS_VERSION);
            errors << "zeus-desktop: building " << image << " from " << request.dockerfile << " with "
                   << request.program << "\n";
            errors.flush();
            builder.start(request);
        });
    });
    return QCoreApplication::exec();
}

}  // namespace zeus
