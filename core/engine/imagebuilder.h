#pragma once

#include "support/processresult.h"
#include "support/processterminator.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringDecoder>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>

#include <memory>

namespace zeus {

class ProcessRunner;

// Builds the sandbox image with the chosen engine's `build` command (docker, podman or
// Apple's container) and streams the engine's log line by line.
//
// For the sandbox recipe (a Dockerfile that declares ZEUS_DISTRO_PACKAGES, docs/sandbox-image.md) a build is a
// short pipeline, one process at a time, all streamed to logLine:
//   1. `image inspect` of the tag: when it carries this recipe's zeus.image.revision, nothing is built.
//   2. `build` of the Dockerfile (Ubuntu and Node.js from a registry), labelled zeus.image.source=dockerfile.
//   3. when that fails (no registry) and the engine can import: `mmdebstrap` makes a root file system from the
//      host distribution's package archive, `import` makes it a base, and the same Dockerfile is built on it
//      (BASE, NODE_IMAGE), labelled zeus.image.source=debootstrap; the base's tag is removed afterwards.
// Any other Dockerfile is one `build`, as it always was.
//
// Owns: one build process at a time, its timeout (for the whole pipeline) and its cancellation (terminate, then
// kill after a grace period; on Linux also the build's own child processes, because
// killing `podman build` leaves its RUN step running), and the temporary root file system.
// Never: runs a shell on the host, blocks on the process (no waitFor*, no nested event
// loop), pushes anything, or decides which engine to use -- the caller passes the program.
class ImageBuilder : public QObject {
    Q_OBJECT

public:
    // What the user sees of a build, in one word.
    enum class State {
        Idle,        // nothing started yet
        Running,     // the engine is building; log lines arrive
        Cancelling,  // cancel() was called; waiting for the engine to stop
        Succeeded,   // the engine exited 0 and the image is tagged
        Failed,      // the engine could not start, exited non-zero, crashed or timed out
        Cancelled,   // stopped on request
    };
    Q_ENUM(State)

    // Which way a sandbox recipe is built (see the class comment).
    enum class Way {
        Auto,           // the Dockerfile, then the distribution's archive when the Dockerfile cannot be built
        Dockerfile,     // the Dockerfile only
        DistroArchive,  // the distribution's archive only
    };
    Q_ENUM(Way)

    struct Request {
        QString program;             // "docker", "podman" or "container" (or a full path to one)
        QString tag;                 // image tag to build, e.g. zeus-desktop-sandbox:latest
        QString dockerfile;          // path of the Dockerfile
        QString contextDir;          // build context directory
        QString version;             // passed as --build-arg ZEUS_VERSION=<version> (the image label)
        QStringList extraBuildArgs;  // more KEY=VALUE build arguments

        // The sandbox recipe only (ignored for other Dockerfiles):
        Way way = Way::Auto;
        bool reuseCurrent = true;  // keep a tag that already carries this revision
        QString aptPackages;       // ZEUS_APT_PACKAGES; empty: the Dockerfile's list (a smaller one for tests)
        QString distroSuite;       // empty: the host's (hostDistribution())
        QString distroMirror;      // a mirror URL or a sources.list file; empty: mmdebstrap's default
        QString rootfsProgram;     // empty: mmdebstrap from PATH
    };

    explicit ImageBuilder(QObject* parent = nullptr);
    ~ImageBuilder() override;

    // The argument list of `<program> build ...` for a request. Pure.
    static QStringList buildArguments(const Request& request);

    // The default of `ARG NAME="..."` in a Dockerfile's text; empty when it declares none. Pure.
    static QString dockerfileArgDefault(const QByteArray& dockerfileText, const QString& name);
    // zeus.image.revision: the first 12 hex digits of SHA-256 over the Dockerfile, the agent's sources (as
    // agentSources() reads them) and "ZEUS_APT_PACKAGES=<packages>\n" (docker/ensure-image.sh computes the same).
    // Pure.
    static QString recipeRevision(const QByteArray& dockerfileText, const QByteArray& agentSource,
                                  const QString& aptPackages);
    // The sandbox agent's sources in a build context's agent/ folder as the revision hashes them: every *.c and
    // *.h file, one after the other in the byte order of their names (ensure-image.sh's order).
    static QByteArray agentSources(const QString& agentDir);

    // The host's distribution as mmdebstrap names it, from /etc/os-release's text: Debian and Ubuntu (and their
    // derivatives through ID_LIKE) by their codename; anything else Debian stable. Pure.
    struct Distribution {
        QString id;          // "debian" or "ubuntu"
        QString suite;       // "bookworm", "jammy"
        QString components;  // "main", or "main,universe" on Ubuntu (ripgrep, nodejs, npm)
    };
    static Distribution hostDistribution(const QString& osReleaseText);
    // `mmdebstrap ...` for a root file system tarball with these packages. Pure.
    static QStringList rootfsArguments(const Distribution& distribution, const QStringList& packages,
                                       const QString& mirror, const QString& outputTar);

    // How the last successful build was done: "cached" (the tag was current), "dockerfile", "debootstrap";
    // empty before a success.
    QString builtWay() const { return m_builtWay; }
    // The revision the sandbox recipe's build used; empty for other Dockerfiles.
    QString revision() const { return m_revision; }

    // Checks a request before anything is started; returns an empty string when it can be run. Pure apart from
    // looking at the file system for the Dockerfile and the context.
    static QString validate(const Request& request);

    // Where the bundled Dockerfile's directory may be, in the order it is looked up, for an executable living in
    // applicationDirPath. Pure. See docs/sandbox-image.md:
    //   1. $ZEUS_DOCKER_DIR (passed in as overrideDir) when set
    //   2. <bin>/../share/zeus-desktop/docker   (installed on Linux/BSD; the build tree stages it the same way)
    //   3. <bundle>/Contents/Resources/docker   (macOS app bundle)
    //   4. <bin>/docker                         (Windows install)
    //   5. <dataDir>/zeus-desktop/docker        (each XDG data dir: /usr/local/share, /usr/share, ...)
    static QStringList dockerDirectoryCandidates(const QString& applicationDirPath, const QString& overrideDir,
                                                 const QStringList& dataDirs);

    // The first candidate that holds a Dockerfile, for this process; empty when there is none.
    static QString locateDockerDirectory();
    // The request that builds the bundled sandbox recipe in dockerDir (its Dockerfile, the folder as the context,
    // this app's version as the label) as `tag` with `program`: what --build-image and Build Image… start. Pure.
    static Request sandboxRequest(const QString& program, const QString& tag, const QString& dockerDir);

    // Overall limit for one build (default 60 minutes) and the grace between terminate and kill (default
    // ProcessTerminator::kGraceMs).
    void setTimeout(int milliseconds);
    void setKillGrace(int milliseconds);

    State state() const { return m_state; }
    bool isRunning() const { return m_state == State::Running || m_state == State::Cancelling; }
    int exitCode() const { return m_exitCode; }
    QString errorString() const { return m_error; }

public Q_SLOTS:
    // Starts a build; returns false (and emits finished) when one is already running or the request is invalid.
    bool start(const zeus::ImageBuilder::Request& request);
    // Stops the running build: terminate now, kill after the grace period. No-op when nothing runs.
    void cancel();

Q_SIGNALS:
    void stateChanged(zeus::ImageBuilder::State state);
    // One line of the engine's output (stdout and stderr merged, in arrival order), without the line break.
    void logLine(const QString& line);
    // The build is over: success, the engine's exit code (-1 when it never ran or crashed) and, on failure, a
    // message for the user.
    void finished(bool success, int exitCode, const QString& error);

private:
    enum class StepKind { Inspect, Build, Rootfs, Import, DistroBuild, Untag };
    struct Step {
        StepKind kind;
        QString program;
        QStringList args;
    };
    void runStep(const Step& step);
    void onStepSucceeded();
    // The distribution's way: false (and finished) when it cannot be taken.
    bool startDistroSteps(const QString& why);
    void setState(State state);
    void readOutput(const QByteArray& chunk);
    void emitLine(QString line);
    void flushPartialLine();
    void onProcessFinished(const ProcessResult& result);
    void onTimeout();
    void stopProcess();
    // Just before the terminator kills the CLI: the build's own processes go too.
    void forceKill();
    void finish(State state, int exitCode, const QString& error);

    struct ChildProcess {
        qint64 pid = 0;
        QByteArray startTime;  // guards against a reused pid
    };
    static QList<ChildProcess> descendantsOf(qint64 pid);
    static void killChildren(const QList<ChildProcess>& children);

    QPointer<ProcessRunner> m_process;
    Request m_request;
    QList<Step> m_steps;  // what is still to run after the current step
    StepKind m_step = StepKind::Build;
    bool m_sandboxRecipe = false;
    QString m_revision;
    QString m_aptPackages;
    QString m_distroPackages;
    QString m_builtWay;
    QByteArray m_captured;  // the inspect step's output (not logged)
    std::unique_ptr<QTemporaryDir> m_scratch;
    QTimer m_timeoutTimer;
    int m_killGraceMs = ProcessTerminator::kGraceMs;
    QStringDecoder m_decoder{QStringDecoder::Utf8};
    QString m_partialLine;
    QString m_lastLine;  // the last non-empty log line, quoted in a failure message
    QList<ChildProcess> m_children;
    QString m_program;
    State m_state = State::Idle;
    bool m_timedOut = false;
    int m_exitCode = -1;
    QString m_error;
};

}  // namespace zeus
