// zeus-desktop --build-image [--runtime R] [--image TAG]: builds the sandbox image from the bundled Dockerfile with
// the chosen engine, streams the engine's log to stdout and exits 0 on success.
#include "engine/imagebuilder.h"
#include "modes.h"
#include "runtime/detectionresult.h"
#include "runtime/runtimedetector.h"
#include "runtime/runtimekind.h"
#include "sandboxsetup.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QTextStream>

namespace zeus {

int runBuildImageMode(const AppOptions& options) {
    QTextStream err(stderr);
    const QString dockerDir = ImageBuilder::locateDockerDirectory();
    if (dockerDir.isEmpty()) {
        err << "zeus-desktop: the sandbox Dockerfile was not found. Reinstall Zeus Desktop, or set ZEUS_DOCKER_DIR "
               "to the folder that holds it.\n";
        return 1;
    }

    ImageBuilder builder;
    RuntimeDetector detector;
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
    // Same choice as every other mode: the detector's priority order, or the runtime the user asked for (never
    // another one in its place).
    QObject::connect(
        &detector, &RuntimeDetector::detectionFinished, &builder,
        [&builder, &exitCode, image, dockerDir](const DetectionResult& result) {
            QTextStream errors(stderr);
            if (!result.chosen) {
                errors << "zeus-desktop: " << result.unusableReason() << "\n";
                exitCode = 1;
                QCoreApplication::exit(exitCode);
                return;
            }
            // The CLI the detection found, as every mode.
            const ImageBuilder::Request request =
                ImageBuilder::sandboxRequest(SandboxSetup::cliProgram(result), image, dockerDir);
            errors << "zeus-desktop: building " << image << " from " << request.dockerfile << " with "
                   << runtimeDisplayName(*result.chosen) << "\n";
            errors.flush();
            builder.start(request);
        },
        Qt::QueuedConnection);  // detect() may answer at once; the event loop must be running to end it
    detector.setPreference(options.runtimePreference.value_or(RuntimePreference::Auto));
    detector.detect();
    return QCoreApplication::exec();
}

}  // namespace zeus
