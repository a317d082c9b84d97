// bench_backend: in one run, with the real app (zeus-desktop --headless), a real engine (Docker unless told) and an
// in-process backend on 127.0.0.1, prints each figure next to its baseline:
//   1. tool_call -> tool_result latency of a trivial command, minus the same command's raw `docker exec` time
//      (goal: <= 5 ms median added);
//   2. 64 MiB of command output (`cat` of a file in the workspace) through the app vs raw `docker exec cat` read
//      from a pipe (goal: >= 0.7 of raw throughput), once with the default 1 MiB output cap (what users get: all
//      64 MiB stream over the WebSocket as tool_output, the result keeps the first 1 MiB) and once with the cap
//      raised so the final tool_result carries all 64 MiB a second time;
//   1b. the same command as an MCP tools/call over stdio (zeus-desktop --mcp), next to 1. (goal: <= 2 ms more);
//   1c. the same over Streamable HTTP (zeus-desktop --mcp-http, one keep-alive connection; needs a keychain for
//       its token, as the tests' private keyring gives), next to 1. (goal: <= 2 ms more);
//   3. the app's resident memory (VmRSS from /proc/PID/status) before and at its peak while it streams (flat: the
//      app pauses reading the command's output while the socket's write queue is full).
// Usage: bench_backend [--iterations N] [--engine docker|podman] [--image IMAGE]   (DOCKER_HOST and ZEUS_TEST_IMAGE as
// for the tests: Docker and the offline test image unless told otherwise; ZEUS_BENCH_EXEC_MODE=exec runs every command
// with plain exec instead of the sandbox agent)
#include "measure.h"
#include "sandbox/commandexecution.h"
#include "testenvironment.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>
#include <QTimer>
#include <QUuid>
#include <QWebSocket>
#include <QWebSocketServer>

#include <algorithm>
#include <functional>
#include <memory>
#include <unistd.h>

namespace {

// The engine and image every figure uses, app and raw alike (set once from the command line).
QString& benchEngine() {
    static QString engine = QStringLiteral("docker");
    return engine;
}
QString& benchImage() {
    static QString image = zeus::test::testImage();
    return image;
}

constexpr qint64 kBigBytes = 64LL * 1024 * 1024;

using zeus::bench::median;
using zeus::bench::out;
using zeus::bench::poke;
using zeus::bench::rssKiB;
using zeus::bench::waitUntil;

// utime + stime of a process, from /proc/PID/stat.
double cpuSecondsOf(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) {
        return 0;
    }
    const QByteArray text = stat.readAll();
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    const long ticks = sysconf(_SC_CLK_TCK);
    return double(fields.value(11).toLongLong() + fields.value(12).toLongLong()) / double(ticks > 0 ? ticks : 100);
}

// A backend that parses small frames fully and only counts big ones, so its own JSON work does not slow the
// stream it measures.
class BenchBackend {
public:
    BenchBackend() : m_server(QStringLiteral("bench"), QWebSocketServer::NonSecureMode) {
        QObject::connect(&m_server, &QWebSocketServer::newConnection, &m_server, [this] {
            while (QWebSocket* socket = m_server.nextPendingConnection()) {
                m_client = socket;
                socket->setMaxAllowedIncomingMessageSize(1LL << 31);
                socket->setMaxAllowedIncomingFrameSize(1LL << 31);
                QObject::connect(socket, &QWebSocket::textMessageReceived, socket,
                                 [this](const QString& text) { onText(text); });
            }
        });
        m_clock.start();
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    QString url() const { return QStringLiteral("ws://127.0.0.1:%1/").arg(m_server.serverPort()); }

    void call(const QString& callId, const QString& sessionId, const QString& command, const QString& workspace) {
        const QJsonObject message{
            {QStringLiteral("type"), QStringLiteral("tool_call")},
            {QStringLiteral("call_id"), callId},
            {QStringLiteral("session_id"), sessionId},
            {QStringLiteral("tool"), QStringLiteral("desktop_exec")},
            {QStringLiteral("args"),
             QJsonObject{{QStringLiteral("command"), command}, {QStringLiteral("working_directory"), workspace}}}};
        m_client->sendTextMessage(QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
    }
    bool waitResult(const QString& callId, int timeoutMs) {
        return waitUntil([&] { return resultAt.contains(callId); }, timeoutMs);
    }
    qint64 now() const { return m_clock.nsecsElapsed(); }

    bool hello = false;
    QString container;
    QHash<QString, qint64> resultAt;  // call id -> when its tool_result arrived (ns on m_clock)
    QHash<QString, QString> resultStatus;
    QHash<QString, double> resultDurationMs;  // the app's own duration_ms of the call (the exec inside the app)
    qint64 outputFrames = 0;
    qint64 outputChars = 0;
    qint64 lastOutputAt = 0;  // when the latest tool_output arrived (ns on m_clock)

private:
    void onText(const QString& text) {
        handle(text);
        poke();
    }
    void handle(const QString& text) {
        const qint64 at = now();
        if (text.size() > 4096) {
            // Compact JSON sorts keys: call_id comes first, type last.
            if (text.endsWith(QLatin1String("\"type\":\"tool_output\"}"))) {
                ++outputFrames;
                outputChars += text.size();
                lastOutputAt = at;
                return;
            }
            static const QRegularExpression callId(QStringLiteral("^\\{\"call_id\":\"([^\"]+)\""));
            const QString id = callId.match(QStringView(text).left(200)).captured(1);
            if (text.endsWith(QLatin1String("\"type\":\"tool_result\"}")) && !id.isEmpty()) {
                recordResult(id, QStringLiteral("(big)"), at);
            }
            return;
        }
        const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
        const QString type = m.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("hello")) {
            hello = true;
        } else if (type == QLatin1String("session_state")
                   && m.value(QStringLiteral("state")).toString() == QLatin1String("running")) {
            container = m.value(QStringLiteral("container")).toString();
        } else if (type == QLatin1String("tool_output")) {
            ++outputFrames;
            outputChars += m.value(QStringLiteral("data")).toString().size();
            lastOutputAt = at;
        } else if (type == QLatin1String("tool_result")) {
            resultDurationMs.insert(m.value(QStringLiteral("call_id")).toString(),
                                    m.value(QStringLiteral("duration_ms")).toDouble());
            recordResult(m.value(QStringLiteral("call_id")).toString(), m.value(QStringLiteral("status")).toString(),
                         at);
        }
    }
    void recordResult(const QString& id, const QString& status, qint64 at) {
        resultAt.insert(id, at);
        resultStatus.insert(id, status);
        m_client->sendTextMessage(QString::fromUtf8(
            QJsonDocument(QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("call_id"), id}})
                .toJson(QJsonDocument::Compact)));
    }

    QWebSocketServer m_server;
    QPointer<QWebSocket> m_client;
    QElapsedTimer m_clock;
};

class App {
public:
    ~App() { stop(); }
    void start(const QString& url, const QString& workspace, const QString& configHome, qint64 outputCap) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
        // ZEUS_BENCH_APP_LOG_RULES shows the app's own log (e.g. "zeus.backend.debug=true" for flow control).
        environment.insert(QStringLiteral("QT_LOGGING_RULES"),
                           qEnvironmentVariable("ZEUS_BENCH_APP_LOG_RULES", QStringLiteral("zeus.*.info=false")));
        environment.insert(QStringLiteral("ZEUS_DESKTOP_TOKEN"), QStringLiteral("bench"));
        if (outputCap > 0) {
            environment.insert(QStringLiteral("ZEUS_TEST_OUTPUT_CAP_BYTES"), QString::number(outputCap));
        }
        process.setProcessEnvironment(environment);
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(
            QStringLiteral(ZEUS_APP_BINARY),
            {QStringLiteral("--headless"), QStringLiteral("--backend"), url, QStringLiteral("--workspace"), workspace,
             QStringLiteral("--runtime"), benchEngine(), QStringLiteral("--image"), benchImage(),
             QStringLiteral("--profile"), QStringLiteral("hardened"),
             // ZEUS_BENCH_EXEC_MODE=exec: the plain-exec path, the "before" of the sandbox agent.
             QStringLiteral("--exec-mode"), qEnvironmentVariable("ZEUS_BENCH_EXEC_MODE", QStringLiteral("agent"))});
    }
    void stop() {
        if (process.state() != QProcess::NotRunning) {
            process.terminate();
            if (!QTest::qWaitFor([this] { return process.state() == QProcess::NotRunning; }, 20000)) {
                process.kill();
                process.waitForFinished(5000);
            }
        }
    }
    QProcess process;
};

// `zeus-desktop --mcp` as an MCP client starts it (SPEC §12), spoken to with newline-delimited JSON-RPC on its
// stdin and stdout: the same core, gates and engine as App, with the MCP stdio transport in front.
class McpApp {
public:
    ~McpApp() {
        process.closeWriteChannel();  // EOF: the server cancels, removes its container and exits
        if (!process.waitForFinished(20000)) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    bool start(const QString& workspace, const QString& configHome) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
        environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=false"));
        process.setProcessEnvironment(environment);
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        process.start(QStringLiteral(ZEUS_APP_BINARY),
                      {QStringLiteral("--mcp"), QStringLiteral("--workspace"), workspace, QStringLiteral("--runtime"),
                       benchEngine(), QStringLiteral("--image"), benchImage(), QStringLiteral("--profile"),
                       QStringLiteral("hardened"), QStringLiteral("--exec-mode"),
                       qEnvironmentVariable("ZEUS_BENCH_EXEC_MODE", QStringLiteral("agent"))});
        return process.waitForStarted(10000)
               && request(QStringLiteral("initialize"),
                          QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                      {QStringLiteral("capabilities"), QJsonObject()},
                                      {QStringLiteral("clientInfo"),
                                       QJsonObject{{QStringLiteral("name"), QStringLiteral("bench_backend")},
                                                   {QStringLiteral("version"), QStringLiteral("1")}}}},
                          30000)
                      .contains(QLatin1String("result"));
    }
    // tools/call run_command; the answer, or an empty object after `timeoutMs`.
    QJsonObject run(const QString& command, int timeoutMs) {
        return request(QStringLiteral("tools/call"),
                       QJsonObject{{QStringLiteral("name"), QStringLiteral("run_command")},
                                   {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("command"), command}}}},
                       timeoutMs);
    }
    QProcess process;

private:
    QJsonObject request(const QString& method, const QJsonObject& params, int timeoutMs) {
        const int id = ++m_nextId;
        const QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                  {QStringLiteral("id"), id},
                                  {QStringLiteral("method"), method},
                                  {QStringLiteral("params"), params}};
        process.write(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < timeoutMs) {
            while (process.canReadLine()) {
                const QJsonObject answer = QJsonDocument::fromJson(process.readLine()).object();
                if (answer.value(QLatin1String("id")).toInt(-1) == id) {
                    return answer;
                }
            }
            process.waitForReadyRead(int(std::max<qint64>(1, timeoutMs - clock.elapsed())));
        }
        return {};
    }
    int m_nextId = 0;
};

// `zeus-desktop --mcp-http 0` (SPEC §12 "Streamable HTTP"), spoken to as an HTTP client does: one keep-alive
// connection to 127.0.0.1, POST /mcp with the bearer token the run shows once and the session id initialize gave.
class McpHttpApp {
public:
    ~McpHttpApp() {
        socket.abort();
        process.terminate();  // SIGTERM: the server ends its sessions, removes the containers and exits
        if (!process.waitForFinished(20000)) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    // Empty when it serves, else why not.
    QString start(const QString& workspace, const QString& configHome) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configHome);
        environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("zeus.*.info=false"));
        process.setProcessEnvironment(environment);
        process.start(
            QStringLiteral(ZEUS_APP_BINARY),
            {QStringLiteral("--mcp-http"), QStringLiteral("0"), QStringLiteral("--mcp-http-token-reset"),
             QStringLiteral("--workspace"), workspace, QStringLiteral("--runtime"), benchEngine(),
             QStringLiteral("--image"), benchImage(), QStringLiteral("--profile"), QStringLiteral("hardened"),
             QStringLiteral("--exec-mode"), qEnvironmentVariable("ZEUS_BENCH_EXEC_MODE", QStringLiteral("agent"))});
        const QRegularExpression urlLine(QStringLiteral("MCP over HTTP at http://127\\.0\\.0\\.1:(\\d+)/mcp"));
        const QRegularExpression tokenLine(QStringLiteral("shown only now\\): (\\S+)"));
        QByteArray stderrText;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 30000 && !urlLine.match(QString::fromUtf8(stderrText)).hasMatch()) {
            if (process.state() == QProcess::NotRunning) {
                break;
            }
            process.waitForReadyRead(200);
            stderrText += process.readAllStandardError();
        }
        const QString text = QString::fromUtf8(stderrText);
        const auto url = urlLine.match(text);
        const auto token = tokenLine.match(text);
        if (!url.hasMatch() || !token.hasMatch()) {
            return QStringLiteral("zeus-desktop --mcp-http did not serve (a keychain is needed for its token): ")
                   + text.trimmed().right(300);
        }
        m_authorization = "Bearer " + token.captured(1).toLatin1();
        socket.connectToHost(QStringLiteral("127.0.0.1"), quint16(url.captured(1).toUInt()));
        if (!socket.waitForConnected(5000)) {
            return QStringLiteral("cannot connect to the MCP HTTP port");
        }
        socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
        const QJsonObject init = request(
            QStringLiteral("initialize"),
            QJsonObject{
                {QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                {QStringLiteral("capabilities"), QJsonObject()},
                {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("bench_backend")},
                                                           {QStringLiteral("version"), QStringLiteral("1")}}}},
            30000);
        return init.contains(QLatin1String("result")) && !m_session.isEmpty()
                   ? QString()
                   : QStringLiteral("initialize over HTTP failed");
    }
    QJsonObject run(const QString& command, int timeoutMs) {
        return request(QStringLiteral("tools/call"),
                       QJsonObject{{QStringLiteral("name"), QStringLiteral("run_command")},
                                   {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("command"), command}}}},
                       timeoutMs);
    }
    QProcess process;
    QTcpSocket socket;

private:
    // One POST and its JSON answer (Content-Length framed), or an empty object after `timeoutMs`.
    QJsonObject request(const QString& method, const QJsonObject& params, int timeoutMs) {
        const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                                          {QStringLiteral("id"), ++m_nextId},
                                                          {QStringLiteral("method"), method},
                                                          {QStringLiteral("params"), params}})
                                    .toJson(QJsonDocument::Compact);
        // Host names this port: the server refuses any other (DNS-rebinding protection).
        QByteArray head =
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(socket.peerPort())
            + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: "
            + m_authorization + "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
        if (!m_session.isEmpty()) {
            head += "Mcp-Session-Id: " + m_session + "\r\nMCP-Protocol-Version: 2025-06-18\r\n";
        }
        socket.write(head + "\r\n" + body);
        QByteArray in;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < timeoutMs) {
            in += socket.readAll();
            const qsizetype end = in.indexOf("\r\n\r\n");
            if (end >= 0) {
                const QByteArray headers = in.left(end).toLower();
                const qsizetype at = headers.indexOf("content-length:");
                const qsizetype length =
                    at < 0 ? -1 : headers.mid(at + 15, headers.indexOf('\r', at) - at - 15).trimmed().toLongLong();
                if (length >= 0 && in.size() >= end + 4 + length) {
                    const qsizetype sid = headers.indexOf("mcp-session-id:");
                    if (sid >= 0) {
                        m_session = in.mid(sid + 15, in.indexOf('\r', sid) - sid - 15).trimmed();
                    }
                    return QJsonDocument::fromJson(in.mid(end + 4, length)).object();
                }
            }
            socket.waitForReadyRead(int(std::max<qint64>(1, timeoutMs - clock.elapsed())));
        }
        return {};
    }
    QByteArray m_authorization;
    QByteArray m_session;
    int m_nextId = 0;
};

// Raw `ENGINE exec CONTAINER ARGS...`, stdout read from a pipe and discarded. Returns seconds, or -1.
double rawExec(const QString& container, const QStringList& arguments, qint64* bytes = nullptr) {
    QProcess process;
    qint64 read = 0;
    QObject::connect(&process, &QProcess::readyReadStandardOutput, &process,
                     [&] { read += process.readAllStandardOutput().size(); });
    QObject::connect(&process, &QProcess::finished, &process, &poke);
    QElapsedTimer clock;
    clock.start();
    process.start(benchEngine(), QStringList{QStringLiteral("exec"), container} + arguments);
    if (!waitUntil([&] { return process.state() == QProcess::NotRunning; }, 120000)) {
        process.kill();
        return -1;
    }
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    read += process.readAllStandardOutput().size();
    if (bytes) {
        *bytes = read;
    }
    return process.exitCode() == 0 ? seconds : -1;
}

struct ThroughputRun {
    double appSeconds = 0;
    double rawSeconds = 0;  // raw `docker exec cat` right after, in the same container, to a pipe
    qint64 rssBeforeKiB = 0;
    qint64 rssPeakKiB = 0;           // over the whole call, the final tool_result included
    qint64 rssStreamingPeakKiB = 0;  // while tool_output was still arriving
    qint64 rssEarlyPeakKiB = 0;      // while the first 3/4 of the output arrived: streaming alone, no result yet
    double cpuSeconds = 0;           // the app's user+system CPU time during the call
    double backendCpuSeconds = 0;    // this process's (the receiving backend's), to see which side is the limit
    qint64 rssAfterKiB = 0;
    qint64 outputChars = 0;
    qint64 frames = 0;
    QString status;
};

// Runs `cat` of the big file through the app `runs` times; the medians of time, peak RSS of each run.
QList<ThroughputRun> appThroughput(const QString& url, const QString& workspace, const QString& config,
                                   qint64 outputCap, BenchBackend& backend, const QString& bigFile, int runs) {
    QList<ThroughputRun> results;
    App app;
    app.start(url, workspace, config, outputCap);
    if (!QTest::qWaitFor([&] { return backend.hello; }, 30000)) {
        out() << "the app did not connect\n";
        return results;
    }
    const QString session = QStringLiteral("bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    backend.call(QStringLiteral("warm"), session, QStringLiteral("true"), workspace);
    backend.waitResult(QStringLiteral("warm"), 60000);
    for (int i = 0; i < runs; ++i) {
        QTest::qWait(300);
        ThroughputRun run;
        const qint64 pid = app.process.processId();
        run.rssBeforeKiB = rssKiB(pid);
        run.rssPeakKiB = run.rssBeforeKiB;
        QTimer sampler;
        struct Sample {
            qint64 when;
            qint64 kib;
            qint64 chars;  // tool_output received so far
        };
        QList<Sample> samples;
        QObject::connect(&sampler, &QTimer::timeout, &sampler, [&] {
            samples.append({backend.now(), rssKiB(pid), backend.outputChars});
        });
        const double cpuBefore = cpuSecondsOf(pid);
        const double selfBefore = cpuSecondsOf(QCoreApplication::applicationPid());
        sampler.start(10);
        const QString id = QStringLiteral("big-%1-%2").arg(outputCap).arg(i);
        const qint64 charsBefore = backend.outputChars;
        const qint64 framesBefore = backend.outputFrames;
        const qint64 t0 = backend.now();
        backend.call(id, session, QStringLiteral("cat /workspace/") + bigFile, workspace);
        if (!backend.waitResult(id, 180000)) {
            out() << "no result for " << id << "\n";
            return results;
        }
        sampler.stop();
        run.cpuSeconds = cpuSecondsOf(pid) - cpuBefore;
        run.backendCpuSeconds = cpuSecondsOf(QCoreApplication::applicationPid()) - selfBefore;
        for (const Sample& sample : std::as_const(samples)) {
            run.rssPeakKiB = std::max(run.rssPeakKiB, sample.kib);
            if (sample.when <= backend.lastOutputAt) {
                run.rssStreamingPeakKiB = std::max(run.rssStreamingPeakKiB, sample.kib);
            }
            if (sample.chars - charsBefore < kBigBytes * 3 / 4) {
                run.rssEarlyPeakKiB = std::max(run.rssEarlyPeakKiB, sample.kib);
            }
        }
        run.appSeconds = double(backend.resultAt.value(id) - t0) / 1e9;
        run.outputChars = backend.outputChars - charsBefore;
        run.frames = backend.outputFrames - framesBefore;
        run.status = backend.resultStatus.value(id);
        QTest::qWait(300);
        run.rssAfterKiB = rssKiB(pid);
        // The baseline right after, under the same machine load.
        run.rawSeconds = rawExec(backend.container, {QStringLiteral("cat"), QStringLiteral("/workspace/") + bigFile});
        results.append(run);
    }
    app.stop();
    backend.hello = false;
    return results;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication application(argc, argv);
    int iterations = 30;
    const QStringList args = QCoreApplication::arguments();
    if (const auto i = args.indexOf(QStringLiteral("--iterations")); i > 0 && i + 1 < args.size()) {
        iterations = std::max(3, args.at(i + 1).toInt());
    }
    if (const auto i = args.indexOf(QStringLiteral("--engine")); i > 0 && i + 1 < args.size()) {
        benchEngine() = args.at(i + 1);
    }
    if (const auto i = args.indexOf(QStringLiteral("--image")); i > 0 && i + 1 < args.size()) {
        benchImage() = args.at(i + 1);
    }
    if (!zeus::test::engineReachable(benchEngine())) {
        out() << "bench_backend: no " << benchEngine() << " engine reachable (Docker: set DOCKER_HOST)\n";
        return zeus::test::isCi() ? 1 : 77;
    }

    QTemporaryDir root;
    const QString workspace = QDir(root.path()).filePath(QStringLiteral("workspace"));
    QDir().mkpath(workspace);
    const QString bigFile = QStringLiteral("big.txt");
    {
        QFile big(workspace + QLatin1Char('/') + bigFile);
        if (!big.open(QIODevice::WriteOnly)) {
            return 1;
        }
        QByteArray line(1023, 'a');
        line.append('\n');
        for (qint64 written = 0; written < kBigBytes; written += line.size()) {
            big.write(line);
        }
    }

    BenchBackend backend;
    if (!backend.listen()) {
        return 1;
    }
    const QString config = QDir(root.path()).filePath(QStringLiteral("config"));

    // ---- 1. latency -----------------------------------------------------------------------------------------
    App app;
    app.start(backend.url(), workspace, config, 0);
    if (!QTest::qWaitFor([&] { return backend.hello; }, 30000)) {
        out() << "the app did not connect\n";
        return 1;
    }
    const QString session = QStringLiteral("bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    backend.call(QStringLiteral("warm"), session, QStringLiteral("true"), workspace);
    if (!backend.waitResult(QStringLiteral("warm"), 60000) || backend.container.isEmpty()) {
        out() << "the first call did not finish\n";
        return 1;
    }
    // Interleaved, so the three see the same machine load: the app, raw `docker exec true`, and raw `docker exec`
    // of the process-group wrapper the app runs around every command (SPEC §4: cancel must stop the group).
    // Its stdin is empty here (no -i): it runs an empty command, which measures the wrapper alone.
    const QStringList wrapped = zeus::CommandExecution::wrapperCommand(QStringLiteral("/tmp/.zeus-bench.pgid"));
    QList<double> appMs;
    QList<double> rawMs;
    QList<double> wrappedMs;
    QList<double> outsideExecMs;  // round trip minus the app's duration_ms: WebSocket, JSON, dispatch, wake-ups
    for (int i = 0; i < iterations; ++i) {
        const QString id = QStringLiteral("lat%1").arg(i);
        const qint64 t0 = backend.now();
        backend.call(id, session, QStringLiteral("true"), workspace);
        if (!backend.waitResult(id, 30000)) {
            out() << "no result for " << id << "\n";
            return 1;
        }
        appMs.append(double(backend.resultAt.value(id) - t0) / 1e6);
        outsideExecMs.append(appMs.last() - backend.resultDurationMs.value(id));
        const double raw = rawExec(backend.container, {QStringLiteral("true")});
        const double rawWrapped = rawExec(backend.container, wrapped);
        if (raw < 0 || rawWrapped < 0) {
            out() << "raw " << benchEngine() << " exec failed\n";
            return 1;
        }
        rawMs.append(raw * 1000);
        wrappedMs.append(rawWrapped * 1000);
    }
    app.stop();
    backend.hello = false;

    const auto spread = [](const QList<double>& values) {
        return QStringLiteral("median %1 ms (min %2, max %3)")
            .arg(median(values), 0, 'f', 1)
            .arg(*std::min_element(values.begin(), values.end()), 0, 'f', 1)
            .arg(*std::max_element(values.begin(), values.end()), 0, 'f', 1);
    };
    out() << "Zeus Desktop backend benchmark (" << iterations << " iterations, " << benchEngine() << " "
          << QString::fromUtf8(
                 zeus::test::runProgram(benchEngine(), {QStringLiteral("version"), QStringLiteral("--format"),
                                                        QStringLiteral("{{.Server.Version}}")})
                     .out.trimmed())
          << ", image " << benchImage() << ")\n\n";
    out() << "1. latency of `true`: tool_call -> tool_result through the app vs raw `" << benchEngine() << " exec`\n";
    out() << "   app:                              " << spread(appMs) << "\n";
    out() << "   raw engine exec true:             " << spread(rawMs) << "\n";
    out() << "   raw engine exec of the wrapper:   " << spread(wrappedMs) << "\n";
    const double added = median(appMs) - median(rawMs);
    out() << QStringLiteral(
                 "   added by the app: %1 ms median (goal <= 5 ms): %2; of which the in-container "
                 "process-group wrapper: %3 ms, the app itself (Qt, WebSocket, dispatch): %4 ms\n")
                 .arg(added, 0, 'f', 1)
                 .arg(added <= 5 ? QStringLiteral("met") : QStringLiteral("NOT met"))
                 .arg(median(wrappedMs) - median(rawMs), 0, 'f', 1)
                 .arg(median(appMs) - median(wrappedMs), 0, 'f', 1);
    out() << "   round trip minus the app's own duration_ms (WebSocket both ways, JSON, dispatch, process wake-ups): "
          << spread(outsideExecMs) << "\n\n";

    // ---- 1b. the same through MCP (SPEC §12) --------------------------------------------------------------------
    {
        McpApp mcp;
        if (!mcp.start(workspace, config) || mcp.run(QStringLiteral("true"), 60000).isEmpty()) {
            out() << "zeus-desktop --mcp did not answer\n";
            return 1;
        }
        QList<double> mcpMs;
        for (int i = 0; i < iterations; ++i) {
            QElapsedTimer clock;
            clock.start();
            if (mcp.run(QStringLiteral("true"), 30000).isEmpty()) {
                out() << "no MCP answer for call " << i << "\n";
                return 1;
            }
            mcpMs.append(double(clock.nsecsElapsed()) / 1e6);
        }
        const double overBackend = median(mcpMs) - median(appMs);
        out() << "1b. the same `true` as an MCP tools/call run_command over stdio (zeus-desktop --mcp)\n";
        out() << "   MCP:                              " << spread(mcpMs) << "\n";
        out() << QStringLiteral("   MCP minus the backend path above: %1 ms median (goal <= 2 ms): %2\n\n")
                     .arg(overBackend, 0, 'f', 1)
                     .arg(overBackend <= 2 ? QStringLiteral("met") : QStringLiteral("NOT met"));
    }

    // ---- 1c. the same over Streamable HTTP (SPEC §12) -------------------------------------------------------------
    {
        McpHttpApp http;
        const QString problem = http.start(workspace, config);
        out()
            << "1c. the same `true` as an MCP tools/call run_command over Streamable HTTP (zeus-desktop --mcp-http)\n";
        if (!problem.isEmpty() || http.run(QStringLiteral("true"), 60000).isEmpty()) {
            out() << "   not measured: "
                  << (problem.isEmpty() ? QStringLiteral("no answer to the first call") : problem) << "\n\n";
        } else {
            QList<double> httpMs;
            for (int i = 0; i < iterations; ++i) {
                QElapsedTimer clock;
                clock.start();
                if (http.run(QStringLiteral("true"), 30000).isEmpty()) {
                    out() << "no MCP HTTP answer for call " << i << "\n";
                    return 1;
                }
                httpMs.append(double(clock.nsecsElapsed()) / 1e6);
            }
            const double overBackend = median(httpMs) - median(appMs);
            out() << "   MCP over HTTP:                    " << spread(httpMs) << "\n";
            out() << QStringLiteral(
                         "   MCP over HTTP minus the backend path above: %1 ms median (goal <= 2 ms): %2\n\n")
                         .arg(overBackend, 0, 'f', 1)
                         .arg(overBackend <= 2 ? QStringLiteral("met") : QStringLiteral("NOT met"));
        }
    }

    // ---- 2. and 3. throughput and memory ---------------------------------------------------------------------
    const double mib = double(kBigBytes) / (1024 * 1024);
    out() << QStringLiteral(
                 "2. %1 MiB of output (`cat` of a file in the workspace), each app run followed by a raw "
                 "`%2 exec cat` to a pipe in the same container\n")
                 .arg(mib, 0, 'f', 0)
                 .arg(benchEngine());
    struct Variant {
        const char* name;
        qint64 cap;
    };
    const Variant variants[] = {{"default 1 MiB cap (all 64 MiB streamed as tool_output, the first 1 MiB kept)", 0},
                                {"cap raised to 80 MiB (all 64 MiB streamed as tool_output, and all kept: the "
                                 "tool_result carries them again)",
                                 80LL << 20}};
    for (const Variant& variant : variants) {
        const QList<ThroughputRun> runs =
            appThroughput(backend.url(), workspace, config, variant.cap, backend, bigFile, 5);
        if (runs.isEmpty()) {
            return 1;
        }
        QList<double> seconds;
        QList<double> rawSeconds;
        QList<double> ratios;
        qint64 before = 0;
        qint64 peak = 0;
        qint64 streamingPeak = 0;
        qint64 earlyPeak = 0;
        qint64 after = 0;
        QList<double> cpu;
        QList<double> backendCpu;
        for (const ThroughputRun& run : runs) {
            seconds.append(run.appSeconds);
            rawSeconds.append(run.rawSeconds);
            ratios.append(run.rawSeconds / run.appSeconds);
            before = std::max(before, run.rssBeforeKiB);
            peak = std::max(peak, run.rssPeakKiB);
            streamingPeak = std::max(streamingPeak, run.rssStreamingPeakKiB);
            earlyPeak = std::max(earlyPeak, run.rssEarlyPeakKiB);
            after = std::max(after, run.rssAfterKiB);
            cpu.append(run.cpuSeconds);
            backendCpu.append(run.backendCpuSeconds);
        }
        const double ratio = median(ratios);
        out() << "   " << variant.name << ":\n";
        out() << QStringLiteral(
                     "     app median %1 s = %2 MiB/s; raw median %3 s = %4 MiB/s; app/raw throughput "
                     "median of pairs %5 (goal >= 0.7): %6\n")
                     .arg(median(seconds), 0, 'f', 3)
                     .arg(mib / median(seconds), 0, 'f', 1)
                     .arg(median(rawSeconds), 0, 'f', 3)
                     .arg(mib / median(rawSeconds), 0, 'f', 1)
                     .arg(ratio, 0, 'f', 2)
                     .arg(ratio >= 0.7 ? QStringLiteral("met") : QStringLiteral("NOT met"));
        out() << QStringLiteral(
                     "     %1 MiB in %2 tool_output frames; CPU per call: app %3 s, receiving backend "
                     "%4 s\n")
                     .arg(double(runs.last().outputChars) / (1024 * 1024), 0, 'f', 1)
                     .arg(runs.last().frames)
                     .arg(median(cpu), 0, 'f', 2)
                     .arg(median(backendCpu), 0, 'f', 2);
        out() << QStringLiteral(
                     "     app RSS: %1 MiB before, %2 MiB peak while the first 3/4 of the output arrived, %3 MiB "
                     "peak while tool_output arrived, %4 MiB peak with the final tool_result, %5 MiB after\n")
                     .arg(double(before) / 1024, 0, 'f', 1)
                     .arg(double(earlyPeak) / 1024, 0, 'f', 1)
                     .arg(double(streamingPeak) / 1024, 0, 'f', 1)
                     .arg(double(peak) / 1024, 0, 'f', 1)
                     .arg(double(after) / 1024, 0, 'f', 1);
    }
    out().flush();
    return 0;
}
