#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>

#include <utility>

class QLocalSocket;
class QSocketNotifier;

namespace zeus {

// The app's end of the lane once the agent is on it (docs/agent-protocol.md "The lane"): a Unix stream socket read
// with recvmsg, so that the client sockets the agent hands over ("Handing a tunnel over", SCM_RIGHTS) arrive with the
// bytes instead of being closed by a plain read, and written from a queue as the socket takes it.
//
// Owns the descriptor, both queues and the sockets received and not yet claimed. What arrives is untrusted: at most
// kMaxUnclaimed sockets may wait for their frames, a control message cut short is an error, and every descriptor
// received is close-on-exec from the start. Never reads the bytes it carries (AgentChannel does), never blocks.
// Unix only: elsewhere adopt() returns null and the frames stay on the exec pipe.
class LaneSocket : public QObject {
    Q_OBJECT

public:
    // Sockets the agent may have passed ahead of their `tunnel handed` frames.
    static constexpr int kMaxUnclaimed = 64;

    // Takes the connection over from `socket` (a connected QLocalSocket that has read nothing past the key): the
    // descriptor is duplicated, `socket` closed and deleted later; the connection itself stays. Null when that fails.
    static LaneSocket* adopt(QLocalSocket* socket, QObject* parent);
    ~LaneSocket() override;

    // Queues bytes; they are written as the socket takes them (bytesWritten()).
    void write(const QByteArray& bytes);
    qint64 bytesToWrite() const { return m_outBytes; }
    // Everything read since the last call.
    QByteArray readAll() { return std::exchange(m_in, {}); }
    // The oldest socket received and not claimed, now the caller's to close; -1 when none waits.
    int takeDescriptor();
    int unclaimedDescriptors() const { return int(m_passed.size()); }
    // Why a descriptor the agent passed is not what a handed-over tunnel is (a connected TCP stream socket: the
    // client's connection inside the container); empty when it is.
    static QString checkPassedSocket(int descriptor);
    // close(), for descriptors received here; nothing for -1.
    static void closeDescriptor(int descriptor);
    // Closes at once; nothing is emitted after.
    void abort();
    QString errorString() const { return m_error; }

Q_SIGNALS:
    void readyRead();
    void bytesWritten(qint64 bytes);
    // The agent closed its end, the socket failed, or the agent broke a rule of the passing (errorString()).
    void disconnected();

private:
    LaneSocket(int fd, QObject* parent);
    void onReadable();
    void onWritable();
    void takeRights(void* raw);  // a struct msghdr*
    void lost(const QString& why);

    int m_fd = -1;
    QSocketNotifier* m_reader = nullptr;
    QSocketNotifier* m_writer = nullptr;
    QByteArray m_in;
    QList<QByteArray> m_out;  // the frames as queued (shared, never copied), written from the front
    qsizetype m_outHead = 0;  // of m_out's first
    qint64 m_outBytes = 0;
    QList<int> m_passed;
    QString m_error;
};

}  // namespace zeus
