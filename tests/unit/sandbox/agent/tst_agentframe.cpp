// agentframe: the sandbox agent protocol's bytes (docs/agent-protocol.md) — the app's frames byte for byte, and
// the reader's handling of what an untrusted agent may send: split input, limits, unknown types, bad payloads.
#include "sandbox/agent/agentframe.h"

#include <QTest>

using namespace zeus;
using namespace zeus::agentframe;

namespace {
QByteArray hex(const char* text) {
    return QByteArray::fromHex(text);
}
}  // namespace

class TestAgentFrame : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void appFramesByteForByte_data();
    void appFramesByteForByte();
    void readsEveryAgentFrame();
    void readsExposedPortKinds();
    void readsAcrossAnySplit();
    void refusesBadFrames_data();
    void refusesBadFrames();
    void staysFailedAfterAnError();
    void oversizeHeaderFailsBeforeThePayloadArrives();
    void consumedBytesDoNotPileUp();
    void laneFrames();
};

void TestAgentFrame::appFramesByteForByte_data() {
    QTest::addColumn<QByteArray>("frame");
    QTest::addColumn<QByteArray>("expected");
    // length, type, channel, payload
    QTest::newRow("exec") << execFrame(7, "ls", {"A=1"}, 1000, 2000, 0)
                          << hex("0000001d"
                                 "02"
                                 "00000007"
                                 "000003e8"
                                 "000007d0"
                                 "00000000"
                                 "00000001"
                                 "00000003"
                                 "413d31"
                                 "00000002"
                                 "6c73");
    QTest::newRow("exec with stdin") << execFrame(1, "", {}, 0, 0, kExecFlagStdin)
                                     << hex("00000014"
                                            "02"
                                            "00000001"
                                            "00000000"
                                            "00000000"
                                            "00000001"
                                            "00000000"
                                            "00000000");
    QTest::newRow("stdin") << stdinFrame(3, "ab")
                           << hex("00000002"
                                  "03"
                                  "00000003"
                                  "6162");
    QTest::newRow("stdin eof") << stdinFrame(3, {})
                               << hex("00000000"
                                      "03"
                                      "00000003");
    QTest::newRow("signal") << signalFrame(2, 2)
                            << hex("00000004"
                                   "04"
                                   "00000002"
                                   "00000002");
    QTest::newRow("stop") << stopFrame(9, 2000)
                          << hex("00000004"
                                 "05"
                                 "00000009"
                                 "000007d0");
    QTest::newRow("window") << windowFrame(0x01020304, 65536)
                            << hex("00000004"
                                   "06"
                                   "01020304"
                                   "00010000");
    QTest::newRow("listen") << listenFrame(3128, ListenerKind::HttpProxy)
                            << hex("00000008"
                                   "08"
                                   "00000000"
                                   "00000c38"
                                   "00000001");
    QTest::newRow("tunnel data") << tunnelDataFrame(0x80000002, "hi")
                                 << hex("00000002"
                                        "09"
                                        "80000002"
                                        "6869");
    QTest::newRow("tunnel eof") << tunnelDataFrame(0x80000002, {})
                                << hex("00000000"
                                       "09"
                                       "80000002");
    QTest::newRow("tunnel close") << tunnelCloseFrame(0x80000003)
                                  << hex("00000000"
                                         "0a"
                                         "80000003");
    QTest::newRow("tunnel connect") << tunnelConnectFrame(0xC0000001, 8000)
                                    << hex("00000004"
                                           "0b"
                                           "c0000001"
                                           "00001f40");
    QTest::newRow("close") << closeFrame()
                           << hex("00000000"
                                  "07"
                                  "00000000");
}

void TestAgentFrame::appFramesByteForByte() {
    QFETCH(QByteArray, frame);
    QFETCH(QByteArray, expected);
    QCOMPARE(frame.toHex(), expected.toHex());
}

void TestAgentFrame::readsEveryAgentFrame() {
    Reader reader;
    reader.feed(helloFrame(kProtocolVersion, "0.1.0") + startedFrame(5, 42)
                + outputFrame(5, OutputStream::Stdout, "out")
                + outputFrame(5, OutputStream::Stderr, QByteArray("\xff\x00", 2))
                + exitFrame(5, false, 3, ExitReason::Itself) + exitFrame(6, true, 9, ExitReason::Stopped)
                + errorFrame(7, "no shell") + errorFrame(0, "bye") + anyFrame(Type::AgentWindow, 5, hex("00001000"))
                + tunnelOpenFrame(0x80000001, ListenerKind::Socks5) + tunnelOutFrame(0x80000001, "req")
                + tunnelOutFrame(0x80000001, {}) + anyFrame(Type::AgentWindow, 0x80000001, hex("00000010"))
                + tunnelClosedFrame(0x80000001) + listeningFrame(1080, 98) + tunnelConnectedFrame(0xC0000003, 111));
    auto frame = reader.next();
    QVERIFY(frame);
    QCOMPARE(frame->type, Type::Hello);
    QCOMPARE(frame->value, kProtocolVersion);
    QCOMPARE(frame->text, QStringLiteral("0.1.0"));
    frame = reader.next();
    QCOMPARE(frame->type, Type::Started);
    QCOMPARE(frame->channel, 5u);
    QCOMPARE(frame->value, 42u);
    frame = reader.next();
    QCOMPARE(frame->type, Type::Stdout);
    QCOMPARE(frame->data, QByteArray("out"));
    frame = reader.next();
    QCOMPARE(frame->type, Type::Stderr);
    QCOMPARE(frame->data, QByteArray("\xff\x00", 2));
    frame = reader.next();
    QCOMPARE(frame->type, Type::Exit);
    QVERIFY(!frame->signalled);
    QCOMPARE(frame->exitCode, 3);
    QCOMPARE(frame->exitReason, quint8(ExitReason::Itself));
    frame = reader.next();
    QVERIFY(frame->signalled);
    QCOMPARE(frame->exitCode, 9);
    QCOMPARE(frame->exitReason, quint8(ExitReason::Stopped));
    frame = reader.next();
    QCOMPARE(frame->type, Type::Error);
    QCOMPARE(frame->channel, 7u);
    QCOMPARE(frame->text, QStringLiteral("no shell"));
    frame = reader.next();
    QCOMPARE(frame->channel, 0u);
    frame = reader.next();
    QCOMPARE(frame->type, Type::AgentWindow);
    QCOMPARE(frame->value, 4096u);
    frame = reader.next();
    QCOMPARE(frame->type, Type::TunnelOpen);
    QCOMPARE(frame->channel, 0x80000001u);
    QCOMPARE(frame->value, quint32(ListenerKind::Socks5));
    frame = reader.next();
    QCOMPARE(frame->type, Type::TunnelDataOut);
    QCOMPARE(frame->data, QByteArray("req"));
    frame = reader.next();
    QCOMPARE(frame->type, Type::TunnelDataOut);
    QVERIFY(frame->data.isEmpty());  // the client is done sending
    frame = reader.next();
    QCOMPARE(frame->type, Type::AgentWindow);
    QCOMPARE(frame->channel, 0x80000001u);
    frame = reader.next();
    QCOMPARE(frame->type, Type::TunnelClosed);
    frame = reader.next();
    QCOMPARE(frame->type, Type::Listening);
    QCOMPARE(frame->value, 1080u);
    QCOMPARE(frame->error, 98u);
    frame = reader.next();
    QCOMPARE(frame->type, Type::TunnelConnected);
    QCOMPARE(frame->channel, 0xC0000003u);
    QCOMPARE(frame->error, 111u);  // ECONNREFUSED: nothing listens on the container's port
    QVERIFY(!reader.next());
    QVERIFY(!reader.failed());
    QCOMPARE(reader.buffered(), 0);
}

// An exposed host port's listener names its container port in its kind, and the reader takes exactly those kinds.
void TestAgentFrame::readsExposedPortKinds() {
    QCOMPARE(quint32(exposeKind(8080)), 0x31F90u);
    QCOMPARE(exposedPort(exposeKind(8080)), quint16(8080));
    QCOMPARE(exposedPort(exposeKind(65535)), quint16(65535));
    QCOMPARE(exposedPort(ListenerKind::HttpProxy), quint16(0));
    QCOMPARE(exposedPort(ListenerKind::Socks5), quint16(0));
    QCOMPARE(exposedPort(ListenerKind(0x131F90U)), quint16(0));
    Reader reader;
    reader.feed(helloFrame(kProtocolVersion, "0.1.0") + tunnelOpenFrame(0x80000002, exposeKind(5432)));
    QVERIFY(reader.next());
    const std::optional<AgentFrame> frame = reader.next();
    QVERIFY(frame);
    QCOMPARE(frame->type, Type::TunnelOpen);
    QCOMPARE(exposedPort(ListenerKind(frame->value)), quint16(5432));
}

void TestAgentFrame::readsAcrossAnySplit() {
    const QByteArray stream = helloFrame(kProtocolVersion, "v")
                              + outputFrame(1, OutputStream::Stdout, QByteArray(1000, 'x'))
                              + exitFrame(1, false, 0, ExitReason::Itself);
    for (int step = 1; step <= 17; ++step) {
        Reader reader;
        QList<Type> types;
        qsizetype outputBytes = 0;
        for (qsizetype at = 0; at < stream.size(); at += step) {
            reader.feed(stream.mid(at, step));
            while (const auto frame = reader.next()) {
                types << frame->type;
                outputBytes += frame->data.size();
            }
        }
        QVERIFY2(!reader.failed(), qPrintable(reader.errorString()));
        QCOMPARE(types, (QList<Type>{Type::Hello, Type::Stdout, Type::Exit}));
        QCOMPARE(outputBytes, 1000);
    }
}

void TestAgentFrame::refusesBadFrames_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("why");
    QTest::newRow("unknown type") << anyFrame(Type(0x99), 1, {}) << QStringLiteral("unknown frame type 0x99");
    QTest::newRow("an app frame type") << anyFrame(Type::Exec, 1, {}) << QStringLiteral("unknown frame type 0x02");
    QTest::newRow("hello on a call") << anyFrame(Type::Hello, 1, hex("00000001")) << QStringLiteral("malformed hello");
    QTest::newRow("hello too short") << anyFrame(Type::Hello, 0, hex("0001")) << QStringLiteral("malformed hello");
    QTest::newRow("hello version too long")
        << anyFrame(Type::Hello, 0, hex("00000001") + QByteArray(200, 'v')) << QStringLiteral("malformed hello");
    QTest::newRow("started on channel 0") << startedFrame(0, 1) << QStringLiteral("malformed started");
    QTest::newRow("started without pid") << anyFrame(Type::Started, 1, {}) << QStringLiteral("malformed started");
    QTest::newRow("empty output") << anyFrame(Type::Stdout, 1, {}) << QStringLiteral("malformed output");
    QTest::newRow("output on channel 0") << outputFrame(0, OutputStream::Stderr, "x")
                                         << QStringLiteral("malformed output");
    QTest::newRow("output chunk over 32 KiB")
        << outputFrame(1, OutputStream::Stdout, QByteArray(int(kMaxDataChunk) + 1, 'x'))
        << QStringLiteral("malformed output");
    QTest::newRow("exit too short") << anyFrame(Type::Exit, 1, hex("0000")) << QStringLiteral("malformed exit");
    QTest::newRow("exit unknown how") << anyFrame(Type::Exit, 1,
                                                  hex("02"
                                                      "00000000"
                                                      "00"))
                                      << QStringLiteral("malformed exit");
    QTest::newRow("exit unknown reason") << anyFrame(Type::Exit, 1,
                                                     hex("00"
                                                         "00000000"
                                                         "03"))
                                         << QStringLiteral("malformed exit");
    QTest::newRow("signal 0") << exitFrame(1, true, 0, ExitReason::Itself) << QStringLiteral("malformed exit");
    QTest::newRow("signal 1000") << exitFrame(1, true, 1000, ExitReason::Itself) << QStringLiteral("malformed exit");
    QTest::newRow("huge error text") << errorFrame(1, QByteArray(2000, 'e')) << QStringLiteral("malformed error");
    QTest::newRow("lane on a call") << anyFrame(Type::LaneOut, 1, {}) << QStringLiteral("malformed lane");
    QTest::newRow("lane answer of 2 bytes")
        << anyFrame(Type::LaneOut, 0, hex("0000")) << QStringLiteral("malformed lane");
    QTest::newRow("lane answer of 8 bytes")
        << anyFrame(Type::LaneOut, 0, hex("0000000000000000")) << QStringLiteral("malformed lane");
    QTest::newRow("an app lane frame") << laneSwitchFrame() << QStringLiteral("unknown frame type 0x0c");
    QTest::newRow("window without size") << anyFrame(Type::AgentWindow, 1, {}) << QStringLiteral("malformed window");
    QTest::newRow("window on channel 0") << anyFrame(Type::AgentWindow, 0, hex("00000001"))
                                         << QStringLiteral("malformed window");
    QTest::newRow("tunnel open on a call's id")
        << tunnelOpenFrame(5, ListenerKind::Socks5) << QStringLiteral("malformed tunnel open");
    QTest::newRow("tunnel open of an unknown kind")
        << anyFrame(Type::TunnelOpen, 0x80000001, hex("00000009")) << QStringLiteral("malformed tunnel open");
    QTest::newRow("tunnel open of an exposed port 0")
        << anyFrame(Type::TunnelOpen, 0x80000001, hex("00030000")) << QStringLiteral("malformed tunnel open");
    QTest::newRow("tunnel open of a kind near expose")
        << anyFrame(Type::TunnelOpen, 0x80000001, hex("01031f90")) << QStringLiteral("malformed tunnel open");
    QTest::newRow("tunnel data over 32 KiB")
        << tunnelOutFrame(0x80000001, QByteArray(32769, 'x')) << QStringLiteral("malformed tunnel data");
    QTest::newRow("tunnel closed with a payload")
        << anyFrame(Type::TunnelClosed, 0x80000001, "x") << QStringLiteral("malformed tunnel closed");
    QTest::newRow("listening on a channel")
        << anyFrame(Type::Listening, 1, hex("0000000100000000")) << QStringLiteral("malformed listening");
    QTest::newRow("listening on port 0") << listeningFrame(0, 0) << QStringLiteral("malformed listening");
    QTest::newRow("tunnel open on an id of the app's")
        << tunnelOpenFrame(0xC0000001, ListenerKind::HttpProxy) << QStringLiteral("malformed tunnel open");
    QTest::newRow("tunnel connected on an id of the agent's")
        << tunnelConnectedFrame(0x80000001, 0) << QStringLiteral("malformed tunnel connected");
    QTest::newRow("tunnel connected on a call's id")
        << tunnelConnectedFrame(0x40000001, 0) << QStringLiteral("malformed tunnel connected");
    QTest::newRow("tunnel connected without its error")
        << anyFrame(Type::TunnelConnected, 0xC0000001, {}) << QStringLiteral("malformed tunnel connected");
    QTest::newRow("stdout on a tunnel") << outputFrame(0x80000001, OutputStream::Stdout, "x")
                                        << QStringLiteral("malformed output");
    QTest::newRow("over the size limit") << hex(
        "00010001"
        "83"
        "00000001") << QStringLiteral("over the limit");
}

void TestAgentFrame::refusesBadFrames() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, why);
    Reader reader;
    reader.feed(bytes);
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    QVERIFY2(reader.errorString().contains(why), qPrintable(reader.errorString()));
}

void TestAgentFrame::staysFailedAfterAnError() {
    Reader reader;
    reader.feed(anyFrame(Type(0x42), 0, {}) + helloFrame(kProtocolVersion, "v"));
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    reader.feed(helloFrame(kProtocolVersion, "v"));
    QVERIFY(!reader.next());  // no resynchronising on a stream that lied once
    QCOMPARE(reader.buffered(), 0);
}

void TestAgentFrame::oversizeHeaderFailsBeforeThePayloadArrives() {
    Reader reader;
    reader.feed(
        hex("7fffffff"
            "83"
            "00000001"));  // a 2 GiB frame: refused from its header alone
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    QCOMPARE(reader.buffered(), 0);
}

void TestAgentFrame::consumedBytesDoNotPileUp() {
    Reader reader;
    const QByteArray chunk = outputFrame(1, OutputStream::Stdout, QByteArray(int(kMaxDataChunk), 'x'));
    for (int i = 0; i < 200; ++i) {
        reader.feed(chunk + chunk.left(5));  // always a partial frame left over
        while (reader.next()) {
        }
        reader.feed(chunk.mid(5));
        while (reader.next()) {
        }
    }
    QVERIFY(!reader.failed());
    QCOMPARE(reader.buffered(), 0);
}

void TestAgentFrame::laneFrames() {
    const QByteArray key(kLaneKeySize, '\x5a');
    QCOMPARE(laneFrame(key, "/run/zeus/lane/socket"), hex("00000035"
                                                          "0c"
                                                          "00000000")
                                                          + key + QByteArray("/run/zeus/lane/socket"));
    QCOMPARE(laneSwitchFrame(), hex("000000000c00000000"));
    Reader reader;
    reader.feed(laneAnswerFrame(2) + laneAnswerFrame(0) + laneSwitchedFrame());
    auto frame = reader.next();
    QVERIFY(frame && frame->type == Type::LaneOut && !frame->switched && frame->error == 2);
    frame = reader.next();
    QVERIFY(frame && frame->type == Type::LaneOut && !frame->switched && frame->error == 0);
    frame = reader.next();
    QVERIFY(frame && frame->type == Type::LaneOut && frame->switched);
    QVERIFY(!reader.next() && !reader.failed());
}
QTEST_GUILESS_MAIN(TestAgentFrame)
#include "tst_agentframe.moc"
