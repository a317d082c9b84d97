#pragma once

#include "engine/imageinspection.h"

#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>

namespace zeus {

class ContainerRuntime;
class ProcessRunner;

// Asks one engine about one image, asynchronously: runs the runtime's `image inspect` argument list and
// hands the parsed answer over in finished(), exactly once per inspect().
//
// Owns its process runner. It must never block (no waitFor*), never pull or build, and never pass the
// sign-in token to the engine's CLI.
class ImageInspector : public QObject {
    Q_OBJECT
public:
    static constexpr int kDefaultTimeoutMs = 10000;

    explicit ImageInspector(QObject* parent = nullptr);
    ~ImageInspector() override;

    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    // The CLI's environment; defaults to the app's own without the token variable.
    void setEnvironment(const QProcessEnvironment& environment) { m_environment = environment; }

    // A second call while one runs cancels the first (which still ends in finished()).
    void inspect(const ContainerRuntime& runtime, const QString& image);
    bool isRunning() const;

Q_SIGNALS:
    void finished(const zeus::ImageInspection& inspection);

private:
    int m_timeoutMs = kDefaultTimeoutMs;
    QProcessEnvironment m_environment;
    QPointer<ProcessRunner> m_runner;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ImageInspection)
