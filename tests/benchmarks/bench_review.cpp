// zeus-bench-review [docker|podman] [image] [files]: what review mode costs on a folder of FILES files (default
// 5000 of 4 KiB in 50 folders, a git repository with one commit), each figure beside a baseline measured in the
// same run on the same container (docs/benchmarks.md, "Review mode"):
//   1. the copy in (ReviewCopy::copyIn: scan, hash, tar through `exec -i`) vs the same tar of the folder piped
//      into `ENGINE exec -i CTR sh -c 'cat >/dev/null'` (the transport alone)
//   2. the change list (ReviewCopy::changes: the container's listing script hashes every file) vs
//      `find /workspace -type f -exec sha256sum {} +` in the container (hashing alone) and a bare `find` (the walk)
//   3. bringing one commit home (ReviewService::fetchCommits: bundle in the container, quarantine, fetch) vs
//      `git bundle create` of the same commit in the container alone
// Medians of RUNS (ZEUS_BENCH_RUNS, default 5) for 2 and 3; 1 runs 3 times. Benchmark code may wait synchronously.
#include "engine/containerruntime.h"
#include "engine/containerspec.h"
#include "review/reviewstore.h"
#include "sandbox/review/reviewcopy.h"
#include "sandbox/review/reviewservice.h"
#include "sandboxsetup.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace zeus;

namespace {

double median(QList<double> values) {
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n == 0 ? 0.0 : (n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2.0);
}

// Runs a program to completion (optionally feeding it `input` from a file); milliseconds, -1 on failure.
double timed(const QString& program, const QStringList& args, const QString& inputFile = {}) {
    QProcess process;
    if (!inputFile.isEmpty()) {
        process.setStandardInputFile(inputFile);
    }
    process.setStandardOutputFile(QProcess::nullDevice());
    QElapsedTimer clock;
    clock.start();
    process.start(program, args);
    if (inputFile.isEmpty()) {
        process.closeWriteChannel();
    }
    process.waitForFinished(-1);
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        std::fprintf(stderr, "%s failed: %s\n", qPrintable(program + QLatin1Char(' ') + args.join(QLatin1Char(' '))),
                     process.readAllStandardError().constData());
        return -1;
    }
    return ms;
}

bool run(const QString& program, const QStringList& args, const QString& directory = {}) {
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(program, args);
    process.closeWriteChannel();
    process.waitForFinished(-1);
    return process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}

void report(const char* what, double value, const char* unit, double baseline, const char* baselineName) {
    std::printf("%-44s %10.1f %s   %-34s %10.1f %s   ratio %.2f\n", what, value, unit, baselineName, baseline, unit,
                baseline > 0 ? value / baseline : 0.0);
}

QString loadAverage() {
    QFile file(QStringLiteral("/proc/loadavg"));
    return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll()).section(QLatin1Char(' '), 0, 2)
                                          : QStringLiteral("?");
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as soon as it is measured
    const QStringList args = app.arguments();
    const QString engine = args.value(1, QStringLiteral("docker"));
    const QString image = args.value(2, QStringLiteral("zeus-desktop-sandbox:test"));
    const int files = args.value(3, QStringLiteral("5000")).toInt();
    const int runs =
        qEnvironmentVariableIntValue("ZEUS_BENCH_RUNS") > 0 ? qEnvironmentVariableIntValue("ZEUS_BENCH_RUNS") : 5;
    const auto kind = runtimeKindFromString(engine);
    if (!kind || files <= 0) {
        std::fprintf(stderr, "usage: zeus-bench-review [docker|podman] [image] [files]\n");
        return 2;
    }
    const auto runtime = ContainerRuntime::create(*kind);

    // The folder: FILES files of 4 KiB in 50 folders, committed once.
    QTemporaryDir dir;
    const QString folder = QFileInfo(dir.path()).canonicalFilePath() + QStringLiteral("/project");
    QByteArray block(4096, 'x');
    for (int i = 0; i < files; ++i) {
        const QString sub = folder + QStringLiteral("/d%1").arg(i % 50);
        QDir().mkpath(sub);
        QFile file(sub + QStringLiteral("/f%1.txt").arg(i));
        block.replace(0, 12, QByteArray::number(i).rightJustified(12, '0'));
        if (!file.open(QIODevice::WriteOnly) || file.write(block) != block.size()) {
            std::fprintf(stderr, "could not write the folder\n");
            return 1;
        }
    }
    const QStringList identity = {QStringLiteral("-c"), QStringLiteral("user.name=Bench"), QStringLiteral("-c"),
                                  QStringLiteral("user.email=bench@example.org")};
    if (!run(QStringLiteral("git"), {QStringLiteral("init"), QStringLiteral("-q"), folder})
        || !run(QStringLiteral("git"), QStringList{QStringLiteral("-C"), folder} + identity
                                           + QStringList{QStringLiteral("add"), QStringLiteral(".")})
        || !run(QStringLiteral("git"),
                QStringList{QStringLiteral("-C"), folder} + identity
                    + QStringList{QStringLiteral("commit"), QStringLiteral("-qm"), QStringLiteral("one")})) {
        std::fprintf(stderr, "git could not make the repository\n");
        return 1;
    }

    // The product's review container: no bind mount, /workspace a volume of its own.
    ContainerSpec spec;
    spec.name = QStringLiteral("zeus-bench-review-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    spec.image = image;
    spec.workspace = folder;
    spec.sessionId = QStringLiteral("bench");
    spec.ownerId = QStringLiteral("bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    spec.network = QStringLiteral("none");
    spec.uid = int(::getuid());
    spec.gid = int(::getgid());
    spec.agentSource = SandboxSetup::findAgent(SandboxSetup::agentCandidates());
    spec.reviewCopy = true;
    QProcess started;
    started.start(runtime->program(), runtime->runArguments(spec));
    started.waitForFinished(-1);
    const QString container = QString::fromUtf8(started.readAllStandardOutput()).trimmed();
    if (started.exitCode() != 0 || container.isEmpty()) {
        std::fprintf(stderr, "the container did not start: %s\n", started.readAllStandardError().constData());
        return 1;
    }
    std::printf("engine %s, image %s, %d files of 4 KiB (%.1f MiB), %d runs, load %s\n", qPrintable(engine),
                qPrintable(image), files, files * 4.0 / 1024.0, runs, qPrintable(loadAverage()));

    ReviewCopy copy(*runtime, container);
    copy.setTimeoutMs(600000);
    int status = 0;
    // 1. The copy in, three times into the same volume (tar overwrites), against the folder's tar into `cat`.
    const QString tarFile = dir.path() + QStringLiteral("/folder.tar");
    if (!run(QStringLiteral("tar"),
             {QStringLiteral("-cf"), tarFile, QStringLiteral("-C"), folder, QStringLiteral(".")})) {
        std::fprintf(stderr, "tar failed\n");
        return 1;
    }
    QList<double> copyTimes;
    QList<double> pipeTimes;
    ReviewCopy::CopyResult copied;
    for (int i = 0; i < 3 && status == 0; ++i) {
        QElapsedTimer clock;
        clock.start();
        copied = copy.copyIn(folder, qint64(2) * 1024 * 1024 * 1024);
        copyTimes << double(clock.nsecsElapsed()) / 1e6;
        pipeTimes << timed(runtime->program(),
                           runtime->execWithStdinArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                                       QStringLiteral("cat >/dev/null")}),
                           tarFile);
        if (!copied.ok) {
            std::fprintf(stderr, "the copy failed: %s\n", qPrintable(copied.error));
            status = 1;
        }
    }
    const QStringList tips = copy.gitTips();
    if (status == 0) {
        report("1. copy in (scan, hash, tar, exec -i)", median(copyTimes), "ms", median(pipeTimes),
               "tar of the folder into exec -i cat");
    }

    // 2. The change list (one file changed), against hashing every file in the container, and the walk alone.
    if (status == 0
        && timed(runtime->program(), runtime->execArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                                        QStringLiteral("echo changed >> "
                                                                                       "/workspace/d0/f0.txt")}))
               < 0) {
        status = 1;
    }
    QList<double> listTimes;
    QList<double> hashTimes;
    QList<double> walkTimes;
    for (int i = 0; i < runs && status == 0; ++i) {
        QElapsedTimer clock;
        clock.start();
        const ReviewCopy::ChangesResult changes = copy.changes(copied.baseline);
        listTimes << double(clock.nsecsElapsed()) / 1e6;
        if (!changes.ok || changes.changes.size() != 1) {
            std::fprintf(stderr, "the change list is wrong: %s (%d changes)\n", qPrintable(changes.error),
                         int(changes.changes.size()));
            status = 1;
        }
        hashTimes << timed(runtime->program(),
                           runtime->execArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                              QStringLiteral("find /workspace -type f -exec "
                                                                             "sha256sum {} + >/dev/null")}));
        walkTimes << timed(runtime->program(),
                           runtime->execArguments(container, {QStringLiteral("find"), QStringLiteral("/workspace")}));
    }
    if (status == 0) {
        report("2. change list (listing script, compare)", median(listTimes), "ms", median(hashTimes),
               "find -exec sha256sum in the container");
        report("   (the same against the bare walk)", median(listTimes), "ms", median(walkTimes), "find /workspace");
    }

    // 3. One commit of the agent home, against writing its bundle in the container alone.
    const QString commit = QStringLiteral(
        "cd /workspace && git -c user.name=Agent -c user.email=agent@example.org "
        "commit -qam agent");
    if (status == 0
        && timed(runtime->program(),
                 runtime->execArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"), commit}))
               < 0) {
        status = 1;
    }
    QTemporaryDir storeDir;
    ReviewStore store(storeDir.path());
    ReviewRecord record;
    record.sessionId = QStringLiteral("bench");
    record.workspace = folder;
    record.containerId = container;
    record.engine = engine;
    record.gitBaseTips = tips;
    QList<double> fetchTimes;
    QList<double> bundleTimes;
    for (int i = 0; i < runs && status == 0; ++i) {
        QElapsedTimer clock;
        clock.start();
        const CommitsResult commits = ReviewService::fetchCommits(*runtime, store, record);
        fetchTimes << double(clock.nsecsElapsed()) / 1e6;
        if (commits.state != CommitsResult::State::Fetched) {
            std::fprintf(stderr, "the commit did not come home: %s\n", qPrintable(commits.describe()));
            status = 1;
        }
        bundleTimes << timed(runtime->program(),
                             runtime->execArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"),
                                                                QStringLiteral("cd /workspace && git bundle create - "
                                                                               "HEAD --not ")
                                                                    + tips.value(0)}));
    }
    if (status == 0) {
        report("3. one commit home (bundle, quarantine, fetch)", median(fetchTimes), "ms", median(bundleTimes),
               "git bundle create in the container");
    }
    run(runtime->program(), runtime->removeArguments({container}));
    return status;
}
