#include "testbackend.h"

#include "backend/protocol.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTextStream>
#include <QTimer>
#include <QWebSocket>
#include <QWebSocketServer>

#include <utility>

namespace zeus {

namespace {

constexpr int kMaxHandshakeBytes = 16 * 1024;
const QString kWaitAll = QStringLiteral("*");

QString jsonText(const QJsonObject& object) {
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

}  // namespace

TestBackend::TestBackend(Options options, QTextStream& out, QTextStream& err, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_out(out), m_err(err) {
    m_ws = new QWebSocketServer(QStringLiteral("zeus-testbackend"), QWebSocketServer::NonSecureMode, this);
    connect(&m_tcp, &QTcpServer::newConnection, this, &TestBackend::onTcpConnection);
    connect(m_ws, &QWebSocketServer::newConnection, this, &TestBackend::onAppConnected);
}

TestBackend::~TestBackend() = default;

bool TestBackend::listen() {
    if (!m_tcp.listen(QHostAddress::LocalHost, m_options.port)) {
        m_err << "zeus-testbackend: cannot listen on 127.0.0.1:" << m_options.port << ": " << m_tcp.errorString()
              << Qt::endl;
        return false;
    }
    return true;
}

quint16 TestBackend::port() const {
    return m_tcp.serverPort();
}

QString TestBackend::help() {
    return QStringLiteral(
        "Each line is a command run in the app's sandbox (as a tool_call); the next line waits for its result.\n"
        "  &COMMAND          send without waiting for the result\n"
        "  :cancel CALL_ID   cancel a running call (ids are c1, c2, ... in order)\n"
        "  :end [SESSION]    end the session (its container is removed)\n"
        "  :raw TEXT         send TEXT as one frame, unchecked (to try bad messages)\n"
        "  :sleep MS         pause before the next line\n"
        "  :secret N1,N2 CMD run CMD with the secrets N1, N2 in its environment (args.secrets)\n"
        "  :wait             wait for every outstanding result\n"
        "  :quit             exit\n"
        "  # ...             a comment\n");
}

void TestBackend::addLine(const QString& line) {
    m_lines.append(line);
    const QString trimmed = line.trimmed();
    if ((!m_app || !m_helloSeen) && !trimmed.isEmpty() && !trimmed.startsWith(QLatin1Char('#'))) {
        // Said, so a typed line never seems to vanish: it waits for the app and is sent when it says hello.
        m_out << "queued (no app connected yet): " << printable(line) << Qt::endl;
    }
    processLines();
}

void TestBackend::endOfInput() {
    m_inputEnded = true;
    checkDone();
}

void TestBackend::onTcpConnection() {
    while (QTcpSocket* socket = m_tcp.nextPendingConnection()) {
        // The handshake is read here first only to check the token; QWebSocketServer then reads it again.
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onHandshakeData(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        if (socket->bytesAvailable() > 0) {
            onHandshakeData(socket);
        }
    }
}

void TestBackend::onHandshakeData(QTcpSocket* socket) {
    const QByteArray head = socket->peek(kMaxHandshakeBytes);
    if (!head.contains("\r\n\r\n") && head.size() < kMaxHandshakeBytes) {
        return;  // not complete yet
    }
    socket->disconnect(this);
    if (!isAuthorized(head, m_options.token)) {
        // Another local user (or anything without the token): refused before the upgrade, so it never replaces
        // the app's connection.
        m_out << "refused 401" << Qt::endl;
        socket->write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        socket->disconnectFromHost();
        return;
    }
    m_ws->handleConnection(socket);
}

QString TestBackend::randomToken() {
    QByteArray bytes(32, Qt::Uninitialized);
    QRandomGenerator::system()->generate(bytes.begin(), bytes.end());
    return QString::fromLatin1(bytes.toHex());
}

bool TestBackend::isAuthorized(const QByteArray& head, const QString& token) {
    if (token.isEmpty()) {
        return false;  // no anonymous backends: an empty token would let anyone in
    }
    const QByteArray expected = token.toUtf8();
    int headers = 0;
    bool authorized = false;
    for (const QByteArray& line : head.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0 && line.left(colon).trimmed().toLower() == "authorization") {
            ++headers;
            const QByteArray value = line.mid(colon + 1).trimmed();
            authorized =
                value.size() == expected.size() + 7 && value.left(7).toLower() == "bearer " && value.mid(7) == expected;
        }
    }
    // Exactly one Authorization header: two would leave it to the parser which one counts.
    return headers == 1 && authorized;
}

void TestBackend::onAppConnected() {
    while (QWebSocket* socket = m_ws->nextPendingConnection()) {
        if (m_app) {
            m_out << "replaced the previous connection" << Qt::endl;
            m_app->disconnect(this);
            m_app->abort();
            m_app->deleteLater();
        }
        m_app = socket;
        m_helloSeen = false;
        socket->setParent(this);
        connect(socket, &QWebSocket::textMessageReceived, this, &TestBackend::onFrame);
        connect(socket, &QWebSocket::disconnected, this, &TestBackend::onAppDisconnected);
        m_out << "connected" << Qt::endl;
        WelcomeMessage welcome;
        welcome.server = QStringLiteral("zeus-testbackend");
        sendJson(Protocol::toJson(welcome));
    }
}

void TestBackend::onAppDisconnected() {
    auto* socket = qobject_cast<QWebSocket*>(sender());
    if (!socket || socket != m_app) {
        return;
    }
    m_out << "disconnected (code " << int(socket->closeCode()) << ")" << Qt::endl;
    m_app = nullptr;
    m_helloSeen = false;
    socket->deleteLater();
}

void TestBackend::onFrame(const QString& text) {
    const QJsonObject message = QJsonDocument::fromJson(text.toUtf8()).object();
    const QString type = message.value(QStringLiteral("type")).toString();
    const QString callId = message.value(QStringLiteral("call_id")).toString();
    if (type == QLatin1String("hello")) {
        m_out << "hello " << printable(jsonText(message)) << Qt::endl;
        // The same, said for people: which engine serves the commands, or why none does.
        const QJsonObject runtime = message.value(QStringLiteral("runtime")).toObject();
        if (runtime.value(QStringLiteral("status")).toString() == QLatin1String("ready")) {
            m_out << "runtime " << printable(runtime.value(QStringLiteral("kind")).toString()) << ' '
                  << printable(runtime.value(QStringLiteral("version")).toString())
                  << " ready: each line you type runs in a container that sees only the workspace, at /workspace"
                  << Qt::endl;
        } else {
            m_out << "runtime unavailable: " << printable(runtime.value(QStringLiteral("reason")).toString())
                  << Qt::endl;
        }
        m_helloSeen = true;
        processLines();
    } else if (type == QLatin1String("tool_output")) {
        printOutput(callId, message.value(QStringLiteral("stream")).toString(),
                    message.value(QStringLiteral("data")).toString(), false);
    } else if (type == QLatin1String("tool_result")) {
        flushOutput(callId);
        if (m_resultsSeen.contains(callId)) {
            m_out << "duplicate result " << printable(callId) << Qt::endl;
        } else {
            m_resultsSeen.insert(callId);
            const QJsonValue exitCode = message.value(QStringLiteral("exit_code"));
            m_out << "result " << printable(callId) << ' '
                  << printable(message.value(QStringLiteral("status")).toString())
                  << " exit=" << (exitCode.isDouble() ? QString::number(exitCode.toInt()) : QStringLiteral("null"))
                  << " truncated=" << (message.value(QStringLiteral("truncated")).toBool() ? "true" : "false")
                  << " duration_ms=" << qint64(message.value(QStringLiteral("duration_ms")).toDouble());
            // The whole trip as seen here: the tool_call out, the command, the result back.
            if (const auto sent = m_sentAt.constFind(callId); sent != m_sentAt.constEnd()) {
                m_out << " round_trip_ms=" << sent->elapsed();
            }
            if (message.value(QStringLiteral("redacted")).toInt() > 0) {
                m_out << " redacted=" << message.value(QStringLiteral("redacted")).toInt();
            }
            const QJsonObject error = message.value(QStringLiteral("error")).toObject();
            if (!error.isEmpty()) {
                m_out << " error=" << printable(error.value(QStringLiteral("code")).toString()) << ": "
                      << printable(error.value(QStringLiteral("message")).toString());
            }
            m_out << Qt::endl;
        }
        m_sentAt.remove(callId);
        AckMessage ack;
        ack.callId = callId;
        sendJson(Protocol::toJson(ack));
        m_outstanding.remove(callId);
        if (m_waitingFor == callId || (m_waitingFor == kWaitAll && m_outstanding.isEmpty())) {
            m_waitingFor.clear();
        }
        processLines();
        checkDone();
    } else if (type == QLatin1String("session_state")) {
        const QJsonValue container = message.value(QStringLiteral("container"));
        m_out << "session " << printable(message.value(QStringLiteral("session_id")).toString()) << ' '
              << printable(message.value(QStringLiteral("state")).toString()) << ' '
              << (container.isString() && !container.toString().isEmpty() ? printable(container.toString().left(12))
                                                                          : QStringLiteral("-"))
              << Qt::endl;
        const QString state = message.value(QStringLiteral("state")).toString();
        if (m_waitingFor == QStringLiteral("session:") + message.value(QStringLiteral("session_id")).toString()
            && (state == QLatin1String("stopped") || state == QLatin1String("failed"))) {
            m_waitingFor.clear();
            processLines();
            checkDone();
        }
    } else if (type == QLatin1String("call_state")) {
        m_out << "call_state " << callId << ' ' << message.value(QStringLiteral("state")).toString() << Qt::endl;
    } else if (type == QLatin1String("network_event")) {
        // A connection the sandbox's network policy refused (SPEC §8); the command itself sees the 403.
        const QJsonValue port = message.value(QStringLiteral("port"));
        m_out << "network " << (callId.isEmpty() ? QStringLiteral("-") : printable(callId)) << ' '
              << printable(message.value(QStringLiteral("host")).toString()) << ':'
              << (port.isDouble() ? QString::number(port.toInt()) : QStringLiteral("?")) << ' '
              << printable(message.value(QStringLiteral("decision")).toString()) << " ("
              << printable(message.value(QStringLiteral("rule")).toString()) << ')' << Qt::endl;
    } else if (type == QLatin1String("error")) {
        m_out << "error " << printable(message.value(QStringLiteral("code")).toString())
              << " call=" << (callId.isEmpty() ? QStringLiteral("-") : printable(callId)) << ' '
              << printable(message.value(QStringLiteral("message")).toString()) << Qt::endl;
    } else {
        m_out << "unknown " << printable(text) << Qt::endl;
    }
}

void TestBackend::processLines() {
    while (m_app && m_helloSeen && m_waitingFor.isEmpty() && !m_lines.isEmpty()) {
        const QString line = m_lines.takeFirst().trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) {
            continue;
        }
        if (line.startsWith(QLatin1Char(':'))) {
            const QString word = line.section(QLatin1Char(' '), 0, 0);
            const QString rest = line.section(QLatin1Char(' '), 1).trimmed();
            if (word == QLatin1String(":cancel")) {
                CancelMessage cancel;
                cancel.callId = rest;
                sendJson(Protocol::toJson(cancel));
            } else if (word == QLatin1String(":end")) {
                SessionEndMessage end;
                end.sessionId = rest.isEmpty() ? m_options.sessionId : rest;
                sendJson(Protocol::toJson(end));
                // The next line waits until the app confirms the session stopped.
                m_waitingFor = QStringLiteral("session:") + end.sessionId;
            } else if (word == QLatin1String(":raw")) {
                sendRaw(rest);
            } else if (word == QLatin1String(":secret")) {
                // ":secret NAME1,NAME2 command": the names travel in args.secrets, never a value.
                const QStringList names = rest.section(QLatin1Char(' '), 0, 0).split(u',', Qt::SkipEmptyParts);
                sendToolCall(rest.section(QLatin1Char(' '), 1).trimmed(), true, names);
            } else if (word == QLatin1String(":sleep")) {
                m_waitingFor = QStringLiteral(":sleep");
                QTimer::singleShot(rest.toInt(), this, [this] {
                    m_waitingFor.clear();
                    processLines();
                    checkDone();
                });
            } else if (word == QLatin1String(":wait")) {
                if (!m_outstanding.isEmpty()) {
                    m_waitingFor = kWaitAll;
                }
            } else if (word == QLatin1String(":quit")) {
                m_lines.clear();
                m_outstanding.clear();
                m_inputEnded = true;
                checkDone();
                return;
            } else {
                m_out << help();
                m_out.flush();
            }
            continue;
        }
        if (line.startsWith(QLatin1Char('&'))) {
            sendToolCall(line.mid(1).trimmed(), false);
        } else {
            sendToolCall(line, true);
        }
    }
}

void TestBackend::sendToolCall(const QString& command, bool wait, const QStringList& secrets) {
    ToolCallMessage call;
    call.callId = QStringLiteral("c") + QString::number(++m_nextCall);
    call.sessionId = m_options.sessionId;
    call.tool = QString(Protocol::kDesktopExec);
    call.command = command;
    call.workingDirectory = m_options.workspace;
    call.secrets = secrets;
    if (m_options.timeoutSeconds > 0) {
        call.timeoutMs = qint64(m_options.timeoutSeconds) * 1000;
    }
    m_out << "call " << call.callId << ": " << command << Qt::endl;
    m_outstanding.insert(call.callId);
    m_sentAt[call.callId].start();
    if (wait) {
        m_waitingFor = call.callId;
    }
    sendJson(Protocol::toJson(call));
}

void TestBackend::sendJson(const QJsonObject& message) {
    sendRaw(jsonText(message));
}

void TestBackend::sendRaw(const QString& text) {
    if (m_app) {
        m_app->sendTextMessage(text);
    }
}

QString TestBackend::printable(QStringView text) {
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\t' || (u >= 0x20 && u < 0x7f) || u > 0x9f) {
            out += c;
        } else if (u < 0x100) {
            out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
        }
    }
    return out;
}

void TestBackend::printOutput(const QString& callId, const QString& stream, const QString& data, bool flush) {
    const QString key = callId + QLatin1Char('\n') + stream;
    QString buffer = m_partial.take(key) + data;
    int start = 0;
    for (int newline = int(buffer.indexOf(QLatin1Char('\n'))); newline >= 0;
         newline = int(buffer.indexOf(QLatin1Char('\n'), start))) {
        m_out << '[' << printable(callId) << ' ' << printable(stream) << "] "
              << printable(QStringView(buffer).mid(start, newline - start)) << '\n';
        start = newline + 1;
    }
    buffer = buffer.mid(start);
    if (flush && !buffer.isEmpty()) {
        m_out << '[' << printable(callId) << ' ' << printable(stream) << "] " << printable(buffer) << '\n';
        buffer.clear();
    }
    if (!buffer.isEmpty()) {
        m_partial.insert(key, buffer);
    }
    m_out.flush();
}

void TestBackend::flushOutput(const QString& callId) {
    printOutput(callId, QStringLiteral("stdout"), QString(), true);
    printOutput(callId, QStringLiteral("stderr"), QString(), true);
}

void TestBackend::checkDone() {
    if (m_finishedEmitted) {
        return;
    }
    const bool enoughResults =
        m_options.exitAfterResults > 0 && int(m_resultsSeen.size()) >= m_options.exitAfterResults;
    const bool inputDone =
        m_options.exitAtEnd && m_inputEnded && m_lines.isEmpty() && m_outstanding.isEmpty() && m_waitingFor.isEmpty();
    if (!enoughResults && !inputDone) {
        return;
    }
    m_finishedEmitted = true;
    m_out << "done: " << m_resultsSeen.size() << " results" << Qt::endl;
    if (m_app) {
        m_app->close(QWebSocketProtocol::CloseCodeNormal, QStringLiteral("test backend done"));
    }
    // Let the last acks and the close frame leave.
    QTimer::singleShot(200, this, [this] { Q_EMIT finished(0); });
}

}  // namespace zeus
