#include "sandbox/egress/tlstrustwatch.h"

namespace zeus {

namespace {
constexpr int kRecordHeader = 5;
constexpr int kMaxRecordBody = 16384 + 2048;  // TLSCiphertext.length: at most 2^14 + 2048 (RFC 5246 §6.2.3)
constexpr quint8 kChangeCipherSpec = 20;
constexpr quint8 kAlert = 21;
constexpr quint8 kHandshake = 22;
constexpr quint8 kClientHello = 1;
constexpr quint8 kFatal = 2;
}  // namespace

QString TlsTrustWatch::alertName(quint8 description) {
    switch (description) {
        case 42:
            return QStringLiteral("bad_certificate");
        case 46:
            return QStringLiteral("certificate_unknown");
        case 48:
            return QStringLiteral("unknown_ca");
        default:
            return {};
    }
}

void TlsTrustWatch::clientBytes(QByteArrayView bytes, qint64 nowMs) {
    Q_UNUSED(nowMs)
    if (m_verdict != Verdict::Watching || bytes.isEmpty()) {
        return;
    }
    m_clientTotal += bytes.size();
    if (m_clientTotal > kMaxClientBytes) {
        m_verdict = Verdict::Done;
        m_client.clear();
        return;
    }
    m_client.append(bytes);
    readClientRecords();
}

void TlsTrustWatch::serverBytes(QByteArrayView bytes, qint64 nowMs) {
    if (m_verdict != Verdict::Watching || bytes.isEmpty()) {
        return;
    }
    if (!m_serverSpoke) {
        m_serverSpoke = true;
        m_serverSpokeTls = quint8(bytes.front()) == kHandshake;
        if (!m_serverSpokeTls) {
            m_verdict = Verdict::Done;  // not a TLS server (an error page, a banner): nothing to learn
            return;
        }
    }
    m_serverLastMs = nowMs;
}

void TlsTrustWatch::clientEnded(qint64 nowMs) {
    if (m_verdict != Verdict::Watching) {
        return;
    }
    // Only hellos (and a compatibility ChangeCipherSpec) were read, whole: the client left the handshake as soon as
    // it had the server's first flight.
    if (m_serverSpokeTls && m_records > 0 && m_client.isEmpty() && nowMs - m_serverLastMs <= kAbandonWindowMs) {
        untrusted(QStringLiteral("the client closed the connection right after the server's certificate"));
        return;
    }
    m_verdict = Verdict::Done;
}

void TlsTrustWatch::readClientRecords() {
    while (m_verdict == Verdict::Watching && m_client.size() >= kRecordHeader) {
        const auto type = quint8(m_client.at(0));
        const int length = quint8(m_client.at(3)) << 8 | quint8(m_client.at(4));
        if (length == 0 || length > kMaxRecordBody) {
            m_verdict = Verdict::Done;
            break;
        }
        if (m_client.size() < kRecordHeader + length) {
            return;  // the rest of the record comes later
        }
        const QByteArrayView body = QByteArrayView(m_client).sliced(kRecordHeader, length);
        m_records++;
        if (m_records == 1) {
            if (type != kHandshake || quint8(body.front()) != kClientHello) {
                m_verdict = Verdict::Done;  // not a TLS client (SSH, plain text)
            }
        } else if (type == kHandshake) {
            // Before the server spoke: the rest of a long hello. After: only a second hello (a HelloRetryRequest's
            // answer) keeps the watch; a key exchange means the client accepted what it got.
            if (m_serverSpoke && quint8(body.front()) != kClientHello) {
                m_verdict = Verdict::Done;
            }
        } else if (type == kAlert) {
            const QString name =
                length == 2 && quint8(body.at(0)) == kFatal ? alertName(quint8(body.at(1))) : QString();
            if (m_serverSpokeTls && !name.isEmpty()) {
                untrusted(QStringLiteral("the client refused the server's certificate (TLS alert %1)").arg(name));
            } else {
                m_verdict = Verdict::Done;
            }
        } else if (type != kChangeCipherSpec) {
            m_verdict = Verdict::Done;  // application data or an encrypted handshake: the handshake went on
        }
        m_client.remove(0, kRecordHeader + length);
        if (m_verdict == Verdict::Watching && m_records >= kMaxClientRecords) {
            m_verdict = Verdict::Done;
        }
    }
    if (m_verdict != Verdict::Watching) {
        m_client.clear();
    }
}

void TlsTrustWatch::untrusted(const QString& why) {
    m_verdict = Verdict::Untrusted;
    m_why = why;
    m_client.clear();
}

}  // namespace zeus
