#pragma once

#include "mcp/mcpcodec.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

class QLocalSocket;

namespace zeus {

// One MCP bridge over the tray app's single-instance socket (SPEC §12 "stdio", docs/mcp.md "The tray app serves
// --mcp"): `zeus-desktop --mcp` asks with requestBytes() -- the line `mcp 1`, then one JSON line
// {"workspaces": [...]} -- and the tray answers one JSON line, {"ok": true, "session": ID} or {"ok": false, "code":
// CODE, "message": TEXT}. After an ok the socket carries MCP messages, one compact JSON per line, both ways.
//
// It owns the socket and its framing: what arrives is split into lines of at most kMaxLineBytes; a longer line is
// dropped as it comes (never buffered whole) and reported once by oversizedLine(). It never interprets a line,
// and never holds more than one unfinished line.
class McpBridgeChannel : public QObject {
    Q_OBJECT
public:
    static constexpr int kProtocol = 1;
    static constexpr qsizetype kMaxLineBytes = McpCodec::kMaxMessageBytes;  // a '\r' before the newline aside
    static constexpr int kMaxWorkspaces = 64;
    // Bytes waiting for a peer that does not read (SPEC §5's outbound cap): past it the channel is closed, so a
    // stuck client cannot make the tray app's memory grow with its command's output.
    static constexpr qint64 kMaxPendingBytes = 64 * 1024 * 1024;

    // Takes the socket (it becomes a child), connected or connecting.
    explicit McpBridgeChannel(QLocalSocket* socket, QObject* parent = nullptr);
    ~McpBridgeChannel() override;

    // Sends one line; `line` must not hold a newline (compact JSON never does). Past maxPendingBytes() waiting in
    // the socket the connection is aborted instead (closed() follows).
    void sendLine(const QByteArray& line);
    void setMaxPendingBytes(qint64 bytes) { m_maxPendingBytes = bytes; }
    qint64 maxPendingBytes() const { return m_maxPendingBytes; }
    // Sends what is queued, then closes; closed() follows.
    void close();
    bool isOpen() const;
    QLocalSocket* socket() const { return m_socket; }
    // The peer's file descriptor, for its credentials (-1 when there is none).
    qintptr descriptor() const;

    // The bridge's request for `workspaces` (canonical paths; empty: the folders approved in the tray app).
    static QByteArray requestBytes(const QStringList& workspaces);
    // The first line a client sends: the MCP bridge's, the activation's, or something else.
    enum class Greeting { Mcp, Activate, Unknown };
    static Greeting greeting(const QByteArray& line);
    // The request line after `mcp 1`: the workspaces, or nullopt when it is not the request (not JSON, not an
    // object, workspaces not an array of non-empty strings, more than kMaxWorkspaces).
    static std::optional<QStringList> parseRequest(const QByteArray& line);
    struct Answer {
        bool ok = false;
        QString session;  // the sandbox session, as the tray's dashboard names it
        QString code;     // a protocol error code (workspace_not_approved, busy, ...)
        QString message;
    };
    static QByteArray acceptLine(const QString& session);
    static QByteArray refuseLine(const QString& code, const QString& message);
    // The tray's answer; not one (not JSON, no "ok"): nullopt.
    static std::optional<Answer> parseAnswer(const QByteArray& line);

Q_SIGNALS:
    void lineReceived(const QByteArray& line);
    void oversizedLine();
    // The socket closed (either side); emitted once.
    void closed();

private:
    void onReadyRead();
    void deliver();

    QLocalSocket* m_socket;
    QByteArray m_buffer;
    bool m_discarding = false;
    bool m_closed = false;
    bool m_overflowed = false;  // past m_maxPendingBytes: nothing more is sent, the abort is on its way
    qint64 m_maxPendingBytes = kMaxPendingBytes;
};

}  // namespace zeus
