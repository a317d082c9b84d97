#include "agentreadiness.h"

#include "diagnosticsections.h"
#include "runtime/runtimekind.h"

#include <QDir>
#include <QStringList>

namespace zeus {

bool agentNeedsImageCheck(const SandboxSetup& setup) {
#if defined(Q_OS_LINUX)
    // Only an engine on this kernel mounts the host's agent; a VM or remote engine uses the image's copy anyway, and
    // a session that finds none there falls back to plain exec and says so.
    return setup.runtime && setup.config.execMode == ExecMode::Agent && setup.runtime->kind() != RuntimeKind::Apple
           && !setup.config.engineRemote && setup.config.agentHostPath.isEmpty();
#else
    Q_UNUSED(setup)
    return false;
#endif
}

QString missingAgentProblem(const SandboxSetup& setup, const std::optional<ImageInspection>& image) {
    if (!agentNeedsImageCheck(setup)) {
        return {};
    }
    const QString name = setup.config.image;
    QString imageSays;
    if (!image || image->outcome == ImageInspection::Outcome::Failed) {
        imageSays =
            QStringLiteral("the engine could not say whether the image %1 has one%2")
                .arg(name, image && !image->error.isEmpty() ? QStringLiteral(" (%1)").arg(image->error) : QString());
    } else if (image->outcome == ImageInspection::Outcome::Missing) {
        imageSays = QStringLiteral("there is no image %1 either").arg(name);
    } else {
        switch (DiagnosticSections::classifyImage(*image)) {
            case DiagnosticSections::ImageKind::Sandbox:
                return {};  // the Zeus sandbox image carries its own copy
            case DiagnosticSections::ImageKind::OfflineTest:
                imageSays = QStringLiteral("the image %1 is the offline test image, which has none").arg(name);
                break;
            case DiagnosticSections::ImageKind::Custom:
                imageSays = QStringLiteral("the image %1 is not the Zeus sandbox image (which carries one)").arg(name);
                break;
        }
    }
    QStringList looked;
    for (const QString& candidate : SandboxSetup::agentCandidates()) {
        looked << QDir::cleanPath(candidate);
    }
    return QStringLiteral(
               "no sandbox agent to run commands through: zeus-sandbox-agent is not beside the app (looked for %1), "
               "and %2. Without it every command would be a plain exec (slower) and the network allowlist would "
               "have no network. Build it (cmake --build BUILD_DIR --target zeus_sandbox_agent; app/run.sh does), "
               "point ZEUS_SANDBOX_AGENT at it, or run with --exec-mode exec to accept plain exec.")
        .arg(looked.join(QStringLiteral(", ")), imageSays);
}

}  // namespace zeus
