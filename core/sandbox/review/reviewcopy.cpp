#include "sandbox/review/reviewcopy.h"

#include "engine/containerruntime.h"
#include "review/gitbundle.h"
#include "review/tarwriter.h"
#include "support/processrunner.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>

namespace zeus {

namespace {

QString inContainer(const QString& path) {
    return containerWorkspace() + QLatin1Char('/') + path;
}

QString failureOf(const ProcessResult& done) {
    QString line = ContainerRuntime::errorLine(done.standardError);
    if (!line.isEmpty()) {
        return line;
    }
    if (done.crashed) {
        return QStringLiteral("the engine's command stopped (%1)").arg(done.errorString);
    }
    return QStringLiteral("the engine's command failed with exit code %1").arg(done.exitCode);
}

constexpr qint64 kMaxStderr = 64 * 1024;
constexpr int kNotRegular = 3;

// Reads one file of the copy (docs/review-mode.md "Reading the copy"). $1 is /workspace/PATH (an argument, never
// shell text), $2 the listed size + 1. Only a regular file that is no link is opened; then the opened file must be
// the one at the path (same device and inode, seen without following a link), so a link swapped in between the test
// and the open is refused too; head prints at most $2 bytes whatever the file does meanwhile.
const char kReadScript[] = R"sh(p=$1
[ -f "$p" ] && [ ! -L "$p" ] || exit 3
exec 3< "$p" || exit 3
[ -f /proc/$$/fd/3 ] && [ "$(stat -L -c %d:%i /proc/$$/fd/3)" = "$(stat -c %d:%i -- "$p")" ] || exit 3
exec head -c "$2" <&3
)sh";

// Exit codes of the git scripts below besides 0 and git's own.
constexpr int kNoRepository = 3;
constexpr int kNoGit = 4;
constexpr int kNothingNew = 5;
constexpr int kMaxTips = 20000;

// Both scripts run in the container, as its user, on the copy: $1 is /workspace. A copy whose top level is not
// /workspace (a .git file pointing elsewhere, a repository above) is no repository here.
const char kGitPreamble[] = R"sh(cd "$1" || exit 3
shift
[ -e .git ] || exit 3
command -v git >/dev/null 2>&1 || exit 4
[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$PWD" ] || exit 3
)sh";

// The tips the copy's branches and tags point at.
const char kGitTipsScript[] = R"sh(exec git for-each-ref --format='%(objectname)' refs/heads refs/tags
)sh";

// A bundle of what no known tip reaches. Known tips the copy no longer has (a gc) are left out of --not: git would
// refuse the whole list. The tips are hex ids checked on the host, so the unquoted list splits only on spaces.
const char kGitBundleScript[] =
    R"sh(known=$(printf '%s^{commit}\n' "$@" | git cat-file --batch-check='%(objectname)' 2>/dev/null | awk 'NF == 1')
[ -n "$(git rev-list -n 1 --branches --tags --not $known --)" ] || exit 5
exec git bundle create - --branches --tags --not $known
)sh";

}  // namespace

ReviewCopy::ReviewCopy(const ContainerRuntime& runtime, QString containerId)
    : m_runtime(runtime), m_containerId(std::move(containerId)) {}

QString ReviewCopy::Streamed::failure() const {
    if (!started) {
        return startError;
    }
    QString line = ContainerRuntime::errorLine(stderrHead);
    if (!line.isEmpty()) {
        return line;
    }
    if (!normalExit) {
        return QStringLiteral("the engine's command stopped");
    }
    return QStringLiteral("the engine's command failed with exit code %1").arg(exitCode);
}

ReviewCopy::Streamed ReviewCopy::stream(const QStringList& arguments, qint64 cap,
                                        const std::function<bool(const QByteArray&)>& sink, int timeoutMs) const {
    Streamed result;
    ProcessRunner process(m_runtime.program(), arguments);  // never the app's secrets (SPEC §3)
    process.setTimeoutMs(timeoutMs < 0 ? m_timeoutMs : timeoutMs);
    // Both channels are taken as they come, a chunk at a time: what the process prints is never held beyond one
    // chunk, and the standard error beyond its first kMaxStderr bytes is dropped (the copy can write to it too).
    process.setOutputLimit(kMaxStderr);
    ProcessRunner::BlockingIo io;
    io.output = [&](const QByteArray& chunk) {
        result.bytes += chunk.size();
        if (result.bytes > cap) {
            result.overCap = true;
            return false;
        }
        if (!sink(chunk)) {
            result.sinkFailed = true;
            return false;
        }
        return true;
    };
    const ProcessResult done = process.runBlocking(io);
    if (!done.started) {
        result.startError = QStringLiteral("%1 could not be started: %2").arg(m_runtime.program(), done.errorString);
        return result;
    }
    result.started = true;
    result.timedOut = done.timedOut;
    result.stderrHead = done.standardError;
    result.normalExit = !done.crashed;
    result.exitCode = done.exitCode;
    return result;
}

bool ReviewCopy::run(const QStringList& arguments, QByteArray* output, QString* error, int timeoutMs,
                     qint64 cap) const {
    QByteArray data;
    const Streamed done = stream(
        arguments, cap,
        [&data](const QByteArray& chunk) {
            data += chunk;
            return true;
        },
        timeoutMs);
    if (output) {
        *output = data;
    }
    if (done.overCap) {
        if (error) {
            *error = QStringLiteral("the engine's command printed more than %1 bytes").arg(cap);
        }
        return false;
    }
    if (done.timedOut) {
        if (error) {
            *error = QStringLiteral("the engine did not answer in time");
        }
        return false;
    }
    if (!done.started || !done.normalExit || done.exitCode != 0) {
        if (error) {
            *error = done.failure();
        }
        return false;
    }
    return true;
}

ReviewCopy::CopyResult ReviewCopy::copyIn(const QString& workspace, qint64 sizeCap) const {
    CopyResult result;
    const WorkspaceManifest::ScanResult scan = WorkspaceManifest::scan(workspace, result.baseline, sizeCap);
    if (!scan.ok) {
        result.error = scan.error;
        result.folderProblem = true;
        return result;
    }
    // A copy whose listing would be over its entry cap could never be reviewed: not taken.
    if (result.baseline.entries.size() > ListingLimits::kDefaultEntries) {
        result.error = QStringLiteral(
                           "The folder has %1 files and folders; a review copy holds at most %2 (add "
                           "folders to .zeusignore).")
                           .arg(result.baseline.entries.size())
                           .arg(ListingLimits::kDefaultEntries);
        result.folderProblem = true;
        return result;
    }
    // The copy's volume belongs to the image's root: opened to the container's user (a fixed command, no path of
    // the user's), who then owns everything the copy holds.
    const QStringList prepare = m_runtime.execAsRootArguments(
        m_containerId, {QStringLiteral("chmod"), QStringLiteral("0777"), containerWorkspace()});
    if (prepare.isEmpty()) {
        result.error = QStringLiteral("this engine cannot prepare a review copy");
        return result;
    }
    QString error;
    if (!run(prepare, nullptr, &error)) {
        result.error = QStringLiteral("The container's /workspace could not be prepared: %1").arg(error);
        return result;
    }
    // `-o`: the files belong to whoever extracts them (busybox and GNU tar alike), never to the ids in the stream.
    ProcessRunner tar(
        m_runtime.program(),
        m_runtime.execWithStdinArguments(
            m_containerId, {QStringLiteral("tar"), QStringLiteral("-x"), QStringLiteral("-o"), QStringLiteral("-f"),
                            QStringLiteral("-"), QStringLiteral("-C"), containerWorkspace()}));
    tar.setTimeoutMs(m_timeoutMs);
    tar.setOutputLimit(kMaxStderr);
    TarWriter writer(workspace, result.baseline.entries);
    ProcessRunner::BlockingIo io;
    // At most ProcessRunner::kMaxInputBacklog bytes wait for tar's stdin: the tar stream is made as tar takes it.
    io.input = [&writer](QByteArray* chunk) {
        if (!writer.atEnd() && !writer.hasError()) {
            *chunk = writer.nextChunk();
        }
        return !writer.hasError();
    };
    const ProcessResult done = tar.runBlocking(io);
    if (!done.started) {
        result.error = QStringLiteral("%1 could not be started: %2").arg(m_runtime.program(), done.errorString);
        return result;
    }
    if (writer.hasError()) {
        result.error =
            QStringLiteral("The folder changed while it was copied (%1); nothing was kept.").arg(writer.errorString());
        return result;
    }
    if (done.timedOut) {
        result.error = QStringLiteral("Copying the folder into the container did not finish in time.");
        return result;
    }
    if (done.crashed || done.exitCode != 0 || !writer.atEnd()) {
        result.error = QStringLiteral("Copying the folder into the container failed: %1").arg(failureOf(done));
        return result;
    }
    result.bytes = writer.bytesWritten();
    result.ok = true;
    return result;
}

ReviewCopy::ChangesResult ReviewCopy::changes(const WorkspaceManifest& baseline) const {
    ChangesResult result;
    QByteArray listing;
    QString error;
    const ListingLimits limits;
    if (!run(m_runtime.execArguments(m_containerId, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                     WorkspaceManifest::containerListingScript(), QStringLiteral("sh"),
                                                     containerWorkspace()}),
             &listing, &error, -1, limits.bytes)) {
        if (listing.size() > limits.bytes) {
            // The parser words the cap for the user; it refuses the listing before reading any of it.
            WorkspaceManifest refused;
            WorkspaceManifest::parseContainerListing(listing, refused, &error, limits);
            result.error = QStringLiteral("The copy's listing could not be read: %1").arg(error);
            return result;
        }
        result.error = QStringLiteral("The copy in the container could not be listed: %1").arg(error);
        return result;
    }
    WorkspaceManifest current;
    if (!WorkspaceManifest::parseContainerListing(listing, current, &error)) {
        result.error = QStringLiteral("The copy's listing could not be read: %1").arg(error);
        return result;
    }
    result.changes = ChangeSet::compute(baseline, current);
    result.ok = true;
    return result;
}

QString ReviewCopy::readScript() {
    return QString::fromLatin1(kReadScript);
}

bool ReviewCopy::readInto(const QString& path, qint64 size, const std::function<bool(const QByteArray&)>& sink,
                          QString* error) const {
    const auto fail = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return false;
    };
    if (!ManifestEntry::isSafePath(path) || size < 0) {
        return fail(QStringLiteral("not a path inside the folder: %1").arg(path));
    }
    const Streamed done = stream(
        m_runtime.execArguments(m_containerId, {QStringLiteral("sh"), QStringLiteral("-c"), readScript(),
                                                QStringLiteral("sh"), inContainer(path), QString::number(size + 1)}),
        size, sink);
    if (done.overCap) {
        return fail(QStringLiteral("%1 holds more than the %2 bytes the copy's list showed: it changed after the list "
                                   "was made (refresh the list)")
                        .arg(path)
                        .arg(size));
    }
    if (done.sinkFailed) {
        return fail(QStringLiteral("%1 could not be stored on this computer").arg(path));
    }
    if (done.timedOut) {
        return fail(QStringLiteral("reading %1 from the container did not finish in time").arg(path));
    }
    if (done.started && done.normalExit && done.exitCode == kNotRegular) {
        return fail(QStringLiteral("%1 is no longer a regular file in the copy (a link, a pipe or a device now): it "
                                   "changed after the list was made (refresh the list)")
                        .arg(path));
    }
    if (!done.started || !done.normalExit || done.exitCode != 0) {
        return fail(done.failure());
    }
    if (done.bytes != size) {
        return fail(QStringLiteral("%1 holds %2 bytes, not the %3 the copy's list showed: it changed after the list "
                                   "was made (refresh the list)")
                        .arg(path)
                        .arg(done.bytes)
                        .arg(size));
    }
    return true;
}

bool ReviewCopy::readFile(const QString& path, qint64 size, QByteArray& out, QString* error) const {
    QByteArray data;
    if (!readInto(
            path, size,
            [&data](const QByteArray& chunk) {
                data += chunk;
                return true;
            },
            error)) {
        return false;
    }
    out = data;
    return true;
}

bool ReviewCopy::fetchFile(const QString& path, qint64 size, const QString& destination, QString* error) const {
    QFile file(destination);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(destination, file.errorString());
        }
        return false;
    }
    const bool ok = readInto(
        path, size, [&file](const QByteArray& chunk) { return file.write(chunk) == chunk.size(); }, error);
    file.close();
    if (!ok) {
        QFile::remove(destination);
    }
    return ok;
}

QList<ApplyOutcome> ReviewCopy::apply(const QString& workspace, const QList<Change>& changes,
                                      const ChangeApplier::Options& options) const {
    QList<ApplyOutcome> outcomes;
    QTemporaryDir scratch(QDir::tempPath() + QStringLiteral("/zeus-apply-XXXXXX"));
    const QList<Change> ordered = ChangeApplier::inApplyOrder(changes);
    int index = 0;
    for (const Change& change : ordered) {
        QString content;
        const bool needsContent = change.hasAfter && change.after.type == ManifestEntry::Type::File
                                  && change.kind != Change::Kind::Deleted && change.applicable
                                  && !ChangeSet::isGitInternal(change.path);
        if (needsContent) {
            QString error;
            content = scratch.filePath(QString::number(index++));
            if (!scratch.isValid() || !fetchFile(change.path, change.after.size, content, &error)) {
                ApplyOutcome outcome;
                outcome.path = change.path;
                outcome.result = ApplyOutcome::Result::Refused;
                outcome.reason = QStringLiteral("its content could not be read from the container: %1").arg(error);
                outcomes.append(outcome);
                continue;
            }
        }
        outcomes.append(ChangeApplier::apply(workspace, change, content, options));
        if (!content.isEmpty()) {
            QFile::remove(content);
        }
    }
    return outcomes;
}

QStringList ReviewCopy::gitTips(QString* error) const {
    QStringList tips;
    QByteArray output;
    // A copy that is no repository, or an image with no git, fails the script (exit 3 or 4): no tips, as for any
    // other failure; `error` says which.
    if (!run(m_runtime.execArguments(m_containerId, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                     QString::fromLatin1(kGitPreamble) + QLatin1String(kGitTipsScript),
                                                     QStringLiteral("sh"), containerWorkspace()}),
             &output, error)) {
        return tips;
    }
    QSet<QString> seen;
    const QList<QByteArray> lines = output.split('\n');
    for (const QByteArray& line : lines) {
        const QString id = QString::fromLatin1(line.trimmed());
        if (GitBundle::isObjectId(id) && !seen.contains(id) && tips.size() < kMaxTips) {
            seen.insert(id);
            tips.append(id);
        }
    }
    return tips;
}

ReviewCopy::BundleState ReviewCopy::exportBundle(const QStringList& knownTips, const QString& destination,
                                                 qint64 maxBytes, QString* error) const {
    QStringList arguments = {QStringLiteral("sh"), QStringLiteral("-c"),
                             QString::fromLatin1(kGitPreamble) + QLatin1String(kGitBundleScript), QStringLiteral("sh"),
                             containerWorkspace()};
    for (const QString& tip : knownTips) {
        if (GitBundle::isObjectId(tip) && arguments.size() < kMaxTips) {
            arguments.append(tip);  // never anything but hex: the script splits the list unquoted
        }
    }
    QFile out(destination);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) {
            *error = QStringLiteral("%1: %2").arg(destination, out.errorString());
        }
        return BundleState::Failed;
    }
    // Read as it comes, never more than maxBytes: the container decides how much it writes.
    const Streamed done = stream(m_runtime.execArguments(m_containerId, arguments), maxBytes,
                                 [&out](const QByteArray& chunk) { return out.write(chunk) == chunk.size(); });
    out.close();
    if (done.overCap || done.sinkFailed || done.timedOut) {
        QFile::remove(destination);
        if (error) {
            *error = done.overCap      ? QStringLiteral("the copy's commits are more than %1 bytes").arg(maxBytes)
                     : done.sinkFailed ? out.errorString()
                                       : QStringLiteral("writing the copy's commits did not finish in time");
        }
        return BundleState::Failed;
    }
    if (!done.started || !done.normalExit) {
        if (error) {
            *error = done.failure();
        }
        return BundleState::Failed;
    }
    switch (done.exitCode) {
        case 0:
            return done.bytes > 0 ? BundleState::Written : BundleState::Failed;
        case kNoRepository:
            return BundleState::NoRepository;
        case kNoGit:
            return BundleState::NoGit;
        case kNothingNew:
            return BundleState::NothingNew;
        default:
            if (error) {
                *error = done.failure();
            }
            return BundleState::Failed;
    }
}

bool ReviewCopy::isRunning(QString* error) const {
    QByteArray output;
    if (!run(m_runtime.inspectArguments(m_containerId), &output, error)) {
        return false;
    }
    const auto info = m_runtime.parseInspect(output);
    return info && info->running;
}

bool ReviewCopy::start(QString* error) const {
    return run(m_runtime.startArguments(m_containerId), nullptr, error);
}

bool ReviewCopy::stop(QString* error) const {
    return run(m_runtime.stopArguments({m_containerId}), nullptr, error);
}

bool ReviewCopy::remove(QString* error) const {
    return run(m_runtime.removeArguments({m_containerId}), nullptr, error);
}

}  // namespace zeus
