#include "sandbox/egress/clienthello.h"

#include <QHostAddress>
#include <QSet>

namespace zeus::clienthello {

namespace {

constexpr int kRecordHeader = 5;
constexpr int kMaxRecordBody = 16384;  // TLSPlaintext.length: at most 2^14 (RFC 8446 §5.1)
constexpr quint8 kHandshakeRecord = 22;
constexpr quint8 kClientHello = 1;
constexpr quint16 kServerName = 0x0000;
constexpr quint16 kEncryptedClientHello = 0xfe0d;
constexpr quint16 kEncryptedServerName = 0xffce;  // the ESNI draft ECH replaced

Hello malformed(const QString& why) {
    Hello h;
    h.state = Hello::State::Malformed;
    h.error = why;
    return h;
}

// Reads big-endian fields from a byte array; every read says whether the bytes were there.
class Reader {
public:
    explicit Reader(QByteArrayView bytes) : m_bytes(bytes) {}
    qsizetype left() const { return m_bytes.size() - m_at; }
    bool number(int size, quint32* out) {
        if (left() < size) {
            return false;
        }
        quint32 v = 0;
        for (int i = 0; i < size; i++) {
            v = v << 8 | quint8(m_bytes[m_at + i]);
        }
        m_at += size;
        *out = v;
        return true;
    }
    // A field of `size` bytes preceded by its length in `lengthBytes` bytes.
    bool vector(int lengthBytes, QByteArrayView* out) {
        quint32 n = 0;
        if (!number(lengthBytes, &n) || left() < qsizetype(n)) {
            return false;
        }
        *out = m_bytes.sliced(m_at, n);
        m_at += n;
        return true;
    }
    bool skip(qsizetype n) {
        if (left() < n) {
            return false;
        }
        m_at += n;
        return true;
    }

private:
    QByteArrayView m_bytes;
    qsizetype m_at = 0;
};

// A server name as RFC 6066 allows it: an ASCII DNS name, no trailing dot, no empty label, not an IP literal.
bool isPlainDnsName(QByteArrayView name) {
    if (name.isEmpty() || name.size() > 253 || name.endsWith('.') || name.startsWith('.') || name.contains("..")) {
        return false;
    }
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                        || c == '_' || c == '.';
        if (!ok) {
            return false;
        }
    }
    return !QHostAddress().setAddress(QString::fromLatin1(name));
}

// The server_name extension's body: one entry, of type host_name.
bool readServerName(QByteArrayView data, QString* name, QString* why) {
    Reader r(data);
    QByteArrayView list;
    if (!r.vector(2, &list) || r.left() != 0) {
        *why = QStringLiteral("a server_name list of the wrong length");
        return false;
    }
    Reader entries(list);
    quint32 type = 0;
    QByteArrayView host;
    if (!entries.number(1, &type) || type != 0 || !entries.vector(2, &host) || entries.left() != 0) {
        *why = QStringLiteral("a server_name list that is not one host name");
        return false;
    }
    if (!isPlainDnsName(host)) {
        *why = QStringLiteral("a server name that is not a plain DNS name");
        return false;
    }
    *name = QString::fromLatin1(host).toLower();
    return true;
}

// The ClientHello body (after the 4-byte handshake header).
Hello readHello(QByteArrayView body) {
    Reader r(body);
    QByteArrayView field;
    quint32 version = 0;
    if (!r.number(2, &version) || !r.skip(32)) {
        return malformed(QStringLiteral("a ClientHello cut short"));
    }
    if (!r.vector(1, &field) || field.size() > 32) {
        return malformed(QStringLiteral("a bad session id"));
    }
    if (!r.vector(2, &field) || field.isEmpty() || field.size() % 2 != 0) {
        return malformed(QStringLiteral("a bad cipher suite list"));
    }
    if (!r.vector(1, &field) || field.isEmpty()) {
        return malformed(QStringLiteral("a bad compression method list"));
    }
    Hello h;
    h.state = Hello::State::Complete;
    if (r.left() == 0) {
        return h;  // no extensions at all (TLS 1.2 allows it): no server name
    }
    QByteArrayView extensions;
    if (!r.vector(2, &extensions) || r.left() != 0) {
        return malformed(QStringLiteral("an extension block of the wrong length"));
    }
    Reader e(extensions);
    QSet<quint32> seen;
    while (e.left() > 0) {
        quint32 type = 0;
        QByteArrayView data;
        if (!e.number(2, &type) || !e.vector(2, &data)) {
            return malformed(QStringLiteral("an extension of the wrong length"));
        }
        if (seen.contains(type)) {
            return malformed(QStringLiteral("extension %1 twice").arg(type));  // a server could read either
        }
        seen.insert(type);
        if (type == kServerName) {
            QString why;
            if (!readServerName(data, &h.serverName, &why)) {
                return malformed(why);
            }
            h.hasServerName = true;
        } else if (type == kEncryptedClientHello || type == kEncryptedServerName) {
            h.encrypted = true;
        }
    }
    return h;
}

}  // namespace

Hello parse(const QByteArray& bytes) {
    // The handshake message may be split over several records; collect the fragments until it is whole.
    QByteArray message;
    qsizetype at = 0;
    qint64 expected = -1;  // the handshake message's length with its header, once known
    while (true) {
        if (bytes.size() - at < 1) {
            return {};
        }
        if (quint8(bytes[at]) != kHandshakeRecord) {
            if (at == 0) {
                Hello h;
                h.state = Hello::State::NotTls;
                return h;
            }
            return malformed(QStringLiteral("another record inside the ClientHello"));
        }
        if (bytes.size() - at >= 2 && quint8(bytes[at + 1]) != 3) {
            return malformed(QStringLiteral("not TLS record version 3"));
        }
        if (bytes.size() - at < kRecordHeader) {
            return {};
        }
        const int length = quint8(bytes[at + 3]) << 8 | quint8(bytes[at + 4]);
        if (length == 0 || length > kMaxRecordBody) {
            return malformed(QStringLiteral("a handshake record of length %1").arg(length));
        }
        if (at + kRecordHeader + length > kMaxHelloBytes) {
            return malformed(QStringLiteral("a ClientHello over %1 bytes").arg(kMaxHelloBytes));
        }
        if (bytes.size() - at - kRecordHeader < length) {
            return {};
        }
        message += bytes.mid(at + kRecordHeader, length);
        at += kRecordHeader + length;
        if (expected < 0 && message.size() >= 4) {
            if (quint8(message[0]) != kClientHello) {
                return malformed(QStringLiteral("a handshake that is not a ClientHello"));
            }
            expected = 4 + (qint64(quint8(message[1])) << 16 | quint8(message[2]) << 8 | quint8(message[3]));
            if (expected > kMaxHelloBytes) {
                return malformed(QStringLiteral("a ClientHello over %1 bytes").arg(kMaxHelloBytes));
            }
        }
        if (expected >= 0 && message.size() >= expected) {
            if (message.size() != expected) {
                return malformed(QStringLiteral("more handshake data after the ClientHello"));
            }
            return readHello(QByteArrayView(message).sliced(4));
        }
    }
}

Verdict judge(const QByteArray& bytes, const QString& host) {
    Verdict v;
    const auto refuse = [&v](const QString& why) {
        v.status = Verdict::Status::Refuse;
        v.why = why;
        return v;
    };
    if (bytes.isEmpty()) {
        return v;
    }
    static const QByteArray ssh("SSH-2.0-");
    if (bytes.startsWith(ssh.left(qMin(bytes.size(), ssh.size())))) {
        // SSH (git over ssh through `connect`): the identification line ends with CR LF.
        const qsizetype end = bytes.indexOf("\r\n");
        if (end < 0) {
            return bytes.size() < kMaxSshLineBytes ? v : refuse(QStringLiteral("not a TLS ClientHello"));
        }
        const QByteArray line = bytes.left(end);
        bool ok = end + 2 <= kMaxSshLineBytes && line.size() > ssh.size() && !line.toUpper().contains("HTTP");
        for (const char c : line) {
            ok = ok && c >= 0x20 && c < 0x7f;
        }
        if (!ok) {
            return refuse(QStringLiteral("not a TLS ClientHello"));
        }
        v.status = Verdict::Status::Pass;
        v.ssh = true;
        return v;
    }
    const Hello hello = parse(bytes);
    switch (hello.state) {
        case Hello::State::NeedMore:
            return v;
        case Hello::State::NotTls:
            return refuse(QStringLiteral("not a TLS ClientHello"));
        case Hello::State::Malformed:
            return refuse(QStringLiteral("a malformed TLS ClientHello"));
        case Hello::State::Complete:
            break;
    }
    v.serverName = hello.serverName;
    if (hello.encrypted) {
        return refuse(QStringLiteral("an encrypted ClientHello (ECH)"));
    }
    if (!hello.hasServerName) {
        return refuse(QStringLiteral("no TLS server name (SNI)"));
    }
    if (hello.serverName != host.toLower()) {
        return refuse(QStringLiteral("TLS server name does not match"));
    }
    v.status = Verdict::Status::Pass;
    return v;
}

}  // namespace zeus::clienthello
