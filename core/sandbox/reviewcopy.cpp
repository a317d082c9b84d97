#include "sandbox/reviewcopy.h"

#include "engine/containerruntime.h"
#include "review/gitbundle.h"
#include "review/tarwriter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>

namespace zeus {

namespace {

constexpr qint64 kMaxInputBacklog = 8 * 1024 * 1024;
constexpr int kStartTimeoutMs = 30000;

QString inContainer(const QString& path) {
    return containerWorkspace() + QLatin1Char('/') + path;
}

QString failureOf(QProcess& process) {
    QString line = ContainerRuntime::errorLine(process.readAllStandardError());
    if (!line.isEmpty()) {
        return line;
    }
    if (process.exitStatus() != QProcess::NormalExit) {
        return QStringLiteral("the engine's command stopped (%1)").arg(process.errorString());
    }
    return QStringLiteral("the engine's command failed with exit code %1").arg(process.exitCode());
}

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

bool ReviewCopy::run(const QStringList& arguments, QByteArray* output, QString* error, int timeoutMs) const {
    QProcess process;
    process.start(m_runtime.program(), arguments);
    if (!process.waitForStarted(kStartTimeoutMs)) {
        if (error) {
            *error = QStringLiteral("%1 could not be started: %2").arg(m_runtime.program(), process.errorString());
        }
        return false;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs < 0 ? m_timeoutMs : timeoutMs)) {
        process.kill();
        process.waitForFinished();
        if (error) {
            *error = QStringLiteral("the engine did not answer in time");
        }
        return false;
    }
    if (output) {
        *output = process.readAllStandardOutput();
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        if (error) {
            *error = failureOf(process);
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
    QProcess tar;
    tar.start(m_runtime.program(), m_runtime.execWithStdinArguments(
                                       m_containerId, {QStringLiteral("tar"), QStringLiteral("-x"),
                                                       QStringLiteral("-o"), QStringLiteral("-f"), QStringLiteral("-"),
                                                       QStringLiteral("-C"), containerWorkspace()}));
    if (!tar.waitForStarted(kStartTimeoutMs)) {
        result.error = QStringLiteral("%1 could not be started: %2").arg(m_runtime.program(), tar.errorString());
        return result;
    }
    TarWriter writer(workspace, result.baseline.entries);
    while (!writer.atEnd() && !writer.hasError() && tar.state() == QProcess::Running) {
        const QByteArray chunk = writer.nextChunk();
        if (chunk.isEmpty()) {
            break;
        }
        tar.write(chunk);
        while (tar.bytesToWrite() > kMaxInputBacklog && tar.state() == QProcess::Running) {
            tar.waitForBytesWritten(m_timeoutMs);
        }
    }
    if (writer.hasError()) {
        tar.kill();
        tar.waitForFinished();
        result.error =
            QStringLiteral("The folder changed while it was copied (%1); nothing was kept.").arg(writer.errorString());
        return result;
    }
    while (tar.bytesToWrite() > 0 && tar.state() == QProcess::Running) {
        tar.waitForBytesWritten(m_timeoutMs);
    }
    tar.closeWriteChannel();
    if (!tar.waitForFinished(m_timeoutMs)) {
        tar.kill();
        tar.waitForFinished();
        result.error = QStringLiteral("Copying the folder into the container did not finish in time.");
        return result;
    }
    if (tar.exitStatus() != QProcess::NormalExit || tar.exitCode() != 0 || !writer.atEnd()) {
        result.error = QStringLiteral("Copying the folder into the container failed: %1").arg(failureOf(tar));
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
    if (!run(m_runtime.execArguments(m_containerId, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                     WorkspaceManifest::containerListingScript(), QStringLiteral("sh"),
                                                     containerWorkspace()}),
             &listing, &error)) {
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

bool ReviewCopy::readFile(const QString& path, qint64 maxBytes, QByteArray& out, QString* error) const {
    if (!ManifestEntry::isSafePath(path)) {
        if (error) {
            *error = QStringLiteral("not a path inside the folder: %1").arg(path);
        }
        return false;
    }
    QByteArray data;
    if (!run(m_runtime.execArguments(m_containerId, {QStringLiteral("cat"), QStringLiteral("--"), inContainer(path)}),
             &data, error)) {
        return false;
    }
    if (data.size() > maxBytes) {
        if (error) {
            *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(maxBytes);
        }
        return false;
    }
    out = data;
    return true;
}

bool ReviewCopy::fetchFile(const QString& path, const QString& destination, QString* error) const {
    if (!ManifestEntry::isSafePath(path)) {
        if (error) {
            *error = QStringLiteral("not a path inside the folder: %1").arg(path);
        }
        return false;
    }
    QProcess process;
    process.setStandardOutputFile(destination, QIODevice::Truncate);
    process.start(
        m_runtime.program(),
        m_runtime.execArguments(m_containerId, {QStringLiteral("cat"), QStringLiteral("--"), inContainer(path)}));
    if (!process.waitForStarted(kStartTimeoutMs)) {
        if (error) {
            *error = process.errorString();
        }
        return false;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(m_timeoutMs)) {
        process.kill();
        process.waitForFinished();
        if (error) {
            *error = QStringLiteral("reading %1 from the container did not finish in time").arg(path);
        }
        return false;
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        if (error) {
            *error = failureOf(process);
        }
        return false;
    }
    return true;
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
            if (!scratch.isValid() || !fetchFile(change.path, content, &error)) {
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
    QProcess process;
    process.start(m_runtime.program(), m_runtime.execArguments(m_containerId, arguments));
    if (!process.waitForStarted(kStartTimeoutMs)) {
        if (error) {
            *error = process.errorString();
        }
        return BundleState::Failed;
    }
    process.closeWriteChannel();
    // Read as it comes, never more than maxBytes: the container decides how much it writes.
    qint64 written = 0;
    bool tooLarge = false;
    bool writeFailed = false;
    QElapsedTimer clock;
    clock.start();
    while (process.state() != QProcess::NotRunning || process.bytesAvailable() > 0) {
        if (process.bytesAvailable() == 0) {
            if (clock.elapsed() > m_timeoutMs) {
                break;
            }
            process.waitForReadyRead(1000);
            continue;
        }
        const QByteArray chunk = process.read(1 << 20);
        written += chunk.size();
        if (written > maxBytes) {
            tooLarge = true;
            break;
        }
        if (out.write(chunk) != chunk.size()) {
            writeFailed = true;
            break;
        }
    }
    if (tooLarge || writeFailed || process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished();
        out.close();
        QFile::remove(destination);
        if (error) {
            *error = tooLarge      ? QStringLiteral("the copy's commits are more than %1 bytes").arg(maxBytes)
                     : writeFailed ? out.errorString()
                                   : QStringLiteral("writing the copy's commits did not finish in time");
        }
        return BundleState::Failed;
    }
    out.close();
    if (process.exitStatus() != QProcess::NormalExit) {
        if (error) {
            *error = failureOf(process);
        }
        return BundleState::Failed;
    }
    switch (process.exitCode()) {
        case 0:
            return written > 0 ? BundleState::Written : BundleState::Failed;
        case kNoRepository:
            return BundleState::NoRepository;
        case kNoGit:
            return BundleState::NoGit;
        case kNothingNew:
            return BundleState::NothingNew;
        default:
            if (error) {
                *error = failureOf(process);
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
