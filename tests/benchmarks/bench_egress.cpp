// zeus-bench-egress [docker|podman] [image]: the egress proxy's cost (SPEC §8), in one run, on loopback only.
//   1. 64 MiB downloaded by busybox wget in an allowlist session (container -> agent tunnel -> the app's proxy ->
//      a fixture server on 127.0.0.1) vs the same 64 MiB downloaded directly from the fixture by this process
//      and vs the transport's own ceiling: 64 MiB written to `ENGINE exec -i CTR sh -c 'cat >/dev/null'` (every
//      tunnel byte from the app travels on the agent's stdin, the same kind of pipe)
//   2. 100 concurrent downloads of 4 MiB through the proxy: all complete, and the app's peak memory growth
//   3. an npm-style fetch: 100 files of 256 KiB, 8 at a time, each a new process and a new connection, by busybox
//      wget in the container through the proxy vs the host's own curl straight to the fixture
// Where the agent's lane is up (a local Linux engine with the app's agent mounted) the tunnels travel on it rather
// than on the exec pipe; the run says which.
// The fixture server runs in its own thread so it does not share the proxy's event loop. Benchmark code may wait
// synchronously; product code never does.
#include "sandbox/sessionmanager.h"
#include "sandboxsetup.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <cstdio>
#include <memory>

using namespace zeus;

namespace {

constexpr qint64 kBig = 64 * 1024 * 1024;
constexpr qint64 kMedium = 4 * 1024 * 1024;
constexpr qint64 kSmall = 256 * 1024;
constexpr int kFiles = 100;

// 100 files, 8 fetchers at a time, each file a new process; all of it to stdout, counted by wc -c. FETCH takes a URL.
QString npmStyleFetch(const QString& fetch, const QString& hostPort) {
    return QStringLiteral(
               "(for j in 0 1 2 3 4 5 6 7; do (i=$j; while [ $i -lt %1 ]; do %2 http://%3/small$i; "
               "i=$((i+8)); done) & done; wait) | wc -c")
        .arg(kFiles)
        .arg(fetch, hostPort);
}

// Milliseconds for the npm-style fetch by the host's curl, straight to the fixture (-1 on failure).
double hostCurlFetch(int port) {
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(QStringLiteral("sh"),
                  {QStringLiteral("-c"),
                   npmStyleFetch(QStringLiteral("curl -s --noproxy '*'"), QStringLiteral("127.0.0.1:%1").arg(port))});
    if (!process.waitForFinished(120000)) {
        return -1;
    }
    const double ms = double(clock.nsecsElapsed()) / 1e6;
    return process.readAllStandardOutput().trimmed() == QByteArray::number(kFiles * kSmall) ? ms : -1;
}

double median(QList<double> values) {
    std::sort(values.begin(), values.end());
    return values.value(values.size() / 2, -1);
}

// Answers GET /big and /medium with that many bytes, written as the socket drains (no 64 MiB buffer).
class Fixture : public QObject {
public:
    void start() {
        m_server = new QTcpServer(this);
        connect(m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server->nextPendingConnection()) {
                serve(socket);
            }
        });
        m_server->listen(QHostAddress::LocalHost, 0);
        port = m_server->serverPort();
    }
    int port = 0;

private:
    void serve(QTcpSocket* socket) {
        auto head = std::make_shared<QByteArray>();
        auto left = std::make_shared<qint64>(-1);
        const auto pump = [socket, left] {
            static const QByteArray chunk(64 * 1024, 'z');
            while (*left > 0 && socket->bytesToWrite() < 1024 * 1024) {
                const qint64 n = std::min<qint64>(*left, chunk.size());
                socket->write(chunk.constData(), n);
                *left -= n;
            }
            if (*left == 0) {
                *left = -2;
                socket->disconnectFromHost();
            }
        };
        connect(socket, &QTcpSocket::readyRead, socket, [socket, head, left, pump] {
            *head += socket->readAll();
            if (*left != -1 || !head->contains("\r\n\r\n")) {
                return;
            }
            *left = head->contains(" /big ") ? kBig : head->contains(" /small") ? kSmall : kMedium;
            socket->write("HTTP/1.0 200 OK\r\nContent-Length: " + QByteArray::number(*left) + "\r\n\r\n");
            pump();
        });
        connect(socket, &QTcpSocket::bytesWritten, socket, pump);
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }
    QTcpServer* m_server = nullptr;
};

// Milliseconds to push 64 MiB into `ENGINE exec -i CTR sh -c 'cat >/dev/null'` (-1 on failure).
double rawExecStdin(const ContainerRuntime& runtime, const QString& container) {
    QProcess process;
    QElapsedTimer clock;
    clock.start();
    process.start(runtime.program(),
                  runtime.execWithStdinArguments(
                      container, {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("cat > /dev/null")}));
    if (!process.waitForStarted(10000)) {
        return -1;
    }
    const QByteArray chunk(1024 * 1024, 'z');
    for (int i = 0; i < 64; ++i) {
        process.write(chunk);
        while (process.bytesToWrite() > 4 * 1024 * 1024) {
            process.waitForBytesWritten(1000);
        }
    }
    process.closeWriteChannel();
    process.waitForFinished(60000);
    return process.exitCode() == 0 ? double(clock.nsecsElapsed()) / 1e6 : -1;
}

qint64 peakRssKiB() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) {
        return -1;
    }
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmHWM:")) {
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
        }
    }
    return -1;
}

// Milliseconds to download /big directly from the fixture with a socket in this thread (-1 on failure).
double directDownload(int port) {
    QTcpSocket socket;
    qint64 got = 0;
    QEventLoop loop;
    QObject::connect(&socket, &QTcpSocket::connected, [&] { socket.write("GET /big HTTP/1.0\r\n\r\n"); });
    QObject::connect(&socket, &QTcpSocket::readyRead, [&] { got += socket.readAll().size(); });
    QObject::connect(&socket, &QTcpSocket::disconnected, &loop, &QEventLoop::quit);
    QElapsedTimer clock;
    clock.start();
    socket.connectToHost(QHostAddress::LocalHost, quint16(port));
    QTimer::singleShot(120000, &loop, &QEventLoop::quit);
    loop.exec();
    got += socket.readAll().size();
    return got >= kBig ? double(clock.nsecsElapsed()) / 1e6 : -1;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const QString engine = args.value(1, QStringLiteral("docker"));
    const QString image = args.value(2, QStringLiteral("zeus-desktop-sandbox:test"));

    QThread fixtureThread;
    auto* fixture = new Fixture;
    fixture->moveToThread(&fixtureThread);
    fixtureThread.start();
    QMetaObject::invokeMethod(
        fixture, [fixture] { fixture->start(); }, Qt::BlockingQueuedConnection);
    const QString port = QString::number(fixture->port);

    SandboxConfig config;
    config.image = image;
    config.ownerId = QStringLiteral("bench-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    config.agentHostPath = SandboxSetup::findAgent(SandboxSetup::agentCandidates());
    config.networkMode = NetworkMode::Allowlist;
    config.maxCallsPerSession = 4;
    config.egress = EgressPolicy::fromStrings(NetworkMode::Allowlist, QStringLiteral("locked"),
                                              {QStringLiteral("big.test:") + port}, {},
                                              {QStringLiteral("big.test:%1:127.0.0.1").arg(port)}, nullptr);
    SessionManager manager(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
    ExecResult last;
    bool done = false;
    QObject::connect(&manager, &SessionManager::callFinished, [&](const ExecResult& result) {
        last = result;
        done = true;
    });
    QTemporaryDir dir;
    const QString workspace = QFileInfo(dir.path()).canonicalFilePath();
    int counter = 0;
    const auto run = [&](const QString& command) {
        ExecRequest request;
        request.callId = QStringLiteral("e") + QString::number(++counter);
        request.sessionId = QStringLiteral("bench");
        request.workspace = workspace;
        request.command = command;
        request.timeoutSeconds = 600;
        done = false;
        QElapsedTimer clock;
        clock.start();
        manager.execute(request);
        QEventLoop loop;
        while (!done) {
            loop.processEvents(QEventLoop::WaitForMoreEvents);
        }
        return double(clock.nsecsElapsed()) / 1e6;
    };
    std::printf("engine %s, image %s, agent %s\n", qPrintable(engine), qPrintable(image),
                config.agentHostPath.isEmpty() ? "NOT FOUND" : qPrintable(config.agentHostPath));
    run(QStringLiteral("true"));  // the container and its agent
    if (!manager.execPath(QStringLiteral("bench")).startsWith(QStringLiteral("agent "))) {
        std::fprintf(stderr, "the agent is not in use: %s\n", qPrintable(manager.execPath(QStringLiteral("bench"))));
        return 1;
    }

    // 1. 64 MiB, three times each, alternating; medians.
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    const QString container = manager.containerId(QStringLiteral("bench"));
    bool lane = false;
    for (const SessionLogEntry& entry : manager.sessionLog(QStringLiteral("bench"))) {
        lane = lane || entry.message.contains(QStringLiteral("travel on the lane"));
    }
    std::printf("the agent's frames travel on %s\n", lane ? "the lane (a Unix socket of the app's)" : "the exec pipe");
    QList<double> proxied, direct, rawStdin;
    for (int i = 0; i < 3; ++i) {
        const double ms = run(QStringLiteral("wget -q -O - http://big.test:%1/big | wc -c").arg(port));
        if (last.exitCode.value_or(-1) != 0 || !last.output.trimmed().endsWith(QString::number(kBig))) {
            std::fprintf(stderr, "the proxied download failed: %s\n", qPrintable(last.output.left(300)));
            return 1;
        }
        proxied << ms;
        direct << directDownload(fixture->port);
        rawStdin << rawExecStdin(*runtime, container);
    }
    std::sort(rawStdin.begin(), rawStdin.end());
    std::sort(proxied.begin(), proxied.end());
    std::sort(direct.begin(), direct.end());
    const double mibps = 64.0 / (proxied[1] / 1000.0);
    const double baseMibps = 64.0 / (direct[1] / 1000.0);
    std::printf(
        "1. 64 MiB through the proxy: %.0f ms (%.0f MiB/s); direct loopback: %.0f ms (%.0f MiB/s); "
        "ratio %.2f (goal >= 0.5)\n",
        proxied[1], mibps, direct[1], baseMibps, mibps / baseMibps);
    const double pipeMibps = 64.0 / (rawStdin[1] / 1000.0);
    std::printf(
        "   the transport's ceiling, 64 MiB into `%s exec -i CTR cat`: %.0f ms (%.0f MiB/s); proxy / ceiling "
        "%.2f\n",
        qPrintable(engine), rawStdin[1], pipeMibps, mibps / pipeMibps);

    // 3. The npm-style fetch, three times each, alternating; medians.
    QList<double> fetched, curled;
    for (int i = 0; i < 3; ++i) {
        const double fetchMs = run(npmStyleFetch(QStringLiteral("wget -q -O -"), QStringLiteral("big.test:") + port));
        if (last.exitCode.value_or(-1) != 0 || last.output.trimmed() != QString::number(kFiles * kSmall)) {
            std::fprintf(stderr, "the proxied npm-style fetch failed: %s\n", qPrintable(last.output.left(300)));
            return 1;
        }
        fetched << fetchMs;
        curled << hostCurlFetch(fixture->port);
    }
    std::printf(
        "3. npm-style fetch (%d x 256 KiB, 8 at a time): %.0f ms through the proxy; the host's curl: %.0f ms; "
        "speed ratio %.2f (goal >= 0.8)\n",
        kFiles, median(fetched), median(curled), median(curled) / median(fetched));

    // 2. 100 concurrent downloads of 4 MiB.
    const qint64 before = peakRssKiB();
    const double ms = run(QStringLiteral("for i in $(seq 100); do (wget -q -O - http://big.test:%1/medium | wc -c) & "
                                         "done | grep -c '^%2$'; wait")
                              .arg(port)
                              .arg(kMedium));
    const qint64 after = peakRssKiB();
    std::printf(
        "2. 100 concurrent 4 MiB downloads: %s complete in %.0f ms; the app's peak RSS %lld -> %lld KiB "
        "(+%lld KiB)\n",
        qPrintable(last.output.trimmed()), ms, before, after, after - before);

    manager.shutdown();
    QEventLoop loop;
    QObject::connect(&manager, &SessionManager::shutdownFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    loop.exec();
    fixtureThread.quit();
    fixtureThread.wait();
    delete fixture;
    return 0;
}
