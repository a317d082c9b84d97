#include "engine/containerruntime.h"

#include "engine/appleruntime.h"
#include "engine/dockerruntime.h"
#include "engine/podmanruntime.h"

namespace zeus {

QString ContainerRuntime::unsupportedReason(const ContainerSpec& /*spec*/) const {
    return {};
}

QString ContainerRuntime::buildImageCommand(const QString& image) const {
    QString program = m_program.isEmpty() ? kind() : m_program;
    return program + QStringLiteral(" build -t ") + image + QLatin1Char(' ') + dockerContextDirectory();
}

QString ContainerRuntime::dockerContextDirectory() {
#if defined(Q_OS_MACOS)
    return QStringLiteral("\"/Applications/Zeus Desktop.app/Contents/Resources/docker\"");
#else
    return QStringLiteral("/usr/share/zeus-desktop/docker");
#endif
}

QList<QPair<QString, QString>> ContainerRuntime::labelsFor(const ContainerSpec& spec) {
    return {
        {labels::app(), QStringLiteral("1")},
        {labels::owner(), spec.ownerId},
        {labels::session(), spec.sessionId},
        {labels::workspace(), spec.workspace},
    };
}

std::unique_ptr<ContainerRuntime> ContainerRuntime::create(const QString& kind, const QString& program) {
    std::unique_ptr<ContainerRuntime> runtime;
    if (kind == QLatin1String("docker")) {
        runtime = std::make_unique<DockerRuntime>();
    } else if (kind == QLatin1String("podman")) {
        runtime = std::make_unique<PodmanRuntime>();
    } else if (kind == QLatin1String("apple")) {
        runtime = std::make_unique<AppleRuntime>();
    }
    if (runtime && !program.isEmpty()) {
        runtime->setProgram(program);
    }
    return runtime;
}

}  // namespace zeus
