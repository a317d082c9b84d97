#include "backend/protocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>

#include <cmath>
#include <cstring>

namespace zeus {

namespace {

// Field names are always plain ASCII literals; quoting them in messages lets the backend author grep.
QString quoted(QLatin1String field) {
    return QLatin1Char('"') + field + QLatin1Char('"');
}

ProtocolError invalid(const QString& message, const QString& callId = {}) {
    return ProtocolError{ProtocolErrorCode::InvalidMessage, message, callId};
}

// Reads the fields of one JSON object. The first problem wins: later reads become no-ops, so a parser reads
// all its fields in order and checks `failed()` once at the end. `callId` is remembered as soon as it is read
// and valid, so errors about later fields can still name the call.
class FieldReader {
public:
    FieldReader(const QJsonObject& object, QLatin1String prefix = {}) : m_object(object), m_prefix(prefix) {}

    bool failed() const { return m_error.has_value(); }
    ProtocolError error() const { return m_error.value_or(ProtocolError{}); }
    void fail(const QString& message) {
        if (!m_error) {
            m_error = invalid(message, m_callId);
        }
    }
    void setCallId(const QString& callId) { m_callId = callId; }
    const QString& callId() const { return m_callId; }

    QString name(QLatin1String field) const {
        if (m_prefix.isEmpty()) {
            return quoted(field);
        }
        return QLatin1Char('"') + m_prefix + QLatin1Char('.') + field + QLatin1Char('"');
    }

    // A present value, or a recorded "missing" error.
    std::optional<QJsonValue> value(QLatin1String field) {
        if (failed()) {
            return std::nullopt;
        }
        const auto it = m_object.constFind(field);
        if (it == m_object.constEnd()) {
            fail(QStringLiteral("field %1 is missing").arg(name(field)));
            return std::nullopt;
        }
        return it.value();
    }

    QString string(QLatin1String field, bool allowEmpty = false) {
        const std::optional<QJsonValue> v = value(field);
        if (!v) {
            return {};
        }
        if (!v->isString()) {
            fail(QStringLiteral("field %1 must be a string").arg(name(field)));
            return {};
        }
        QString s = v->toString();
        if (!allowEmpty && s.isEmpty()) {
            fail(QStringLiteral("field %1 must not be empty").arg(name(field)));
        }
        return s;
    }

    QString id(QLatin1String field) {
        QString s = string(field);
        if (failed()) {
            return {};
        }
        if (s.size() > Protocol::kMaxIdLength) {
            fail(QStringLiteral("field %1 is longer than %2 characters").arg(name(field)).arg(Protocol::kMaxIdLength));
            return {};
        }
        if (!Protocol::isValidId(s)) {
            fail(QStringLiteral("field %1 must be printable ASCII without spaces").arg(name(field)));
            return {};
        }
        return s;
    }

    // A string whose UTF-8 form is at most maxBytes and has no NUL (argv and paths cannot carry one).
    QString text(QLatin1String field, int maxBytes) {
        QString s = string(field);
        if (failed()) {
            return {};
        }
        // Cheap bound first so a huge string is not converted: UTF-8 needs at least one byte per UTF-16 unit.
        if (s.size() > maxBytes || s.toUtf8().size() > maxBytes) {
            fail(QStringLiteral("field %1 is longer than %2 bytes").arg(name(field)).arg(maxBytes));
            return {};
        }
        if (s.contains(QChar(0))) {
            fail(QStringLiteral("field %1 must not contain NUL characters").arg(name(field)));
            return {};
        }
        return s;
    }

    QJsonObject object(QLatin1String field) {
        const std::optional<QJsonValue> v = value(field);
        if (!v) {
            return {};
        }
        if (!v->isObject()) {
            fail(QStringLiteral("field %1 must be an object").arg(name(field)));
            return {};
        }
        return v->toObject();
    }

    const QJsonObject& json() const { return m_object; }

private:
    const QJsonObject& m_object;
    QLatin1String m_prefix;
    QString m_callId;
    std::optional<ProtocolError> m_error;
};

IncomingMessage parseWelcome(const QJsonObject& object) {
    FieldReader reader(object);
    WelcomeMessage message;
    const std::optional<QJsonValue> protocol = reader.value(QLatin1String("protocol"));
    if (protocol) {
        if (!protocol->isDouble()) {
            reader.fail(QStringLiteral("field \"protocol\" must be a number"));
        } else if (protocol->toDouble() != Protocol::kVersion) {
            reader.fail(
                QStringLiteral("unsupported protocol version; this app speaks version %1").arg(Protocol::kVersion));
        }
    }
    message.server = reader.string(QLatin1String("server"), true);
    if (!reader.failed() && message.server.size() > Protocol::kMaxServerLength) {
        reader.fail(QStringLiteral("field \"server\" is longer than %1 characters").arg(Protocol::kMaxServerLength));
    }
    if (reader.failed()) {
        return reader.error();
    }
    return message;
}

IncomingMessage parseToolCall(const QJsonObject& object) {
    FieldReader reader(object);
    ToolCallMessage message;
    message.callId = reader.id(QLatin1String("call_id"));
    reader.setCallId(message.callId);
    message.sessionId = reader.id(QLatin1String("session_id"));
    message.tool = reader.string(QLatin1String("tool"));
    if (reader.failed()) {
        return reader.error();
    }
    // Checked before args: another tool's arguments have another shape, and the backend must learn that the
    // tool is the problem, not its arguments.
    if (message.tool != Protocol::kDesktopExec) {
        return ProtocolError{ProtocolErrorCode::UnsupportedTool,
                             QStringLiteral("unsupported tool; this app only offers \"desktop_exec\""), message.callId};
    }
    const QJsonObject args = reader.object(QLatin1String("args"));
    if (reader.failed()) {
        return reader.error();
    }

    FieldReader argsReader(args, QLatin1String("args"));
    argsReader.setCallId(message.callId);
    message.command = argsReader.text(QLatin1String("command"), Protocol::kMaxCommandBytes);
    message.workingDirectory = argsReader.text(QLatin1String("working_directory"), Protocol::kMaxPathBytes);
    if (argsReader.failed()) {
        return argsReader.error();
    }
    const auto timeout = args.constFind(QLatin1String("timeout_s"));
    // null means the same as absent: the app's default timeout.
    if (timeout != args.constEnd() && !timeout.value().isNull()) {
        if (!timeout.value().isDouble()) {
            return invalid(QStringLiteral("field \"args.timeout_s\" must be a number"), message.callId);
        }
        const double seconds = timeout.value().toDouble();
        if (!std::isfinite(seconds) || seconds <= 0 || seconds > Protocol::kMaxTimeoutSeconds) {
            return invalid(QStringLiteral("field \"args.timeout_s\" must be greater than 0 and at most %1")
                               .arg(Protocol::kMaxTimeoutSeconds),
                           message.callId);
        }
        message.timeoutMs = static_cast<qint64>(std::ceil(seconds * 1000.0));
    }
    const auto secrets = args.constFind(QLatin1String("secrets"));
    // null and [] mean the same as absent: no secret.
    if (secrets != args.constEnd() && !secrets.value().isNull()) {
        if (!secrets.value().isArray()) {
            return invalid(QStringLiteral("field \"args.secrets\" must be an array of names"), message.callId);
        }
        const QJsonArray names = secrets.value().toArray();
        if (names.size() > Protocol::kMaxSecretsPerCall) {
            return invalid(
                QStringLiteral("field \"args.secrets\" holds more than %1 names").arg(Protocol::kMaxSecretsPerCall),
                message.callId);
        }
        for (const auto& name : names) {
            if (!name.isString() || !Protocol::isValidSecretName(name.toString())) {
                return invalid(QStringLiteral("field \"args.secrets\" must hold names of the form [A-Z_][A-Z0-9_]* "
                                              "(at most %1 characters)")
                                   .arg(Protocol::kMaxSecretNameLength),
                               message.callId);
            }
            if (message.secrets.contains(name.toString())) {
                return invalid(QStringLiteral("field \"args.secrets\" names a secret twice"), message.callId);
            }
            message.secrets.append(name.toString());
        }
    }
    return message;
}

template <typename Message>
IncomingMessage parseCallIdOnly(const QJsonObject& object) {
    FieldReader reader(object);
    Message message;
    message.callId = reader.id(QLatin1String("call_id"));
    if (reader.failed()) {
        return reader.error();
    }
    return message;
}

IncomingMessage parseSessionEnd(const QJsonObject& object) {
    FieldReader reader(object);
    SessionEndMessage message;
    message.sessionId = reader.id(QLatin1String("session_id"));
    if (reader.failed()) {
        return reader.error();
    }
    return message;
}

IncomingMessage parseOpenPort(const QJsonObject& object) {
    FieldReader reader(object);
    OpenPortMessage message;
    message.sessionId = reader.id(QLatin1String("session_id"));
    if (reader.failed()) {
        return reader.error();
    }
    // A whole number in 1..65535: not a string, not 8000.5, not 0 (the container's port is never "any").
    const QJsonValue port = object.value(QLatin1String("port"));
    const double value = port.toDouble(-1);
    if (!port.isDouble() || !std::isfinite(value) || value != std::floor(value) || value < 1 || value > 65535) {
        return invalid(QStringLiteral("field \"port\" must be a whole number from 1 to 65535"));
    }
    message.port = int(value);
    return message;
}

}  // namespace

bool Protocol::isValidId(const QString& id) {
    if (id.isEmpty() || id.size() > kMaxIdLength) {
        return false;
    }
    for (const QChar c : id) {
        if (c.unicode() < 0x21 || c.unicode() > 0x7e) {
            return false;
        }
    }
    return true;
}

bool Protocol::isValidSecretName(const QString& name) {
    if (name.isEmpty() || name.size() > kMaxSecretNameLength) {
        return false;
    }
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char16_t c = name.at(i).unicode();
        const bool letter = (c >= u'A' && c <= u'Z') || c == u'_';
        const bool digit = c >= u'0' && c <= u'9';
        if (!letter && !(digit && i > 0)) {
            return false;
        }
    }
    return true;
}

IncomingMessage Protocol::parseIncoming(const QByteArray& frame) {
    if (frame.trimmed().isEmpty()) {
        return invalid(QStringLiteral("empty message"));
    }
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(frame, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return invalid(
            QStringLiteral("not valid JSON: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset));
    }
    if (!document.isObject()) {
        return invalid(QStringLiteral("a message must be a JSON object"));
    }
    const QJsonObject object = document.object();

    // Even a message of unknown type should name its call when it has one, so read call_id leniently here.
    QString callId;
    const QJsonValue callIdValue = object.value(QLatin1String("call_id"));
    if (callIdValue.isString() && isValidId(callIdValue.toString())) {
        callId = callIdValue.toString();
    }

    const auto typeIt = object.constFind(QLatin1String("type"));
    if (typeIt == object.constEnd()) {
        return invalid(QStringLiteral("field \"type\" is missing"), callId);
    }
    if (!typeIt.value().isString()) {
        return invalid(QStringLiteral("field \"type\" must be a string"), callId);
    }
    const QString type = typeIt.value().toString();

    if (type == QLatin1String("welcome")) {
        return parseWelcome(object);
    }
    if (type == QLatin1String("tool_call")) {
        return parseToolCall(object);
    }
    if (type == QLatin1String("cancel")) {
        return parseCallIdOnly<CancelMessage>(object);
    }
    if (type == QLatin1String("session_end")) {
        return parseSessionEnd(object);
    }
    if (type == QLatin1String("ack")) {
        return parseCallIdOnly<AckMessage>(object);
    }
    if (type == QLatin1String("open_port")) {
        return parseOpenPort(object);
    }

    // Echo the type only when it is short and harmless, never a megabyte of garbage.
    if (isValidId(type) && type.size() <= 64) {
        return invalid(QStringLiteral("unknown message type \"%1\"").arg(type), callId);
    }
    return invalid(QStringLiteral("unknown message type"), callId);
}

QJsonObject Protocol::makeHello(const HelloMessage& hello) {
    QJsonArray workspaces;
    for (const QString& path : hello.workspaces) {
        workspaces.append(QJsonObject{{QStringLiteral("path"), path}});
    }
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("hello")},
        {QStringLiteral("protocol"), kVersion},
        {QStringLiteral("client"), QJsonObject{{QStringLiteral("name"), hello.clientName},
                                               {QStringLiteral("version"), hello.clientVersion},
                                               {QStringLiteral("os"), hello.os},
                                               {QStringLiteral("arch"), hello.arch}}},
        {QStringLiteral("device_id"), hello.deviceId},
        {QStringLiteral("runtime"),
         QJsonObject{
             {QStringLiteral("kind"), hello.runtime.kind.isEmpty() ? QJsonValue() : QJsonValue(hello.runtime.kind)},
             {QStringLiteral("version"), hello.runtime.version},
             {QStringLiteral("status"), hello.runtime.ready ? QStringLiteral("ready") : QStringLiteral("unavailable")},
             {QStringLiteral("reason"), hello.runtime.reason}}},
        {QStringLiteral("workspaces"), workspaces},
        {QStringLiteral("pending"), QJsonArray::fromStringList(hello.pending)},
        {QStringLiteral("secrets"), QJsonArray::fromStringList(hello.secrets)},
    };
}

QJsonObject Protocol::makeToolOutput(const QString& callId, OutputStream stream, qint64 seq, const QString& data) {
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("tool_output")},
        {QStringLiteral("call_id"), callId},
        {QStringLiteral("stream"), streamName(stream)},
        {QStringLiteral("seq"), seq},
        {QStringLiteral("data"), data},
    };
}

QJsonObject Protocol::makeToolResult(const ToolResultMessage& result) {
    QJsonObject object{
        {QStringLiteral("type"), QStringLiteral("tool_result")},
        {QStringLiteral("call_id"), result.callId},
        {QStringLiteral("status"), execStatusName(result.status)},
        {QStringLiteral("exit_code"), result.exitCode ? QJsonValue(*result.exitCode) : QJsonValue()},
        {QStringLiteral("output"), result.output},
        {QStringLiteral("truncated"), result.truncated},
        {QStringLiteral("duration_ms"), result.durationMs},
        {QStringLiteral("redacted"), result.redacted},
    };
    if (result.status == ExecStatus::Error) {
        object.insert(QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), errorCodeName(result.errorCode)},
                                                           {QStringLiteral("message"), result.errorMessage}});
    }
    return object;
}

QJsonObject Protocol::makeSessionState(const QString& sessionId, SessionState state, const QString& container) {
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("session_state")},
        {QStringLiteral("session_id"), sessionId},
        {QStringLiteral("state"), sessionStateName(state)},
        {QStringLiteral("container"), container.isEmpty() ? QJsonValue() : QJsonValue(container)},
    };
}

QJsonObject Protocol::makeCallState(const QString& callId, CallState state, int position) {
    QJsonObject object{
        {QStringLiteral("type"), QStringLiteral("call_state")},
        {QStringLiteral("call_id"), callId},
        {QStringLiteral("state"), callStateName(state)},
    };
    if (state == CallState::Queued) {
        object.insert(QStringLiteral("position"), position);
    }
    return object;
}

QLatin1String Protocol::callStateName(CallState state) {
    switch (state) {
        case CallState::WaitingApproval:
            return QLatin1String("waiting_approval");
        case CallState::Queued:
            return QLatin1String("queued");
        case CallState::Running:
            return QLatin1String("running");
    }
    return QLatin1String("waiting_approval");
}

QJsonObject Protocol::makeNetworkEvent(const QString& sessionId, const QString& callId, const QString& host, int port,
                                       const QString& decision, const QString& rule) {
    QJsonObject object{
        {QStringLiteral("type"), QStringLiteral("network_event")},
        {QStringLiteral("session_id"), sessionId},
        {QStringLiteral("host"), host},
        {QStringLiteral("port"), port},
        {QStringLiteral("decision"), decision},
        {QStringLiteral("rule"), rule},
    };
    if (!callId.isEmpty()) {
        object.insert(QStringLiteral("call_id"), callId);
    }
    return object;
}

QJsonObject Protocol::makePortOpened(const QString& sessionId, int port, int hostPort, const QString& url) {
    return QJsonObject{
        {QStringLiteral("type"), QStringLiteral("port_opened")},
        {QStringLiteral("session_id"), sessionId},
        {QStringLiteral("port"), port},
        {QStringLiteral("host_port"), hostPort},
        {QStringLiteral("url"), url},
    };
}

QJsonObject Protocol::makeError(const ProtocolError& error) {
    return makeError(error.code, error.message, error.callId);
}

QJsonObject Protocol::makeError(ProtocolErrorCode code, const QString& message, const QString& callId) {
    QJsonObject object{
        {QStringLiteral("type"), QStringLiteral("error")},
        {QStringLiteral("code"), errorCodeName(code)},
        {QStringLiteral("message"), message},
    };
    if (!callId.isEmpty()) {
        object.insert(QStringLiteral("call_id"), callId);
    }
    return object;
}

QJsonObject Protocol::toJson(const WelcomeMessage& message) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("welcome")},
                       {QStringLiteral("protocol"), message.protocol},
                       {QStringLiteral("server"), message.server}};
}

QJsonObject Protocol::toJson(const ToolCallMessage& message) {
    QJsonObject args{{QStringLiteral("command"), message.command},
                     {QStringLiteral("working_directory"), message.workingDirectory}};
    if (message.timeoutMs) {
        args.insert(QStringLiteral("timeout_s"), static_cast<double>(*message.timeoutMs) / 1000.0);
    }
    if (!message.secrets.isEmpty()) {
        args.insert(QStringLiteral("secrets"), QJsonArray::fromStringList(message.secrets));
    }
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("tool_call")},
                       {QStringLiteral("call_id"), message.callId},
                       {QStringLiteral("session_id"), message.sessionId},
                       {QStringLiteral("tool"), message.tool.isEmpty() ? QString(kDesktopExec) : message.tool},
                       {QStringLiteral("args"), args}};
}

QJsonObject Protocol::toJson(const CancelMessage& message) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("cancel")}, {QStringLiteral("call_id"), message.callId}};
}

QJsonObject Protocol::toJson(const OpenPortMessage& message) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("open_port")},
                       {QStringLiteral("session_id"), message.sessionId},
                       {QStringLiteral("port"), message.port}};
}

QJsonObject Protocol::toJson(const SessionEndMessage& message) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("session_end")},
                       {QStringLiteral("session_id"), message.sessionId}};
}

QJsonObject Protocol::toJson(const AckMessage& message) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("ack")}, {QStringLiteral("call_id"), message.callId}};
}

QByteArray Protocol::toFrame(const QJsonObject& message) {
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

namespace {

// Whether any of 8 bytes needs escaping in a JSON string: below 0x20, '"' or '\\'. Exact as a whole (the classic
// "has less" and "has zero" bit tricks); which byte it is, the caller finds out bytewise.
bool anyNeedsEscape(quint64 v) {
    constexpr quint64 ones = 0x0101010101010101ULL;
    constexpr quint64 high = 0x8080808080808080ULL;
    const quint64 control = (v - ones * 0x20) & ~v & high;
    const quint64 q = v ^ (ones * '"');
    const quint64 b = v ^ (ones * '\\');
    return (control | ((q - ones) & ~q & high) | ((b - ones) & ~b & high)) != 0;
}

bool needsEscape(unsigned char c) {
    return c < 0x20 || c == '"' || c == '\\';
}

}  // namespace

void Protocol::appendJsonString(QByteArray& out, QByteArrayView utf8) {
    static constexpr char kHex[] = "0123456789abcdef";
    const char* const begin = utf8.data();
    const qsizetype size = utf8.size();
    // Worst case every byte becomes \u00XX; reserving for that would waste 6x: grow when escapes show up.
    out.reserve(out.size() + size + 2);
    out.append('"');
    qsizetype run = 0;  // start of the bytes not yet copied
    qsizetype i = 0;
    while (i < size) {
        // Output is mostly plain text: skip 8 bytes at a time while none needs escaping.
        if (i + 8 <= size) {
            quint64 word;
            memcpy(&word, begin + i, sizeof word);
            if (!anyNeedsEscape(word)) {
                i += 8;
                continue;
            }
        }
        const qsizetype stop = qMin(i + 8, size);
        for (; i < stop; ++i) {
            const auto c = static_cast<unsigned char>(begin[i]);
            if (!needsEscape(c)) {
                continue;
            }
            out.append(begin + run, i - run);
            run = i + 1;
            char escape[6] = {'\\', 0, 0, 0, 0, 0};
            qsizetype length = 2;
            switch (c) {
                case '"':
                    escape[1] = '"';
                    break;
                case '\\':
                    escape[1] = '\\';
                    break;
                case '\b':
                    escape[1] = 'b';
                    break;
                case '\f':
                    escape[1] = 'f';
                    break;
                case '\n':
                    escape[1] = 'n';
                    break;
                case '\r':
                    escape[1] = 'r';
                    break;
                case '\t':
                    escape[1] = 't';
                    break;
                default:
                    escape[1] = 'u';
                    escape[2] = '0';
                    escape[3] = '0';
                    escape[4] = kHex[c >> 4];
                    escape[5] = kHex[c & 0xf];
                    length = 6;
                    break;
            }
            out.append(escape, length);
        }
    }
    out.append(begin + run, size - run);
    out.append('"');
}

QByteArray Protocol::toolOutputFrame(const QString& callId, OutputStream stream, qint64 seq,
                                     const QByteArray& utf8Data) {
    // Keys in QJsonDocument's order (sorted), so the frame is the same as toFrame(makeToolOutput(...)).
    QByteArray frame;
    frame.reserve(utf8Data.size() + callId.size() + 96);
    frame.append("{\"call_id\":");
    appendJsonString(frame, callId.toUtf8());
    frame.append(",\"data\":");
    appendJsonString(frame, utf8Data);
    frame.append(",\"seq\":");
    frame.append(QByteArray::number(seq));
    frame.append(R"(,"stream":")");
    frame.append(streamName(stream).latin1());
    frame.append(R"(","type":"tool_output"})");
    return frame;
}

QByteArray Protocol::toolResultFrame(const ToolResultMessage& result) {
    QByteArray output = result.output.toUtf8();
    QByteArray frame;
    frame.reserve(output.size() + result.errorMessage.size() * 3 + result.callId.size() + 192);
    frame.append("{\"call_id\":");
    appendJsonString(frame, result.callId.toUtf8());
    frame.append(",\"duration_ms\":");
    frame.append(QByteArray::number(result.durationMs));
    if (result.status == ExecStatus::Error) {
        frame.append(R"(,"error":{"code":")");
        frame.append(errorCodeName(result.errorCode).latin1());
        frame.append(R"(","message":)");
        appendJsonString(frame, result.errorMessage.toUtf8());
        frame.append('}');
    }
    frame.append(",\"exit_code\":");
    frame.append(result.exitCode ? QByteArray::number(*result.exitCode) : QByteArray("null"));
    frame.append(",\"output\":");
    appendJsonString(frame, output);
    output = QByteArray();  // the big transient copy goes before the caller makes its own
    frame.append(",\"redacted\":");
    frame.append(QByteArray::number(result.redacted));
    frame.append(R"(,"status":")");
    frame.append(execStatusName(result.status).latin1());
    frame.append(R"(","truncated":)");
    frame.append(result.truncated ? "true" : "false");
    frame.append(R"(,"type":"tool_result"})");
    return frame;
}

QLatin1String Protocol::errorCodeName(ProtocolErrorCode code) {
    switch (code) {
        case ProtocolErrorCode::InvalidMessage:
            return QLatin1String("invalid_message");
        case ProtocolErrorCode::UnsupportedTool:
            return QLatin1String("unsupported_tool");
        case ProtocolErrorCode::NoRuntime:
            return QLatin1String("no_runtime");
        case ProtocolErrorCode::WorkspaceNotApproved:
            return QLatin1String("workspace_not_approved");
        case ProtocolErrorCode::WorkspaceInvalid:
            return QLatin1String("workspace_invalid");
        case ProtocolErrorCode::ImageMissing:
            return QLatin1String("image_missing");
        case ProtocolErrorCode::ContainerFailed:
            return QLatin1String("container_failed");
        case ProtocolErrorCode::Busy:
            return QLatin1String("busy");
        case ProtocolErrorCode::SecretDenied:
            return QLatin1String("secret_denied");
        case ProtocolErrorCode::SecretUnknown:
            return QLatin1String("secret_unknown");
        case ProtocolErrorCode::ApprovalDenied:
            return QLatin1String("approval_denied");
    }
    return QLatin1String("invalid_message");
}

std::optional<ProtocolErrorCode> Protocol::errorCodeFromName(const QString& name) {
    for (const ProtocolErrorCode code :
         {ProtocolErrorCode::InvalidMessage, ProtocolErrorCode::UnsupportedTool, ProtocolErrorCode::NoRuntime,
          ProtocolErrorCode::WorkspaceNotApproved, ProtocolErrorCode::WorkspaceInvalid, ProtocolErrorCode::ImageMissing,
          ProtocolErrorCode::ContainerFailed, ProtocolErrorCode::Busy, ProtocolErrorCode::SecretDenied,
          ProtocolErrorCode::SecretUnknown, ProtocolErrorCode::ApprovalDenied}) {
        if (name == errorCodeName(code)) {
            return code;
        }
    }
    return std::nullopt;
}

QLatin1String Protocol::streamName(OutputStream stream) {
    return stream == OutputStream::Stderr ? QLatin1String("stderr") : QLatin1String("stdout");
}

}  // namespace zeus
