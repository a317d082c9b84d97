#pragma once

#include "backend/protocolmessages.h"

#include <QByteArray>
#include <QJsonObject>
#include <QLatin1String>

namespace zeus {

// Backend protocol v1: parsing, validation and serialisation of every message (docs/protocol.md), as pure
// functions from data to data. It owns the limits of each field. It must never do I/O, log, throw, or trust a
// frame: every input, however malformed or large, ends as a typed message or a ProtocolError. It depends on Qt
// Core only, so the fuzzer can build it alone.
class Protocol {
public:
    static constexpr int kVersion = 1;
    static constexpr int kMaxIdLength = 128;                        // call_id, session_id: characters
    static constexpr int kMaxCommandBytes = 256 * 1024;             // args.command: UTF-8 bytes
    static constexpr int kMaxPathBytes = 4096;                      // args.working_directory: UTF-8 bytes
    static constexpr int kMaxServerLength = 256;                    // welcome.server: characters
    static constexpr int kMaxTimeoutSeconds = 3600;                 // args.timeout_s: (0, 3600]
    static constexpr int kMaxSecretsPerCall = 32;                   // args.secrets: names
    static constexpr int kMaxSecretNameLength = 128;                // one name: characters
    static constexpr qint64 kDefaultMaxMessageBytes = 1024 * 1024;  // inbound frame limit (transport)
    static constexpr QLatin1String kDesktopExec{"desktop_exec"};

    Protocol() = delete;

    // Backend -> app. `frame` is the UTF-8 text of one WebSocket text frame.
    static IncomingMessage parseIncoming(const QByteArray& frame);

    // App -> backend. Each returns the JSON object of one message; send it with toFrame().
    static QJsonObject makeHello(const HelloMessage& hello);
    static QJsonObject makeToolOutput(const QString& callId, OutputStream stream, qint64 seq, const QString& data);
    static QJsonObject makeToolResult(const ToolResultMessage& result);
    static QJsonObject makeSessionState(const QString& sessionId, SessionState state, const QString& container);
    // `position` (1-based) is sent with Queued only.
    static QJsonObject makeCallState(const QString& callId, CallState state, int position = 0);
    // A request the egress policy denied, a tunnel it allowed whose client refused the server's certificate (SPEC §8),
    // or a request that carried a secret's placeholder to a host it is not bound to (SPEC §9); `decision` is "denied",
    // "tls_untrusted" or "secret_not_bound" (EgressEvent::decisionWord()); callId empty when the call is not known.
    static QJsonObject makeNetworkEvent(const QString& sessionId, const QString& callId, const QString& host, int port,
                                        const QString& decision, const QString& rule);
    // The answer to open_port (SPEC §8 "Ports"): the container's port is published at url (127.0.0.1:hostPort).
    static QJsonObject makePortOpened(const QString& sessionId, int port, int hostPort, const QString& url);
    static QJsonObject makeError(const ProtocolError& error);
    static QJsonObject makeError(ProtocolErrorCode code, const QString& message, const QString& callId = {});

    // Backend -> app serialisation, for test backends and round-trip tests.
    static QJsonObject toJson(const WelcomeMessage& message);
    static QJsonObject toJson(const ToolCallMessage& message);
    static QJsonObject toJson(const CancelMessage& message);
    static QJsonObject toJson(const SessionEndMessage& message);
    static QJsonObject toJson(const AckMessage& message);
    static QJsonObject toJson(const OpenPortMessage& message);

    // Compact UTF-8 JSON text of one message.
    static QByteArray toFrame(const QJsonObject& message);

    // The frames of the two messages that carry command output, written directly instead of through
    // QJsonObject/QJsonDocument (which convert the data to UTF-16 and back and copy it several times: most of
    // the app's CPU when output streams). Byte for byte what toFrame() makes of makeToolOutput() and
    // makeToolResult(): the same key order and escapes. `utf8Data` must be valid UTF-8 (OutputCollector's).
    static QByteArray toolOutputFrame(const QString& callId, OutputStream stream, qint64 seq,
                                      const QByteArray& utf8Data);
    static QByteArray toolResultFrame(const ToolResultMessage& result);
    // Appends `utf8` as a JSON string literal (quotes included), escaped as QJsonDocument does:
    // `"` `\` and control characters; everything else, non-ASCII included, verbatim.
    static void appendJsonString(QByteArray& out, QByteArrayView utf8);

    // Wire names.
    static QLatin1String errorCodeName(ProtocolErrorCode code);
    static std::optional<ProtocolErrorCode> errorCodeFromName(const QString& name);
    static QLatin1String streamName(OutputStream stream);
    static QLatin1String callStateName(CallState state);
    // (tool_result.status and session_state.state: execStatusName() and sessionStateName().)

    // A call_id or session_id the app accepts: 1..128 printable ASCII characters, no space.
    static bool isValidId(const QString& id);
    // A secret's name: [A-Z_][A-Z0-9_]*, 1..128 characters (an environment variable name).
    static bool isValidSecretName(const QString& name);
};

}  // namespace zeus
