// AgentChannel against the real sandbox agent run on this host (through a fake engine CLI that runs
// `exec -i CONTAINER PROGRAM` here), and against recorded hostile agents: handshake, calls, flow control, an
// agent that dies mid-call, a wrong protocol, a broken frame, output past the window, an agent that never answers.
// The container part (mount, user, the image) is the engine tests' (tst_agent).
#include "engine/containerruntime.h"
#include "sandbox/agent/agentcall.h"
#include "sandbox/agent/agentchannel.h"
#include "sandbox/agent/agentframe.h"
#include "sandbox/agent/agenttunnel.h"

#include <zeus/buildinfo.h>

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;

namespace {

const QString kFakeEngine = QStringLiteral(ZEUS_TEST_FAKES_DIR "/agent/engine");
const QString kAgent = QStringLiteral(ZEUS_AGENT_BINARY);

// Records what the channel tells one call.
// Takes a tunnel's bytes and says when it ended.
class TunnelRecorder : public AgentTunnel {
public:
    void tunnelData(const QByteArray& data) override { received += data; }
    void tunnelWritable() override {}
    void tunnelClosed() override { closed = true; }
    QByteArray received;
    bool closed = false;
};

class Recorder : public QObject, public AgentCall {
    Q_OBJECT
public:
    void agentStarted(quint32 pid) override { startedPid = pid; }
    void agentOutput(OutputStream stream, const QByteArray& data) override {
        (stream == OutputStream::Stdout ? out : err) += data;
        Q_EMIT changed();
    }
    void agentExited(const agentframe::AgentFrame& exit) override {
        exited = true;
        signalled = exit.signalled;
        code = exit.exitCode;
        reason = exit.exitReason;
        Q_EMIT changed();
        Q_EMIT done();
    }
    void agentFailed(const QString& message, bool lost) override {
        failure = message;
        channelLost = lost;
        Q_EMIT done();
    }

    quint32 startedPid = 0;
    QByteArray out;
    QByteArray err;
    bool exited = false;
    bool signalled = false;
    int code = -1;
    quint8 reason = 0;
    QString failure;
    bool channelLost = false;

Q_SIGNALS:
    void changed();
    void done();
};

}  // namespace

class TestAgentChannel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void handshakeGivesTheVersion();
    void runsACommand();
    void concurrentCallsKeepTheirOutput();
    void pausedCallStopsAtItsWindow();
    void stopEndsTheCall();
    void missingAgentFails();
    void agentDyingMidCallFailsTheCall();
    void hostileAgents_data();
    void hostileAgents();
    void silentAgentTimesOut();

private:
    std::unique_ptr<AgentChannel> startChannel(const QString& agentPath = kAgent);
    void writeReply(const QString& name, const QByteArray& bytes);

    std::unique_ptr<ContainerRuntime> m_runtime;
    QTemporaryDir m_dir;
};

void TestAgentChannel::initTestCase() {
    QVERIFY2(QFileInfo(kAgent).isExecutable(), "the agent is built with the project");
    m_runtime = ContainerRuntime::create(RuntimeKind::Docker, kFakeEngine);
    QVERIFY(m_dir.isValid());
}

void TestAgentChannel::init() {
    qunsetenv("FAKE_AGENT_HELLO");
    qunsetenv("FAKE_AGENT_REPLY");
}

void TestAgentChannel::cleanup() {
    init();
}

std::unique_ptr<AgentChannel> TestAgentChannel::startChannel(const QString& agentPath) {
    auto channel = std::make_unique<AgentChannel>(*m_runtime, QStringLiteral("ctr"), agentPath);
    channel->start();
    return channel;
}

void TestAgentChannel::writeReply(const QString& name, const QByteArray& bytes) {
    QFile file(m_dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

void TestAgentChannel::handshakeGivesTheVersion() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    QCOMPARE(channel->state(), AgentChannel::State::Ready);
    QCOMPARE(channel->version(), QStringLiteral(ZEUS_VERSION));
}

void TestAgentChannel::runsACommand() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    Recorder call;
    QSignalSpy done(&call, &Recorder::done);
    const quint32 id = channel->exec(&call, "echo out; echo err >&2; printf '\\303\\251'; exit 3", {"ZEUS_X=1"}, 0, 0);
    QVERIFY(id != 0);
    QVERIFY(done.wait(10000));
    QVERIFY(call.failure.isEmpty());
    QVERIFY(call.startedPid > 0);
    QCOMPARE(call.out, QByteArray("out\n\xc3\xa9"));
    QCOMPARE(call.err, QByteArray("err\n"));
    QVERIFY(call.exited);
    QVERIFY(!call.signalled);
    QCOMPARE(call.code, 3);
    QCOMPARE(channel->openCalls(), 0);

    Recorder env;
    QSignalSpy envDone(&env, &Recorder::done);
    channel->exec(&env, "printf %s \"$ZEUS_X\"; printf %s \"${ZEUS_COMMAND-unset}\"", {"ZEUS_X=from the frame"}, 0, 0);
    QVERIFY(envDone.wait(10000));
    QCOMPARE(env.out, QByteArray("from the frameunset"));  // the command's text is not left in its environment
}

void TestAgentChannel::concurrentCallsKeepTheirOutput() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    Recorder a;
    Recorder b;
    QSignalSpy aDone(&a, &Recorder::done);
    QSignalSpy bDone(&b, &Recorder::done);
    channel->exec(&a, "for i in $(seq 1 2000); do echo aaaaaaaaaa; done", {}, 0, 0);
    channel->exec(&b, "for i in $(seq 1 2000); do echo bbbbbbbbbb; done", {}, 0, 0);
    QVERIFY(aDone.wait(20000) || a.exited);
    QTRY_VERIFY_WITH_TIMEOUT(b.exited, 20000);
    QCOMPARE(a.out, QByteArray("aaaaaaaaaa\n").repeated(2000));
    QCOMPARE(b.out, QByteArray("bbbbbbbbbb\n").repeated(2000));
}

void TestAgentChannel::pausedCallStopsAtItsWindow() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    Recorder call;
    const quint32 id = channel->exec(&call, "head -c 4000000 /dev/zero", {}, 0, 0);
    channel->setPaused(id, true);
    QTRY_VERIFY_WITH_TIMEOUT(call.out.size() >= qsizetype(agentframe::kInitialWindow), 10000);
    QTest::qWait(300);
    // Never more than the window while paused: the agent stopped reading, the command blocks on its pipe.
    QCOMPARE(call.out.size(), qsizetype(agentframe::kInitialWindow));
    QVERIFY(!call.exited);
    channel->setPaused(id, false);
    QTRY_VERIFY_WITH_TIMEOUT(call.exited, 20000);
    QCOMPARE(call.out.size(), 4000000);
    QCOMPARE(call.code, 0);
}

void TestAgentChannel::stopEndsTheCall() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    Recorder call;
    QSignalSpy done(&call, &Recorder::done);
    const quint32 id = channel->exec(&call, "trap '' TERM; echo up; sleep 30", {}, 0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(call.out == "up\n", 10000);
    channel->stop(id, 200);
    QVERIFY(done.wait(10000));
    QVERIFY(call.exited);
    QVERIFY(call.signalled);
    QCOMPARE(call.code, 9);  // it ignored TERM: KILL after the grace
    QCOMPARE(call.reason, quint8(agentframe::ExitReason::Stopped));
}

void TestAgentChannel::missingAgentFails() {
    auto channel = startChannel(m_dir.filePath(QStringLiteral("no-such-agent")));
    QSignalSpy failed(channel.get(), &AgentChannel::failed);
    QVERIFY(failed.wait(10000));
    QCOMPARE(channel->state(), AgentChannel::State::Failed);
    QVERIFY2(channel->failureReason().contains(QStringLiteral("could not start")),
             qPrintable(channel->failureReason()));
    Recorder call;
    QCOMPARE(channel->exec(&call, "true", {}, 0, 0), 0u);
}

void TestAgentChannel::agentDyingMidCallFailsTheCall() {
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QVERIFY(ready.wait(10000));
    Recorder call;
    QSignalSpy done(&call, &Recorder::done);
    QSignalSpy failed(channel.get(), &AgentChannel::failed);
    // The command's shell is the agent's child: it kills its parent.
    channel->exec(&call, "echo before; kill -9 $PPID; sleep 5", {}, 0, 0);
    QVERIFY(done.wait(10000));
    QVERIFY(call.channelLost);
    QVERIFY(!call.exited);
    QVERIFY(failed.count() == 1 || failed.wait(5000));
    QCOMPARE(channel->state(), AgentChannel::State::Failed);
}

void TestAgentChannel::hostileAgents_data() {
    using namespace agentframe;
    QTest::addColumn<QByteArray>("hello");
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<bool>("becomesReady");
    QTest::addColumn<QString>("reason");
    const QByteArray hello = helloFrame(kProtocolVersion, "9.9.9");
    QTest::newRow("another protocol") << helloFrame(1, "1.0.0") << QByteArray() << false
                                      << QStringLiteral("speaks protocol 1");
    QTest::newRow("a frame before hello")
        << startedFrame(1, 5) << QByteArray() << false << QStringLiteral("before its hello");
    QTest::newRow("an engine's error instead of a hello")
        << QByteArray("OCI runtime exec failed: exec failed: no such file or directory\n") << QByteArray() << false
        << QStringLiteral("could not start: OCI runtime exec failed: exec failed: no such file or directory");
    QTest::newRow("garbage after hello") << hello << QByteArray("Error: exec failed\n") << true
                                         << QStringLiteral("broke the protocol");
    QTest::newRow("a second hello") << hello << hello << true << QStringLiteral("a second hello");
    QTest::newRow("a channel never opened")
        << hello << startedFrame(77, 1) << true << QStringLiteral("channel 77, which is not open");
    QTest::newRow("a 1 MiB frame") << hello
                                   << QByteArray::fromHex(
                                          "00100000"
                                          "83"
                                          "00000001")
                                   << true << QStringLiteral("over the limit");
    QByteArray flood;
    for (quint32 sent = 0; sent <= kInitialWindow; sent += kMaxDataChunk) {
        flood += outputFrame(1, OutputStream::Stdout, QByteArray(int(kMaxDataChunk), 'x'));
    }
    QTest::newRow("output past the window of a paused call")
        << hello << flood << true << QStringLiteral("past the window");
    // Tunnels (SPEC §8): the agent picks their ids, but it cannot open one twice, overrun its window, claim
    // window it was never owed, or send a call's frames on one.
    const quint32 tunnel = kTunnelBit | 1;
    QByteArray tunnelFlood = tunnelOpenFrame(tunnel, ListenerKind::HttpProxy);
    for (quint32 sent = 0; sent <= kInitialWindow; sent += kMaxDataChunk) {
        tunnelFlood += tunnelOutFrame(tunnel, QByteArray(int(kMaxDataChunk), 'x'));
    }
    QTest::newRow("tunnel data past the window")
        << hello << tunnelFlood << true << QStringLiteral("tunnel data past the window");
    QTest::newRow("a tunnel opened twice")
        << hello << tunnelOpenFrame(tunnel, ListenerKind::HttpProxy) + tunnelOpenFrame(tunnel, ListenerKind::Socks5)
        << true << QStringLiteral("opened twice");
    QByteArray oneMore;
    oneMore.append(char(0)).append(char(0)).append(char(0)).append(char(1));
    QTest::newRow("a tunnel window never owed")
        << hello << tunnelOpenFrame(tunnel, ListenerKind::HttpProxy) + anyFrame(Type::AgentWindow, tunnel, oneMore)
        << true << QStringLiteral("a tunnel window past what was sent");
    // Handing a tunnel over (docs/agent-protocol.md): only as the answer to the app's own `tunnel handoff`.
    QTest::newRow("a tunnel handed over unasked")
        << hello << tunnelOpenFrame(tunnel, ListenerKind::HttpProxy) + tunnelHandedFrame(tunnel) << true
        << QStringLiteral("a tunnel handed over that the app did not ask for");
    QTest::newRow("a tunnel handed over with a payload")
        << hello << tunnelOpenFrame(tunnel, ListenerKind::HttpProxy) + anyFrame(Type::TunnelHanded, tunnel, "x") << true
        << QStringLiteral("malformed tunnel handed frame");
    QTest::newRow("a call's frame on a tunnel")
        << hello << startedFrame(tunnel, 1) << true << QStringLiteral("malformed started frame");
    QTest::newRow("a tunnel frame on a call's channel")
        << hello << tunnelOutFrame(1, "x") << true << QStringLiteral("malformed tunnel data frame");
}

void TestAgentChannel::hostileAgents() {
    QFETCH(QByteArray, hello);
    QFETCH(QByteArray, reply);
    QFETCH(bool, becomesReady);
    QFETCH(QString, reason);
    writeReply(QStringLiteral("hello"), hello);
    qputenv("FAKE_AGENT_HELLO", m_dir.filePath(QStringLiteral("hello")).toLocal8Bit());
    if (!reply.isEmpty()) {
        writeReply(QStringLiteral("reply"), reply);
        qputenv("FAKE_AGENT_REPLY", m_dir.filePath(QStringLiteral("reply")).toLocal8Bit());
    }
    auto channel = startChannel();
    QSignalSpy ready(channel.get(), &AgentChannel::ready);
    QSignalSpy failed(channel.get(), &AgentChannel::failed);
    TunnelRecorder tunnel;
    channel->setTunnelAcceptor([&tunnel](quint32, agentframe::ListenerKind) { return &tunnel; });
    Recorder call;
    if (becomesReady) {
        QVERIFY(ready.wait(10000));
        const quint32 id = channel->exec(&call, "true", {}, 0, 0);
        QVERIFY(id != 0);
        channel->setPaused(id, true);  // no window granted back: the agent may send 256 KiB and no more
    }
    QVERIFY(failed.count() == 1 || failed.wait(10000));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(channel->failureReason().contains(reason), qPrintable(channel->failureReason()));
    if (becomesReady) {
        QVERIFY(call.channelLost);  // the open call is told at once
    }
    QCOMPARE(channel->state(), AgentChannel::State::Failed);
}

void TestAgentChannel::silentAgentTimesOut() {
    writeReply(QStringLiteral("hello"), QByteArray());
    qputenv("FAKE_AGENT_HELLO", m_dir.filePath(QStringLiteral("hello")).toLocal8Bit());
    auto channel = std::make_unique<AgentChannel>(*m_runtime, QStringLiteral("ctr"), kAgent);
    channel->setHandshakeTimeoutMs(300);
    QSignalSpy failed(channel.get(), &AgentChannel::failed);
    channel->start();
    QVERIFY(failed.wait(5000));
    QVERIFY2(channel->failureReason().contains(QStringLiteral("did not answer")), qPrintable(channel->failureReason()));
}

QTEST_GUILESS_MAIN(TestAgentChannel)
#include "tst_agentchannel.moc"
