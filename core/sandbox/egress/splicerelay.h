#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

class QSocketNotifier;
class QTcpSocket;

namespace zeus {

// The bytes of a handed-over tunnel (docs/agent-protocol.md "Handing a tunnel over"), both ways, between two
// connected stream sockets: the client's inside the container, which the agent handed over on the lane, and the
// server's (or the upstream proxy's) on the host. Nothing in between reads them: the decision was made, the TLS
// ClientHello checked and its trust watched before the handover, so what is left is a plain tunnel. On Linux the
// kernel moves the server's bytes to the client (splice through a pipe, no copy in this process); the client's go
// through a buffer, as both ways do elsewhere.
//
// Owns both sockets and the pipes: everything is closed when it finishes or is destroyed. Each direction reads
// only while its pipe (or buffer) has room, so neither a fast server nor a fast client grows memory; an end of
// stream is passed on as a half-close once what was read is written. finished() comes once, when both directions
// ended or either failed. Never blocks, never reads more than kMaxPerTurn in one turn of the event loop.
class SpliceRelay : public QObject {
    Q_OBJECT

public:
    static constexpr qint64 kPipeBytes = 256 * 1024;
    static constexpr qint64 kMaxPerTurn = 4 * 1024 * 1024;

    // Both: a tunnel. ToClientOnly: a plain HTTP request already sent whole: the answer goes to the client, and what
    // the client sends after it is read and dropped (one request per connection); its end still half-closes the
    // server's side.
    enum class Ways { Both, ToClientOnly };

    // `toClient`: what the server sent that the app still held, written to the client first. `server` -1: the server
    // ended before the handover; `toClient` is the rest of its answer.
    SpliceRelay(int client, int server, QByteArray toClient, Ways ways = Ways::Both, QObject* parent = nullptr);
    ~SpliceRelay() override;

    // Takes the socket out of `server` (its descriptor duplicated; the QTcpSocket is aborted, not shut down, and
    // deleted later), with what it read and not yet handed on in `held`. -1 when that fails (then `server` is
    // untouched). The socket must have nothing left to write.
    static int takeSocket(QTcpSocket* server, QByteArray* held);

    qint64 toClientBytes() const { return m_dir[0].moved; }
    qint64 toServerBytes() const { return m_dir[1].moved; }

Q_SIGNALS:
    // Both ways ended (error empty), or one failed (what failed).
    void finished(const QString& error);

private:
    struct Direction {
        int from = -1;
        int to = -1;
        int pipe[2] = {-1, -1};
        QByteArray pending;            // bytes to write before the pipe's (the server's, held at the handover)
        QByteArray buffer;             // without splice: read, not yet written
        qint64 held = 0;               // in the pipe
        qint64 capacity = kPipeBytes;  // the pipe's, or the buffer's
        qint64 moved = 0;
        bool eof = false;
        bool shut = false;
        bool blocked = false;  // the last write would block
        bool full = false;     // the pipe took nothing though it holds less than its size (it counts pages)
        bool discard = false;  // Ways::ToClientOnly's other way: read and dropped
        QSocketNotifier* readable = nullptr;
        QSocketNotifier* writable = nullptr;
    };
    void pump(Direction& d);
    bool writeOut(Direction& d);
    bool readIn(Direction& d);
    static qint64 receive(Direction& d, qint64 want);
    static qint64 room(const Direction& d);
    void finish(const QString& error);  // once: everything closed, finished() emitted
    void closeAll();

    Direction m_dir[2];  // 0: server -> client, 1: client -> server
    int m_client = -1;
    int m_server = -1;
    bool m_done = false;
};

}  // namespace zeus
