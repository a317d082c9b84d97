// zeus-bench-soak: the real app (zeus-desktop --headless) on a real Docker engine, driven through its WebSocket by an
// in-process backend on 127.0.0.1 that acks every result as a real backend does, for a long mixed run. It prints
// each figure next to its goal, "MISSED" where a goal is not met:
//   1. a burst: 400 tool_calls sent at once over 6 new sessions, each printing ~30 KB (goals: 400 ok, each
//      session's calls started in the order sent, the app's peak RSS < 150 MiB);
//   2. N mixed calls (--calls, default 10000) on 6 lanes of one call at a time, each lane ending its session and
//      beginning a new one every few calls: `true` and `echo`, 1 MiB outputs, timeouts (`sleep 5`, timeout_s 1)
//      and cancels (a running `sleep` cancelled at its first output). Calls/s and round-trip percentiles; goals:
//      RSS growth < 5 MiB, descriptors and threads back to their start;
//   3. over the whole run: calls without exactly one tool_result (goal 0), results by status, the call_state
//      states the app sent, and the containers with this run's owner label left after the app quit (goal 0).
// It is a benchmark: it exits 0 when a goal is missed. With --strict (the CTest smoke run) a lost or duplicated
// result, a container left behind or an app that did not quit cleanly makes it exit 1.
// With SPEC §3's default bounds a burst of 400 over 6 sessions cannot all run: 8 run, 256 wait in all (and 64 per
// session, where 67 arrive), the rest are refused `busy` naming the bound. --max-queued-total and
// --max-queued-per-session set the app's bounds (its sessions/maxQueued* settings) for the run.
// Usage: zeus-bench-soak [--calls N] [--burst N] [--max-queued-total N] [--max-queued-per-session N] [--strict]
// (DOCKER_HOST and ZEUS_TEST_IMAGE as for the tests; ZEUS_BENCH_EXEC_MODE=exec runs every command with plain exec
// instead of the sandbox agent)
#include "appsettings.h"
#include "measure.h"
#include "mixedrun.h"
#include "settings/sandboxsettings.h"
#include "soakbackend.h"
#include "testenvironment.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <functional>

namespace {

using zeus::bench::Call;
using zeus::bench::kBigOutputBytes;
using zeus::bench::kGiveUpMs;
using zeus::bench::Kind;
using zeus::bench::kLanes;
using zeus::bench::MixedRun;
using zeus::bench::out;
using zeus::bench::SoakBackend;

constexpr int kBurstSessions = 6;
constexpr int kBurstOutputBytes = 30 * 1024;
constexpr qint64 kBurstPeakGoalKiB = 150 * 1024;
constexpr qint64 kGrowthGoalKiB = 5 * 1024;

// The app's figures at one moment.
struct Figures {
    qint64 rssKiB = -1;
    qint64 descriptors = -1;
    qint64 threads = -1;
};

Figures figuresOf(qint64 pid) {
    return {zeus::bench::rssKiB(pid), zeus::bench::openDescriptors(pid), zeus::bench::statusField(pid, "Threads")};
}

void takePeak(Figures& peak, const Figures& now) {
    peak.rssKiB = std::max(peak.rssKiB, now.rssKiB);
    peak.descriptors = std::max(peak.descriptors, now.descriptors);
    peak.threads = std::max(peak.threads, now.threads);
}

// Samples the app every 100 ms for the peaks, over the whole run and over the current phase.
class Sampler {
public:
    explicit Sampler(qint64 pid) : m_pid(pid) {
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] { sample(); });
        m_timer.start(100);
    }
    void beginPhase() { phasePeak = figuresOf(m_pid); }
    Figures sample() {
        const Figures now = figuresOf(m_pid);
        takePeak(peak, now);
        takePeak(phasePeak, now);
        return now;
    }
    Figures peak;
    Figures phasePeak;

private:
    qint64 m_pid;
    QTimer m_timer;
};

class SoakApp {
public:
    ~SoakApp() {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    void start(const QString& url, const QString& workspace, const QString& root) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        // Its own settings (and so its own owner label) and its own result journal, never the user's.
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), root + QStringLiteral("/config"));
        environment.insert(QStringLiteral("XDG_DATA_HOME"), root + QStringLiteral("/data"));
        environment.insert(QStringLiteral("QT_LOGGING_RULES"),
                           qEnvironmentVariable("ZEUS_BENCH_APP_LOG_RULES", QStringLiteral("zeus.*.info=false")));
        environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("soak"));
        process.setProcessEnvironment(environment);
        // Its log is kept, not shown: a burst can make hundreds of identical warnings, summed up in the report.
        QObject::connect(&process, &QProcess::readyReadStandardError, &process,
                         [this] { log += process.readAllStandardError(); });
        process.start(
            QStringLiteral(ZEUS_APP_BINARY),
            {QStringLiteral("--headless"), QStringLiteral("--backend"), url, QStringLiteral("--workspace"), workspace,
             QStringLiteral("--runtime"), QStringLiteral("docker"), QStringLiteral("--image"), zeus::test::testImage(),
             QStringLiteral("--profile"), QStringLiteral("hardened"), QStringLiteral("--exec-mode"),
             qEnvironmentVariable("ZEUS_BENCH_EXEC_MODE", QStringLiteral("agent"))});
    }
    bool running() const { return process.state() != QProcess::NotRunning; }
    // SIGTERM, as a user's quit: true when it exited by itself, with code 0, in time.
    bool quit() {
        process.terminate();
        if (!zeus::bench::waitUntil([this] { return !running(); }, 60000)) {
            process.kill();
            process.waitForFinished(5000);
            return false;
        }
        return process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    }
    QProcess process;
    QByteArray log;  // its stderr
};

// The app's warnings and worse, alike ones counted together (quoted names and numbers set aside), most first.
QStringList warningSummary(const QByteArray& log, int* total) {
    static const QRegularExpression quoted(QStringLiteral("\"[^\"]*\""));
    static const QRegularExpression number(QStringLiteral("\\d+"));
    static const QRegularExpression level(QStringLiteral("\\b(warning|critical|fatal):"));
    QHash<QString, int> counts;
    *total = 0;
    for (const QByteArray& raw : log.split('\n')) {
        const QString line = QString::fromUtf8(raw);
        const QRegularExpressionMatch match = level.match(line);
        if (!match.hasMatch()) {
            continue;
        }
        ++*total;
        QString text = line.mid(match.capturedStart());
        text.replace(quoted, QStringLiteral("\"…\"")).replace(number, QStringLiteral("N"));
        ++counts[text];
    }
    QList<QPair<int, QString>> sorted;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        sorted.append({it.value(), it.key()});
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList lines;
    for (const auto& entry : std::as_const(sorted)) {
        lines.append(QStringLiteral("%1 x %2").arg(entry.first).arg(entry.second.left(160)));
    }
    return lines;
}

// Waits until `done`, or until no result has arrived for kGiveUpMs, or the app is gone.
bool waitWhileProgressing(SoakBackend& backend, const SoakApp& app, const std::function<bool()>& done) {
    while (!done() && app.running()) {
        zeus::bench::waitUntil([&] { return done() || !app.running(); }, 5000);
        if (!done() && backend.now() - backend.lastResultAt > qint64(kGiveUpMs) * 1000000) {
            return false;
        }
    }
    return done();
}

bool waitStopped(SoakBackend& backend, const QStringList& sessions) {
    return zeus::bench::waitUntil(
        [&] {
            return std::all_of(sessions.cbegin(), sessions.cend(),
                               [&](const QString& s) { return backend.stopped(s); });
        },
        60000);
}

// ---- the report -------------------------------------------------------------------------------------------------

QString mib(qint64 kib) {
    return QString::number(double(kib) / 1024, 'f', 1);
}

void figure(const QString& what, const QString& value, const QString& goal = QString(), bool met = true) {
    out() << "  " << what.leftJustified(52) << ' ' << value;
    if (!goal.isEmpty()) {
        out() << "   (goal: " << goal << ") " << (met ? "met" : "MISSED");
    }
    out() << '\n';
}

QList<const Call*> callsOf(const SoakBackend& backend, const std::function<bool(const Call&)>& match) {
    QList<const Call*> found;
    for (const Call& call : backend.calls) {
        if (match(call)) {
            found.append(&call);
        }
    }
    return found;
}

QString statusCounts(const QList<const Call*>& calls) {
    QMap<QString, int> counts;
    for (const Call* call : calls) {
        ++counts[call->results == 0 ? QStringLiteral("no result") : call->status];
    }
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        parts.append(QStringLiteral("%1 %2").arg(it.value()).arg(it.key()));
    }
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", "));
}

QString stateCounts(const QList<const Call*>& calls) {
    QMap<QString, int> counts;
    for (const Call* call : calls) {
        for (const QString& state : call->states) {
            ++counts[state];
        }
    }
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        parts.append(QStringLiteral("%1 %2").arg(it.key()).arg(it.value()));
    }
    return parts.isEmpty() ? QStringLiteral("none") : parts.join(QStringLiteral(", "));
}

// Calls that started after a call sent later to the same session; `examples` gets the first few, as "EARLIER after
// LATER". Where the app says when a call waits and runs (call_state queued, then running) the order is exact: a call
// not queued started as it arrived, before any call sent after it, and the app sends the running states in the
// order it starts the calls. An app that sends no call_state at all leaves only the first tool_output, and since
// calls running side by side race to their first output, only a later call whose result came before the earlier
// call's first output counts then (`exact` says which was used).
int orderViolations(const QList<const Call*>& calls, QStringList* examples, bool* exact) {
    *exact = std::any_of(calls.cbegin(), calls.cend(), [](const Call* c) { return !c->states.isEmpty(); });
    QHash<QString, QList<const Call*>> bySession;
    for (const Call* call : calls) {
        bySession[call->session].append(call);
    }
    const auto startedBefore = [exact = *exact](const Call* later, const Call* earlier) {
        if (exact) {
            const bool laterQueued = later->states.contains(QStringLiteral("queued"));
            if (earlier->runningAt < 0 || (laterQueued && later->runningAt < 0)) {
                return false;  // the earlier one started as it arrived, or the later one never ran
            }
            return !laterQueued || later->runningAt < earlier->runningAt;
        }
        return earlier->firstOutputAt >= 0 && later->resultAt >= 0 && later->resultAt < earlier->firstOutputAt;
    };
    int violations = 0;
    for (const QList<const Call*>& session : std::as_const(bySession)) {
        for (const Call* earlier : session) {
            const auto later = std::find_if(session.cbegin(), session.cend(), [&](const Call* other) {
                return other->order > earlier->order && other->results > 0
                       && other->status != QLatin1String("error busy") && startedBefore(other, earlier);
            });
            if (later != session.cend() && ++violations <= 3) {
                examples->append(earlier->id + QStringLiteral(" after ") + (*later)->id);
            }
        }
    }
    return violations;
}

QList<double> roundTripsMs(const QList<const Call*>& calls) {
    QList<double> ms;
    for (const Call* call : calls) {
        if (call->resultAt >= 0) {
            ms.append(double(call->resultAt - call->sentAt) / 1e6);
        }
    }
    return ms;
}

QString percentiles(const QList<double>& ms) {
    return QStringLiteral("p50 %1 ms, p99 %2 ms (%3 calls)")
        .arg(zeus::bench::percentile(ms, 50), 0, 'f', 1)
        .arg(zeus::bench::percentile(ms, 99), 0, 'f', 1)
        .arg(ms.size());
}

// A result that is not what its command should give: `true`/`echo`/1 MiB ok with exit 0 and their output, a
// `sleep 5` with timeout_s 1 a timeout, a cancelled `sleep` cancelled.
bool unexpected(const Call& call, int index) {
    switch (call.kind) {
        case Kind::Timeout:
            return call.status != QLatin1String("timeout");
        case Kind::Cancel:
            return call.status != QLatin1String("cancelled");
        case Kind::Big:
            return call.status != QLatin1String("ok") || call.exitCode != 0 || call.outputChars != kBigOutputBytes;
        case Kind::Echo:
            return call.status != QLatin1String("ok") || call.output != QStringLiteral("soak-%1\n").arg(index);
        default:
            return call.status != QLatin1String("ok") || call.exitCode != 0;
    }
}

QStringList containersOfOwner(const QString& owner) {
    const zeus::test::ProcessOutput listed = zeus::test::runProgram(
        QStringLiteral("docker"), {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("-q"),
                                   QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.owner=") + owner});
    QStringList ids;
    for (const QByteArray& line : listed.out.split('\n')) {
        if (!line.trimmed().isEmpty()) {
            ids.append(QString::fromUtf8(line.trimmed()));
        }
    }
    return ids;
}

struct Options {
    int calls = 10000;
    int burst = 400;
    int maxQueuedTotal = 0;       // > 0: the app's sessions/maxQueuedTotal setting for this run (0: the default, 256)
    int maxQueuedPerSession = 0;  // > 0: sessions/maxQueuedPerSession (0: the default, 64)
    bool strict = false;
};

Options parse(const QStringList& args) {
    Options options;
    if (const auto i = args.indexOf(QStringLiteral("--calls")); i > 0 && i + 1 < args.size()) {
        options.calls = std::max(kLanes, args.at(i + 1).toInt());
    }
    if (const auto i = args.indexOf(QStringLiteral("--burst")); i > 0 && i + 1 < args.size()) {
        options.burst = std::max(0, args.at(i + 1).toInt());
    }
    if (const auto i = args.indexOf(QStringLiteral("--max-queued-total")); i > 0 && i + 1 < args.size()) {
        options.maxQueuedTotal = std::max(0, args.at(i + 1).toInt());
    }
    if (const auto i = args.indexOf(QStringLiteral("--max-queued-per-session")); i > 0 && i + 1 < args.size()) {
        options.maxQueuedPerSession = std::max(0, args.at(i + 1).toInt());
    }
    options.strict = args.contains(QStringLiteral("--strict"));
    return options;
}

// What the run measured, filled as it goes.
struct Run {
    Figures start;       // after the warm-up session ended
    Figures afterBurst;  // after the burst's sessions ended
    Figures end;         // after the mixed run's sessions ended and the app settled
    Figures burstPeak;
    Figures peak;  // over the whole run
    double burstSeconds = 0;
    double mixedSeconds = 0;
    double settleSeconds = 0;
    int sessionsBegun = 0;
    int sessionsEnded = 0;
    bool appQuitCleanly = false;
    bool appDied = false;
    QStringList leftContainers;
    int warnings = 0;
    QStringList warningKinds;   // warningSummary()
    QList<qint64> mixedRssKiB;  // at each tenth of the mixed calls sent: growth that goes on, or a plateau
};

void reportBurst(const SoakBackend& backend, const Run& run, int burst) {
    const QList<const Call*> calls = callsOf(backend, [](const Call& c) { return c.kind == Kind::Burst; });
    const auto ok =
        std::count_if(calls.cbegin(), calls.cend(), [](const Call* c) { return c->status == QLatin1String("ok"); });
    QStringList examples;
    bool exact = false;
    const int violations = orderViolations(calls, &examples, &exact);
    out() << QStringLiteral("1. burst: %1 tool_calls at once over %2 new sessions, each printing %3 KiB (%4 s)\n")
                 .arg(burst)
                 .arg(kBurstSessions)
                 .arg(kBurstOutputBytes / 1024)
                 .arg(run.burstSeconds, 0, 'f', 1);
    figure(QStringLiteral("results"), statusCounts(calls), QStringLiteral("%1 ok").arg(burst), ok == burst);
    figure(QStringLiteral("call_state states seen"), stateCounts(calls));
    figure(exact ? QStringLiteral("per-session order violations (by call_state)")
                 : QStringLiteral("per-session order violations (by output, approximate)"),
           QString::number(violations)
               + (examples.isEmpty() ? QString()
                                     : QStringLiteral(" (") + examples.join(QStringLiteral(", ")) + QLatin1Char(')')),
           QStringLiteral("0"), violations == 0);
    figure(QStringLiteral("app peak RSS during the burst"), mib(run.burstPeak.rssKiB) + QStringLiteral(" MiB"),
           QStringLiteral("< 150 MiB"), run.burstPeak.rssKiB < kBurstPeakGoalKiB);
    figure(QStringLiteral("round trip"), percentiles(roundTripsMs(calls)));
    out() << '\n';
}

void reportMixed(const SoakBackend& backend, const Run& run, int total) {
    const QList<const Call*> calls =
        callsOf(backend, [](const Call& c) { return c.kind != Kind::Burst && c.kind != Kind::Warmup; });
    const auto answered = std::count_if(calls.cbegin(), calls.cend(), [](const Call* c) { return c->results > 0; });
    int odd = 0;
    QStringList firstOdd;
    for (const Call* call : calls) {
        if (call->results > 0 && unexpected(*call, call->id.mid(1).toInt())) {
            if (++odd <= 5) {
                firstOdd.append(call->id + QLatin1Char(' ') + call->status);
            }
        }
    }
    const auto ofKind = [&](std::initializer_list<Kind> kinds) {
        return callsOf(backend,
                       [kinds](const Call& c) { return std::find(kinds.begin(), kinds.end(), c.kind) != kinds.end(); });
    };
    out() << QStringLiteral(
                 "2. mixed: %1 calls on %2 lanes of one call at a time, %3 sessions begun and %4 ended (%5 s)\n")
                 .arg(total)
                 .arg(kLanes)
                 .arg(run.sessionsBegun)
                 .arg(run.sessionsEnded)
                 .arg(run.mixedSeconds, 0, 'f', 1);
    figure(QStringLiteral("calls/s"), QString::number(double(answered) / std::max(run.mixedSeconds, 1e-3), 'f', 1));
    figure(QStringLiteral("round trip, `true` and `echo`"),
           percentiles(roundTripsMs(ofKind({Kind::Short, Kind::Echo}))));
    figure(QStringLiteral("round trip, 1 MiB output"), percentiles(roundTripsMs(ofKind({Kind::Big}))));
    figure(QStringLiteral("round trip, timeout (sleep 5, timeout_s 1)"),
           percentiles(roundTripsMs(ofKind({Kind::Timeout}))));
    figure(QStringLiteral("round trip, cancel (cancelled at first output)"),
           percentiles(roundTripsMs(ofKind({Kind::Cancel}))));
    figure(QStringLiteral("round trip, all"), percentiles(roundTripsMs(calls)));
    figure(QStringLiteral("results"), statusCounts(calls));
    figure(QStringLiteral("results not what the command gives"),
           QString::number(odd)
               + (firstOdd.isEmpty() ? QString()
                                     : QStringLiteral(" (") + firstOdd.join(QStringLiteral(", ")) + QLatin1Char(')')));
    figure(QStringLiteral("call_state states seen"), stateCounts(calls));
    QStringList tenths;
    for (const qint64 kib : run.mixedRssKiB) {
        tenths.append(mib(kib));
    }
    figure(QStringLiteral("app RSS at each tenth of the calls sent (MiB)"), tenths.join(QLatin1Char(' ')));
    const qint64 growth = run.end.rssKiB - run.afterBurst.rssKiB;
    figure(QStringLiteral("app RSS growth over the mixed calls"), mib(growth) + QStringLiteral(" MiB"),
           QStringLiteral("< 5 MiB"), growth < kGrowthGoalKiB);
    out() << '\n';
}

struct Audit {
    int calls = 0;
    int missing = 0;     // no tool_result
    int duplicated = 0;  // more than one
};

Audit audit(const SoakBackend& backend) {
    Audit a;
    for (const Call& call : backend.calls) {
        ++a.calls;
        a.missing += call.results == 0 ? 1 : 0;
        a.duplicated += call.results > 1 ? 1 : 0;
    }
    return a;
}

void reportWhole(const SoakBackend& backend, const Run& run) {
    out() << QStringLiteral(
                 "3. the whole run (start: after a warm-up session ended; end: after the mixed run's sessions ended "
                 "and the app settled for %1 s)\n")
                 .arg(run.settleSeconds, 0, 'f', 1);
    out() << "  " << QString().leftJustified(24) << "start       after burst peak        end\n";
    const auto row = [](const QString& what, const QList<QString>& values) {
        QString line = QStringLiteral("  ") + what.leftJustified(24);
        for (const QString& value : values) {
            line += value.leftJustified(12);
        }
        out() << line.trimmed().prepend(QStringLiteral("  ")) << '\n';
    };
    row(QStringLiteral("app RSS (MiB)"),
        {mib(run.start.rssKiB), mib(run.afterBurst.rssKiB), mib(run.peak.rssKiB), mib(run.end.rssKiB)});
    row(QStringLiteral("app open descriptors"),
        {QString::number(run.start.descriptors), QString::number(run.afterBurst.descriptors),
         QString::number(run.peak.descriptors), QString::number(run.end.descriptors)});
    row(QStringLiteral("app threads"), {QString::number(run.start.threads), QString::number(run.afterBurst.threads),
                                        QString::number(run.peak.threads), QString::number(run.end.threads)});
    figure(QStringLiteral("descriptors back to their start"),
           QStringLiteral("%1 -> %2").arg(run.start.descriptors).arg(run.end.descriptors),
           QStringLiteral("end <= start"), run.end.descriptors >= 0 && run.end.descriptors <= run.start.descriptors);
    figure(QStringLiteral("threads back to their start"),
           QStringLiteral("%1 -> %2").arg(run.start.threads).arg(run.end.threads), QStringLiteral("end <= start"),
           run.end.threads >= 0 && run.end.threads <= run.start.threads);
    figure(QStringLiteral("app RSS growth, start to end"),
           mib(run.end.rssKiB - run.start.rssKiB) + QStringLiteral(" MiB"));
    const Audit a = audit(backend);
    figure(QStringLiteral("results lost (calls without exactly one result)"),
           QStringLiteral("%1 of %2 calls (%3 without a result, %4 with more than one)")
               .arg(a.missing + a.duplicated)
               .arg(a.calls)
               .arg(a.missing)
               .arg(a.duplicated),
           QStringLiteral("0"), a.missing + a.duplicated == 0);
    QStringList errors;
    for (auto it = backend.errors.cbegin(); it != backend.errors.cend(); ++it) {
        errors.append(QStringLiteral("%1 %2").arg(it.value()).arg(it.key()));
    }
    figure(QStringLiteral("`error` messages"),
           errors.isEmpty() ? QStringLiteral("none") : errors.join(QStringLiteral(", ")));
    figure(QStringLiteral("results for calls never sent"), QString::number(backend.strayResults));
    figure(QStringLiteral("reconnects"), QString::number(std::max(0, backend.hellos - 1)));
    figure(QStringLiteral("the app quit on SIGTERM"),
           run.appDied ? QStringLiteral("it died during the run")
                       : (run.appQuitCleanly ? QStringLiteral("cleanly, exit 0") : QStringLiteral("not cleanly")),
           QStringLiteral("cleanly"), run.appQuitCleanly && !run.appDied);
    figure(QStringLiteral("containers left after the app quit"), QString::number(run.leftContainers.size()),
           QStringLiteral("0"), run.leftContainers.isEmpty());
    figure(QStringLiteral("the app's log: warnings and worse"), QString::number(run.warnings));
    for (const QString& kind : run.warningKinds.mid(0, 4)) {
        out() << "    " << kind << '\n';
    }
}

// One `true` in a session that then ends: the image, the agent and the app's lazy parts are warm before `start`.
bool warmUp(SoakBackend& backend, const SoakApp& app, const QString& prefix) {
    const QString session = prefix + QStringLiteral("-warm");
    Call call;
    call.id = QStringLiteral("warm");
    call.session = session;
    call.kind = Kind::Warmup;
    backend.call(call, QStringLiteral("true"));
    if (!zeus::bench::waitUntil([&] { return backend.calls.value(call.id).results > 0 || !app.running(); }, 180000)
        || backend.calls.value(call.id).status != QLatin1String("ok")) {
        out() << "zeus-bench-soak: the warm-up call did not succeed: " << backend.calls.value(call.id).status << '\n';
        return false;
    }
    backend.endSession(session);
    return waitStopped(backend, {session});
}

void runBurst(SoakBackend& backend, const SoakApp& app, Sampler& sampler, Run& run, const QString& prefix, int burst) {
    QStringList sessions;
    for (int s = 0; s < kBurstSessions; ++s) {
        sessions.append(QStringLiteral("%1-burst%2").arg(prefix).arg(s));
    }
    sampler.beginPhase();
    const qint64 t0 = backend.now();
    backend.lastResultAt = t0;
    for (int i = 0; i < burst; ++i) {
        Call call;
        call.id = QStringLiteral("b%1").arg(i);
        call.session = sessions.at(i % kBurstSessions);
        call.kind = Kind::Burst;
        call.order = i / kBurstSessions;
        backend.call(call, zeus::bench::fillCommand(kBurstOutputBytes, 'b'));
    }
    waitWhileProgressing(backend, app, [&] {
        return std::all_of(backend.calls.cbegin(), backend.calls.cend(), [](const Call& c) { return c.results > 0; });
    });
    run.burstSeconds = double(backend.now() - t0) / 1e9;
    sampler.sample();
    run.burstPeak = sampler.phasePeak;
    for (const QString& session : std::as_const(sessions)) {
        backend.endSession(session);
    }
    waitStopped(backend, sessions);
    zeus::bench::waitUntil([] { return false; }, 1000);
    run.afterBurst = sampler.sample();
}

void runMixed(SoakBackend& backend, const SoakApp& app, Sampler& sampler, Run& run, const QString& prefix, int total) {
    // A session ends and a new one begins every 100 calls of a lane; a short run still ends a few.
    const int perSession = std::clamp(total / (kLanes * 4), 2, 100);
    MixedRun mixed(backend, prefix, total, perSession);
    mixed.atEachTenth = [&] { run.mixedRssKiB.append(zeus::bench::rssKiB(app.process.processId())); };
    sampler.beginPhase();
    const qint64 t0 = backend.now();
    backend.lastResultAt = t0;
    mixed.start();
    waitWhileProgressing(backend, app, [&] { return mixed.finished(); });
    run.mixedSeconds = double(backend.now() - t0) / 1e9;
    backend.resultArrived = nullptr;
    const QStringList live = mixed.liveSessions();
    for (const QString& session : live) {
        backend.endSession(session);
    }
    run.sessionsBegun = mixed.sessionsBegun;
    run.sessionsEnded = mixed.sessionsEnded + int(live.size());
    waitStopped(backend, live);
    // Threads and descriptors may take a moment to go (a pool's idle thread expires after 30 s): wait for them,
    // at most 45 s, and say how long it took.
    const qint64 settleFrom = backend.now();
    zeus::bench::waitUntil(
        [&] {
            const Figures now = figuresOf(app.process.processId());
            return backend.now() - settleFrom > 2000000000LL && now.descriptors <= run.start.descriptors
                   && now.threads <= run.start.threads;
        },
        45000);
    run.settleSeconds = double(backend.now() - settleFrom) / 1e9;
    run.end = sampler.sample();
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    const Options options = parse(QCoreApplication::arguments());
    if (!zeus::test::engineReachable(QStringLiteral("docker"))) {
        out() << "zeus-bench-soak: no Docker engine reachable (set DOCKER_HOST)\n";
        return zeus::test::isCi() ? 1 : 77;
    }
    QTemporaryDir root;
    const QString workspace = QDir(root.path()).filePath(QStringLiteral("workspace"));
    QDir().mkpath(workspace);
    // The owner label the app will put on its containers: its install id, made here in its private settings.
    QString owner;
    {
        zeus::AppSettings settings(root.path() + QStringLiteral("/config/ZeusDesktop/zeus-desktop.conf"));
        owner = settings.installId();
        if ((options.maxQueuedTotal > 0 && !settings.sandbox().setMaxQueuedTotal(options.maxQueuedTotal))
            || (options.maxQueuedPerSession > 0
                && !settings.sandbox().setMaxQueuedPerSession(options.maxQueuedPerSession))) {
            out() << "zeus-bench-soak: a queue bound must be 1.." << zeus::SandboxSettings::kMaxQueueLimit << "\n";
            return 2;
        }
        settings.sync();
    }

    SoakBackend backend;
    backend.workspace = QFileInfo(workspace).canonicalFilePath();
    if (!backend.listen()) {
        out() << "zeus-bench-soak: cannot listen on 127.0.0.1\n";
        return 1;
    }
    SoakApp app;
    app.start(backend.url(), backend.workspace, root.path());
    if (!zeus::bench::waitUntil([&] { return backend.hellos > 0 || !app.running(); }, 60000) || !app.running()) {
        out() << "zeus-bench-soak: the app did not connect (" << app.process.errorString() << ")\n"
              << QString::fromUtf8(app.log.right(4000));
        return 1;
    }
    const QString prefix = QStringLiteral("soak-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    if (!warmUp(backend, app, prefix)) {
        return 1;
    }
    zeus::bench::waitUntil([] { return false; }, 1000);
    const qint64 pid = app.process.processId();
    Run run;
    run.start = figuresOf(pid);
    Sampler sampler(pid);
    sampler.peak = run.start;
    const QString loadBefore = zeus::bench::loadAverage();
    QElapsedTimer wall;
    wall.start();

    if (options.burst > 0) {
        runBurst(backend, app, sampler, run, prefix, options.burst);
    } else {
        run.afterBurst = run.start;
    }
    if (app.running()) {
        runMixed(backend, app, sampler, run, prefix, options.calls);
    }
    zeus::bench::waitUntil([] { return false; }, 1000);  // a duplicate result would come now
    run.peak = sampler.peak;
    const QString loadAfter = zeus::bench::loadAverage();
    run.appDied = !app.running();
    run.appQuitCleanly = !run.appDied && app.quit();
    run.warningKinds = warningSummary(app.log, &run.warnings);
    run.leftContainers = containersOfOwner(owner);
    if (!run.leftContainers.isEmpty()) {
        zeus::test::runProgram(QStringLiteral("docker"),
                               QStringList{QStringLiteral("rm"), QStringLiteral("-f")} + run.leftContainers);
    }

    out() << QStringLiteral(
                 "Zeus Desktop soak benchmark: a burst of %1 and %2 mixed calls, Docker %3, %4 mode, %5 s; "
                 "load average %6 before, %7 after\n\n")
                 .arg(options.burst)
                 .arg(options.calls)
                 .arg(QString::fromUtf8(zeus::test::runProgram(QStringLiteral("docker"),
                                                               {QStringLiteral("version"), QStringLiteral("--format"),
                                                                QStringLiteral("{{.Server.Version}}")})
                                            .out.trimmed()))
                 .arg(qEnvironmentVariable("ZEUS_BENCH_EXEC_MODE", QStringLiteral("agent")))
                 .arg(double(wall.elapsed()) / 1000, 0, 'f', 0)
                 .arg(loadBefore, loadAfter);
    if (options.burst > 0) {
        reportBurst(backend, run, options.burst);
    }
    reportMixed(backend, run, options.calls);
    reportWhole(backend, run);
    out().flush();

    const Audit a = audit(backend);
    const bool broken = a.missing + a.duplicated > 0 || !run.leftContainers.isEmpty() || !run.appQuitCleanly;
    if (options.strict && broken) {
        out() << "\nzeus-bench-soak --strict: a result was lost, a container was left or the app did not quit "
                 "cleanly; the end of the app's log:\n"
              << QString::fromUtf8(app.log.right(8000));
        out().flush();
        return 1;
    }
    return 0;
}
