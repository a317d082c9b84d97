// bench_gui: the tray app's own costs, each next to a baseline measured in the same run so
// both see the same machine load (docs/benchmarks-gui.md).
//
//   1. Launch to tray ready: from QProcess::start() to the "tray ready" log line of the
//      real zeus-desktop (started as app/run.sh does: --backend to a local backend,
//      --workspace, the test image, hardened), against a minimal QApplication +
//      QSystemTrayIcon program (bench_gui_minimal_tray).
//   2. Idle memory: VmRSS of each after it settled (the app connected, its dashboard never
//      opened, then 5 s of quiet), median of 10 samples.
//   3. Event-loop stall: the longest gap between the ticks of a 1 ms timer in this process
//      while N MiB (default 64) from `cat` in a real container stream through a
//      SessionManager into an open SessionsPanel's log, against the same measurement with
//      nothing streaming.
//
// Needs DISPLAY with a system tray (run-bench-gui.sh provides Xvfb + trayer) and a Docker
// engine (DOCKER_HOST) with ZEUS_TEST_IMAGE (default zeus-desktop-sandbox:test).
//   bench_gui [--iterations N] [--mib N]
// Exits 77 when no display/tray or no engine is there (1 under CI=true).
#include "backendserver.h"
#include "engine/containerruntime.h"
#include "sandbox/sessionmanager.h"
#include "sessions/sessionspanel.h"
#include "testenvironment.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSystemTrayIcon>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

QTextStream& out() {
    static QTextStream stream(stdout);
    return stream;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// A field of /proc/PID/status in KiB, or -1.
qint64 statusKiB(qint64 pid, const char* field) {
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly)) {
        return -1;
    }
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.startsWith(prefix)) {
            return line.mid(prefix.size()).trimmed().split(' ').first().toLongLong();
        }
    }
    return -1;
}

QString loadAverage() {
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly)) {
        return QStringLiteral("?");
    }
    return QString::fromLatin1(file.readAll().split(' ').mid(0, 3).join(' '));
}

struct LaunchResult {
    bool ok = false;
    double readyMs = 0;
    double rssKiB = 0;
    double anonKiB = 0;
    QByteArray log;
};

// Starts a program, waits for "tray ready", lets it settle, samples its memory, stops it.
LaunchResult launchAndIdle(const QString& program, const QStringList& arguments, const QProcessEnvironment& env,
                           const std::function<bool()>& settled, int quietMs) {
    LaunchResult result;
    QProcess process;
    process.setProcessEnvironment(env);
    process.setProcessChannelMode(QProcess::MergedChannels);
    QObject::connect(&process, &QProcess::readyRead, &process, [&] { result.log += process.readAll(); });
    QElapsedTimer clock;
    clock.start();
    process.start(program, arguments);
    if (!QTest::qWaitFor([&] { return result.log.contains("tray ready") || process.state() == QProcess::NotRunning; },
                         30000)
        || !result.log.contains("tray ready")) {
        process.kill();
        process.waitForFinished(5000);
        return result;
    }
    result.readyMs = double(clock.nsecsElapsed()) / 1e6;
    if (settled && !QTest::qWaitFor(settled, 30000)) {
        process.kill();
        process.waitForFinished(5000);
        return result;
    }
    QTest::qWait(quietMs);
    std::vector<double> rss;
    std::vector<double> anon;
    for (int i = 0; i < 10; ++i) {
        rss.push_back(double(statusKiB(process.processId(), "VmRSS")));
        anon.push_back(double(statusKiB(process.processId(), "RssAnon")));
        QTest::qWait(200);
    }
    result.rssKiB = median(rss);
    result.anonKiB = median(anon);
    process.terminate();
    if (!QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, 20000)) {
        process.kill();
        process.waitForFinished(5000);
    }
    result.ok = true;
    return result;
}

// The longest gap between ticks of a 1 ms timer while `work` runs (it returns true when done).
struct StallResult {
    double maxGapMs = 0;
    double p99GapMs = 0;
    double elapsedMs = 0;
};

StallResult measureStalls(const std::function<void()>& start, const std::function<bool()>& done, int minMs) {
    StallResult result;
    std::vector<double> gaps;
    QElapsedTimer clock;
    QElapsedTimer sinceTick;
    QTimer ticker;
    ticker.setTimerType(Qt::PreciseTimer);
    ticker.setInterval(1);
    QObject::connect(&ticker, &QTimer::timeout, &ticker, [&] {
        gaps.push_back(double(sinceTick.nsecsElapsed()) / 1e6);
        sinceTick.restart();
    });
    clock.start();
    sinceTick.start();
    ticker.start();
    if (start) {
        start();
    }
    if (!QTest::qWaitFor([&] { return (!done || done()) && clock.elapsed() >= minMs; }, 600000)) {
        std::fprintf(stderr, "bench_gui: the measured work did not finish in 10 minutes\n");
    }
    ticker.stop();
    result.elapsedMs = double(clock.nsecsElapsed()) / 1e6;
    if (!gaps.empty()) {
        std::sort(gaps.begin(), gaps.end());
        result.maxGapMs = gaps.back();
        result.p99GapMs = gaps[size_t(double(gaps.size() - 1) * 0.99)];
    }
    return result;
}

QProcessEnvironment freshHome(const QTemporaryDir& home) {
    QDir().mkpath(home.filePath(QStringLiteral("runtime")));
    QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral(".config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=true"));
    env.remove(QStringLiteral("ZEUS_DESKTOP_TOKEN"));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    return env;
}

int skip(const char* why) {
    std::fprintf(stderr, "bench_gui: %s\n", why);
    return zeus::test::isCi() ? 1 : 77;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        return skip("no display; run tests/benchmarks/gui/run-bench-gui.sh (Xvfb + trayer)");
    }
    QApplication app(argc, argv);
    QCommandLineParser parser;
    const QCommandLineOption iterationsOption(QStringLiteral("iterations"), QStringLiteral("Launches of each."),
                                              QStringLiteral("n"), QStringLiteral("3"));
    const QCommandLineOption mibOption(QStringLiteral("mib"), QStringLiteral("MiB streamed into the log."),
                                       QStringLiteral("n"), QStringLiteral("64"));
    const QCommandLineOption noLogOption(QStringLiteral("no-log"),
                                         QStringLiteral("Stream without showing the output (the core path alone)."));
    parser.addOptions({iterationsOption, mibOption, noLogOption});
    parser.process(app);
    const int iterations = qMax(1, parser.value(iterationsOption).toInt());
    const int mib = qMax(1, parser.value(mibOption).toInt());
    const bool showLog = !parser.isSet(noLogOption);
    if (!QSystemTrayIcon::isSystemTrayAvailable()) {
        return skip("no system tray on this display");
    }
    if (!zeus::test::engineReachable(QStringLiteral("docker"))) {
        return skip("no Docker engine");
    }
    const QString image = zeus::test::testImage();
    out() << "bench_gui: " << iterations << " launches each, " << mib << " MiB streamed, image " << image
          << ", load average " << loadAverage() << "\n";
    out().flush();

    // 1 + 2: launch time and idle memory, the app and the baseline alternating.
    std::vector<double> appReady, appRss, appAnon, baseReady, baseRss, baseAnon;
    for (int i = 0; i < iterations; ++i) {
        {
            zeus::test::BackendServer server;
            QTemporaryDir home;
            QTemporaryDir workspace;
            if (!server.listen() || !home.isValid() || !workspace.isValid()) {
                return 1;
            }
            const LaunchResult real = launchAndIdle(
                QStringLiteral(ZEUS_APP_BINARY),
                {QStringLiteral("--backend"), server.url(), QStringLiteral("--workspace"), workspace.path(),
                 QStringLiteral("--runtime"), QStringLiteral("docker"), QStringLiteral("--image"), image,
                 QStringLiteral("--profile"), QStringLiteral("hardened")},
                freshHome(home), [&server] { return !server.ofType(QStringLiteral("hello")).isEmpty(); }, 5000);
            if (!real.ok) {
                std::fprintf(stderr, "zeus-desktop did not get ready:\n%s\n", real.log.constData());
                return 1;
            }
            if (real.log.contains("no system tray")) {
                return skip("the app found no system tray");
            }
            appReady.push_back(real.readyMs);
            appRss.push_back(real.rssKiB);
            appAnon.push_back(real.anonKiB);
        }
        {
            QTemporaryDir home;
            const LaunchResult base =
                launchAndIdle(QStringLiteral(ZEUS_BENCH_MINIMAL_TRAY), {}, freshHome(home), {}, 5000);
            if (!base.ok) {
                std::fprintf(stderr, "the baseline tray did not get ready:\n%s\n", base.log.constData());
                return 1;
            }
            baseReady.push_back(base.readyMs);
            baseRss.push_back(base.rssKiB);
            baseAnon.push_back(base.anonKiB);
        }
        out() << QStringLiteral(
                     "  launch %1: app ready %2 ms, %3 MiB RSS (%4 anon) | baseline ready %5 ms, %6 MiB RSS "
                     "(%7 anon)\n")
                     .arg(i + 1)
                     .arg(appReady.back(), 0, 'f', 0)
                     .arg(appRss.back() / 1024, 0, 'f', 1)
                     .arg(appAnon.back() / 1024, 0, 'f', 1)
                     .arg(baseReady.back(), 0, 'f', 0)
                     .arg(baseRss.back() / 1024, 0, 'f', 1)
                     .arg(baseAnon.back() / 1024, 0, 'f', 1);
        out().flush();
    }

    // 3: the event loop while a large output streams into an open log.
    QTemporaryDir workspace;
    const QString bigFile = workspace.filePath(QStringLiteral("big.txt"));
    {
        QFile file(bigFile);
        if (!file.open(QIODevice::WriteOnly)) {
            return 1;
        }
        QByteArray line(127, 'x');
        line.append('\n');
        const qint64 lines = qint64(mib) * 1024 * 1024 / line.size();
        QByteArray block;
        for (qint64 n = 0; n < lines; ++n) {
            const QByteArray number = QByteArray::number(n).rightJustified(10, '0');
            std::copy(number.cbegin(), number.cend(), line.begin());
            block.append(line);
            if (block.size() >= 1024 * 1024) {
                file.write(block);
                block.clear();
            }
        }
        file.write(block);
    }
    zeus::SandboxConfig config;
    config.image = image;
    config.ownerId = QStringLiteral("bench-gui-") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    config.network = QStringLiteral("none");
    // The default output cap, as users get it: past it the output is still streamed live (every byte reaches the
    // log) but no longer kept for the result.
    zeus::SessionManager manager(zeus::ContainerRuntime::create(zeus::RuntimeKind::Docker), config);
    zeus::SessionsPanel panel;
    panel.resize(960, 600);
    panel.show();
    qint64 shownBytes = 0;
    QHash<QString, zeus::ExecResult> results;
    // As the app wires it, the log gets the kept output (SessionManager::output, within the cap); `everything`
    // feeds it all of the stream instead (outputUtf8, past the cap too): the worst case for the log.
    bool everything = false;
    QObject::connect(&manager, &zeus::SessionManager::output, &panel,
                     [&](const QString& callId, zeus::OutputStream stream, const QString& text) {
                         if (!everything) {
                             shownBytes += text.size();
                             if (showLog) {
                                 panel.appendOutput(callId, stream, text);
                             }
                         }
                     });
    QObject::connect(&manager, &zeus::SessionManager::outputUtf8, &panel,
                     [&](const QString& callId, zeus::OutputStream stream, const QByteArray& utf8) {
                         if (everything) {
                             shownBytes += utf8.size();
                             if (showLog) {
                                 panel.appendOutput(callId, stream, QString::fromUtf8(utf8));
                             }
                         }
                     });
    QObject::connect(&manager, &zeus::SessionManager::callFinished, &panel, [&](const zeus::ExecResult& result) {
        results.insert(result.callId, result);
        panel.callFinished(result);
    });
    QObject::connect(&manager, &zeus::SessionManager::sessionStateChanged, &panel,
                     &zeus::SessionsPanel::setSessionState);
    const QString session = QStringLiteral("bench");
    int counter = 0;
    const auto run = [&](const QString& command) {
        zeus::ExecRequest request;
        request.callId = QStringLiteral("bench-%1").arg(++counter);
        request.sessionId = session;
        request.workspace = QFileInfo(workspace.path()).canonicalFilePath();
        request.command = command;
        panel.noteCall(request.callId, session, command, request.workspace);
        manager.execute(request);
        return request.callId;
    };
    const QString warm = run(QStringLiteral("true"));  // the container exists before anything is measured
    if (!QTest::qWaitFor([&] { return results.contains(warm); }, 60000)
        || results.value(warm).status != zeus::ExecStatus::Ok) {
        std::fprintf(stderr, "bench_gui: the container did not start: %s\n",
                     qPrintable(results.value(warm).errorMessage));
        return 1;
    }
    panel.selectSession(session);
    QTest::qWait(500);

    struct Series {
        std::vector<double> maxGap, p99, ms, mib;
    };
    std::vector<double> idleMax;
    Series kept;
    Series all;
    for (int i = 0; i < iterations; ++i) {
        const StallResult idle = measureStalls({}, {}, 2000);
        idleMax.push_back(idle.maxGapMs);
        for (Series* series : {&kept, &all}) {
            everything = series == &all;
            shownBytes = 0;
            QString callId;
            const StallResult stream = measureStalls([&] { callId = run(QStringLiteral("cat /workspace/big.txt")); },
                                                     [&] { return results.contains(callId); }, 0);
            // The log applies what is queued in 50 ms batches: keep measuring until it has caught up.
            const StallResult tail = measureStalls({}, {}, 300);
            const zeus::ExecResult result = results.value(callId);
            if (result.status != zeus::ExecStatus::Ok || result.stdoutBytes != QFileInfo(bigFile).size()) {
                std::fprintf(stderr, "bench_gui: the stream failed (%s, %lld bytes)\n", qPrintable(result.errorMessage),
                             static_cast<long long>(result.stdoutBytes));
                return 1;
            }
            series->maxGap.push_back(std::max(stream.maxGapMs, tail.maxGapMs));
            series->p99.push_back(stream.p99GapMs);
            series->ms.push_back(stream.elapsedMs);
            series->mib.push_back(double(shownBytes) / 1048576.0);
            out() << QStringLiteral(
                         "  stream %1 (%2): %3 MiB from the engine in %4 ms (%5 MiB/s), %6 MiB of it shown "
                         "in the log; longest stall %7 ms (p99 %8 ms) | idle: longest %9 ms\n")
                         .arg(i + 1)
                         .arg(everything ? QStringLiteral("everything into the log") : QStringLiteral("as the app"))
                         .arg(mib)
                         .arg(stream.elapsedMs, 0, 'f', 0)
                         .arg(double(mib) * 1000.0 / stream.elapsedMs, 0, 'f', 1)
                         .arg(series->mib.back(), 0, 'f', 1)
                         .arg(series->maxGap.back(), 0, 'f', 1)
                         .arg(stream.p99GapMs, 0, 'f', 1)
                         .arg(idle.maxGapMs, 0, 'f', 1);
            out().flush();
        }
    }
    bool shutDown = false;
    QObject::connect(&manager, &zeus::SessionManager::shutdownFinished, &panel, [&] { shutDown = true; });
    manager.shutdown();
    if (!QTest::qWaitFor([&] { return shutDown; }, 30000)) {
        std::fprintf(stderr, "bench_gui: the container was not removed in 30 s (owner %s)\n",
                     qPrintable(config.ownerId));
    }

    out() << "\n| figure | zeus-desktop | baseline | goal |\n|---|---|---|---|\n";
    out() << QStringLiteral("| launch to tray ready, median | %1 ms | %2 ms (minimal tray) | — |\n")
                 .arg(median(appReady), 0, 'f', 0)
                 .arg(median(baseReady), 0, 'f', 0);
    out() << QStringLiteral("| idle VmRSS, median | %1 MiB | %2 MiB (minimal tray) | ≤ 45 MiB (%3) |\n")
                 .arg(median(appRss) / 1024, 0, 'f', 1)
                 .arg(median(baseRss) / 1024, 0, 'f', 1)
                 .arg(median(appRss) / 1024 <= 45 ? QStringLiteral("met") : QStringLiteral("not met"));
    out() << QStringLiteral("| idle RssAnon, median | %1 MiB | %2 MiB | — |\n")
                 .arg(median(appAnon) / 1024, 0, 'f', 1)
                 .arg(median(baseAnon) / 1024, 0, 'f', 1);
    for (const Series* series : {&kept, &all}) {
        const double worst = *std::max_element(series->maxGap.begin(), series->maxGap.end());
        out() << QStringLiteral(
                     "| longest event-loop stall, %1 MiB streamed, %2 MiB of it into an open log (%3), "
                     "median | %4 ms (worst %5, p99 of ticks %6) | %7 ms (nothing streaming) | "
                     "≤ 50 ms (%8) |\n")
                     .arg(mib)
                     .arg(median(series->mib), 0, 'f', 1)
                     .arg(series == &all ? QStringLiteral("everything") : QStringLiteral("as the app wires it"))
                     .arg(median(series->maxGap), 0, 'f', 1)
                     .arg(worst, 0, 'f', 1)
                     .arg(median(series->p99), 0, 'f', 1)
                     .arg(median(idleMax), 0, 'f', 1)
                     .arg(median(series->maxGap) <= 50 ? QStringLiteral("met") : QStringLiteral("not met"));
        out() << QStringLiteral("| stream duration (%1), median | %2 ms | — | — |\n")
                     .arg(series == &all ? QStringLiteral("everything into the log") : QStringLiteral("as the app"))
                     .arg(median(series->ms), 0, 'f', 0);
    }
    out() << "load average at the end: " << loadAverage() << "\n";
    return 0;
}
