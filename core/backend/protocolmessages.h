#pragma once

#include "support/execstatus.h"
#include "support/outputstream.h"
#include "support/sessionstate.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>
#include <variant>

// The typed messages of backend protocol v1 (docs/protocol.md). Plain data: no behaviour, no Qt objects, so
// they can be copied across threads and queued connections. Parsing and serialising live in Protocol.
namespace zeus {

// The error codes of the `error` message and of ToolResult::errorCode. The wire names are in
// Protocol::errorCodeName(); never compare the strings by hand.
enum class ProtocolErrorCode {
    InvalidMessage,
    UnsupportedTool,
    NoRuntime,
    WorkspaceNotApproved,
    WorkspaceInvalid,
    ImageMissing,
    ContainerFailed,
    Busy,
    SecretDenied,    // SPEC §9: the user (or, headless, --allow-secret) did not approve a secret the call asked for
    SecretUnknown,   // SPEC §9: no secret of that name is stored on this computer
    ApprovalDenied,  // SPEC §11: the user, a deny rule or a timeout refused the command
};

// The states of call_state (SPEC §3, §11): where a call stands before its result.
//   WaitingApproval - the user is being asked whether it may run;
//   Queued          - it waits in its session's queue (its session or all sessions run as many calls as they may,
//                     or no container is free); sent with its 1-based place in that queue;
//   Running         - it left the queue and started (sent only for a call that was queued).
enum class CallState { WaitingApproval, Queued, Running };

// Why an inbound frame could not be turned into a message. callId is set when the frame carried a valid
// call_id, so the `error` reply can name the call it concerns.
struct ProtocolError {
    ProtocolErrorCode code = ProtocolErrorCode::InvalidMessage;
    QString message;
    QString callId;

    bool operator==(const ProtocolError& o) const {
        return code == o.code && message == o.message && callId == o.callId;
    }
};

// ---- backend -> app -------------------------------------------------------------------------------------

struct WelcomeMessage {
    int protocol = 1;
    QString server;

    bool operator==(const WelcomeMessage& o) const { return protocol == o.protocol && server == o.server; }
};

struct ToolCallMessage {
    QString callId;
    QString sessionId;
    QString tool;  // always "desktop_exec" once parsed; anything else is unsupported_tool
    QString command;
    QString workingDirectory;
    // The requested timeout in milliseconds; empty when the backend left it to the app's default.
    std::optional<qint64> timeoutMs;
    // args.secrets: the names of the secrets this one command needs in its environment (SPEC §9); distinct.
    QStringList secrets;

    bool operator==(const ToolCallMessage& o) const {
        return callId == o.callId && sessionId == o.sessionId && tool == o.tool && command == o.command
               && workingDirectory == o.workingDirectory && timeoutMs == o.timeoutMs && secrets == o.secrets;
    }
};

struct CancelMessage {
    QString callId;

    bool operator==(const CancelMessage& o) const { return callId == o.callId; }
};

struct SessionEndMessage {
    QString sessionId;

    bool operator==(const SessionEndMessage& o) const { return sessionId == o.sessionId; }
};

struct AckMessage {
    QString callId;

    bool operator==(const AckMessage& o) const { return callId == o.callId; }
};

// SPEC §8 "Ports": the backend asks to publish the session's container port on this computer's 127.0.0.1 (the user
// approves; headless: --allow-publish). port_opened or an `error` answers (docs/protocol.md).
struct OpenPortMessage {
    QString sessionId;
    int port = 0;  // 1..65535

    bool operator==(const OpenPortMessage& o) const { return sessionId == o.sessionId && port == o.port; }
};

// What Protocol::parseIncoming() returns: exactly one message, or the reason it could not be read.
using IncomingMessage = std::variant<ProtocolError, WelcomeMessage, ToolCallMessage, CancelMessage, SessionEndMessage,
                                     AckMessage, OpenPortMessage>;

// ---- app -> backend -------------------------------------------------------------------------------------

struct RuntimeReport {
    QString kind;  // "apple", "docker", "podman", or empty for none (sent as null)
    QString version;
    bool ready = false;  // "ready" / "unavailable"
    QString reason;      // why it is unavailable; empty when ready
};

struct HelloMessage {
    QString clientName;
    QString clientVersion;
    QString os;
    QString arch;
    QString deviceId;
    RuntimeReport runtime;
    QStringList workspaces;  // approved host folders
    QStringList pending;     // call_ids whose results are kept and not acknowledged yet
    QStringList secrets;     // the names of the secrets stored on this computer; never a value (SPEC §9)
};

struct ToolResultMessage {
    QString callId;
    ExecStatus status = ExecStatus::Ok;
    std::optional<int> exitCode;  // null when the command never ran or was killed
    QString output;               // stdout and stderr in arrival order, capped
    bool truncated = false;
    qint64 durationMs = 0;
    qint64 redacted = 0;  // secret forms replaced in the output (SPEC §9)
    // Only with status Error:
    ProtocolErrorCode errorCode = ProtocolErrorCode::ContainerFailed;
    QString errorMessage;
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::IncomingMessage)
