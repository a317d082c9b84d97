// The sandbox agent is C (agent/protocol.h) and the app reads it with C++ (core/sandbox/agent/agentframe.h): two
// spellings of one wire format (docs/agent-protocol.md). Every number both sides use is compared here at compile
// time, so a change made on one side only does not build.
#include "sandbox/agent/agentframe.h"
#include "sandbox/egress/egressproxy.h"

#include <QTest>

// The agent's names are C's flat ones (T_EXEC, MAX_CHUNK): a namespace keeps them apart from everything else.
// protocol.h holds constants only and includes nothing, which is what makes this safe.
namespace agentc {
#include "agent/protocol.h"
}  // namespace agentc

using namespace zeus;
using namespace zeus::agentframe;

namespace {

constexpr quint32 u32(int value) {
    return static_cast<quint32>(value);
}
constexpr bool sameType(int cValue, Type type) {
    return u32(cValue) == static_cast<quint8>(type);
}

}  // namespace

static_assert(u32(agentc::PROTOCOL_VERSION) == kProtocolVersion);
static_assert(agentc::FRAME_HEADER == kHeaderSize);
static_assert(u32(agentc::MAX_IN_PAYLOAD) == kMaxAppPayload);
static_assert(u32(agentc::MAX_OUT_PAYLOAD) == kMaxAgentPayload);
static_assert(u32(agentc::MAX_CHUNK) == kMaxDataChunk);
static_assert(u32(agentc::WINDOW0) == kInitialWindow);
static_assert(u32(agentc::TUNNEL_IN_WINDOW) == kTunnelSendWindow);
static_assert(agentc::MAX_CALLS == kMaxChannels);
static_assert(agentc::MAX_TUNNELS == kMaxTunnels);
static_assert(u32(agentc::EXEC_FLAG_STDIN) == kExecFlagStdin);
static_assert(TUNNEL_BIT == kTunnelBit);  // a macro: outside the namespace
static_assert(TUNNEL_APP_BIT == kTunnelAppBit);
static_assert(u32(agentc::LISTEN_HTTP_PROXY) == static_cast<quint32>(ListenerKind::HttpProxy));
static_assert(u32(agentc::LISTEN_SOCKS5) == static_cast<quint32>(ListenerKind::Socks5));
static_assert(u32(agentc::LISTEN_EXPOSE) == static_cast<quint32>(ListenerKind::Expose));
static_assert(agentc::MAX_LISTENERS == kMaxListeners);
static_assert(agentc::LANE_KEY == kLaneKeySize);
static_assert(agentc::LANE_MAX_PATH == kMaxLanePath);
static_assert(agentc::HTTP_PROXY_PORT == EgressProxy::kHttpPort);
static_assert(agentc::SOCKS_PORT == EgressProxy::kSocksPort);

static_assert(agentc::REASON_SELF == static_cast<int>(ExitReason::Itself));
static_assert(agentc::REASON_TIMEOUT == static_cast<int>(ExitReason::TimedOut));
static_assert(agentc::REASON_STOP == static_cast<int>(ExitReason::Stopped));

static_assert(sameType(agentc::T_EXEC, Type::Exec));
static_assert(sameType(agentc::T_STDIN, Type::Stdin));
static_assert(sameType(agentc::T_SIGNAL, Type::Signal));
static_assert(sameType(agentc::T_STOP, Type::Stop));
static_assert(sameType(agentc::T_WINDOW, Type::Window));
static_assert(sameType(agentc::T_CLOSE, Type::Close));
static_assert(sameType(agentc::T_LISTEN, Type::Listen));
static_assert(sameType(agentc::T_TDATA, Type::TunnelData));
static_assert(sameType(agentc::T_TCLOSE, Type::TunnelClose));
static_assert(sameType(agentc::T_TCONNECT, Type::TunnelConnect));
static_assert(sameType(agentc::T_HELLO, Type::Hello));
static_assert(sameType(agentc::T_STARTED, Type::Started));
static_assert(sameType(agentc::T_STDOUT, Type::Stdout));
static_assert(sameType(agentc::T_STDERR, Type::Stderr));
static_assert(sameType(agentc::T_EXIT, Type::Exit));
static_assert(sameType(agentc::T_ERROR, Type::Error));
static_assert(sameType(agentc::T_WINDOW_OUT, Type::AgentWindow));
static_assert(sameType(agentc::T_TOPEN, Type::TunnelOpen));
static_assert(sameType(agentc::T_TDATA_OUT, Type::TunnelDataOut));
static_assert(sameType(agentc::T_TCLOSED, Type::TunnelClosed));
static_assert(sameType(agentc::T_LISTENING, Type::Listening));
static_assert(sameType(agentc::T_TCONNECTED, Type::TunnelConnected));
static_assert(sameType(agentc::T_LANE, Type::Lane));
static_assert(sameType(agentc::T_LANE_OUT, Type::LaneOut));
static_assert(sameType(agentc::T_THANDOFF, Type::TunnelHandOff));
static_assert(sameType(agentc::T_THANDED, Type::TunnelHanded));
static_assert(agentc::MAX_PASS == kMaxPassedSockets);

class TestAgentProtocol : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void appFrameHasTheAgentsHeader();
};

// The same agreement at run time, on bytes: a frame the app builds is what the agent's header constants read.
void TestAgentProtocol::appFrameHasTheAgentsHeader() {
    const QByteArray frame = stopFrame(7, 1500);
    QCOMPARE(frame.size(), qsizetype(agentc::FRAME_HEADER + 4));
    QCOMPARE(quint32(quint8(frame.at(4))), u32(agentc::T_STOP));
    const QByteArray tunnel = tunnelCloseFrame(TUNNEL_BIT | 5U);
    QCOMPARE(tunnel.size(), qsizetype(agentc::FRAME_HEADER));
    QCOMPARE(quint8(tunnel.at(5)), quint8(TUNNEL_BIT >> 24));
}

QTEST_GUILESS_MAIN(TestAgentProtocol)
#include "tst_agentprotocol.moc"
