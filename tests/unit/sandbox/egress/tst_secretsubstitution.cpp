// The request-stream rewriter of host-bound secrets (SPEC §9): a session's placeholders become values in the request
// line and headers (also inside a Basic credential) for the hosts they are bound to, and a placeholder sent anywhere
// else stops the stream before one byte of its request goes out. Every row is also fed one byte at a time and in
// uneven pieces: the result never depends on how the client's bytes were split.
#include "sandbox/egress/secretsubstitution.h"

#include <QRegularExpression>
#include <QTest>

using namespace zeus;
using namespace Qt::StringLiterals;

namespace {

constexpr int kOk = int(SecretSubstitution::Status::Ok);
constexpr int kNotBound = int(SecretSubstitution::Status::NotBound);
constexpr int kRefused = int(SecretSubstitution::Status::Refused);

const QByteArray kGithubValue = "ghp_Secret/Value+42=";
const QByteArray kNpmValue = "npm_0123456789abcdef";

struct Fixture {
    SecretPlaceholders placeholders;
    QByteArray github;
    QByteArray npm;
    Fixture() {
        github =
            placeholders.bind(*SecretBinding::parse(u"GITHUB_TOKEN=fixture.test,fixture.test:8443"_s), kGithubValue);
        npm = placeholders.bind(*SecretBinding::parse(u"NPM_TOKEN=@npm"_s), kNpmValue);
    }
    // {GH} {GHV} {NPM} {NPMV}, then {B64:…} as the base64 of what it holds.
    QByteArray expand(QByteArray text) const {
        text.replace("{GHV}", kGithubValue).replace("{GH}", github);
        text.replace("{NPMV}", kNpmValue).replace("{NPM}", npm);
        static const QRegularExpression b64(u"\\{B64:([^}]*)\\}"_s);
        QString s = QString::fromLatin1(text);
        for (QRegularExpressionMatch m = b64.match(s); m.hasMatch(); m = b64.match(s)) {
            s.replace(m.capturedStart(), m.capturedLength(), QString::fromLatin1(m.captured(1).toLatin1().toBase64()));
        }
        return s.toLatin1();
    }
};

struct Outcome {
    QByteArray out;
    SecretSubstitution::Status status;
    int code;
    qint64 count;
    int forwarded;
    QByteArray clientReply;
};

Outcome run(const Fixture& f, const QByteArray& input, const QList<qsizetype>& cuts, bool tls = true, int port = 443) {
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, port, tls);
    Outcome o{};
    qsizetype from = 0;
    for (qsizetype cut : cuts) {
        o.out += s.feed(QByteArrayView(input).sliced(from, cut - from));
        o.clientReply += s.takeClientReply();
        from = cut;
    }
    o.out += s.feed(QByteArrayView(input).sliced(from));
    o.clientReply += s.takeClientReply();
    o.status = s.status();
    o.code = s.replyCode();
    o.count = s.counts().value(u"GITHUB_TOKEN"_s);
    o.forwarded = s.requestsForwarded();
    return o;
}

const QByteArray kIdentity = "Accept-Encoding: identity\r\n";

QByteArray get(const QByteArray& target, const QByteArray& headers) {
    return "GET " + target + " HTTP/1.1\r\nHost: fixture.test\r\n" + headers + "\r\n";
}

}  // namespace

class TestSecretSubstitution : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void rewrite_data();
    void rewrite();
    void placeholderSplitAcrossFeeds();
    void placeholderSplitAcrossChunks();
    void scannedPartOfTheBody();
    void wastefulFramingRefused();
    void clearTextNeedsANamedPort();
    void valueThatCannotBeAHeader();
    void refusalReply();
    void expectContinueAnsweredHere();
    void acceptEncodingIsIdentity();
};

void TestSecretSubstitution::rewrite_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("code");
    QTest::addColumn<qint64>("count");

    const QByteArray bearer = get("/user", "Authorization: Bearer {GH}\r\nAccept: */*\r\n");
    QTest::newRow("bearer header") << bearer << get("/user", "Authorization: Bearer {GHV}\r\nAccept: */*\r\n") << kOk
                                   << 0 << qint64(1);
    QTest::newRow("git basic (x-access-token)")
        << get("/r.git/info/refs?service=git-upload-pack", "Authorization: Basic {B64:x-access-token:{GH}}\r\n")
        << get("/r.git/info/refs?service=git-upload-pack", "Authorization: Basic {B64:x-access-token:{GHV}}\r\n") << kOk
        << 0 << qint64(1);
    QTest::newRow("pip basic (__token__), odd case")
        << get("/simple/pkg/", "authorization: bAsIc   {B64:__token__:{GH}}\r\nUser-Agent: pip/24\r\n")
        << get("/simple/pkg/", "authorization: bAsIc {B64:__token__:{GHV}}\r\nUser-Agent: pip/24\r\n") << kOk << 0
        << qint64(1);
    QTest::newRow("basic without a placeholder untouched")
        << get("/", "Authorization: Basic {B64:user:pass}\r\n") << get("/", "Authorization: Basic {B64:user:pass}\r\n")
        << kOk << 0 << qint64(0);
    QTest::newRow("query parameter, percent-encoded")
        << get("/api?access_token={GH}&x={GH}", "")
        << get("/api?access_token=ghp_Secret%2FValue%2B42%3D&x=ghp_Secret%2FValue%2B42%3D", "") << kOk << 0
        << qint64(2);
    QTest::newRow("absolute target of this host")
        << get("https://fixture.test/x?t={GH}", "") << get("https://fixture.test/x?t=ghp_Secret%2FValue%2B42%3D", "")
        << kOk << 0 << qint64(1);
    QTest::newRow("header values trimmed")
        << get("/", "X-Token:   {GH}  \r\n") << get("/", "X-Token: {GHV}\r\n") << kOk << 0 << qint64(1);
    QTest::newRow("chunked body passes")
        << QByteArray(
               "POST /up HTTP/1.1\r\nHost: fixture.test\r\nAuthorization: Bearer {GH}\r\nTransfer-Encoding: "
               "chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n")
        << QByteArray(
               "POST /up HTTP/1.1\r\nHost: fixture.test\r\nAuthorization: Bearer {GHV}\r\nTransfer-Encoding: "
               "chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n")
        << kOk << 0 << qint64(1);
    QTest::newRow("bound placeholder in body goes as it is")
        << QByteArray("POST / HTTP/1.1\r\nHost: fixture.test\r\nContent-Length: 95\r\n\r\n{GH}") << QByteArray() << kOk
        << 0 << qint64(0);
    QTest::newRow("unbound placeholder in a header")
        << get("/", "Authorization: Bearer {NPM}\r\n") << QByteArray() << kNotBound << 403 << qint64(0);
    QTest::newRow("unbound placeholder in the target")
        << get("/?t={NPM}", "Authorization: Bearer {GH}\r\n") << QByteArray() << kNotBound << 403 << qint64(0);
    QTest::newRow("unbound placeholder in basic")
        << get("/", "Authorization: Basic {B64:u:{NPM}}\r\n") << QByteArray() << kNotBound << 403 << qint64(0);
    QTest::newRow("unbound placeholder in a content-length body") << QByteArray(
        "POST / HTTP/1.1\r\nHost: fixture.test\r\nAuthorization: Bearer {GH}\r\nContent-Length: "
        "100\r\n\r\n{NPM}") << QByteArray() << kNotBound << 403 << qint64(0);
    QTest::newRow("keep-alive, second refused")
        << bearer + get("/two", "Authorization: Bearer {NPM}\r\n")
        << get("/user", "Authorization: Bearer {GHV}\r\nAccept: */*\r\n") << kNotBound << 403 << qint64(1);
    QTest::newRow("keep-alive, both pass")
        << bearer + QByteArray("POST /b HTTP/1.1\r\nHost: fixture.test:443\r\nContent-Length: 3\r\n\r\nabc") + bearer
        << get("/user", "Authorization: Bearer {GHV}\r\nAccept: */*\r\n")
               + "POST /b HTTP/1.1\r\nHost: fixture.test:443\r\nContent-Length: 3\r\n\r\nabc"
               + get("/user", "Authorization: Bearer {GHV}\r\nAccept: */*\r\n")
        << kOk << 0 << qint64(2);
    QTest::newRow("host header names another host")
        << QByteArray("GET / HTTP/1.1\r\nHost: evil.test\r\nAuthorization: Bearer {GH}\r\n\r\n") << QByteArray()
        << kNotBound << 403 << qint64(0);
    QTest::newRow("host header names another port")
        << QByteArray("GET / HTTP/1.1\r\nHost: fixture.test:8443\r\nAuthorization: Bearer {GH}\r\n\r\n") << QByteArray()
        << kNotBound << 403 << qint64(0);
    QTest::newRow("absolute target of another host")
        << get("https://evil.test/?t={GH}", "") << QByteArray() << kNotBound << 403 << qint64(0);
    QTest::newRow("another host without a placeholder passes")
        << QByteArray("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n")
        << QByteArray("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n") << kOk << 0 << qint64(0);
    QTest::newRow("another session's placeholder goes as it is")
        << get("/", "X: zeus-secret-GITHUB_TOKEN-0123456789abcdef0123456789abcdef\r\n")
        << get("/", "X: zeus-secret-GITHUB_TOKEN-0123456789abcdef0123456789abcdef\r\n") << kOk << 0 << qint64(0);
    QTest::newRow("upgrade taken off") << get("/", "Connection: Upgrade\r\nUpgrade: h2c\r\n")
                                       << get("/", "Connection: Upgrade\r\n") << kOk << 0 << qint64(0);
    QTest::newRow("placeholder as a header name")
        << get("/", "{GH}: 1\r\n") << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("oversized header") << get("/", "X-Big: " + QByteArray(9000, 'a') + "\r\n") << QByteArray()
                                      << kRefused << 431 << qint64(0);
    QByteArray many;
    for (int i = 0; i < 101; ++i) {
        many += "X-" + QByteArray::number(i) + ": v\r\n";
    }
    QTest::newRow("too many headers") << get("/", many) << QByteArray() << kRefused << 431 << qint64(0);
    QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: fixture.test\n\n") << QByteArray() << kRefused << 400
                             << qint64(0);
    QTest::newRow("bare CR") << QByteArray("GET / HTTP/1.1\r\nHost: fixture.test\rX: y\r\n\r\n") << QByteArray()
                             << kRefused << 400 << qint64(0);
    QTest::newRow("obs-fold") << get("/", "X: a\r\n b\r\n") << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("two hosts") << get("/", "Host: fixture.test\r\n") << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("no host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("length and chunked") << get("/", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n")
                                        << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("two lengths") << get("/", "Content-Length: 3\r\nContent-Length: 3\r\n") << QByteArray() << kRefused
                                 << 400 << qint64(0);
    QTest::newRow("signed length") << get("/", "Content-Length: +3\r\n") << QByteArray() << kRefused << 400
                                   << qint64(0);
    QTest::newRow("gzip encoding") << get("/", "Transfer-Encoding: gzip, chunked\r\n") << QByteArray() << kRefused
                                   << 501 << qint64(0);
    QTest::newRow("bad chunk size") << QByteArray(
        "POST / HTTP/1.1\r\nHost: fixture.test\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                    << QByteArray() << kRefused << 400 << qint64(0);
    QTest::newRow("http/2 preface") << QByteArray("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") << QByteArray() << kRefused << 501
                                    << qint64(0);
    QTest::newRow("connect inside") << QByteArray("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray()
                                    << kRefused << 501 << qint64(0);
    QTest::newRow("empty line first") << QByteArray("\r\nGET / HTTP/1.1\r\n") << QByteArray() << kRefused << 400
                                      << qint64(0);
    QTest::newRow("space in target") << QByteArray("GET /a b HTTP/1.1\r\nHost: fixture.test\r\n\r\n") << QByteArray()
                                     << kRefused << 400 << qint64(0);
    QTest::newRow("nul in a value") << get("/", QByteArray("X: a\0b\r\n", 8)) << QByteArray() << kRefused << 400
                                    << qint64(0);
    QTest::newRow("an unfinished head sends nothing")
        << QByteArray("GET /?t={GH} HTTP/1.1\r\nHost: fixture.test\r\n") << QByteArray() << kOk << 0 << qint64(0);
}

void TestSecretSubstitution::rewrite() {
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    QFETCH(int, status);
    QFETCH(int, code);
    QFETCH(qint64, count);
    const Fixture f;
    QByteArray in = f.expand(input);
    QByteArray want = f.expand(expected);
    if (QByteArray(QTest::currentDataTag()) == "bound placeholder in body goes as it is") {
        in = in.leftJustified(in.indexOf("\r\n\r\n") + 4 + 95, '.');
        want = in;
    }
    QList<QList<qsizetype>> splits = {{}};
    QList<qsizetype> every;
    for (qsizetype i = 1; i < in.size(); ++i) {
        every.append(i);
    }
    splits.append(every);
    splits.append({in.size() / 3, in.size() / 2, in.size() - 1});
    for (const QList<qsizetype>& cuts : splits) {
        const Outcome o = run(f, in, cuts);
        QCOMPARE(int(o.status), status);
        QCOMPARE(o.code, code);
        // Over TLS every forwarded head asks for an uncompressed answer (acceptEncodingIsIdentity()).
        QByteArray out = o.out;
        QCOMPARE(int(out.count(kIdentity)), o.forwarded);
        out.replace(kIdentity, "");
        QCOMPARE(out, want);
        QCOMPARE(o.count, count);
        if (status != kOk) {
            QVERIFY(!o.out.contains(kNpmValue));
        }
    }
}

void TestSecretSubstitution::placeholderSplitAcrossFeeds() {
    const Fixture f;
    const QByteArray in = f.expand(get("/", "Authorization: Bearer {GH}\r\n"));
    const qsizetype middle = in.indexOf(f.github) + f.github.size() / 2;
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
    QVERIFY(s.feed(in.left(middle)).isEmpty());  // nothing before the head is whole
    const QByteArray out = s.feed(in.mid(middle));
    QVERIFY(out.contains(QByteArray("Authorization: Bearer " + kGithubValue + "\r\n")));
    QVERIFY(!out.contains(f.github));
    QVERIFY(s.idle());
    QCOMPARE(s.requestsForwarded(), 1);
}

void TestSecretSubstitution::placeholderSplitAcrossChunks() {
    const Fixture f;
    const QByteArray a = f.npm.left(10);
    const QByteArray b = f.npm.mid(10);
    const QByteArray in = "POST / HTTP/1.1\r\nHost: fixture.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                          + QByteArray::number(a.size(), 16) + "\r\n" + a + "\r\n" + QByteArray::number(b.size(), 16)
                          + "\r\n" + b + "\r\n0\r\n\r\n";
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
    QVERIFY(s.feed(in).isEmpty());
    QCOMPARE(s.status(), SecretSubstitution::Status::NotBound);
    QCOMPARE(s.refusedName(), u"NPM_TOKEN"_s);
}

void TestSecretSubstitution::scannedPartOfTheBody() {
    const Fixture f;
    SecretSubstitution::Limits limits;
    const auto post = [&](qsizetype at, qsizetype total) -> QByteArray {
        QByteArray body(total, 'x');
        body.replace(at, f.npm.size(), f.npm);
        return "POST / HTTP/1.1\r\nHost: fixture.test\r\nContent-Length: " + QByteArray::number(total) + "\r\n\r\n"
               + body;
    };
    // Within the first 64 KiB, even when it ends past them: refused, and nothing was sent meanwhile.
    const qsizetype last = limits.scanBodyBytes - 1;
    for (qsizetype at : {qsizetype(0), qsizetype(60000), last}) {
        SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
        const QByteArray in = post(at, 200000);
        QByteArray out;
        for (qsizetype i = 0; i < in.size(); i += 4096) {
            out += s.feed(in.mid(i, 4096));
        }
        QCOMPARE(s.status(), SecretSubstitution::Status::NotBound);
        QVERIFY(out.isEmpty());
    }
    // Past the scanned part the body goes as it is (the documented limit).
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
    const QByteArray in = post(limits.scanBodyBytes + SecretPlaceholders::kMaxLength, 200000);
    QByteArray out;
    for (qsizetype i = 0; i < in.size(); i += 4096) {
        out += s.feed(in.mid(i, 4096));
    }
    QCOMPARE(s.status(), SecretSubstitution::Status::Ok);
    QCOMPARE(out, QByteArray(in).replace("\r\n\r\n", QByteArray("\r\n" + kIdentity + "\r\n")));  // the one head
    QVERIFY(s.idle());
}

void TestSecretSubstitution::wastefulFramingRefused() {
    const Fixture f;
    QByteArray in = "POST / HTTP/1.1\r\nHost: fixture.test\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (int i = 0; i < 100; ++i) {
        in += "1;" + QByteArray(4000, 'e') + "\r\nx\r\n";
    }
    for (qsizetype piece : {in.size(), qsizetype(1000)}) {
        SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
        QByteArray out;
        for (qsizetype i = 0; i < in.size(); i += piece) {
            out += s.feed(in.mid(i, piece));
        }
        QCOMPARE(s.status(), SecretSubstitution::Status::Refused);
        QCOMPARE(s.replyCode(), 413);
        QVERIFY(out.isEmpty());
    }
}

void TestSecretSubstitution::clearTextNeedsANamedPort() {
    const Fixture f;
    const QByteArray in = f.expand(get("/", "Authorization: Bearer {GH}\r\n"));
    const Outcome port80 = run(f, in, {}, false, 80);
    QCOMPARE(port80.status, SecretSubstitution::Status::NotBound);
    const Outcome named =
        run(f, f.expand("GET / HTTP/1.1\r\nHost: fixture.test:8443\r\nAuthorization: Bearer {GH}\r\n\r\n"), {}, false,
            8443);
    QCOMPARE(named.status, SecretSubstitution::Status::Ok);
    QVERIFY(named.out.contains(kGithubValue));
}

void TestSecretSubstitution::valueThatCannotBeAHeader() {
    SecretPlaceholders p;
    const QByteArray placeholder = p.bind(*SecretBinding::parse(u"BAD=fixture.test"_s), "line\r\nX-Injected: 1");
    SecretSubstitution header(&p, u"fixture.test"_s, 443, true);
    QVERIFY(header.feed(get("/", "Authorization: Bearer " + placeholder + "\r\n")).isEmpty());
    QCOMPARE(header.status(), SecretSubstitution::Status::Refused);
    QCOMPARE(header.replyCode(), 502);
    QVERIFY(header.error().contains(u"BAD"_s));
    QVERIFY(!header.error().contains(u"Injected"_s));
    // In the target it is percent-encoded, so it cannot break the request line.
    SecretSubstitution target(&p, u"fixture.test"_s, 443, true);
    const QByteArray out = target.feed(get("/?t=" + placeholder, ""));
    QVERIFY(out.startsWith("GET /?t=line%0D%0AX-Injected%3A%201 HTTP/1.1\r\n"));
}

void TestSecretSubstitution::refusalReply() {
    const Fixture f;
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
    QVERIFY(s.reply().isEmpty());
    s.feed(f.expand(get("/", "Authorization: Bearer {NPM}\r\n")));
    const QByteArray reply = s.reply();
    QVERIFY(reply.startsWith("HTTP/1.1 403 Forbidden\r\n"));
    QVERIFY(reply.contains("\r\nX-Proxy-Error: secret-not-bound\r\n"));
    QVERIFY(reply.contains("NPM_TOKEN"));
    QVERIFY(reply.contains("fixture.test"));
    QVERIFY(!reply.contains(kNpmValue) && !reply.contains(kGithubValue));
    QVERIFY(s.feed(f.expand(get("/", ""))).isEmpty());  // final
    SecretSubstitution big(&f.placeholders, u"fixture.test"_s, 443, true);
    big.feed(QByteArray(70000, 'A'));
    QVERIFY(big.reply().startsWith("HTTP/1.1 431 "));
}

void TestSecretSubstitution::expectContinueAnsweredHere() {
    const Fixture f;
    SecretSubstitution s(&f.placeholders, u"fixture.test"_s, 443, true);
    const QByteArray head = f.expand(
        "PUT /f HTTP/1.1\r\nHost: fixture.test\r\nAuthorization: Bearer {GH}\r\nExpect: 100-continue\r\n"
        "Content-Length: 4\r\n\r\n");
    QVERIFY(s.feed(head).isEmpty());
    QCOMPARE(s.takeClientReply(), QByteArray("HTTP/1.1 100 Continue\r\n\r\n"));
    QVERIFY(s.takeClientReply().isEmpty());
    const QByteArray out = s.feed("body");
    QVERIFY(out.endsWith("\r\n\r\nbody"));
    QVERIFY(!out.contains("Expect"));
    QVERIFY(out.contains(kGithubValue));
}

// Over TLS to a bound host the answer comes back uncompressed, so a reflected value can be masked on its way back
// (InterceptedConnection): the client's Accept-Encoding and TE are replaced by "identity" once per request. In clear
// text nothing is added (no answer there is masked either: only a binding naming the port sends a value in clear).
void TestSecretSubstitution::acceptEncodingIsIdentity() {
    const Fixture f;
    const QByteArray in =
        f.expand(get("/", "Accept-Encoding: gzip, br\r\nTE: trailers, gzip\r\nAuthorization: Bearer {GH}\r\n"));
    const Outcome tls = run(f, in, {});
    QCOMPARE(tls.status, SecretSubstitution::Status::Ok);
    QCOMPARE(tls.out, f.expand(get("/", "Authorization: Bearer {GHV}\r\n" + kIdentity)));
    const Outcome clear = run(f, get("/", "Accept-Encoding: gzip\r\n"), {}, /*tls=*/false, 8080);
    QCOMPARE(clear.out, get("/", "Accept-Encoding: gzip\r\n"));
}

QTEST_GUILESS_MAIN(TestSecretSubstitution)
#include "tst_secretsubstitution.moc"
