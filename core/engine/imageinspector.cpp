#include "engine/imageinspector.h"

#include "engine/containerruntime.h"
#include "support/processrunner.h"

#include <memory>

namespace zeus {

ImageInspector::ImageInspector(QObject* parent) : QObject(parent) {
    // The engine's CLI never needs the backend token or another secret of the app.
    m_environment = ProcessRunner::childEnvironment();
}

ImageInspector::~ImageInspector() {
    if (m_runner) {
        // Destroying the runner stops its child; nobody listens any more.
        m_runner->disconnect(this);
    }
}

bool ImageInspector::isRunning() const {
    return !m_runner.isNull();
}

void ImageInspector::inspect(const ContainerRuntime& runtime, const QString& image) {
    if (m_runner) {
        m_runner->cancel();
    }
    // The parse needs the runtime after the process ends; a copy of it keeps this safe when the caller's goes.
    std::shared_ptr<ContainerRuntime> parser = runtime.clone();
    auto* runner = new ProcessRunner(runtime.program().isEmpty() ? runtimeProgram(runtime.kind()) : runtime.program(),
                                     runtime.imageInspectArguments(image), this);
    runner->setEnvironment(m_environment);
    runner->setTimeoutMs(m_timeoutMs);
    runner->setOutputLimit(1024 * 1024);
    m_runner = runner;
    connect(runner, &ProcessRunner::finished, this, [this, runner, parser, image](const ProcessResult& result) {
        if (m_runner == runner) {
            m_runner = nullptr;
        }
        runner->deleteLater();
        Q_EMIT finished(parser ? parser->parseImageInspect(image, result) : ImageInspection{});
    });
    runner->start();
}

}  // namespace zeus
