#include "mcpbridgechannel.h"

#include "support/logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>

#include <utility>

namespace zeus {

namespace {

const QByteArray kMcpGreeting = QByteArrayLiteral("mcp 1");
const QByteArray kActivateGreeting = QByteArrayLiteral("activate");

QByteArray compact(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

}  // namespace

McpBridgeChannel::McpBridgeChannel(QLocalSocket* socket, QObject* parent) : QObject(parent), m_socket(socket) {
    m_socket->setParent(this);
    connect(m_socket, &QLocalSocket::readyRead, this, &McpBridgeChannel::onReadyRead);
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        if (!std::exchange(m_closed, true)) {
            Q_EMIT closed();
        }
    });
    connect(m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
        // The peer going away is also an error on some platforms; either way the bridge is over.
        if (error != QLocalSocket::SocketTimeoutError && m_socket->state() != QLocalSocket::ConnectedState
            && !std::exchange(m_closed, true)) {
            Q_EMIT closed();
        }
    });
}

McpBridgeChannel::~McpBridgeChannel() {
    m_socket->disconnect(this);
}

bool McpBridgeChannel::isOpen() const {
    return !m_closed && m_socket->state() == QLocalSocket::ConnectedState;
}

qintptr McpBridgeChannel::descriptor() const {
    return m_socket->socketDescriptor();
}

void McpBridgeChannel::sendLine(const QByteArray& line) {
    if (!isOpen() || m_overflowed) {
        return;
    }
    if (m_socket->bytesToWrite() + line.size() + 1 > m_maxPendingBytes) {
        qCWarning(lcApp) << "MCP bridge: the peer reads nothing and" << m_socket->bytesToWrite()
                         << "bytes wait for it; closing";
        m_overflowed = true;
        // Not from inside the sender's emit: closed() ends the sender's session, which is still in its call.
        QMetaObject::invokeMethod(m_socket, &QLocalSocket::abort, Qt::QueuedConnection);
        return;
    }
    m_socket->write(line);
    m_socket->write("\n", 1);
}

void McpBridgeChannel::close() {
    if (m_socket->state() == QLocalSocket::UnconnectedState) {
        if (!std::exchange(m_closed, true)) {
            Q_EMIT closed();
        }
        return;
    }
    m_socket->disconnectFromServer();  // writes what is queued first; disconnected() follows
}

void McpBridgeChannel::onReadyRead() {
    // Read as it comes, whole reads at a time; a line over the bound is counted out, never kept.
    while (m_socket->bytesAvailable() > 0 && !m_closed) {
        const QByteArray data = m_socket->read(64 * 1024);
        if (data.isEmpty()) {
            return;
        }
        qsizetype from = 0;
        while (from < data.size()) {
            const qsizetype newline = data.indexOf('\n', from);
            const qsizetype to = newline < 0 ? data.size() : newline;
            if (!m_discarding) {
                m_buffer.append(data.constData() + from, to - from);
                if (m_buffer.size() > kMaxLineBytes + 1) {
                    m_buffer = QByteArray();
                    m_discarding = true;
                    Q_EMIT oversizedLine();
                }
            }
            if (newline < 0) {
                break;
            }
            if (!m_discarding) {
                deliver();
            }
            m_discarding = false;
            from = newline + 1;
        }
    }
}

void McpBridgeChannel::deliver() {
    QByteArray line = std::exchange(m_buffer, QByteArray());
    if (line.endsWith('\r')) {
        line.chop(1);
    }
    if (!line.trimmed().isEmpty()) {
        Q_EMIT lineReceived(line);
    }
}

QByteArray McpBridgeChannel::requestBytes(const QStringList& workspaces) {
    return kMcpGreeting + '\n'
           + compact(QJsonObject{{QStringLiteral("workspaces"), QJsonArray::fromStringList(workspaces)}}) + '\n';
}

McpBridgeChannel::Greeting McpBridgeChannel::greeting(const QByteArray& line) {
    const QByteArray word = line.trimmed();
    if (word == kMcpGreeting) {
        return Greeting::Mcp;
    }
    // An older launch wrote "activate" and nothing else; anything that starts so is taken as that.
    if (word.startsWith(kActivateGreeting)) {
        return Greeting::Activate;
    }
    return Greeting::Unknown;
}

std::optional<QStringList> McpBridgeChannel::parseRequest(const QByteArray& line) {
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        return std::nullopt;
    }
    const QJsonValue value = document.object().value(QStringLiteral("workspaces"));
    const QJsonArray entries = value.toArray();
    if (!value.isArray() || entries.size() > kMaxWorkspaces) {
        return std::nullopt;
    }
    QStringList workspaces;
    for (const auto& entry : entries) {
        if (!entry.isString() || entry.toString().isEmpty()) {
            return std::nullopt;
        }
        workspaces << entry.toString();
    }
    return workspaces;
}

QByteArray McpBridgeChannel::acceptLine(const QString& session) {
    return compact(QJsonObject{{QStringLiteral("ok"), true}, {QStringLiteral("session"), session}});
}

QByteArray McpBridgeChannel::refuseLine(const QString& code, const QString& message) {
    return compact(QJsonObject{
        {QStringLiteral("ok"), false}, {QStringLiteral("code"), code}, {QStringLiteral("message"), message}});
}

std::optional<McpBridgeChannel::Answer> McpBridgeChannel::parseAnswer(const QByteArray& line) {
    const QJsonDocument document = QJsonDocument::fromJson(line);
    const QJsonObject object = document.object();
    if (!object.value(QStringLiteral("ok")).isBool()) {
        return std::nullopt;
    }
    Answer answer;
    answer.ok = object.value(QStringLiteral("ok")).toBool();
    answer.session = object.value(QStringLiteral("session")).toString();
    answer.code = object.value(QStringLiteral("code")).toString();
    answer.message = object.value(QStringLiteral("message")).toString();
    return answer;
}

}  // namespace zeus
