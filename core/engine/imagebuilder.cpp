#include "engine/imagebuilder.h"

#include "support/logging.h"
#include "support/processrunner.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/types.h>
#endif

namespace zeus {

namespace {

constexpr int kDefaultTimeoutMs = 60 * 60 * 1000;  // an Ubuntu image with Node and Python takes minutes, not hours

// Keeps the log readable when an engine prints a very long line (base64 progress, minified output).
constexpr int kMaxLineLength = 16 * 1024;

bool isTagAcceptable(const QString& tag) {
    if (tag.isEmpty() || tag.startsWith(QLatin1Char('-'))) {
        return false;
    }
    for (const QChar c : tag) {
        if (c.isSpace() || c.category() == QChar::Other_Control) {
            return false;
        }
    }
    return true;
}

// The labels of the image the build makes, read back by the inspect step and by the diagnostics.
const QString kRevisionLabel = QStringLiteral("zeus.image.revision");
const QString kSourceLabel = QStringLiteral("zeus.image.source");

bool engineCanImport(const QString& program) {
    QString engine = QFileInfo(program).fileName().toLower();
    if (engine.endsWith(QLatin1String(".exe"))) {
        engine.chop(4);
    }
    return engine != QLatin1String("container");  // Apple's CLI has no import
}

QByteArray readFileBytes(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList words(const QString& text) {
    return text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
}

}  // namespace

QString ImageBuilder::dockerfileArgDefault(const QByteArray& dockerfileText, const QString& name) {
    const QRegularExpression line(
        QStringLiteral("^ARG %1=\"([^\"\\n]*)\"[ \\t]*$").arg(QRegularExpression::escape(name)),
        QRegularExpression::MultilineOption);
    const QRegularExpressionMatch match = line.match(QString::fromUtf8(dockerfileText));
    return match.hasMatch() ? match.captured(1) : QString();
}

QString ImageBuilder::recipeRevision(const QByteArray& dockerfileText, const QByteArray& agentSource,
                                     const QString& aptPackages) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(dockerfileText);
    hash.addData(agentSource);
    const QByteArray packages = QByteArray("ZEUS_APT_PACKAGES=") + aptPackages.toUtf8() + '\n';
    hash.addData(packages);
    return QString::fromLatin1(hash.result().toHex().left(12));
}

QByteArray ImageBuilder::agentSources(const QString& agentDir) {
    const QDir dir(agentDir);
    QStringList names =
        dir.entryList({QStringLiteral("*.c"), QStringLiteral("*.h")}, QDir::Files | QDir::CaseSensitive, QDir::NoSort);
    // Bytes, not QString's order: the script sorts with LC_ALL=C.
    std::sort(names.begin(), names.end(),
              [](const QString& left, const QString& right) { return left.toUtf8() < right.toUtf8(); });
    QByteArray sources;
    for (const QString& name : names) {
        sources += readFileBytes(dir.filePath(name));
    }
    return sources;
}

ImageBuilder::Distribution ImageBuilder::hostDistribution(const QString& osReleaseText) {
    QHash<QString, QString> fields;
    for (const QString& raw : osReleaseText.split(QLatin1Char('\n'))) {
        const qsizetype equals = raw.indexOf(QLatin1Char('='));
        if (equals <= 0) {
            continue;
        }
        QString value = raw.mid(equals + 1).trimmed();
        if (value.size() >= 2 && (value.startsWith(QLatin1Char('"')) || value.startsWith(QLatin1Char('\'')))) {
            value = value.mid(1, value.size() - 2);
        }
        fields.insert(raw.left(equals).trimmed(), value);
    }
    const QStringList family =
        words(fields.value(QStringLiteral("ID")) + QLatin1Char(' ') + fields.value(QStringLiteral("ID_LIKE")));
    const QString id = fields.value(QStringLiteral("ID"));
    const bool validCodename = [&] {
        static const QRegularExpression name(QStringLiteral("^[a-z][a-z0-9-]*$"));
        return name.match(fields.value(QStringLiteral("VERSION_CODENAME"))).hasMatch();
    }();
    if (family.contains(QStringLiteral("ubuntu"))) {
        QString suite = fields.value(QStringLiteral("UBUNTU_CODENAME"));
        if (suite.isEmpty() && id == QLatin1String("ubuntu") && validCodename) {
            suite = fields.value(QStringLiteral("VERSION_CODENAME"));
        }
        if (!suite.isEmpty()) {
            return {QStringLiteral("ubuntu"), suite, QStringLiteral("main,universe")};
        }
    }
    if (id == QLatin1String("debian") && validCodename) {
        return {QStringLiteral("debian"), fields.value(QStringLiteral("VERSION_CODENAME")), QStringLiteral("main")};
    }
    // A derivative's codename is its own (not the archive's); anything else: Debian stable.
    return {QStringLiteral("debian"), QStringLiteral("bookworm"), QStringLiteral("main")};
}

QStringList ImageBuilder::rootfsArguments(const Distribution& distribution, const QStringList& packages,
                                          const QString& mirror, const QString& outputTar) {
    // The same command as docker/distro-rootfs.sh: apt's variant, no recommends (mmdebstrap's default), no manuals
    // or docs but the copyright files; root or an unprivileged user namespace, whichever this user has.
    QStringList args{QStringLiteral("--variant=apt"), QStringLiteral("--mode=auto"),
                     QStringLiteral("--components=") + distribution.components,
                     QStringLiteral("--include=") + packages.join(QLatin1Char(','))};
    for (const char* option : {"path-exclude=/usr/share/man/*", "path-exclude=/usr/share/info/*",
                               "path-exclude=/usr/share/doc/*", "path-include=/usr/share/doc/*/copyright"}) {
        args << QStringLiteral("--dpkgopt=") + QLatin1String(option);
    }
    args << distribution.suite << outputTar;
    if (!mirror.isEmpty()) {
        args << mirror;
    }
    return args;
}

ImageBuilder::ImageBuilder(QObject* parent) : QObject(parent) {
    m_timeoutTimer.setSingleShot(true);
    m_timeoutTimer.setInterval(kDefaultTimeoutMs);
    connect(&m_timeoutTimer, &QTimer::timeout, this, &ImageBuilder::onTimeout);
}

ImageBuilder::~ImageBuilder() {
    if (m_process) {
        // Going away mid-build: leave nothing running behind us.
        m_process->disconnect(this);
        const QList<ChildProcess> children = descendantsOf(m_process->processId());
        delete m_process;  // kills the CLI
        killChildren(children);
    }
}

QStringList ImageBuilder::buildArguments(const Request& request) {
    // -t, -f and --build-arg mean the same in docker build, podman build and Apple's container build.
    QStringList args{QStringLiteral("build"), QStringLiteral("-t"), request.tag, QStringLiteral("-f"),
                     request.dockerfile};
    // Docker and Podman keep the container of a failed step unless told otherwise; Apple's builder has no such
    // containers (and no such flag).
    QString engine = QFileInfo(request.program).fileName().toLower();
    if (engine.endsWith(QLatin1String(".exe"))) {
        engine.chop(4);
    }
    if (engine == QLatin1String("docker") || engine == QLatin1String("podman")) {
        args << QStringLiteral("--force-rm");
    }
    if (!request.version.isEmpty()) {
        args << QStringLiteral("--build-arg") << QStringLiteral("ZEUS_VERSION=") + request.version;
    }
    for (const QString& buildArg : request.extraBuildArgs) {
        args << QStringLiteral("--build-arg") << buildArg;
    }
    args << request.contextDir;
    return args;
}

QString ImageBuilder::validate(const Request& request) {
    if (request.program.trimmed().isEmpty()) {
        return tr("No container engine was chosen to build the image.");
    }
    if (!isTagAcceptable(request.tag)) {
        return tr("The image tag \"%1\" is not valid.").arg(request.tag);
    }
    if (!QFileInfo(request.dockerfile).isFile()) {
        return tr("The Dockerfile \"%1\" does not exist.").arg(request.dockerfile);
    }
    if (!QFileInfo(request.contextDir).isDir()) {
        return tr("The build context \"%1\" is not a directory.").arg(request.contextDir);
    }
    for (const QString& buildArg : request.extraBuildArgs) {
        if (!buildArg.contains(QLatin1Char('=')) || buildArg.startsWith(QLatin1Char('='))) {
            return tr("The build argument \"%1\" is not KEY=VALUE.").arg(buildArg);
        }
    }
    return {};
}

QStringList ImageBuilder::dockerDirectoryCandidates(const QString& applicationDirPath, const QString& overrideDir,
                                                    const QStringList& dataDirs) {
    QStringList candidates;
    const auto add = [&candidates](const QString& path) {
        const QString clean = QDir::cleanPath(path);
        if (!path.isEmpty() && !candidates.contains(clean)) {
            candidates << clean;
        }
    };
    if (!overrideDir.isEmpty()) {
        add(overrideDir);
    }
    if (!applicationDirPath.isEmpty()) {
        const QString bin = QDir::cleanPath(applicationDirPath);
        add(bin + QStringLiteral("/../share/zeus-desktop/docker"));
        add(bin + QStringLiteral("/../Resources/docker"));
        add(bin + QStringLiteral("/docker"));
    }
    for (const QString& dataDir : dataDirs) {
        if (!dataDir.isEmpty()) {
            add(dataDir + QStringLiteral("/zeus-desktop/docker"));
        }
    }
    return candidates;
}

ImageBuilder::Request ImageBuilder::sandboxRequest(const QString& program, const QString& tag,
                                                   const QString& dockerDir) {
    Request request;
    request.program = program;
    request.tag = tag;
    request.dockerfile = dockerDir + QStringLiteral("/Dockerfile");
    request.contextDir = dockerDir;
    request.version = QStringLiteral(ZEUS_VERSION);
    return request;
}

QString ImageBuilder::locateDockerDirectory() {
    const QStringList candidates =
        dockerDirectoryCandidates(QCoreApplication::applicationDirPath(), qEnvironmentVariable("ZEUS_DOCKER_DIR"),
                                  QStandardPaths::standardLocations(QStandardPaths::GenericDataLocation));
    for (const QString& dir : candidates) {
        if (QFileInfo(dir + QStringLiteral("/Dockerfile")).isFile()) {
            qCDebug(lcRuntime) << "sandbox Dockerfile found in" << dir;
            return dir;
        }
    }
    qCWarning(lcRuntime) << "no sandbox Dockerfile in" << candidates;
    return {};
}

void ImageBuilder::setTimeout(int milliseconds) {
    m_timeoutTimer.setInterval(milliseconds > 0 ? milliseconds : kDefaultTimeoutMs);
}

void ImageBuilder::setKillGrace(int milliseconds) {
    m_killGraceMs = milliseconds >= 0 ? milliseconds : ProcessTerminator::kGraceMs;
}

bool ImageBuilder::start(const Request& request) {
    if (isRunning()) {
        qCWarning(lcRuntime) << "image build requested while one is running";
        Q_EMIT finished(false, -1, tr("An image build is already running."));
        return false;
    }
    m_exitCode = -1;
    m_error.clear();
    m_timedOut = false;
    m_children.clear();
    m_partialLine.clear();
    m_lastLine.clear();
    m_decoder.resetState();

    const QString invalid = validate(request);
    if (!invalid.isEmpty()) {
        finish(State::Failed, -1, invalid);
        return false;
    }

    m_request = request;
    m_program = request.program;
    m_builtWay.clear();
    m_steps.clear();
    m_scratch.reset();
    // The sandbox recipe declares what its distribution root file system adds; any other Dockerfile is one build.
    const QByteArray dockerfileText = readFileBytes(request.dockerfile);
    m_distroPackages = dockerfileArgDefault(dockerfileText, QStringLiteral("ZEUS_DISTRO_PACKAGES"));
    m_sandboxRecipe = !m_distroPackages.isEmpty();
    m_revision.clear();
    m_aptPackages.clear();
    if (m_sandboxRecipe) {
        m_aptPackages = request.aptPackages.isEmpty()
                            ? dockerfileArgDefault(dockerfileText, QStringLiteral("ZEUS_APT_PACKAGES"))
                            : words(request.aptPackages).join(QLatin1Char(' '));
        m_revision =
            recipeRevision(dockerfileText, agentSources(request.contextDir + QStringLiteral("/agent")), m_aptPackages);
    }

    setState(State::Running);
    m_timeoutTimer.start();
    if (m_sandboxRecipe && request.reuseCurrent) {
        m_steps << Step{StepKind::Inspect,
                        m_program,
                        {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
                         QStringLiteral("{{json .Config.Labels}}"), request.tag}};
    }
    if (!m_sandboxRecipe || request.way != Way::DistroArchive) {
        QStringList args = buildArguments(request);
        if (m_sandboxRecipe) {
            args.removeLast();  // the context goes last
            args << QStringLiteral("--build-arg") << QStringLiteral("ZEUS_IMAGE_SOURCE=dockerfile")
                 << QStringLiteral("--build-arg") << QStringLiteral("ZEUS_IMAGE_REVISION=") + m_revision
                 << QStringLiteral("--build-arg") << QStringLiteral("ZEUS_APT_PACKAGES=") + m_aptPackages
                 << request.contextDir;
        }
        m_steps << Step{StepKind::Build, m_program, args};
    }
    if (m_steps.isEmpty()) {
        return startDistroSteps(QString());
    }
    runStep(m_steps.takeFirst());
    return true;
}

void ImageBuilder::runStep(const Step& step) {
    m_step = step.kind;
    m_captured.clear();
    qCInfo(lcRuntime) << "image build step" << step.program << step.args;
    if (m_process) {  // the previous step's, which has finished
        m_process->disconnect(this);
        m_process->deleteLater();
    }

    auto* process = new ProcessRunner(step.program, step.args, this);
    m_process = process;
    // One stream in the order the engine wrote it; stdin closed at once. The build's time limit is this object's
    // (over all steps), not the step's.
    process->setStreaming(true);
    process->setMergedChannels(true);
    process->setTimeoutMs(0);
    process->setKillGraceMs(m_killGraceMs);
    process->setBeforeKill([this] { forceKill(); });
    process->setWorkingDirectory(m_scratch ? m_scratch->path() : m_request.contextDir);
    connect(process, &ProcessRunner::outputReady, this,
            [this](OutputStream, const QByteArray& chunk) { readOutput(chunk); });
    connect(process, &ProcessRunner::finished, this, &ImageBuilder::onProcessFinished);
    process->start();  // never the app's secrets: ProcessRunner's environment is scrubbed
}

bool ImageBuilder::startDistroSteps(const QString& why) {
    if (!why.isEmpty()) {
        emitLine(why);
    }
    if (!engineCanImport(m_program)) {
        finish(State::Failed, m_exitCode,
               tr("%1 cannot build the image without a registry (it has no import).").arg(m_program));
        return false;
    }
    const QString rootfsProgram = m_request.rootfsProgram.isEmpty()
                                      ? QStandardPaths::findExecutable(QStringLiteral("mmdebstrap"))
                                      : m_request.rootfsProgram;
    if (rootfsProgram.isEmpty()) {
        finish(State::Failed, -1,
               tr("Building the image from the distribution's package archive needs mmdebstrap: install it "
                  "(apt install mmdebstrap) and build again."));
        return false;
    }
    m_scratch = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/zeus-sandbox-rootfs-XXXXXX"));
    if (!m_scratch->isValid()) {
        finish(State::Failed, -1, tr("Could not make a temporary folder for the root file system."));
        return false;
    }
    Distribution distribution = hostDistribution(QString::fromUtf8(readFileBytes(QStringLiteral("/etc/os-release"))));
    if (!m_request.distroSuite.isEmpty()) {
        distribution.suite = m_request.distroSuite;
    }
    const QString tarball = m_scratch->filePath(QStringLiteral("rootfs.tar"));
    const QString base = QStringLiteral("zeus-desktop-sandbox-base:") + m_revision;
    emitLine(tr("Building %1 from the %2 %3 package archive (revision %4)")
                 .arg(m_request.tag, distribution.id, distribution.suite, m_revision));
    m_steps.clear();
    m_steps << Step{StepKind::Rootfs, rootfsProgram,
                    rootfsArguments(distribution, words(m_aptPackages + QLatin1Char(' ') + m_distroPackages),
                                    m_request.distroMirror, tarball)};
    // One label per --change (Podman reads the rest of a LABEL line as one value), no spaces in it.
    m_steps << Step{StepKind::Import,
                    m_program,
                    {QStringLiteral("import"), QStringLiteral("--change"),
                     QStringLiteral("ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
                     QStringLiteral("--change"),
                     QStringLiteral("LABEL zeus.image.distribution=%1:%2").arg(distribution.id, distribution.suite),
                     tarball, base}};
    QStringList build = buildArguments(m_request);
    build.removeLast();
    const QStringList distroArgs{QStringLiteral("BASE=") + base,
                                 QStringLiteral("NODE_IMAGE=") + base,
                                 QStringLiteral("PNPM_OPTIONAL=1"),
                                 QStringLiteral("ZEUS_IMAGE_SOURCE=debootstrap"),
                                 QStringLiteral("ZEUS_BASE_NAME=%1:%2").arg(distribution.id, distribution.suite),
                                 QStringLiteral("ZEUS_IMAGE_REVISION=") + m_revision,
                                 QStringLiteral("ZEUS_APT_PACKAGES=") + m_aptPackages};
    for (const QString& arg : distroArgs) {
        build << QStringLiteral("--build-arg") << arg;
    }
    build << m_request.contextDir;
    m_steps << Step{StepKind::DistroBuild, m_program, build};
    // The base's layers stay under the image; only its name goes (best effort: Podman keeps a parent's name).
    m_steps << Step{StepKind::Untag, m_program, {QStringLiteral("rmi"), base}};
    runStep(m_steps.takeFirst());
    return true;
}

void ImageBuilder::onStepSucceeded() {
    switch (m_step) {
        case StepKind::Inspect: {
            const QJsonObject labels = QJsonDocument::fromJson(m_captured.trimmed()).object();
            if (labels.value(kRevisionLabel).toString() == m_revision
                && labels.value(kSourceLabel).toString() != QLatin1String("busybox-fallback")) {
                emitLine(tr("%1 is already built from this recipe (revision %2, %3): nothing to do.")
                             .arg(m_request.tag, m_revision, labels.value(kSourceLabel).toString()));
                m_builtWay = QStringLiteral("cached");
                finish(State::Succeeded, 0, {});
                return;
            }
            if (m_steps.isEmpty()) {  // Way::DistroArchive: nothing queued before it
                startDistroSteps(QString());
                return;
            }
            break;
        }
        case StepKind::Build:
            m_builtWay = QStringLiteral("dockerfile");
            finish(State::Succeeded, 0, {});
            return;
        case StepKind::Rootfs:
        case StepKind::Import:
            break;
        case StepKind::DistroBuild:
            m_builtWay = QStringLiteral("debootstrap");
            QFile::remove(m_scratch->filePath(QStringLiteral("rootfs.tar")));
            break;
        case StepKind::Untag:
            finish(State::Succeeded, 0, {});
            return;
    }
    if (m_steps.isEmpty()) {
        finish(State::Succeeded, 0, {});
        return;
    }
    runStep(m_steps.takeFirst());
}

void ImageBuilder::cancel() {
    if (m_state != State::Running) {
        return;
    }
    qCInfo(lcRuntime) << "cancelling the image build";
    setState(State::Cancelling);
    stopProcess();
}

void ImageBuilder::setState(State state) {
    if (m_state == state) {
        return;
    }
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ImageBuilder::readOutput(const QByteArray& chunk) {
    if (!m_process) {
        return;
    }
    // Stateful decoding: a UTF-8 sequence split across two reads is still decoded right.
    if (m_step == StepKind::Inspect) {
        m_captured += chunk.left(1024 * 1024);
        return;
    }
    QString text = m_partialLine;
    text += QString(m_decoder.decode(chunk));
    qsizetype start = 0;
    while (true) {
        const qsizetype newline = text.indexOf(QLatin1Char('\n'), start);
        if (newline < 0) {
            break;
        }
        emitLine(text.mid(start, newline - start));
        start = newline + 1;
    }
    m_partialLine = text.mid(start);
    if (m_partialLine.size() > kMaxLineLength) {
        emitLine(m_partialLine);
        m_partialLine.clear();
    }
}

void ImageBuilder::emitLine(QString line) {
    // A carriage return redraws a progress line in a terminal: keep what would be visible, the text after the
    // last one ("Sending build context ... 2.048kB\r\r\n" is one line).
    while (line.endsWith(QLatin1Char('\r'))) {
        line.chop(1);
    }
    const qsizetype redraw = line.lastIndexOf(QLatin1Char('\r'));
    if (redraw >= 0) {
        line = line.mid(redraw + 1);
    }
    line.truncate(kMaxLineLength);
    if (!line.trimmed().isEmpty()) {
        m_lastLine = line.trimmed();
    }
    Q_EMIT logLine(line);
}

void ImageBuilder::flushPartialLine() {
    m_partialLine += QString(m_decoder.decode(QByteArray()));
    if (!m_partialLine.isEmpty()) {
        emitLine(m_partialLine);
        m_partialLine.clear();
    }
}

void ImageBuilder::onProcessFinished(const ProcessResult& result) {
    if (!result.started) {
        finish(State::Failed, -1, tr("Could not start %1: %2").arg(result.program, result.errorString));
        return;
    }
    flushPartialLine();
    const bool crashed = result.crashed;
    const int exitCode = result.exitCode;
    const int code = crashed ? -1 : exitCode;

    if (m_state == State::Cancelling) {
        // podman exits 0 on SIGTERM and leaves its RUN step behind: whatever the exit code, it was cancelled,
        // and the build's own processes are stopped now.
        killChildren(m_children);
        if (m_timedOut) {
            finish(State::Failed, code,
                   tr("The image build timed out after %1 s and was stopped.").arg(m_timeoutTimer.interval() / 1000));
        } else {
            finish(State::Cancelled, code, tr("The image build was cancelled."));
        }
        return;
    }
    if (m_step == StepKind::Inspect || m_step == StepKind::Untag) {
        // The tag missing (or not current) and a base name that stays are no failures.
        if (m_step == StepKind::Inspect && (crashed || exitCode != 0)) {
            m_captured.clear();
        }
        onStepSucceeded();
        return;
    }
    if (crashed) {
        finish(State::Failed, -1, tr("%1 stopped unexpectedly.").arg(m_program));
        return;
    }
    if (exitCode != 0 && m_step == StepKind::Build && m_sandboxRecipe && m_request.way == Way::Auto) {
        m_exitCode = exitCode;
        startDistroSteps(
            tr("The Dockerfile's base could not be built (is a registry reachable?): building from "
               "the distribution's package archive instead."));
        return;
    }
    if (exitCode != 0 && m_step == StepKind::Rootfs) {
        QString message =
            tr("The distribution's package archive could not be used (mmdebstrap exit code %1).").arg(exitCode);
        if (!m_lastLine.isEmpty()) {
            message += QLatin1Char(' ') + m_lastLine;
        }
        finish(State::Failed, exitCode, message);
        return;
    }
    if (exitCode != 0) {
        QString message = tr("%1 build failed with exit code %2.").arg(m_program).arg(exitCode);
        if (!m_lastLine.isEmpty()) {
            message += QLatin1Char(' ') + m_lastLine;
        }
        finish(State::Failed, exitCode, message);
        return;
    }
    onStepSucceeded();
}

void ImageBuilder::onTimeout() {
    if (m_state != State::Running) {
        return;
    }
    qCWarning(lcRuntime) << "image build timed out after" << m_timeoutTimer.interval() << "ms";
    m_timedOut = true;
    setState(State::Cancelling);
    stopProcess();
}

void ImageBuilder::stopProcess() {
    if (!m_process) {
        return;
    }
    // Remember the build's own processes now: once the CLI is gone they are re-parented and cannot be found.
    m_children = descendantsOf(m_process->processId());
    m_process->cancel();
}

void ImageBuilder::forceKill() {
    if (!m_process || !m_process->isRunning()) {
        return;
    }
    qCWarning(lcRuntime) << "image build did not stop on terminate; killing it";
    const QList<ChildProcess> current = descendantsOf(m_process->processId());
    for (const ChildProcess& child : current) {
        m_children << child;
    }
    // The terminator kills the CLI itself right after this.
    killChildren(m_children);
}

void ImageBuilder::finish(State state, int exitCode, const QString& error) {
    m_timeoutTimer.stop();
    m_exitCode = exitCode;
    m_error = error;
    if (m_process) {
        m_process->disconnect(this);
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_children.clear();
    m_steps.clear();
    m_scratch.reset();  // the root file system tarball, if any
    if (state == State::Succeeded) {
        qCInfo(lcRuntime) << "image build succeeded";
    } else {
        qCWarning(lcRuntime) << "image build ended:" << state << exitCode << error;
    }
    setState(state);
    Q_EMIT finished(state == State::Succeeded, exitCode, error);
}

QList<ImageBuilder::ChildProcess> ImageBuilder::descendantsOf(qint64 pid) {
    QList<ChildProcess> result;
#ifdef Q_OS_LINUX
    if (pid <= 0) {
        return result;
    }
    // One pass over /proc: parent of every process, then a breadth-first walk from pid.
    QHash<qint64, QList<ChildProcess>> childrenOf;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        bool isPid = false;
        const qint64 candidate = entry.toLongLong(&isPid);
        if (!isPid) {
            continue;
        }
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!stat.open(QIODevice::ReadOnly)) {
            continue;
        }
        const QByteArray line = stat.readAll();
        // "pid (comm) state ppid ... starttime": comm may hold spaces and parentheses, so split after the last ')'.
        const qsizetype close = line.lastIndexOf(')');
        if (close < 0) {
            continue;
        }
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (fields.size() < 20) {
            continue;
        }
        childrenOf[fields.at(1).toLongLong()].append(ChildProcess{candidate, fields.at(19)});
    }
    QList<qint64> queue{pid};
    while (!queue.isEmpty()) {
        const qint64 parent = queue.takeFirst();
        const QList<ChildProcess> children = childrenOf.value(parent);
        for (const ChildProcess& child : children) {
            result << child;
            queue << child.pid;
        }
    }
#else
    Q_UNUSED(pid)
#endif
    return result;
}

void ImageBuilder::killChildren(const QList<ChildProcess>& children) {
#ifdef Q_OS_LINUX
    for (const ChildProcess& child : children) {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(child.pid));
        if (!stat.open(QIODevice::ReadOnly)) {
            continue;  // already gone
        }
        const QByteArray line = stat.readAll();
        const qsizetype close = line.lastIndexOf(')');
        const QList<QByteArray> fields = close < 0 ? QList<QByteArray>() : line.mid(close + 2).split(' ');
        if (fields.size() < 20 || fields.at(19) != child.startTime) {
            continue;  // the pid now belongs to another process
        }
        // SIGKILL: a RUN step is pid 1 of its namespace and ignores SIGTERM.
        ::kill(static_cast<pid_t>(child.pid), SIGKILL);
    }
#else
    Q_UNUSED(children)
#endif
}

}  // namespace zeus
