#pragma once

#include "review/changeapplier.h"
#include "review/changeset.h"
#include "review/workspacemanifest.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace zeus {

class ContainerRuntime;

// The engine side of one review copy (SPEC §10, docs/review-mode.md): blocking calls of the engine's CLI, each an
// argument list (never a shell string on the host), for a worker thread or the command line. The container is the
// only thing it changes besides the host files Apply writes; it never removes a container unless told to.
class ReviewCopy {
public:
    ReviewCopy(const ContainerRuntime& runtime, QString containerId);

    void setTimeoutMs(int ms) { m_timeoutMs = ms; }

    struct CopyResult {
        bool ok = false;
        QString error;               // for the user
        bool folderProblem = false;  // the folder cannot be copied (over the size cap, unreadable): not the engine
        WorkspaceManifest baseline;
        qint64 bytes = 0;  // of the tar stream
    };
    // Scans `workspace` (ignore rules, size cap: WorkspaceManifest::scan) and streams it as a tar into /workspace
    // through `exec -i CONTAINER tar -x`. Fails whole (never a partial copy is reported as a baseline).
    CopyResult copyIn(const QString& workspace, qint64 sizeCap) const;

    struct ChangesResult {
        bool ok = false;
        QString error;
        QList<Change> changes;
    };
    // Lists /workspace in the container (WorkspaceManifest::containerListingScript) and compares with `baseline`.
    ChangesResult changes(const WorkspaceManifest& baseline) const;

    // The copy is hostile input (SPEC §10, docs/review-mode.md "Reading the copy"): a file is read by a fixed script
    // in the container that refuses anything but the regular file at that path (a link, a FIFO, a device: never
    // opened through a link) and prints at most `size` + 1 bytes; the host stops at `size` + 1 too. Exactly `size`
    // bytes (the size the listing claimed) or an error naming the path.
    //
    // The bytes of one file of the copy (path relative to /workspace), into memory (the diff).
    bool readFile(const QString& path, qint64 size, QByteArray& out, QString* error = nullptr) const;
    // The same into a local file, for Apply.
    bool fetchFile(const QString& path, qint64 size, const QString& destination, QString* error = nullptr) const;
    // The script both run, as `sh -c SCRIPT sh /workspace/PATH SIZE+1`: exit 3 when the path is not a regular file.
    static QString readScript();
    // At most this much of any other engine command's standard output is read (the listing has its own cap,
    // ListingLimits; a file read its listed size); more is an error.
    static constexpr qint64 kMaxCommandOutput = qint64(16) * 1024 * 1024;

    // Applies `changes` (ChangeApplier::inApplyOrder) to `workspace`, fetching each new file's content first.
    QList<ApplyOutcome> apply(const QString& workspace, const QList<Change>& changes,
                              const ChangeApplier::Options& options) const;

    // The commits side (docs/review-mode.md "Commits"), run by the container's git on the copy: never on the host.
    // The object ids the copy's branches and tags point at (at copy time: what the host already has). Empty when
    // the copy is no git repository or the image has no git.
    QStringList gitTips(QString* error = nullptr) const;
    enum class BundleState {
        Written,       // `destination` holds a bundle of the commits not reachable from `knownTips`
        NoRepository,  // the copy is not a git repository
        NoGit,         // the image has no git
        NothingNew,    // no branch or tag points at a commit the host lacks
        Failed,
    };
    // Streams `git bundle create - --branches --tags --not KNOWN…` into `destination`, at most `maxBytes`.
    BundleState exportBundle(const QStringList& knownTips, const QString& destination, qint64 maxBytes,
                             QString* error = nullptr) const;

    bool isRunning(QString* error = nullptr) const;
    bool start(QString* error = nullptr) const;
    bool stop(QString* error = nullptr) const;
    bool remove(QString* error = nullptr) const;

private:
    // What a command printed, read as it came, never more than a cap.
    struct Streamed {
        bool started = false;
        bool overCap = false;     // more than the cap arrived: the command was killed
        bool sinkFailed = false;  // the sink refused a chunk (a write failed)
        bool timedOut = false;
        int exitCode = -1;
        bool normalExit = false;
        qint64 bytes = 0;
        QByteArray stderrHead;  // the first kMaxStderr bytes of the standard error; the rest is dropped
        QString startError;
        QString failure() const;  // one line for the user about a failed command
    };
    // Runs `arguments` and hands its standard output to `sink` chunk by chunk until it ends, `cap` bytes are
    // exceeded, the sink fails or the timeout passes (then it is killed).
    Streamed stream(const QStringList& arguments, qint64 cap, const std::function<bool(const QByteArray&)>& sink,
                    int timeoutMs = -1) const;
    bool run(const QStringList& arguments, QByteArray* output, QString* error, int timeoutMs = -1,
             qint64 cap = kMaxCommandOutput) const;
    // readFile and fetchFile: streams the file into `sink`; false with a message naming the path.
    bool readInto(const QString& path, qint64 size, const std::function<bool(const QByteArray&)>& sink,
                  QString* error) const;

    const ContainerRuntime& m_runtime;
    QString m_containerId;
    int m_timeoutMs = 120000;
};

}  // namespace zeus
