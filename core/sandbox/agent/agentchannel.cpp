#include "sandbox/agent/agentchannel.h"

#include "engine/containerruntime.h"
#include "engine/containerspec.h"
#include "sandbox/agent/agentcall.h"
#include "sandbox/agent/agentlane.h"
#include "sandbox/agent/agenttunnel.h"
#include "sandbox/agent/enginecommand.h"
#include "sandbox/agent/lanesocket.h"
#include "support/logging.h"

#include <QLocalSocket>

#include <cstring>
#include <utility>

namespace zeus {

namespace {
// docker exec can take a second or more on a loaded machine; a hello later than this is a hung agent.
constexpr int kHandshakeTimeoutMs = 15000;
// The window is renewed once this much of it was handed on: few window frames, and the agent never
// waits on a round trip while the app keeps up.
constexpr quint32 kGrantThreshold = agentframe::kInitialWindow / 4;
constexpr qsizetype kMaxStderrLine = 1024;
constexpr quint32 kRunningWindow = 1024 * 1024;
// From the key sent to the lane taken: a connect on one machine takes milliseconds, the rest is a loaded engine.
constexpr int kLaneSetupMs = 10000;
}  // namespace

AgentChannel::AgentChannel(const ContainerRuntime& runtime, QString containerId, QString agentPath, QObject* parent)
    : QObject(parent), m_runtime(runtime), m_containerId(std::move(containerId)), m_agentPath(std::move(agentPath)) {
    m_handshake.setSingleShot(true);
    m_handshake.setInterval(kHandshakeTimeoutMs);
    connect(&m_handshake, &QTimer::timeout, this, [this] {
        fail(QStringLiteral("the agent did not answer within %1 s").arg(m_handshake.interval() / 1000.0));
    });
    m_laneSetup.setSingleShot(true);
    m_laneSetup.setInterval(kLaneSetupMs);
    connect(&m_laneSetup, &QTimer::timeout, this, [this] {
        if (m_laneState == LaneState::Offered || m_laneState == LaneState::AgentConnected) {
            stopLane(QStringLiteral("it was not set up within %1 s").arg(kLaneSetupMs / 1000));
        }
    });
}

AgentChannel::~AgentChannel() {
    if (m_process && m_process->isRunning()) {
        // Closing stdin ends the agent (and every process of its calls) even if the frame is not read.
        m_process->closeStandardInput();
    }
}

void AgentChannel::start() {
    m_process =
        new EngineCommand(m_runtime.program(), m_runtime.execWithStdinArguments(m_containerId, {m_agentPath}), 0, this);
    m_process->setStreaming(true);
    m_process->setInteractive(true);
    m_process->setCoalescing(false);
    connect(m_process, &EngineCommand::outputReady, this, [this](OutputStream stream, const QByteArray& chunk) {
        if (stream == OutputStream::Stdout) {
            onOutput(chunk);
        } else {
            onStderr(chunk);
        }
    });
    connect(m_process, &EngineCommand::finished, this, &AgentChannel::onProcessFinished);
    connect(m_process, &EngineCommand::inputWritten, this, &AgentChannel::onInputWritten);
    m_handshake.start();
    m_process->start();
}

quint32 AgentChannel::exec(AgentCall* call, const QByteArray& command, const QList<QByteArray>& environment,
                           quint32 timeoutMs, quint32 graceMs) {
    if (m_state != State::Ready || m_closed || m_channels.size() >= agentframe::kMaxChannels) {
        return 0;
    }
    quint32 id = m_nextId;
    while (id == 0 || m_channels.contains(id)) {
        ++id;
    }
    m_nextId = id + 1;
    Channel channel;
    channel.call = call;
    m_channels.insert(id, channel);
    send(agentframe::execFrame(id, command, environment, timeoutMs, graceMs));
    return id;
}

void AgentChannel::stop(quint32 channel, quint32 graceMs) {
    const auto it = m_channels.find(channel);
    if (it == m_channels.end() || m_state != State::Ready) {
        return;
    }
    it->paused = false;  // a stopped command must be able to write its last output and exit
    grant(channel, *it);
    send(agentframe::stopFrame(channel, graceMs));
}

void AgentChannel::detach(quint32 channel) {
    const auto it = m_channels.find(channel);
    if (it == m_channels.end()) {
        return;
    }
    if (it->call != nullptr && m_state == State::Ready) {
        send(agentframe::stopFrame(channel, 0));
    }
    it->call = nullptr;  // kept until its exit, so the id is not reused under the old command's frames
    it->paused = false;
    grant(channel, *it);
}

void AgentChannel::setPaused(quint32 channel, bool paused) {
    const auto it = m_channels.find(channel);
    if (it == m_channels.end() || it->paused == paused) {
        return;
    }
    it->paused = paused;
    if (!paused) {
        grant(channel, *it);
    }
}

void AgentChannel::close() {
    if (m_closed) {
        return;
    }
    m_closed = true;
    if (m_process && m_process->isRunning()) {
        send(agentframe::closeFrame());
        m_process->closeStandardInput();
    }
}

void AgentChannel::send(const QByteArray& frame) {
    if (m_laneState == LaneState::Switching || m_laneState == LaneState::On) {
        if (m_laneSocket) {
            m_laneSocket->write(frame);
        }
    } else if (m_process) {
        m_process->write(frame);
    }
}

qint64 AgentChannel::pendingInput() const {
    if (m_laneState == LaneState::Switching || m_laneState == LaneState::On) {
        return m_laneSocket ? m_laneSocket->bytesToWrite() : 0;
    }
    return m_process ? m_process->bytesToWrite() : 0;
}

void AgentChannel::grant(quint32 id, Channel& channel) {
    if (channel.paused || channel.ungranted == 0 || m_state != State::Ready) {
        return;
    }
    if (channel.ungranted < kGrantThreshold && channel.credit > 0) {
        return;
    }
    // The first renewal also widens the window to kRunningWindow: a call whose output flows is never more than a
    // few chunks from a stall on the round trip of a window frame; a paused call never gets the extra.
    const quint32 extra = channel.widened ? 0 : kRunningWindow - agentframe::kInitialWindow;
    channel.widened = true;
    send(agentframe::windowFrame(id, channel.ungranted + extra));
    channel.credit += channel.ungranted + extra;
    channel.ungranted = 0;
}

void AgentChannel::onOutput(const QByteArray& bytes) {
    if (m_state == State::Failed) {
        return;
    }
    if (m_laneState == LaneState::On) {
        fail(QStringLiteral("the agent broke the protocol: output on stdout after it moved to the lane"));
        return;
    }
    if (m_state == State::Starting && m_preamble.size() < kMaxStderrLine) {
        m_preamble += bytes.left(kMaxStderrLine - m_preamble.size());
    }
    m_reader.feed(bytes);
    readFrames();
}

void AgentChannel::readFrames() {
    const bool fromLane = m_laneState == LaneState::On;
    while (m_state != State::Failed) {
        const std::optional<agentframe::AgentFrame> frame = m_reader.next();
        if (!frame) {
            if (m_reader.failed() && m_state == State::Starting) {
                // Docker prints "OCI runtime exec failed: ... no such file" on stdout: text where the hello should be.
                const QString text = QString::fromUtf8(m_preamble).section(QLatin1Char('\n'), 0, 0).trimmed();
                fail(QStringLiteral("the agent could not start: %1")
                         .arg(text.isEmpty() ? m_reader.errorString() : text.left(300)));
            } else if (m_reader.failed()) {
                fail(QStringLiteral("the agent broke the protocol: %1").arg(m_reader.errorString()));
            }
            flushOutput();
            return;
        }
        handle(*frame);
        if (!fromLane && m_laneState == LaneState::On) {
            // That was the agent's last frame on stdout: the next ones come on the lane, nothing may follow here.
            flushOutput();
            if (m_reader.buffered() > 0) {
                fail(QStringLiteral("the agent broke the protocol: output on stdout after it moved to the lane"));
                return;
            }
            onLaneReadable();
            return;
        }
    }
    flushOutput();
}

void AgentChannel::flushOutput() {
    if (m_pending.isEmpty()) {
        return;
    }
    const QByteArray data = std::exchange(m_pending, {});
    const quint32 id = m_pendingChannel;
    const auto it = m_channels.find(id);
    if (it == m_channels.end()) {
        return;
    }
    if (it->call != nullptr) {
        it->call->agentOutput(m_pendingStream, data);
    }
    // The call may have paused, detached or been stopped meanwhile: look the channel up again.
    const auto again = m_channels.find(id);
    if (again != m_channels.end()) {
        again->ungranted += quint32(data.size());
        grant(id, *again);
    }
}

void AgentChannel::handle(const agentframe::AgentFrame& frame) {
    using agentframe::Type;
    const bool output = frame.type == Type::Stdout || frame.type == Type::Stderr;
    const OutputStream stream = frame.type == Type::Stdout ? OutputStream::Stdout : OutputStream::Stderr;
    if (!output || frame.channel != m_pendingChannel || stream != m_pendingStream) {
        flushOutput();  // order across calls, streams and the exit is kept
    }
    if (frame.type == Type::Hello) {
        if (m_state != State::Starting) {
            fail(QStringLiteral("the agent broke the protocol: a second hello"));
            return;
        }
        m_handshake.stop();
        if (frame.value != agentframe::kProtocolVersion) {
            fail(QStringLiteral("the agent speaks protocol %1, this app %2 (agent version %3)")
                     .arg(frame.value)
                     .arg(agentframe::kProtocolVersion)
                     .arg(frame.text.left(64)));
            return;
        }
        m_version = frame.text.left(64);
        m_state = State::Ready;
        qCInfo(lcSession) << "agent" << m_version << "ready in" << m_containerId.left(12);
        offerLane();
        Q_EMIT ready();
        return;
    }
    if (m_state != State::Ready) {
        fail(QStringLiteral("the agent broke the protocol: a frame before its hello"));
        return;
    }
    if (frame.type == Type::Listening) {
        Q_EMIT listening(quint16(frame.value), frame.error);
        return;
    }
    if (frame.type == Type::LaneOut) {
        onLaneAnswer(frame);
        return;
    }
    if ((frame.channel & agentframe::kTunnelBit) != 0) {
        handleTunnel(frame);
        return;
    }
    if (frame.channel == 0) {
        if (frame.type == Type::Error) {
            // The agent exits after it; the process's end fails the open calls with this reason.
            m_failure = QStringLiteral("the agent reported: %1").arg(frame.text.left(200));
            qCWarning(lcSession) << "agent error:" << frame.text.left(200);
        }
        return;
    }
    const auto it = m_channels.find(frame.channel);
    if (it == m_channels.end()) {
        fail(QStringLiteral("the agent broke the protocol: a frame for channel %1, which is not open")
                 .arg(frame.channel));
        return;
    }
    AgentCall* call = it->call;
    switch (frame.type) {
        case Type::Started:
            if (call != nullptr) {
                call->agentStarted(frame.value);
            }
            return;
        case Type::Stdout:
        case Type::Stderr: {
            const auto size = quint32(frame.data.size());
            if (size > it->credit) {
                fail(QStringLiteral("the agent broke the protocol: output past the window of channel %1")
                         .arg(frame.channel));
                return;
            }
            it->credit -= size;
            m_pendingChannel = frame.channel;
            m_pendingStream = stream;
            m_pending += frame.data;
            return;
        }
        case Type::Exit:
            m_channels.erase(it);
            if (call != nullptr) {
                call->agentExited(frame);
            }
            return;
        case Type::Error:
            m_channels.erase(it);
            if (call != nullptr) {
                call->agentFailed(frame.text.left(500), false);
            }
            return;
        case Type::AgentWindow:
            return;  // stdin credit: this app sends no stdin yet
        default:
            fail(QStringLiteral("the agent broke the protocol: an unexpected frame"));
            return;
    }
}

void AgentChannel::onStderr(const QByteArray& bytes) {
    m_stderrLine += bytes;
    qsizetype newline = m_stderrLine.indexOf('\n');
    while (newline >= 0) {
        const QString line = QString::fromUtf8(m_stderrLine.left(qMin(newline, kMaxStderrLine))).trimmed();
        m_stderrLine.remove(0, newline + 1);
        if (!line.isEmpty()) {
            Q_EMIT logLine(line);
        }
        newline = m_stderrLine.indexOf('\n');
    }
    if (m_stderrLine.size() > kMaxStderrLine) {
        m_stderrLine.truncate(kMaxStderrLine);
    }
}

void AgentChannel::onProcessFinished() {
    if (m_state == State::Failed) {
        return;
    }
    QString reason = m_failure;
    if (reason.isEmpty()) {
        const QString diagnostic = m_process ? m_process->diagnostic() : QString();
        if (m_closed) {
            reason = QStringLiteral("the agent was closed");
        } else if (m_state == State::Starting) {
            reason = QStringLiteral("the agent could not start (exit %1): %2")
                         .arg(m_process ? m_process->exitCode() : -1)
                         .arg(diagnostic.isEmpty() ? QStringLiteral("no message") : diagnostic);
        } else {
            reason = QStringLiteral("the agent stopped (exit %1)").arg(m_process ? m_process->exitCode() : -1);
        }
    }
    fail(reason);
}

void AgentChannel::fail(const QString& reason) {
    if (m_state == State::Failed) {
        return;
    }
    flushOutput();  // what was read before the failure is the calls' output
    m_state = State::Failed;
    m_failure = reason;
    m_handshake.stop();
    m_laneSetup.stop();
    if (m_laneSocket) {
        m_laneSocket->abort();
    }
    if (m_lane && m_laneState != LaneState::On && m_laneState != LaneState::Switching) {
        m_lane->withdraw();
    }
    if (m_closed) {
        qCDebug(lcSession) << "agent channel of" << m_containerId.left(12) << "closed";
    } else {
        qCWarning(lcSession) << "agent channel of" << m_containerId.left(12) << "failed:" << reason;
    }
    if (m_process && m_process->isRunning()) {
        m_process->closeStandardInput();
        m_process->stop();
    }
    const QHash<quint32, Channel> open = std::exchange(m_channels, {});
    for (const Channel& channel : open) {
        if (channel.call != nullptr) {
            channel.call->agentFailed(reason, true);
        }
    }
    const QHash<quint32, Tunnel> tunnels = std::exchange(m_tunnels, {});
    for (const Tunnel& tunnel : tunnels) {
        if (tunnel.handler != nullptr) {
            tunnel.handler->tunnelClosed();
        }
    }
    Q_EMIT failed(reason);
}

void AgentChannel::listen(quint16 port, agentframe::ListenerKind kind) {
    if (m_state == State::Ready && !m_closed) {
        send(agentframe::listenFrame(port, kind));
    }
}

void AgentChannel::handleTunnel(const agentframe::AgentFrame& frame) {
    using agentframe::Type;
    if (frame.type == Type::TunnelOpen) {
        if (m_tunnels.contains(frame.channel) || m_tunnels.size() >= agentframe::kMaxTunnels) {
            fail(QStringLiteral("the agent broke the protocol: tunnel %1 opened twice or over the limit")
                     .arg(frame.channel, 8, 16, QLatin1Char('0')));
            return;
        }
        const auto kind = agentframe::ListenerKind(frame.value);
        const TunnelAcceptor& acceptor = agentframe::exposedPort(kind) != 0 ? m_exposeAcceptor : m_acceptor;
        AgentTunnel* handler = acceptor ? acceptor(frame.channel, kind) : nullptr;
        if (handler == nullptr) {
            send(agentframe::tunnelCloseFrame(frame.channel));
            return;
        }
        Tunnel tunnel;
        tunnel.handler = handler;
        m_tunnels.insert(frame.channel, tunnel);
        return;
    }
    const auto it = m_tunnels.find(frame.channel);
    if (it == m_tunnels.end()) {
        if (frame.type == Type::TunnelHanded && m_laneSocket) {
            // The app closed it while it was being handed over: its socket came all the same and is the oldest
            // waiting. Closed here, or the next tunnel handed over would get it.
            LaneSocket::closeDescriptor(m_laneSocket->takeDescriptor());
        }
        return;  // the app closed it: these crossed its close on the pipe
    }
    AgentTunnel* handler = it->handler;
    if (frame.type == Type::TunnelConnected || it->connecting) {
        if (frame.type != Type::TunnelConnected || !it->connecting) {
            fail(QStringLiteral("the agent broke the protocol: a tunnel frame out of its connect's order"));
            return;
        }
        it->connecting = false;
        if (frame.error != 0) {
            m_tunnels.erase(it);
        }
        handler->tunnelConnected(frame.error);
        return;
    }
    switch (frame.type) {
        case Type::TunnelDataOut: {
            const auto size = quint32(frame.data.size());
            if (size > it->credit) {
                fail(QStringLiteral("the agent broke the protocol: tunnel data past the window"));
                return;
            }
            it->credit -= size;
            handler->tunnelData(frame.data);
            return;
        }
        case Type::AgentWindow:
            // The agent gives back what it wrote: the room can never grow past the window it started with.
            if (quint64(it->room) + frame.value > agentframe::kTunnelSendWindow) {
                fail(QStringLiteral("the agent broke the protocol: a tunnel window past what was sent"));
                return;
            }
            it->room += frame.value;
            handler->tunnelWritable();
            return;
        case Type::TunnelClosed:
            m_tunnels.erase(it);
            handler->tunnelClosed();
            return;
        case Type::TunnelHanded:
            onTunnelHanded(it);
            return;
        default:
            fail(QStringLiteral("the agent broke the protocol: a call's frame on a tunnel"));
            return;
    }
}

bool AgentChannel::handOverTunnel(quint32 tunnel) {
    const auto it = m_tunnels.find(tunnel);
    if (m_laneState != LaneState::On || !m_laneSocket || m_state != State::Ready || m_closed || it == m_tunnels.end()
        || it->sentEnd || it->connecting || it->handingOver || (tunnel & agentframe::kTunnelAppBit) != 0) {
        return false;
    }
    it->handingOver = true;
    send(agentframe::tunnelHandOffFrame(tunnel));
    return true;
}

void AgentChannel::onTunnelHanded(QHash<quint32, Tunnel>::iterator it) {
    // The socket rode on the lane at or before this frame: it is the oldest one waiting.
    const int descriptor = m_laneSocket && it->handingOver ? m_laneSocket->takeDescriptor() : -1;
    const QString wrong = descriptor >= 0 ? LaneSocket::checkPassedSocket(descriptor) : QString();
    if (descriptor < 0 || !wrong.isEmpty()) {
        LaneSocket::closeDescriptor(descriptor);
        fail(QStringLiteral("the agent broke the protocol: %1")
                 .arg(!it->handingOver ? QStringLiteral("a tunnel handed over that the app did not ask for")
                      : descriptor < 0 ? QStringLiteral("a tunnel handed over without its socket")
                                       : wrong));
        return;
    }
    AgentTunnel* handler = it->handler;
    m_tunnels.erase(it);
    if (!handler->tunnelHandedOver(descriptor)) {
        LaneSocket::closeDescriptor(descriptor);
    }
}

quint32 AgentChannel::connectTunnel(AgentTunnel* handler, quint16 port) {
    if (m_state != State::Ready || m_closed || port == 0 || m_tunnels.size() >= agentframe::kMaxTunnels) {
        return 0;
    }
    const quint32 appBits = agentframe::kTunnelBit | agentframe::kTunnelAppBit;
    quint32 id = appBits | m_nextAppTunnel;
    while (m_tunnels.contains(id)) {
        id = appBits | ((id + 1) & ~appBits);
    }
    m_nextAppTunnel = ((id + 1) & ~appBits) == 0 ? 1 : (id + 1) & ~appBits;
    Tunnel tunnel;
    tunnel.handler = handler;
    tunnel.connecting = true;
    m_tunnels.insert(id, tunnel);
    send(agentframe::tunnelConnectFrame(id, port));
    return id;
}

quint32 AgentChannel::tunnelRoom(quint32 tunnel) const {
    const auto it = m_tunnels.constFind(tunnel);
    if (it == m_tunnels.constEnd() || it->sentEnd || it->connecting || it->handingOver || !m_process) {
        return 0;
    }
    // Every tunnel shares the one pipe to the agent: past kMaxInputBacklog waiting in it, nobody sends, so the
    // app's memory is bounded by the pipe and not by the number of tunnels times their windows.
    const qint64 backlog = pendingInput();
    if (backlog >= kMaxInputBacklog) {
        m_tunnelsThrottled = true;
        return 0;
    }
    return quint32(qMin<qint64>(it->room, kMaxInputBacklog - backlog));
}

void AgentChannel::onInputWritten() {
    if (!m_tunnelsThrottled || !m_process || pendingInput() > kMaxInputBacklog / 2) {
        return;
    }
    m_tunnelsThrottled = false;
    const QList<quint32> ids = m_tunnels.keys();
    for (const quint32 id : ids) {
        const auto it = m_tunnels.constFind(id);  // a handler may have closed another tunnel meanwhile
        if (it != m_tunnels.constEnd() && it->handler != nullptr && tunnelRoom(id) > 0) {
            it->handler->tunnelWritable();
        }
    }
}

qsizetype AgentChannel::sendTunnel(quint32 tunnel, const QByteArray& data) {
    const auto it = m_tunnels.find(tunnel);
    if (it == m_tunnels.end() || it->sentEnd || it->connecting || it->handingOver || m_state != State::Ready) {
        return 0;
    }
    if (data.isEmpty()) {
        it->sentEnd = true;
        send(agentframe::tunnelDataFrame(tunnel, {}));
        return 0;
    }
    const auto n =
        qsizetype(qMin<quint32>(quint32(qMin<qsizetype>(data.size(), agentframe::kMaxAppPayload)), it->room));
    if (n > 0) {
        it->room -= quint32(n);
        send(agentframe::tunnelDataFrame(tunnel, data.left(n)));
    }
    return n;
}

void AgentChannel::consumedTunnel(quint32 tunnel, quint32 bytes) {
    const auto it = m_tunnels.find(tunnel);
    if (it == m_tunnels.end() || bytes == 0 || m_state != State::Ready) {
        return;
    }
    it->credit += bytes;
    send(agentframe::windowFrame(tunnel, bytes));
}

void AgentChannel::closeTunnel(quint32 tunnel) {
    if (m_tunnels.remove(tunnel) > 0 && m_state == State::Ready) {
        send(agentframe::tunnelCloseFrame(tunnel));
    }
}

}  // namespace zeus

namespace zeus {

void AgentChannel::setLane(AgentLane* lane) {
    m_lane = lane;
    if (lane == nullptr) {
        return;
    }
    connect(lane, &AgentLane::connected, this, &AgentChannel::switchToLane);
    connect(lane, &AgentLane::refused, this,
            [this](const QString& why) { Q_EMIT laneReport(QStringLiteral("Lane: %1 (dropped).").arg(why)); });
}

void AgentChannel::offerLane() {
    if (!m_lane) {
        return;
    }
    QByteArray key = m_lane->offer();
    if (key.isEmpty()) {
        Q_EMIT laneReport(QStringLiteral("The agent's lane is not available (%1): its frames travel on the engine's "
                                         "exec pipe.")
                              .arg(m_lane->errorString()));
        return;
    }
    m_laneState = LaneState::Offered;
    m_laneSetup.start();
    send(agentframe::laneFrame(key, (containerLanePath() + QLatin1Char('/') + laneSocketName()).toUtf8()));
    key.fill('\0');
}

void AgentChannel::onLaneAnswer(const agentframe::AgentFrame& frame) {
    if (frame.switched) {
        if (m_laneState != LaneState::Switching) {
            fail(QStringLiteral("the agent broke the protocol: a lane switch the app did not ask for"));
            return;
        }
        m_laneState = LaneState::On;  // readFrames() turns to the lane after this frame
        qCInfo(lcSession) << "agent of" << m_containerId.left(12) << "moved to the lane";
        Q_EMIT laneReport(
            QStringLiteral("The agent's frames travel on the lane (a socket of the app's), not on the "
                           "engine's exec pipe."));
        return;
    }
    if (m_laneState != LaneState::Offered) {
        fail(QStringLiteral("the agent broke the protocol: a lane answer the app did not ask for"));
        return;
    }
    if (frame.error != 0) {
        stopLane(QStringLiteral("the agent could not connect to it: %1")
                     .arg(QString::fromLocal8Bit(std::strerror(int(frame.error & 0xFFFF)))));
        return;
    }
    m_laneState = LaneState::AgentConnected;
    switchToLane();
}

void AgentChannel::switchToLane() {
    if (m_laneState != LaneState::AgentConnected || !m_lane || !m_lane->hasConnection() || m_state != State::Ready
        || m_closed) {
        return;  // the agent's answer or the key on the socket is still to come (or all is over)
    }
    m_laneSocket = LaneSocket::adopt(m_lane->take(), this);
    m_laneSetup.stop();
    if (!m_laneSocket) {
        stopLane(QStringLiteral("its socket could not be taken over"));
        return;
    }
    connect(m_laneSocket, &LaneSocket::readyRead, this, [this] {
        if (m_laneState == LaneState::On) {
            onLaneReadable();
        }
    });
    connect(m_laneSocket, &LaneSocket::bytesWritten, this, &AgentChannel::onInputWritten);
    connect(m_laneSocket, &LaneSocket::disconnected, this, [this] {
        if (!m_closed) {
            fail(m_laneSocket ? m_laneSocket->errorString() : QStringLiteral("the agent's lane closed"));
        }
    });
    // The last frame on stdin: the agent reads the lane from here on, and so does the app after its answer.
    send(agentframe::laneSwitchFrame());
    m_laneState = LaneState::Switching;
}

void AgentChannel::onLaneReadable() {
    if (m_state == State::Failed || !m_laneSocket) {
        return;
    }
    const QByteArray bytes = m_laneSocket->readAll();
    if (bytes.isEmpty()) {
        return;
    }
    m_reader.feed(bytes);
    readFrames();
}

void AgentChannel::stopLane(const QString& why) {
    m_laneState = LaneState::Off;
    m_laneSetup.stop();
    if (m_lane) {
        m_lane->withdraw();
        delete m_lane->take();  // a connection that came too late
    }
    Q_EMIT laneReport(
        QStringLiteral("The agent's lane is not used (%1): its frames travel on the engine's exec pipe.").arg(why));
}

}  // namespace zeus
