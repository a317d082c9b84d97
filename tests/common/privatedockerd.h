#pragma once

#include <QProcess>
#include <QString>

#include <memory>

namespace zeus::test {

// A dockerd of a test's own (own socket, data-root, exec-root, pidfile in a short temporary
// folder) that the test may crash and restart -- never the shared engine of the harness.
// Fault tests use it to kill the engine mid-command. Needs root and dockerd on PATH.
class PrivateDockerd {
public:
    PrivateDockerd();
    ~PrivateDockerd();
    PrivateDockerd(const PrivateDockerd&) = delete;
    PrivateDockerd& operator=(const PrivateDockerd&) = delete;

    // Root and a dockerd binary: what starting one needs.
    static bool canRun();

    QString host() const { return m_host; }  // unix://.../docker.sock, for DOCKER_HOST or -H
    bool isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

    // Starts (or restarts after a crash) and waits until it answers.
    bool start();
    // Copies an image from the shared engine (the harness's DOCKER_HOST) into this one.
    bool loadImageFromSharedEngine(const QString& image);
    // The engine dies at once (SIGKILL), as in a crash.
    void crash();
    // Removes its containers and stops it cleanly.
    void stop();

private:
    QString m_dir;
    QString m_host;
    std::unique_ptr<QProcess> m_process;
};

}  // namespace zeus::test

// In a test function: fail under CI, skip elsewhere, when no private dockerd can run here.
#define ZEUS_REQUIRE_PRIVATE_DOCKERD()                                                         \
    do {                                                                                       \
        if (!zeus::test::PrivateDockerd::canRun()) {                                           \
            if (zeus::test::isCi())                                                            \
                QFAIL("this test needs root and dockerd to run a private engine it can kill"); \
            QSKIP("needs root and dockerd to run a private engine that can be killed");        \
        }                                                                                      \
    } while (false)
