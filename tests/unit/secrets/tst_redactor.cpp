// Redactor: every encoded form of a secret is replaced, at every split position of the stream, and nothing else is
// touched; the hold-back stays within its bound.
#include "secrets/redactor.h"

#include <QTest>

#include <algorithm>

using zeus::Redactor;
using zeus::SecretValue;

namespace {

const QByteArray kValue = QByteArrayLiteral("s3cr3t/t0ken+v@lue=42");
const QString kName = QStringLiteral("ZEUS_T_SECRET");
const QByteArray kMarker = QByteArrayLiteral("[REDACTED:ZEUS_T_SECRET]");

// Feeds `text` in two chunks split at `at`, then flushes.
QByteArray splitFeed(Redactor& redactor, const QByteArray& text, qsizetype at) {
    QByteArray out = redactor.feed(text.left(at));
    out += redactor.feed(text.mid(at));
    out += redactor.flush();
    return out;
}

}  // namespace

class TestRedactor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyFormAtEverySplit_data();
    void everyFormAtEverySplit();
    void oneBytePerWrite_data();
    void oneBytePerWrite();
    void base64InsideLongerText_data();
    void base64InsideLongerText();
    void textWithoutSecretsPassesUnchanged();
    void noSecretsMeansNoHoldBack();
    void holdBackIsBounded();
    void outputThatBeginsNoFormIsNotHeldBack();
    void acceptable_data();
    void acceptable();
    void twoSecretsEachNamed();
    void oneShotTexts();
    void hostNamesIgnoreCase();
    void interleavedStreams_data();
    void interleavedStreams();
    void maskedKeepsEveryLength_data();
    void maskedKeepsEveryLength();
};

void TestRedactor::everyFormAtEverySplit_data() {
    QTest::addColumn<QByteArray>("form");
    QTest::newRow("raw") << kValue;
    QTest::newRow("hex lower") << kValue.toHex();
    QTest::newRow("hex upper") << kValue.toHex().toUpper();
    QTest::newRow("url encoded") << kValue.toPercentEncoding();
    QTest::newRow("url encoded lower hex") << QByteArray("s3cr3t%2ft0ken%2bv%40lue%3d42");
    QTest::newRow("base64 padded") << kValue.toBase64();
    QTest::newRow("base64 unpadded") << kValue.toBase64(QByteArray::OmitTrailingEquals);
    QTest::newRow("base64url padded") << kValue.toBase64(QByteArray::Base64UrlEncoding);
    QTest::newRow("base64url unpadded") << kValue.toBase64(QByteArray::Base64UrlEncoding
                                                           | QByteArray::OmitTrailingEquals);
    QTest::newRow("base64 of value and newline (echo | base64)") << QByteArray(kValue + '\n').toBase64();
}

void TestRedactor::everyFormAtEverySplit() {
    QFETCH(QByteArray, form);
    const QByteArray text = "before " + form + " after\n";
    for (qsizetype at = 0; at <= text.size(); ++at) {
        Redactor redactor({SecretValue{kName, kValue}});
        const QByteArray out = splitFeed(redactor, text, at);
        QVERIFY2(out.contains(kMarker),
                 qPrintable(QStringLiteral("split at %1: %2").arg(at).arg(QString::fromLatin1(out))));
        QVERIFY2(!out.contains(kValue), qPrintable(QStringLiteral("split at %1").arg(at)));
        QVERIFY2(out.startsWith("before "), qPrintable(QStringLiteral("split at %1").arg(at)));
        QVERIFY2(out.endsWith(" after\n"), qPrintable(QStringLiteral("split at %1").arg(at)));
        QCOMPARE(redactor.count(), qint64(1));
        QCOMPARE(redactor.heldBack(), qsizetype(0));
    }
}

void TestRedactor::oneBytePerWrite_data() {
    everyFormAtEverySplit_data();
}

void TestRedactor::oneBytePerWrite() {
    QFETCH(QByteArray, form);
    Redactor redactor({SecretValue{kName, kValue}});
    const QByteArray text = "x" + form + "y";
    QByteArray out;
    for (const char c : text) {
        out += redactor.feed(QByteArray(1, c));
        QVERIFY(redactor.heldBack() < redactor.maxFormLength());
    }
    out += redactor.flush();
    QCOMPARE(out.left(1), QByteArray("x"));
    QVERIFY(out.contains(kMarker));
    QVERIFY(!out.contains(kValue));
}

void TestRedactor::base64InsideLongerText_data() {
    QTest::addColumn<QByteArray>("prefix");
    QTest::addColumn<QByteArray>("suffix");
    QTest::addColumn<bool>("url");
    for (const bool url : {false, true}) {
        for (const QByteArray& prefix : {QByteArray(), QByteArray("a"), QByteArray("ab"), QByteArray("token=")}) {
            for (const QByteArray& suffix : {QByteArray(), QByteArray("\n"), QByteArray("zz"), QByteArray(" end")}) {
                QTest::addRow("%s prefix %d suffix %d", url ? "base64url" : "base64", int(prefix.size()),
                              int(suffix.size()))
                    << prefix << suffix << url;
            }
        }
    }
}

void TestRedactor::base64InsideLongerText() {
    QFETCH(QByteArray, prefix);
    QFETCH(QByteArray, suffix);
    QFETCH(bool, url);
    const auto options = url ? QByteArray::Base64UrlEncoding : QByteArray::Base64Encoding;
    const QByteArray encoded = QByteArray(prefix + kValue + suffix).toBase64(options);
    Redactor redactor({SecretValue{kName, kValue}});
    const QByteArray out = splitFeed(redactor, encoded, encoded.size() / 2);
    QVERIFY2(out.contains(kMarker), out.constData());
    // What is left of the encoding cannot give the value back: at most a few bits of its first and last byte.
    const QByteArray rest = QByteArray(out).replace(kMarker, "");
    QVERIFY2(rest.size() <= 8 + (prefix.size() + suffix.size()) * 4 / 3 + 4, out.constData());
}

void TestRedactor::textWithoutSecretsPassesUnchanged() {
    Redactor redactor({SecretValue{kName, kValue}});
    QByteArray text;
    for (int i = 0; i < 1000; ++i) {
        text += QByteArray::number(i) + " lines of output, some binary \0\xff bytes\n";
    }
    QByteArray out;
    for (qsizetype at = 0; at < text.size(); at += 37) {
        out += redactor.feed(text.mid(at, 37));
    }
    out += redactor.flush();
    QCOMPARE(out, text);
    QCOMPARE(redactor.count(), qint64(0));
}

void TestRedactor::noSecretsMeansNoHoldBack() {
    Redactor redactor;
    QVERIFY(redactor.isEmpty());
    QCOMPARE(redactor.feed("partial"), QByteArray("partial"));
    QCOMPARE(redactor.heldBack(), qsizetype(0));
    QCOMPARE(redactor.flush(), QByteArray());
}

void TestRedactor::holdBackIsBounded() {
    // Output that keeps beginning a form (every byte could start the hex form "73…" or the raw "s3…"): held back at
    // most maxFormLength()-1 bytes, handed back whole by flush().
    Redactor redactor({SecretValue{kName, kValue}});
    QByteArray text;
    while (text.size() < 100000) {
        text += kValue.left(kValue.size() - 1);
    }
    const QByteArray out = redactor.feed(text);
    QVERIFY(redactor.heldBack() > 0);
    QVERIFY(redactor.heldBack() <= redactor.maxFormLength() - 1);
    QCOMPARE(out + redactor.flush(), text);
}

void TestRedactor::outputThatBeginsNoFormIsNotHeldBack() {
    // A command that prints a line at a time must be seen as it prints, secret set or not: only a tail that begins
    // one of the secret's forms waits for the next chunk.
    Redactor redactor({SecretValue{kName, kValue}});
    QCOMPARE(redactor.feed("line-1\n"), QByteArray("line-1\n"));
    QCOMPARE(redactor.heldBack(), qsizetype(0));
    QCOMPARE(redactor.feed(QByteArray(100000, 'a')), QByteArray(100000, 'a'));
    QCOMPARE(redactor.feed("building " + kValue.left(6)), QByteArray("building "));
    QCOMPARE(redactor.heldBack(), qsizetype(6));
    QCOMPARE(redactor.feed(kValue.mid(6) + " done\n"), kMarker + " done\n");
    // The hex form's beginning waits too; "s3x" begins nothing and passes.
    QCOMPARE(redactor.feed("s3x " + kValue.toHex().left(10)), QByteArray("s3x "));
    QCOMPARE(redactor.flush(), kValue.toHex().left(10));
}

void TestRedactor::acceptable_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("ok");
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("seven bytes") << QByteArray("1234567") << false;
    QTest::newRow("eight bytes") << QByteArray("12345678") << true;
    QTest::newRow("NUL inside") << QByteArray(
        "1234\0"
        "5678",
        9) << false;
    QTest::newRow("at the limit") << QByteArray(Redactor::kMaxValueBytes, 'x') << true;
    QTest::newRow("over the limit") << QByteArray(Redactor::kMaxValueBytes + 1, 'x') << false;
}

void TestRedactor::acceptable() {
    QFETCH(QByteArray, value);
    QFETCH(bool, ok);
    QCOMPARE(Redactor::acceptable(value), ok);
    Redactor redactor;
    QCOMPARE(redactor.add(SecretValue{kName, value}), ok);
    QCOMPARE(redactor.isEmpty(), !ok);
}

void TestRedactor::twoSecretsEachNamed() {
    Redactor redactor({SecretValue{QStringLiteral("A_TOKEN"), "aaaa-bbbb-cccc"},
                       SecretValue{QStringLiteral("B_TOKEN"), "zzzz-yyyy-xxxx"}});
    QCOMPARE(redactor.names(), QStringList({QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")}));
    const QByteArray out = splitFeed(redactor, "1 zzzz-yyyy-xxxx 2 aaaa-bbbb-cccc 3", 9);
    QCOMPARE(out, QByteArray("1 [REDACTED:B_TOKEN] 2 [REDACTED:A_TOKEN] 3"));
    QCOMPARE(redactor.count(), qint64(2));
}

void TestRedactor::oneShotTexts() {
    const Redactor redactor({SecretValue{kName, kValue}});
    qint64 count = 0;
    QCOMPARE(redactor.redacted(QString::fromUtf8("error: " + kValue + " and " + kValue.toHex()), &count),
             QString::fromUtf8("error: " + kMarker + " and " + kMarker));
    QCOMPARE(count, qint64(2));
    QCOMPARE(Redactor().redacted(QStringLiteral("plain")), QStringLiteral("plain"));
}

void TestRedactor::hostNamesIgnoreCase() {
    // A value put into a host name comes back lower-cased from a resolver or a proxy (SPEC §8).
    const Redactor redactor({SecretValue{QStringLiteral("TOKEN"), QByteArray("AbCdEf123456")}});
    qint64 count = 0;
    QCOMPARE(redactor.redactedIgnoringCase(QStringLiteral("abcdef123456.evil.example"), &count),
             QStringLiteral("[REDACTED:TOKEN].evil.example"));
    QCOMPARE(count, 1);
    QCOMPARE(redactor.redactedIgnoringCase(QStringLiteral("x.ABCDEF123456.y")), QStringLiteral("x.[REDACTED:TOKEN].y"));
    // Its hex form, in either case, too; other text is left as it is.
    QCOMPARE(redactor.redactedIgnoringCase(QString::fromLatin1(QByteArray("AbCdEf123456").toHex().toUpper())),
             QStringLiteral("[REDACTED:TOKEN]"));
    QCOMPARE(redactor.redactedIgnoringCase(QStringLiteral("Registry.NPMjs.org"), &count),
             QStringLiteral("Registry.NPMjs.org"));
    QCOMPARE(count, 0);
    // The plain one-shot form stays exact.
    QCOMPARE(redactor.redacted(QStringLiteral("abcdef123456")), QStringLiteral("abcdef123456"));
}

// Two streams as they arrived: a value one stream printed in one piece while the other stream's bytes came in
// between is still caught (its marker where it began, the other stream's bytes kept), and so is a value split
// between the streams. Every split position of the value is tried.
void TestRedactor::interleavedStreams_data() {
    QTest::addColumn<QByteArray>("form");
    QTest::addColumn<bool>("splitBetweenStreams");
    QTest::newRow("value, interrupted") << kValue << false;
    QTest::newRow("base64, interrupted") << kValue.toBase64() << false;
    QTest::newRow("hex, interrupted") << kValue.toHex() << false;
    QTest::newRow("value, split between the streams") << kValue << true;
}

void TestRedactor::interleavedStreams() {
    QFETCH(QByteArray, form);
    QFETCH(bool, splitBetweenStreams);
    const Redactor redactor({SecretValue{kName, kValue}});
    for (qsizetype at = 1; at < form.size(); ++at) {
        const QList<Redactor::Segment> segments =
            splitBetweenStreams
                ? QList<Redactor::Segment>{{0, "out " + form.left(at)}, {1, form.mid(at) + " err\n"}}
                : QList<Redactor::Segment>{{0, "out " + form.left(at)}, {1, "ERR\n"}, {0, form.mid(at) + "\n"}};
        qint64 count = 0;
        const QByteArray out = redactor.redactedInterleaved(segments, &count);
        QVERIFY2(!out.contains(form.left(8)) && !out.contains(form.right(8)), out.constData());
        QCOMPARE(count, qint64(1));
        QCOMPARE(out, splitBetweenStreams ? QByteArray("out " + kMarker + " err\n")
                                          : QByteArray("out " + kMarker + "ERR\n\n"));
    }
    // Without a secret in it, the streams come back as they arrived.
    QCOMPARE(redactor.redactedInterleaved({{0, "a"}, {1, "b"}, {0, "c"}}), QByteArray("abc"));
}

// Marker::Masked (the answers of a host a secret is bound to, SPEC §9): every form becomes as many '*', at every
// split, so the answer's stated lengths stay true; the forms a host reflects (a Basic credential's base64 after a
// user name of any length) are among them.
void TestRedactor::maskedKeepsEveryLength_data() {
    QTest::addColumn<QByteArray>("form");
    QTest::newRow("raw") << kValue;
    QTest::newRow("url encoded") << kValue.toPercentEncoding();
    QTest::newRow("hex") << kValue.toHex();
    for (const char* user : {"x:", "ab:", "user:"}) {
        const QByteArray basic = QByteArray(user + kValue).toBase64();
        QTest::newRow(qPrintable(QStringLiteral("basic %1").arg(QString::fromLatin1(user)))) << basic;
    }
}

void TestRedactor::maskedKeepsEveryLength() {
    QFETCH(QByteArray, form);
    const QByteArray text = "HTTP/1.1 200 OK\r\nX-Echo: " + form + "\r\n\r\n";
    for (qsizetype at = 0; at <= text.size(); ++at) {
        Redactor redactor({SecretValue{kName, kValue}}, Redactor::Marker::Masked);
        const QByteArray out = splitFeed(redactor, text, at);
        QCOMPARE(out.size(), text.size());
        QVERIFY2(out.contains("**********"),
                 qPrintable(QStringLiteral("split at %1: %2").arg(at).arg(QString::fromLatin1(out))));
        QVERIFY(!out.contains(kValue) && !out.contains(kMarker));
        QVERIFY(out.startsWith("HTTP/1.1 200 OK\r\nX-Echo: ") && out.endsWith("\r\n\r\n"));
        QVERIFY(redactor.count() >= 1);
    }
    // All of the value's own characters are masked: at most the two at each end that share bits with what
    // surrounds it (a user name, padding) stay.
    Redactor one({SecretValue{kName, kValue}}, Redactor::Marker::Masked);
    const QByteArray masked = one.redacted(form);
    QVERIFY2(masked.count(QByteArrayView("*")) >= std::min(form.size(), kValue.size() * 8 / 6 - 2), masked.constData());
}

QTEST_GUILESS_MAIN(TestRedactor)
#include "tst_redactor.moc"
