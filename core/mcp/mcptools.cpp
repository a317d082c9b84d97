#include "mcp/mcptools.h"

#include "backend/protocol.h"
#include "mcp/mcpcodec.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace zeus {

namespace {

struct ToolName {
    McpTool tool;
    QLatin1String name;
};

// One word table: the wire names exist here only.
constexpr ToolName kToolNames[] = {
    {McpTool::RunCommand, QLatin1String("run_command")},
    {McpTool::ListChanges, QLatin1String("list_changes")},
    {McpTool::ApplyChanges, QLatin1String("apply_changes")},
    {McpTool::DiscardChanges, QLatin1String("discard_changes")},
    {McpTool::OpenPort, QLatin1String("open_port")},
};

QJsonObject stringSchema(const QString& description) {
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                       {QStringLiteral("description"), description}};
}

QJsonObject objectSchema(const QJsonObject& properties, const QStringList& required = {}) {
    QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), properties},
                       {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty()) {
        schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    }
    return schema;
}

QJsonObject runCommandSchema() {
    const QJsonObject timeout{
        {QStringLiteral("type"), QStringLiteral("number")},
        {QStringLiteral("exclusiveMinimum"), 0},
        {QStringLiteral("maximum"), Protocol::kMaxTimeoutSeconds},
        {QStringLiteral("description"), QStringLiteral("Seconds before the command is stopped; the app's default "
                                                       "when absent.")}};
    const QJsonObject secrets{
        {QStringLiteral("type"), QStringLiteral("array")},
        {QStringLiteral("items"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                              {QStringLiteral("pattern"), QStringLiteral("^[A-Z_][A-Z0-9_]*$")}}},
        {QStringLiteral("maxItems"), Protocol::kMaxSecretsPerCall},
        {QStringLiteral("uniqueItems"), true},
        {QStringLiteral("description"), QStringLiteral("Names of secrets the user keeps in Zeus Desktop, set as "
                                                       "environment variables; their values never come back.")}};
    return objectSchema(
        QJsonObject{
            {QStringLiteral("command"), stringSchema(QStringLiteral("The shell command line to run in the sandbox."))},
            {QStringLiteral("working_directory"),
             stringSchema(QStringLiteral("Directory to run in, inside the approved folder; its root when absent."))},
            {QStringLiteral("timeout_s"), timeout},
            {QStringLiteral("secrets"), secrets},
            {QStringLiteral("session"),
             stringSchema(QStringLiteral("Another session (container) to run in; this connection's own when "
                                         "absent."))}},
        {QStringLiteral("command")});
}

QJsonObject toolDefinition(McpTool tool, const QString& description, const QJsonObject& schema) {
    return QJsonObject{{QStringLiteral("name"), McpTools::name(tool)},
                       {QStringLiteral("description"), description},
                       {QStringLiteral("inputSchema"), schema}};
}

JsonRpcError invalidParams(const QString& message, const QJsonValue& id) {
    return JsonRpcError{JsonRpcCode::kInvalidParams, message, id, QJsonValue(QJsonValue::Undefined)};
}

// Reads the arguments of one call: every member must be one the tool names; the first problem wins.
class ArgumentReader {
public:
    ArgumentReader(const QJsonObject& arguments, QJsonValue id) : m_arguments(arguments), m_id(std::move(id)) {}

    std::optional<JsonRpcError> error() const { return m_error; }

    void allowOnly(std::initializer_list<QLatin1String> names) {
        for (auto it = m_arguments.constBegin(); it != m_arguments.constEnd(); ++it) {
            if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
                const QString key = it.key().size() > 64 ? it.key().left(64) + QStringLiteral("…") : it.key();
                fail(QStringLiteral("unknown argument \"%1\"").arg(key));
                return;
            }
        }
    }

    // A present, non-null member.
    std::optional<QJsonValue> optional(QLatin1String name) const {
        if (m_error) {
            return std::nullopt;
        }
        const QJsonValue value = m_arguments.value(name);
        if (value.isUndefined() || value.isNull()) {
            return std::nullopt;
        }
        return value;
    }

    // A string of at most maxBytes UTF-8 bytes without NUL (argv and paths cannot carry one).
    QString text(QLatin1String name, int maxBytes, bool required) {
        const std::optional<QJsonValue> value = optional(name);
        if (!value) {
            if (required && !m_error) {
                fail(QStringLiteral("argument \"%1\" is missing").arg(name));
            }
            return {};
        }
        return checkedText(*value, name, maxBytes);
    }

    QString checkedText(const QJsonValue& value, QLatin1String name, int maxBytes) {
        if (!value.isString() || value.toString().isEmpty()) {
            fail(QStringLiteral("argument \"%1\" must be a non-empty string").arg(name));
            return {};
        }
        QString s = value.toString();
        // Cheap bound first so a huge string is not converted: UTF-8 needs at least one byte per UTF-16 unit.
        if (s.size() > maxBytes || s.toUtf8().size() > maxBytes) {
            fail(QStringLiteral("argument \"%1\" is longer than %2 bytes").arg(name).arg(maxBytes));
            return {};
        }
        if (s.contains(QChar(0))) {
            fail(QStringLiteral("argument \"%1\" must not contain NUL characters").arg(name));
            return {};
        }
        return s;
    }

    std::optional<QJsonArray> array(QLatin1String name, int maxItems) {
        const std::optional<QJsonValue> value = optional(name);
        if (!value) {
            return std::nullopt;
        }
        if (!value->isArray()) {
            fail(QStringLiteral("argument \"%1\" must be an array").arg(name));
            return std::nullopt;
        }
        if (value->toArray().size() > maxItems) {
            fail(QStringLiteral("argument \"%1\" has more than %2 entries").arg(name).arg(maxItems));
            return std::nullopt;
        }
        return value->toArray();
    }

    void fail(const QString& message) {
        if (!m_error) {
            m_error = invalidParams(message, m_id);
        }
    }

private:
    const QJsonObject& m_arguments;
    QJsonValue m_id;
    std::optional<JsonRpcError> m_error;
};

void readRunCommand(ArgumentReader& reader, McpToolCall& call) {
    reader.allowOnly({QLatin1String("command"), QLatin1String("working_directory"), QLatin1String("timeout_s"),
                      QLatin1String("secrets"), QLatin1String("session")});
    call.command = reader.text(QLatin1String("command"), Protocol::kMaxCommandBytes, true);
    call.workingDirectory = reader.text(QLatin1String("working_directory"), Protocol::kMaxPathBytes, false);
    if (const std::optional<QJsonValue> timeout = reader.optional(QLatin1String("timeout_s"))) {
        const double seconds = timeout->toDouble(-1);
        if (!timeout->isDouble() || !std::isfinite(seconds) || seconds <= 0 || seconds > Protocol::kMaxTimeoutSeconds) {
            reader.fail(QStringLiteral("argument \"timeout_s\" must be a number greater than 0 and at most %1")
                            .arg(Protocol::kMaxTimeoutSeconds));
        } else {
            call.timeoutMs = static_cast<qint64>(std::ceil(seconds * 1000.0));
        }
    }
    if (const std::optional<QJsonArray> secrets =
            reader.array(QLatin1String("secrets"), Protocol::kMaxSecretsPerCall)) {
        for (const QJsonValue name : *secrets) {
            if (!name.isString() || !Protocol::isValidSecretName(name.toString())) {
                reader.fail(QStringLiteral("argument \"secrets\" must hold names of the form [A-Z_][A-Z0-9_]*"));
                break;
            }
            if (call.secrets.contains(name.toString())) {
                reader.fail(QStringLiteral("argument \"secrets\" names a secret twice"));
                break;
            }
            call.secrets.append(name.toString());
        }
    }
    if (const std::optional<QJsonValue> session = reader.optional(QLatin1String("session"))) {
        if (!session->isString() || !Protocol::isValidId(session->toString())) {
            reader.fail(QStringLiteral("argument \"session\" must be 1 to %1 printable ASCII characters without "
                                       "spaces")
                            .arg(Protocol::kMaxIdLength));
        } else {
            call.session = session->toString();
        }
    }
}

void readApplyChanges(ArgumentReader& reader, McpToolCall& call) {
    reader.allowOnly({QLatin1String("paths")});
    const std::optional<QJsonArray> paths = reader.array(QLatin1String("paths"), McpTools::kMaxPaths);
    if (!paths) {
        return;
    }
    call.allPaths = false;
    for (const QJsonValue path : *paths) {
        const QString checked = reader.checkedText(path, QLatin1String("paths"), Protocol::kMaxPathBytes);
        if (reader.error()) {
            return;
        }
        call.paths.append(checked);
    }
}

void readOpenPort(ArgumentReader& reader, McpToolCall& call) {
    reader.allowOnly({QLatin1String("port")});
    const std::optional<QJsonValue> port = reader.optional(QLatin1String("port"));
    if (!port) {
        reader.fail(QStringLiteral("argument \"port\" is missing"));
        return;
    }
    const double value = port->toDouble(-1);
    if (!port->isDouble() || value != std::floor(value) || value < 1 || value > 65535) {
        reader.fail(QStringLiteral("argument \"port\" must be an integer from 1 to 65535"));
        return;
    }
    call.port = static_cast<int>(value);
}

}  // namespace

QLatin1String McpTools::name(McpTool tool) {
    for (const ToolName& entry : kToolNames) {
        if (entry.tool == tool) {
            return entry.name;
        }
    }
    return {};
}

std::optional<McpTool> McpTools::fromName(const QString& name) {
    for (const ToolName& entry : kToolNames) {
        if (entry.name == name) {
            return entry.tool;
        }
    }
    return std::nullopt;
}

QJsonArray McpTools::definitions() {
    const QJsonObject paths{
        {QStringLiteral("type"), QStringLiteral("array")},
        {QStringLiteral("items"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}},
        {QStringLiteral("maxItems"), kMaxPaths},
        {QStringLiteral("description"), QStringLiteral("Paths relative to the folder; every pending change when "
                                                       "absent.")}};
    const QJsonObject port{{QStringLiteral("type"), QStringLiteral("integer")},
                           {QStringLiteral("minimum"), 1},
                           {QStringLiteral("maximum"), 65535},
                           {QStringLiteral("description"), QStringLiteral("A port the sandbox listens on.")}};
    return QJsonArray{
        toolDefinition(McpTool::RunCommand,
                       QStringLiteral("Run a shell command in an isolated container that sees the approved folder, "
                                      "with the user's network allowlist; returns its output (secrets redacted), "
                                      "exit code and duration."),
                       runCommandSchema()),
        toolDefinition(McpTool::ListChanges,
                       QStringLiteral("In review mode, list the changes the sandbox made that are not yet in the "
                                      "folder."),
                       objectSchema({})),
        toolDefinition(McpTool::ApplyChanges,
                       QStringLiteral("In review mode, copy pending changes into the folder; the user is asked "
                                      "first."),
                       objectSchema(QJsonObject{{QStringLiteral("paths"), paths}})),
        toolDefinition(McpTool::DiscardChanges, QStringLiteral("In review mode, drop every pending change."),
                       objectSchema({})),
        toolDefinition(McpTool::OpenPort,
                       QStringLiteral("Publish a port the sandbox listens on at 127.0.0.1 and return its URL."),
                       objectSchema(QJsonObject{{QStringLiteral("port"), port}}, {QStringLiteral("port")})),
    };
}

std::variant<McpToolCall, JsonRpcError> McpTools::parseCall(const QJsonValue& requestId, const QJsonObject& params) {
    const QJsonValue name = params.value(QLatin1String("name"));
    if (!name.isString()) {
        return invalidParams(QStringLiteral("field \"name\" must be a string"), requestId);
    }
    const std::optional<McpTool> tool = fromName(name.toString());
    if (!tool) {
        const QString shown =
            name.toString().size() > 64 ? name.toString().left(64) + QStringLiteral("…") : name.toString();
        return invalidParams(QStringLiteral("unknown tool \"%1\"").arg(shown), requestId);
    }
    const QJsonValue arguments = params.value(QLatin1String("arguments"));
    if (!arguments.isUndefined() && !arguments.isNull() && !arguments.isObject()) {
        return invalidParams(QStringLiteral("field \"arguments\" must be an object"), requestId);
    }
    McpToolCall call;
    call.requestId = requestId;
    call.tool = *tool;
    const QJsonValue meta = params.value(QLatin1String("_meta"));
    if (meta.isObject() && meta.toObject().contains(QLatin1String("progressToken"))) {
        const QJsonValue token = meta.toObject().value(QLatin1String("progressToken"));
        if (!McpCodec::isValidId(token)) {
            return invalidParams(QStringLiteral("field \"_meta.progressToken\" must be a string or an integer"),
                                 requestId);
        }
        call.progressToken = token;
    }

    const QJsonObject args = arguments.toObject();
    ArgumentReader reader(args, requestId);
    switch (*tool) {
        case McpTool::RunCommand:
            readRunCommand(reader, call);
            break;
        case McpTool::ApplyChanges:
            readApplyChanges(reader, call);
            break;
        case McpTool::OpenPort:
            readOpenPort(reader, call);
            break;
        case McpTool::ListChanges:
        case McpTool::DiscardChanges:
            reader.allowOnly({});
            break;
    }
    if (reader.error()) {
        return *reader.error();
    }
    return call;
}

std::optional<McpCancel> McpTools::parseCancel(const QJsonObject& params) {
    const QJsonValue id = params.value(QLatin1String("requestId"));
    if (!McpCodec::isValidId(id)) {
        return std::nullopt;
    }
    const QJsonValue reason = params.value(QLatin1String("reason"));
    if (!reason.isUndefined() && !reason.isNull()
        && (!reason.isString() || reason.toString().size() > kMaxReasonLength)) {
        return std::nullopt;
    }
    return McpCancel{id, reason.toString()};
}

std::optional<QJsonObject> McpTools::progressNotification(const McpToolCall& call, double progress,
                                                          const QString& message) {
    if (call.progressToken.isUndefined()) {
        return std::nullopt;
    }
    QJsonObject params{{QStringLiteral("progressToken"), call.progressToken}, {QStringLiteral("progress"), progress}};
    if (!message.isEmpty()) {
        params.insert(QStringLiteral("message"), message.left(kMaxProgressMessage));
    }
    return McpCodec::makeNotification(QStringLiteral("notifications/progress"), params);
}

}  // namespace zeus
