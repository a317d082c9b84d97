#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace zeus {

// Watches the first TLS records of a relayed tunnel, both ways, for one thing (SPEC §8 `tls_untrusted`): the
// client gave up on the server's certificate. That is what a sandbox without the right root does behind a network
// that inspects TLS, and the user can only fix it on the host, so the proxy says it rather than a bare reset.
//
// Two shapes count, and only after the server's handshake flight reached the client:
//   - a plaintext fatal alert from the client, unknown_ca (48), bad_certificate (42) or certificate_unknown (46):
//     OpenSSL's clients (curl, Python, git with OpenSSL) send it so in TLS 1.2 and in TLS 1.3 alike, since
//     their handshake keys for writing are not in use before they have checked the server's certificate;
//   - the client closing the stream at once (within kAbandonWindowMs of the server's last bytes) having sent
//     nothing but its ClientHello(s): Node closes so when its check fails. A client that goes on with the
//     handshake always sends more (TLS 1.2 its key exchange, TLS 1.3 its Finished).
// Anything else ends the watch (Done): another alert, any other record of the client, a stream that is not TLS,
// more than kMaxClientRecords records or kMaxClientBytes bytes. It never sees inside encrypted records, so a
// rejection sent encrypted is not seen: a miss, never a false alarm on a connection that worked.
//
// Pure: bytes and times in, a verdict out; it holds at most kMaxClientBytes of the client's stream.
class TlsTrustWatch {
public:
    enum class Verdict { Watching, Untrusted, Done };

    static constexpr int kMaxClientRecords = 8;
    static constexpr int kMaxClientBytes = 64 * 1024;
    static constexpr qint64 kAbandonWindowMs = 2000;

    // The client's bytes as the tunnel carries them, from the first (its ClientHello) on.
    void clientBytes(QByteArrayView bytes, qint64 nowMs);
    // The server's bytes, from the first on.
    void serverBytes(QByteArrayView bytes, qint64 nowMs);
    // The client ended its side (end of stream or the tunnel closed).
    void clientEnded(qint64 nowMs);

    Verdict verdict() const { return m_verdict; }
    // Untrusted: what the client did, for the policy log ("the client refused the server's certificate (TLS alert
    // unknown_ca)").
    QString why() const { return m_why; }

    // The name of an alert description this watch counts; empty for any other.
    static QString alertName(quint8 description);

private:
    void readClientRecords();
    void untrusted(const QString& why);

    Verdict m_verdict = Verdict::Watching;
    QString m_why;
    QByteArray m_client;  // the client's record not yet whole (what was read is dropped)
    qint64 m_clientTotal = 0;
    int m_records = 0;
    bool m_serverSpokeTls = false;  // the server's first byte opened a handshake record
    bool m_serverSpoke = false;
    qint64 m_serverLastMs = 0;
};

}  // namespace zeus
