#include "engine/containerruntime.h"

#include "engine/appleruntime.h"
#include "engine/dockerruntime.h"
#include "engine/podmanruntime.h"

#include <QRegularExpression>

namespace zeus {

QString ContainerRuntime::unsupportedReason(const ContainerSpec& /*spec*/) const {
    return {};
}

EngineFailure ContainerRuntime::imageCheckFailure(const QByteArray& output) const {
    // Docker "No such image", Podman "image not known", Apple "not found: ..." or "failed to
    // find image". Only an answer that names the image as missing counts.
    static const QRegularExpression missing(
        QStringLiteral("no such image|image not known|image not found|not found: |failed to find image"),
        QRegularExpression::CaseInsensitiveOption);
    return QString::fromUtf8(output).contains(missing) ? EngineFailure::ImageMissing : EngineFailure::Other;
}

EngineFailure ContainerRuntime::containerCallFailure(const QByteArray& output) const {
    // Docker "No such container", Podman "no such container", Apple "notFound: container not found".
    const QByteArray text = output.toLower();
    return text.contains("no such") || text.contains("not found") ? EngineFailure::NoSuchContainer
                                                                  : EngineFailure::Other;
}

QString ContainerRuntime::buildImageCommand(const QString& image) const {
    QString program = m_program.isEmpty() ? runtimeProgram(kind()) : m_program;
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

std::unique_ptr<ContainerRuntime> ContainerRuntime::create(RuntimeKind kind, const QString& program) {
    std::unique_ptr<ContainerRuntime> runtime;
    switch (kind) {
        case RuntimeKind::Docker:
            runtime = std::make_unique<DockerRuntime>();
            break;
        case RuntimeKind::Podman:
            runtime = std::make_unique<PodmanRuntime>();
            break;
        case RuntimeKind::Apple:
            runtime = std::make_unique<AppleRuntime>();
            break;
    }
    if (!program.isEmpty()) {
        runtime->setProgram(program);
    }
    return runtime;
}

}  // namespace zeus
