// SPEC §8 `tls_untrusted` on bytes: the records curl, Python and Node send when they refuse the server's
// certificate (taken from real runs against `openssl s_server` with a self-signed certificate, TLS 1.2 and 1.3) are
// seen, split anywhere; a handshake that goes on, another alert, a client or server that is not TLS, and anything
// outside the watch's bounds are not.
#include "sandbox/egress/tlstrustwatch.h"

#include <QTest>

using namespace zeus;

namespace {

struct Step {
    char who = 'C';  // C: client bytes, S: server bytes, E: the client ended
    QByteArray bytes;
    qint64 ms = 0;
};
using Script = QList<Step>;

QByteArray record(quint8 type, const QByteArray& body) {
    QByteArray r;
    r.append(char(type));
    r.append(char(0x03));
    r.append(char(0x03));
    r.append(char((body.size() >> 8) & 0xff));
    r.append(char(body.size() & 0xff));
    return r + body;
}

// A handshake record with a message of `type` and `size` bytes of body.
QByteArray handshake(quint8 type, int size) {
    QByteArray body(4 + size, 'h');
    body[0] = char(type);
    body[1] = 0;
    body[2] = char((size >> 8) & 0xff);
    body[3] = char(size & 0xff);
    return record(22, body);
}

QByteArray hello() {
    return handshake(1, 508);  // curl's ClientHello is one 512-byte record
}

QByteArray alert(quint8 level, quint8 description) {
    QByteArray body;
    body.append(char(level));
    body.append(char(description));
    return record(21, body);
}

QByteArray ccs() {
    return record(20, QByteArray(1, '\1'));
}

QByteArray encrypted(int size) {
    return record(23, QByteArray(size, 'x'));
}

// TLS 1.3: ServerHello, the compatibility ChangeCipherSpec, then EncryptedExtensions, Certificate, CertificateVerify
// and Finished, encrypted (the sizes openssl s_server sent).
QByteArray serverFlight13() {
    return handshake(2, 118) + ccs() + encrypted(23) + encrypted(842) + encrypted(281) + encrypted(69);
}

// TLS 1.2: ServerHello, Certificate, ServerKeyExchange, ServerHelloDone, in the clear.
QByteArray serverFlight12() {
    return handshake(2, 89) + handshake(11, 818) + handshake(12, 296) + handshake(14, 0);
}

Step client(const QByteArray& bytes, qint64 ms = 0) {
    return {'C', bytes, ms};
}
Step server(const QByteArray& bytes, qint64 ms = 0) {
    return {'S', bytes, ms};
}
Step ended(qint64 ms) {
    return {'E', {}, ms};
}

TlsTrustWatch::Verdict play(const Script& script, TlsTrustWatch* watch) {
    for (const Step& step : script) {
        if (step.who == 'C') {
            watch->clientBytes(step.bytes, step.ms);
        } else if (step.who == 'S') {
            watch->serverBytes(step.bytes, step.ms);
        } else {
            watch->clientEnded(step.ms);
        }
    }
    return watch->verdict();
}

}  // namespace

Q_DECLARE_METATYPE(Script)

class TestTlsTrustWatch : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void verdicts_data();
    void verdicts();
    void alertSplitAnywhere();
    void boundedWhateverComes();
};

void TestTlsTrustWatch::verdicts_data() {
    QTest::addColumn<Script>("script");
    QTest::addColumn<int>("verdict");
    QTest::addColumn<QString>("why");
    const int untrusted = int(TlsTrustWatch::Verdict::Untrusted);
    const int done = int(TlsTrustWatch::Verdict::Done);
    const int watching = int(TlsTrustWatch::Verdict::Watching);
    const QString unknownCa = QStringLiteral("the client refused the server's certificate (TLS alert unknown_ca)");
    const QString closed = QStringLiteral("the client closed the connection right after the server's certificate");

    // What real clients sent when they refused a self-signed certificate.
    QTest::newRow("curl, TLS 1.3: unknown_ca in the clear")
        << Script{client(hello()), server(serverFlight13(), 10), client(alert(2, 48), 12)} << untrusted << unknownCa;
    QTest::newRow("curl, TLS 1.2: unknown_ca")
        << Script{client(hello()), server(serverFlight12(), 10), client(alert(2, 48), 12)} << untrusted << unknownCa;
    QTest::newRow("bad_certificate") << Script{client(hello()), server(serverFlight12()), client(alert(2, 42))}
                                     << untrusted
                                     << QStringLiteral(
                                            "the client refused the server's certificate (TLS alert bad_certificate)");
    QTest::newRow("certificate_unknown, after the compatibility ChangeCipherSpec")
        << Script{client(hello()), server(serverFlight13()), client(ccs() + alert(2, 46))} << untrusted
        << QStringLiteral("the client refused the server's certificate (TLS alert certificate_unknown)");
    QTest::newRow("node, TLS 1.3: closes without a word")
        << Script{client(hello()), server(serverFlight13(), 10), ended(15)} << untrusted << closed;
    QTest::newRow("after a HelloRetryRequest") << Script{
        client(hello()), server(handshake(2, 88) + ccs(), 5), client(hello(), 6), server(serverFlight13(), 10),
        client(alert(2, 48), 12)} << untrusted << unknownCa;
    QTest::newRow("a hello in two records")
        << Script{client(record(22, '\1' + QByteArray(16383, 'h'))), client(record(22, QByteArray(3620, 'h'))),
                  server(serverFlight13()), client(alert(2, 48))}
        << untrusted << unknownCa;

    // Connections that worked, or failed for another reason.
    QTest::newRow("TLS 1.3 that worked: Finished, data, close_notify") << Script{client(hello()),
                                                                                 server(serverFlight13(), 10),
                                                                                 client(ccs() + encrypted(69), 11),
                                                                                 client(encrypted(99)),
                                                                                 server(encrypted(5185), 20),
                                                                                 client(encrypted(19), 21),
                                                                                 ended(22)}
                                                                       << done << QString();
    QTest::newRow("TLS 1.2 that worked: key exchange") << Script{
        client(hello()), server(serverFlight12()), client(handshake(16, 258) + ccs() + handshake(20, 12)),
        ended(5)} << done << QString();
    QTest::newRow("handshake_failure") << Script{client(hello()), server(serverFlight13()), client(alert(2, 40))}
                                       << done << QString();
    QTest::newRow("unknown_ca as a warning")
        << Script{client(hello()), server(serverFlight13()), client(alert(1, 48))} << done << QString();
    QTest::newRow("an alert before the server spoke")
        << Script{client(hello()), client(alert(2, 48)), server(serverFlight13())} << done << QString();
    QTest::newRow("the client ends before the server spoke")
        << Script{client(hello()), ended(5), server(serverFlight13(), 6)} << done << QString();
    QTest::newRow("the client ends long after the server's flight")
        << Script{client(hello()), server(serverFlight13(), 10), ended(10 + TlsTrustWatch::kAbandonWindowMs + 1)}
        << done << QString();
    QTest::newRow("the client ends in the middle of a record")
        << Script{client(hello()), server(serverFlight13()), client(alert(2, 48).left(4)), ended(1)} << done
        << QString();
    QTest::newRow("early data before the server spoke")
        << Script{client(hello() + ccs() + encrypted(40)), server(serverFlight13()), client(alert(2, 48))} << done
        << QString();
    QTest::newRow("a server that is not TLS")
        << Script{client(hello()), server("HTTP/1.1 400 Bad Request\r\n\r\n"), client(alert(2, 48))} << done
        << QString();
    QTest::newRow("a client that is not TLS")
        << Script{client("SSH-2.0-OpenSSH_9.2\r\n"), server(serverFlight13()), ended(1)} << done << QString();
    QTest::newRow("a record of length zero") << Script{client(record(22, {}))} << done << QString();

    // Nothing decided yet.
    QTest::newRow("waiting for the server") << Script{client(hello())} << watching << QString();
    QTest::newRow("waiting for the client")
        << Script{client(hello()), server(serverFlight13())} << watching << QString();
}

void TestTlsTrustWatch::verdicts() {
    QFETCH(Script, script);
    QFETCH(int, verdict);
    QFETCH(QString, why);
    TlsTrustWatch watch;
    QCOMPARE(int(play(script, &watch)), verdict);
    QCOMPARE(watch.why(), why);
    // A verdict is final: more bytes and an end change nothing.
    if (verdict != int(TlsTrustWatch::Verdict::Watching)) {
        watch.clientBytes(alert(2, 48), 1);
        watch.serverBytes(serverFlight13(), 1);
        watch.clientEnded(1);
        QCOMPARE(int(watch.verdict()), verdict);
    }
}

void TestTlsTrustWatch::alertSplitAnywhere() {
    const QByteArray before = hello();
    const QByteArray after = ccs() + alert(2, 48);
    for (int cut = 0; cut <= before.size(); ++cut) {
        TlsTrustWatch watch;
        watch.clientBytes(before.left(cut), 0);
        watch.clientBytes(before.mid(cut), 0);
        watch.serverBytes(serverFlight13(), 1);
        QCOMPARE(watch.verdict(), TlsTrustWatch::Verdict::Watching);
    }
    for (int cut = 0; cut <= after.size(); ++cut) {
        TlsTrustWatch watch;
        watch.clientBytes(before, 0);
        watch.serverBytes(serverFlight13(), 1);
        for (const QByteArray& part : {after.left(cut), after.mid(cut)}) {
            watch.clientBytes(part, 2);
        }
        QVERIFY2(watch.verdict() == TlsTrustWatch::Verdict::Untrusted, qPrintable(QString::number(cut)));
    }
}

void TestTlsTrustWatch::boundedWhateverComes() {
    // Records that keep the watch going (ChangeCipherSpec) end it at kMaxClientRecords.
    TlsTrustWatch records;
    records.clientBytes(hello(), 0);
    records.serverBytes(serverFlight13(), 1);
    for (int i = 1; i < TlsTrustWatch::kMaxClientRecords; ++i) {
        QCOMPARE(records.verdict(), TlsTrustWatch::Verdict::Watching);
        records.clientBytes(ccs(), 2);
    }
    QCOMPARE(records.verdict(), TlsTrustWatch::Verdict::Done);

    // Large records that keep it going (hellos, as after a HelloRetryRequest) end it at kMaxClientBytes.
    TlsTrustWatch bytes;
    bytes.clientBytes(hello(), 0);
    bytes.serverBytes(serverFlight13(), 1);
    qint64 sent = hello().size();
    while (sent + 16389 <= TlsTrustWatch::kMaxClientBytes) {
        bytes.clientBytes(handshake(1, 16380), 2);
        sent += 16389;
        QCOMPARE(bytes.verdict(), TlsTrustWatch::Verdict::Watching);
    }
    bytes.clientBytes(handshake(1, 16380), 3);
    QCOMPARE(bytes.verdict(), TlsTrustWatch::Verdict::Done);
}

QTEST_GUILESS_MAIN(TestTlsTrustWatch)
#include "tst_tlstrustwatch.moc"
