#pragma once

#include <QLatin1String>
#include <QStringList>
#include <QTemporaryDir>

#include <sys/types.h>

namespace zeus::test {

// Podman has no daemon to kill: the engine is its CLI, which starts a conmon monitor for each container and each
// exec session, over its storage and runc. "The engine went away" is therefore all of these failing at once: the
// CLI answers nothing but errors (an upgrade half done, its storage on a volume that went away) and the commands'
// monitors die. The app is pointed at this test's own door to Podman (program(), or its folder first on PATH), a
// script that execs the real CLI, or fails as an engine that is not there while the outage lasts; the processes
// killed are the Podman CLIs of one parent and the monitors of the test's own containers. So the outage is private:
// the shared Podman and other tests' containers go on untouched.
class PodmanOutage {
public:
    // The door's words while the engine is away: a call's error carries them as the engine CLI's own.
    static constexpr QLatin1String kWords{"the Podman engine is unavailable"};

    // Writes the door. False: no Podman on PATH, or no folder for the door.
    bool setUp();
    QString program() const;  // the door, named podman
    QString folder() const { return m_dir.path(); }

    // The engine goes away at once: the door fails from now on, and the Podman CLIs that `parent` runs (agent
    // channels, execs) and the conmon monitors of `containers` (ids, or their short forms) die by SIGKILL.
    void crash(const QStringList& containers, pid_t parent);
    // It is back: the door execs the real CLI again.
    void restore();

private:
    QTemporaryDir m_dir;
};

}  // namespace zeus::test
