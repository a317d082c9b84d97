#include "testenvironment.h"

#include <QHash>
#include <QProcess>
#include <QProcessEnvironment>

namespace zeus::test {

bool isCi() {
    return qEnvironmentVariable("CI") == QLatin1String("true");
}

bool engineReachable(const QString& engine) {
    static QHash<QString, bool> cache;
    const auto it = cache.constFind(engine);
    if (it != cache.constEnd()) {
        return *it;
    }
    const ProcessOutput result = runProgram(engine, {QStringLiteral("info")}, 20000);
    const bool reachable = result.exitCode == 0;
    cache.insert(engine, reachable);
    return reachable;
}

QString testImage() {
    const QString image = qEnvironmentVariable("ZEUS_TEST_IMAGE");
    return image.isEmpty() ? QStringLiteral("zeus-desktop-sandbox:test") : image;
}

ProcessOutput runProgram(const QString& program, const QStringList& arguments, int timeoutMs,
                         const QByteArray& stdinData) {
    QProcess process;
    process.start(program, arguments);
    ProcessOutput output;
    if (!process.waitForStarted(10000)) {
        output.err = process.errorString().toUtf8();
        return output;
    }
    if (!stdinData.isEmpty()) {
        process.write(stdinData);
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        output.err = "timed out";
        return output;
    }
    output.out = process.readAllStandardOutput();
    output.err = process.readAllStandardError();
    output.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return output;
}

}  // namespace zeus::test
