#pragma once

#include <QString>
#include <QStringList>

namespace zeus::test {

// True under CI=true: a missing engine, keyring or display is then a failure.
bool isCi();

// Is this engine reachable right now? (`docker info` / `podman info`, a few seconds.)
bool engineReachable(const QString& engine);

// The offline test image present in both engines (ZEUS_TEST_IMAGE, default
// zeus-desktop-sandbox:test).
QString testImage();

// Runs a program synchronously (for test set-up and checks only, never in product code).
struct ProcessOutput {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};
ProcessOutput runProgram(const QString& program, const QStringList& arguments, int timeoutMs = 60000,
                         const QByteArray& stdinData = {});

}  // namespace zeus::test

// In a test function: fail under CI, skip elsewhere, when the engine is not reachable.
#define ZEUS_REQUIRE_ENGINE(engine)                                                                 \
    do {                                                                                            \
        if (!zeus::test::engineReachable(engine)) {                                                 \
            const QByteArray why = QByteArray("engine not reachable: ") + QString(engine).toUtf8(); \
            if (zeus::test::isCi())                                                                 \
                QFAIL(why.constData());                                                             \
            QSKIP(why.constData());                                                                 \
        }                                                                                           \
    } while (false)
