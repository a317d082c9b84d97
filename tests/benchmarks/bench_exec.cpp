// zeus-bench-exec [docker|podman] [image]: the cost of execution through SessionManager
// against the raw engine CLI, on the same engine, image and container, in one run.
//   1. per command: SessionManager on a warm container vs `ENGINE exec CTR sh -c true`,
//      through the sandbox agent (1a) and forced to plain exec (1b); 1c through the agent, each call after a
//      3.5 s pause (longer than the stale check), vs one raw exec after the same pause
//   2. a new session's first command vs `ENGINE run -d` (same flags) + `ENGINE exec`
//   3. 64 MiB of output through SessionManager vs `ENGINE exec CTR head -c 64MiB` to a pipe,
//      through the agent (3a) and plain exec (3b)
// Prints medians, the baseline beside each figure, and the ratio. Benchmark code may wait
// synchronously; product code never does.
#include "engine/dockerruntime.h"
#include "sandbox/sessionmanager.h"
#include "sandboxsetup.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
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

// Runs the engine CLI to completion, draining its output; returns milliseconds (-1 on failure).
double timedRaw(const QString& program, const QStringList& args, qint64* bytes = nullptr, QString* out = nullptr) {
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(program, args);
    process.closeWriteChannel();
    // waitForFinished keeps reading both pipes into QProcess's buffers while it waits.
    process.waitForFinished(-1);
    const QByteArray collected = process.readAllStandardOutput();
    const qint64 total = collected.size();
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    if (bytes) {
        *bytes = total;
    }
    if (out) {
        *out = QString::fromUtf8(collected).trimmed();
    }
    return process.exitCode() == 0 ? ms : -1;
}

class Bench {
public:
    // staleCheckAfterMs: the product's default (3 s) for the figure after a pause; else long enough never to run.
    Bench(const QString& engine, const QString& image, ExecMode mode, int staleCheckAfterMs = 60 * 60 * 1000)
        : m_engine(engine) {
        m_config.image = image;
        m_config.execMode = mode;
        m_config.agentHostPath = SandboxSetup::findAgent(SandboxSetup::agentCandidates());
        m_config.ownerId = QStringLiteral("bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        m_config.network = QStringLiteral("none");
        // The cap decides how much of the 64 MiB is kept as text (ZEUS_BENCH_CAP_MIB, default the
        // product's 1 MiB); all of it is read, counted and UTF-8 checked either way.
        const int capMiB = qEnvironmentVariableIntValue("ZEUS_BENCH_CAP_MIB");
        m_config.outputCapBytes = qint64(capMiB > 0 ? capMiB : 1) * 1024 * 1024;
        m_config.maxCallsPerSession = 64;
        m_config.staleCheckAfterMs = staleCheckAfterMs;
        m_manager =
            std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), m_config);
        QObject::connect(m_manager.get(), &SessionManager::callFinished, [this](const ExecResult& result) {
            m_last = result;
            m_done = true;
        });
        m_workspace = QFileInfo(m_dir.path()).canonicalFilePath();
    }

    // Milliseconds for one command through SessionManager, from execute() to the result.
    double appRun(const QString& session, const QString& command, ExecResult* result = nullptr) {
        ExecRequest request;
        request.callId = QStringLiteral("b") + QString::number(++m_counter);
        request.sessionId = session;
        request.workspace = m_workspace;
        request.command = command;
        m_done = false;
        QElapsedTimer clock;
        clock.start();
        m_manager->execute(request);
        QEventLoop loop;
        while (!m_done) {
            loop.processEvents(QEventLoop::WaitForMoreEvents);
        }
        const double ms = double(clock.nsecsElapsed()) / 1e6;
        if (result) {
            *result = m_last;
        }
        return m_last.errorCode == ExecError::None ? ms : -1;
    }

    void endSession(const QString& session) {
        m_manager->endSession(session);
        QEventLoop loop;
        QTimer::singleShot(300, &loop, &QEventLoop::quit);
        loop.exec();
    }

    ContainerSpec rawSpec() const {
        ContainerSpec spec;
        spec.name = QStringLiteral("zeus-bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
        spec.image = m_config.image;
        spec.workspace = m_workspace;
        spec.sessionId = QStringLiteral("raw");
        spec.ownerId = m_config.ownerId;
        spec.pidsLimit = m_config.pidsLimit;
        spec.memory = m_config.memory;
        spec.cpus = m_config.cpus;
        spec.network = m_config.network;
        spec.uid = int(::getuid());
        spec.gid = int(::getgid());
        return spec;
    }

    void shutdown() {
        m_manager->shutdown();
        QEventLoop loop;
        QObject::connect(m_manager.get(), &SessionManager::shutdownFinished, &loop, &QEventLoop::quit);
        QTimer::singleShot(30000, &loop, &QEventLoop::quit);
        loop.exec();
    }

    QString m_engine;
    SandboxConfig m_config;
    std::unique_ptr<SessionManager> m_manager;
    QTemporaryDir m_dir;
    QString m_workspace;
    ExecResult m_last;
    bool m_done = false;
    int m_counter = 0;
};

QString loadAverage() {
    QFile file(QStringLiteral("/proc/loadavg"));
    return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll()).section(QLatin1Char(' '), 0, 2)
                                          : QStringLiteral("unknown");
}

void report(const char* what, double app, double raw, const char* unit, const char* goal) {
    std::printf("%-46s app %9.2f %s   raw %9.2f %s   ratio %.3f   (goal %s)\n", what, app, unit, raw, unit,
                raw > 0 ? app / raw : 0.0, goal);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const QString engine = args.value(1, QStringLiteral("docker"));
    const QString image = args.value(2, QStringLiteral("zeus-desktop-sandbox:test"));
    const int perCommandRuns =
        qEnvironmentVariableIntValue("ZEUS_BENCH_RUNS") > 0 ? qEnvironmentVariableIntValue("ZEUS_BENCH_RUNS") : 41;
    Bench bench(engine, image, ExecMode::Agent);
    Bench plain(engine, image, ExecMode::Exec);
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    std::printf("engine %s, image %s, %d runs per figure (median), agent %s, load %s\n", qPrintable(engine),
                qPrintable(image), perCommandRuns,
                bench.m_config.agentHostPath.isEmpty() ? "NOT FOUND" : qPrintable(bench.m_config.agentHostPath),
                qPrintable(loadAverage()));

    // 1. Per command on a warm container: alternate app and raw to share any drift.
    for (Bench* b : {&bench, &plain}) {
        if (b->appRun(QStringLiteral("warm"), QStringLiteral("true")) < 0) {
            std::fprintf(stderr, "the first command failed: %s\n", qPrintable(b->m_last.errorMessage));
            return 1;
        }
    }
    const QString execPath = bench.m_manager->execPath(QStringLiteral("warm"));
    std::printf("session's exec path: %s\n", qPrintable(execPath));
    if (!execPath.startsWith(QStringLiteral("agent "))) {
        std::fprintf(stderr, "the agent is not in use: %s\n", qPrintable(execPath));
        return 1;
    }
    const QString container = bench.m_manager->containerId(QStringLiteral("warm"));
    QList<double> appTimes;
    QList<double> plainTimes;
    QList<double> rawTimes;
    for (int i = 0; i < perCommandRuns; ++i) {
        appTimes << bench.appRun(QStringLiteral("warm"), QStringLiteral("true"));
        plainTimes << plain.appRun(QStringLiteral("warm"), QStringLiteral("true"));
        rawTimes << timedRaw(
            runtime->program(),
            runtime->execArguments(container, {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("true")}));
    }
    report("1a. per command, agent (true)", median(appTimes), median(rawTimes), "ms", "median <= 10 ms, ratio <= 0.1");
    report("1b. per command, plain exec (true)", median(plainTimes), median(rawTimes), "ms", "record");

    // 1c. The same after a pause longer than the stale check (3 s), as an agent's next tool call comes, with the
    // product's setting: a live agent needs no `inspect` first. Raw: one exec after the same pause.
    {
        Bench paused(engine, image, ExecMode::Agent, SandboxConfig().staleCheckAfterMs);
        paused.appRun(QStringLiteral("warm"), QStringLiteral("true"));
        const auto pause = [] {
            QEventLoop loop;
            QTimer::singleShot(3500, &loop, &QEventLoop::quit);
            loop.exec();
        };
        appTimes.clear();
        rawTimes.clear();
        for (int i = 0; i < 5; ++i) {
            pause();
            appTimes << paused.appRun(QStringLiteral("warm"), QStringLiteral("true"));
            pause();
            rawTimes << timedRaw(runtime->program(),
                                 runtime->execArguments(
                                     container, {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("true")}));
        }
        report("1c. per command after a 3.5 s pause, agent", median(appTimes), median(rawTimes), "ms",
               "median <= 10 ms, as 1a");
        paused.shutdown();
    }

    // 2. A new session's first command vs raw run -d (the same flags) + exec.
    const int sessionRuns = qMax(5, perCommandRuns / 4);
    appTimes.clear();
    rawTimes.clear();
    for (int i = 0; i < sessionRuns; ++i) {
        const QString session = QStringLiteral("fresh-") + QString::number(i);
        appTimes << bench.appRun(session, QStringLiteral("true"));
        bench.endSession(session);
        const ContainerSpec spec = bench.rawSpec();
        QElapsedTimer clock;
        clock.start();
        QString id;
        const double run = timedRaw(runtime->program(), runtime->runArguments(spec), nullptr, &id);
        const double exec =
            timedRaw(runtime->program(),
                     runtime->execArguments(id, {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("true")}));
        rawTimes << ((run < 0 || exec < 0) ? -1 : double(clock.nsecsElapsed()) / 1e6);
        timedRaw(runtime->program(), runtime->removeArguments({id}));
    }
    report("2. new session, first command", median(appTimes), median(rawTimes), "ms", "ratio <= 1.10");

    // 3. 64 MiB of output: throughput in MiB/s (higher is better; ratio app/raw >= 0.8).
    const qint64 size = 64LL * 1024 * 1024;
    const QString produce = QStringLiteral("head -c %1 /dev/zero").arg(size);
    const int bulkRuns = 5;
    appTimes.clear();
    rawTimes.clear();
    for (int i = 0; i < bulkRuns; ++i) {
        ExecResult result;
        const double ms = bench.appRun(QStringLiteral("warm"), produce, &result);
        if (result.stdoutBytes != size) {
            std::fprintf(stderr, "app path delivered %lld bytes\n", static_cast<long long>(result.stdoutBytes));
        }
        appTimes << (ms > 0 ? double(size) / (1024.0 * 1024.0) / (ms / 1000.0) : 0);
        qint64 bytes = 0;
        const double raw =
            timedRaw(runtime->program(),
                     runtime->execArguments(container, {QStringLiteral("head"), QStringLiteral("-c"),
                                                        QString::number(size), QStringLiteral("/dev/zero")}),
                     &bytes);
        rawTimes << (raw > 0 ? double(bytes) / (1024.0 * 1024.0) / (raw / 1000.0) : 0);
    }
    report("3a. 64 MiB output throughput, agent", median(appTimes), median(rawTimes), "MiB/s", "ratio >= 0.8");

    appTimes.clear();
    for (int i = 0; i < bulkRuns; ++i) {
        const double ms = plain.appRun(QStringLiteral("warm"), produce);
        appTimes << (ms > 0 ? double(size) / (1024.0 * 1024.0) / (ms / 1000.0) : 0);
    }
    report("3b. 64 MiB output throughput, plain exec", median(appTimes), median(rawTimes), "MiB/s", "record");

    bench.shutdown();
    plain.shutdown();
    return 0;
}
