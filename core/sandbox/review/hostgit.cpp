#include "sandbox/review/hostgit.h"

#include "support/processrunner.h"

#include <QDir>
#include <QFileInfo>
#include <QMutex>
#include <QMutexLocker>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace zeus {

namespace {

constexpr int kGitTimeoutMs = 300000;
// What is read of a call's output: a bundle's heads or the refs under one prefix, far below this.
constexpr qint64 kMaxGitOutput = qint64(64) * 1024 * 1024;

QMutex& programMutex() {
    static QMutex mutex;
    return mutex;
}

QString& programOverride() {
    static QString program;
    return program;
}

// The options every call gets, over whatever a config file says: nothing of the repository's may run code here.
QStringList safeOptions() {
    return {QStringLiteral("-c"), QStringLiteral("core.hooksPath=/dev/null"),
            QStringLiteral("-c"), QStringLiteral("core.fsmonitor=false"),
            QStringLiteral("-c"), QStringLiteral("transfer.fsckObjects=true"),
            QStringLiteral("-c"), QStringLiteral("fetch.fsckObjects=true"),
            QStringLiteral("-c"), QStringLiteral("fetch.recurseSubmodules=false"),
            QStringLiteral("-c"), QStringLiteral("submodule.recurse=false"),
            QStringLiteral("-c"), QStringLiteral("gc.auto=0"),
            QStringLiteral("-c"), QStringLiteral("maintenance.auto=false"),
            QStringLiteral("-c"), QStringLiteral("core.sshCommand=false")};
}

struct GitRun {
    bool ok = false;
    QByteArray out;
    QString error;
};

GitRun runGit(const QString& workspace, const QStringList& arguments) {
    GitRun run;
    const QString program = HostGit::gitProgram();
    if (program.isEmpty()) {
        run.error = QStringLiteral("git is not installed on this computer");
        return run;
    }
    QProcessEnvironment environment = ProcessRunner::childEnvironment();
    const QStringList names = environment.keys();
    for (const QString& name : names) {
        if (name.startsWith(QLatin1String("GIT_"))) {
            environment.remove(name);  // GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH …: none may steer this call
        }
    }
    // Never a repository above the folder, never a prompt, messages in one language to read them back.
    environment.insert(QStringLiteral("GIT_CEILING_DIRECTORIES"), QFileInfo(workspace).absolutePath());
    environment.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    ProcessRunner git(program, safeOptions() + arguments);
    git.setEnvironment(environment);
    git.setWorkingDirectory(workspace);
    git.setTimeoutMs(kGitTimeoutMs);
    git.setOutputLimit(kMaxGitOutput);
    const ProcessResult result = git.runBlocking();
    if (!result.started) {
        run.error = QStringLiteral("git could not be started: %1").arg(result.errorString);
        return run;
    }
    if (result.timedOut) {
        run.error = QStringLiteral("git did not finish in time");
        return run;
    }
    run.out = result.standardOutput;
    if (result.crashed || result.exitCode != 0) {
        QStringList lines;
        const QList<QByteArray> errorLines = result.standardError.split('\n');
        for (const QByteArray& line : errorLines) {
            const QString text = QString::fromUtf8(line).trimmed();
            if (!text.isEmpty() && !text.startsWith(QLatin1String("hint:"))) {
                lines.append(text);
            }
        }
        run.error = lines.isEmpty() ? QStringLiteral("git failed with exit code %1").arg(result.exitCode)
                                    : lines.mid(0, 3).join(QStringLiteral("; "));
        return run;
    }
    run.ok = true;
    return run;
}

}  // namespace

QString HostGit::gitProgram() {
    {
        const QMutexLocker lock(&programMutex());
        if (!programOverride().isEmpty()) {
            return programOverride();
        }
    }
    return QStandardPaths::findExecutable(QStringLiteral("git"));
}

void HostGit::setGitProgram(const QString& program) {
    const QMutexLocker lock(&programMutex());
    programOverride() = program;
}

bool HostGit::isRepository(const QString& workspace, QString* error) {
    const GitRun top = runGit(workspace, {QStringLiteral("rev-parse"), QStringLiteral("--show-toplevel")});
    if (!top.ok) {
        if (error) {
            *error = top.error;
        }
        return false;
    }
    const QString found = QFileInfo(QString::fromUtf8(top.out).trimmed()).canonicalFilePath();
    if (found.isEmpty() || found != QFileInfo(workspace).canonicalFilePath()) {
        if (error) {
            *error = QStringLiteral("the folder is not the top of a git repository");
        }
        return false;
    }
    return true;
}

HostGit::FetchResult HostGit::fetch(const QString& workspace, const QString& bundleFile, const QString& sessionId) {
    FetchResult result;
    result.prefix = GitBundle::refPrefix(sessionId);
    QString error;
    if (!isRepository(workspace, &error)) {
        result.error = QStringLiteral(
                           "The folder is not a git repository on this computer (%1): the copy's commits "
                           "stay in the copy.")
                           .arg(error);
        return result;
    }
    const GitRun heads = runGit(workspace, {QStringLiteral("bundle"), QStringLiteral("list-heads"), bundleFile});
    if (!heads.ok) {
        result.error = QStringLiteral("The copy's commits could not be read: %1").arg(heads.error);
        return result;
    }
    // The bundle's own list, only to say clearly when it holds nothing to take; the refspecs below are what limits
    // the fetch to branches and tags.
    bool anyTaken = false;
    const QList<QByteArray> lines = heads.out.split('\n');
    for (const QByteArray& line : lines) {
        const QString text = QString::fromUtf8(line);
        const QString ref = text.section(QLatin1Char(' '), 1);
        if (ref.startsWith(QLatin1String("refs/heads/")) || ref.startsWith(QLatin1String("refs/tags/"))) {
            anyTaken = true;
        }
    }
    if (anyTaken) {
        // git (before 2.46) does not check the objects of a bundle it fetches, whatever fetch.fsckObjects says. So
        // the bundle is unpacked into a quarantine repository of our own first (it borrows the folder's objects,
        // read only, for the commits the bundle builds on), and the folder fetches from there: a fetch over git's
        // own protocol, where index-pack checks every new object. A bundle that fails leaves nothing in the folder.
        const QTemporaryDir quarantine(QDir::tempPath() + QStringLiteral("/zeus-commits-XXXXXX"));
        const GitRun objects = runGit(workspace, {QStringLiteral("rev-parse"), QStringLiteral("--path-format=absolute"),
                                                  QStringLiteral("--git-path"), QStringLiteral("objects")});
        if (!quarantine.isValid() || !objects.ok) {
            result.error = QStringLiteral("The copy's commits could not be fetched: %1")
                               .arg(objects.ok ? quarantine.errorString() : objects.error);
            return result;
        }
        const QString gitDir = QStringLiteral("--git-dir=") + quarantine.path();
        GitRun step = runGit(quarantine.path(), {QStringLiteral("init"), QStringLiteral("--quiet"),
                                                 QStringLiteral("--bare"), quarantine.path()});
        if (step.ok) {
            QSaveFile alternates(quarantine.filePath(QStringLiteral("objects/info/alternates")));
            const QByteArray line = QString::fromUtf8(objects.out).trimmed().toUtf8() + '\n';
            if (!alternates.open(QIODevice::WriteOnly) || alternates.write(line) != line.size()
                || !alternates.commit()) {
                step.ok = false;
                step.error = alternates.errorString();
            }
        }
        if (step.ok) {
            step = runGit(quarantine.path(),
                          {gitDir, QStringLiteral("fetch"), QStringLiteral("--quiet"), QStringLiteral("--no-tags"),
                           QStringLiteral("--no-write-fetch-head"), QStringLiteral("--no-auto-gc"),
                           QStringLiteral("--no-recurse-submodules"), QStringLiteral("--"), bundleFile,
                           QStringLiteral("+refs/heads/*:refs/heads/*"), QStringLiteral("+refs/tags/*:refs/tags/*")});
        }
        if (step.ok) {
            step =
                runGit(workspace, {QStringLiteral("fetch"), QStringLiteral("--quiet"), QStringLiteral("--no-tags"),
                                   QStringLiteral("--no-write-fetch-head"), QStringLiteral("--no-auto-gc"),
                                   QStringLiteral("--no-recurse-submodules"), QStringLiteral("--"), quarantine.path(),
                                   QStringLiteral("+refs/heads/*:") + result.prefix + QStringLiteral("heads/*"),
                                   QStringLiteral("+refs/tags/*:") + result.prefix + QStringLiteral("tags/*")});
        }
        if (!step.ok) {
            result.error = QStringLiteral("The copy's commits could not be fetched: %1").arg(step.error);
            return result;
        }
    }
    const GitRun listed = runGit(workspace, {QStringLiteral("for-each-ref"),
                                             QStringLiteral("--format=%(objectname) %(refname)"), result.prefix});
    if (!listed.ok) {
        result.error = QStringLiteral("The fetched commits could not be listed: %1").arg(listed.error);
        return result;
    }
    const QList<QByteArray> refLines = listed.out.split('\n');
    for (const QByteArray& line : refLines) {
        const QString text = QString::fromUtf8(line);
        const QString id = text.section(QLatin1Char(' '), 0, 0);
        const QString name = text.section(QLatin1Char(' '), 1);
        if (GitBundle::isObjectId(id) && name.startsWith(result.prefix)) {
            result.refs.append({name, id});
        }
    }
    result.ok = true;
    return result;
}

}  // namespace zeus
