// AgentLane: the lane's folder and socket (docs/agent-protocol.md "The lane", docs/security.md), with the attacker
// it exists against: anything in the container can connect to the socket, so only the connection that presents the
// offered key is taken, once; a connection that comes first (with another key, with none, or holding on) never gets
// the lane, and once it is taken the socket is gone.
#include "sandbox/agent/agentframe.h"
#include "sandbox/agent/agentlane.h"

#include <QFileInfo>
#include <QLocalSocket>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <sys/stat.h>

using namespace zeus;

namespace {

std::unique_ptr<QLocalSocket> dial(const QString& path, const QByteArray& first = {}) {
    auto socket = std::make_unique<QLocalSocket>();
    socket->connectToServer(path);
    if (!socket->waitForConnected(2000)) {
        return nullptr;
    }
    if (!first.isEmpty()) {
        socket->write(first);
        socket->flush();
    }
    return socket;
}

mode_t modeOf(const QString& path) {
    struct stat info {};
    return ::lstat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_mode & 0777 : 0;
}

}  // namespace

class TestAgentLane : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void folderIsPrivate();
    void onlyTheKeyTakesTheLane();
    void connectionFirstCannotHijack();
    void silentConnectionIsDropped();
    void oneLanePerOffer();
    void newOfferVoidsTheOldKey();
    void folderGoesWithTheLane();
};

void TestAgentLane::folderIsPrivate() {
    QTemporaryDir dir;
    AgentLane lane(dir.path() + QStringLiteral("/lanes"));
    QVERIFY2(lane.isValid(), qPrintable(lane.errorString()));
    QCOMPARE(modeOf(dir.path() + QStringLiteral("/lanes")), mode_t(0700));
    QCOMPARE(modeOf(lane.folder()), mode_t(0700));
    QVERIFY(lane.folder().startsWith(dir.path() + QStringLiteral("/lanes/")));
    QCOMPARE(lane.offer().size(), agentframe::kLaneKeySize);
    QVERIFY(QFileInfo(lane.socketPath()).exists());

    // A parent folder others may enter is refused: a lane folder must be the user's alone.
    const QString open = dir.path() + QStringLiteral("/open");
    QVERIFY(QDir().mkdir(open));
    QVERIFY(::chmod(QFile::encodeName(open).constData(), 0755) == 0);
    AgentLane refused(open);
    QVERIFY(!refused.isValid());
    QVERIFY2(refused.errorString().contains(QStringLiteral("not a private folder")), qPrintable(refused.errorString()));
}

void TestAgentLane::onlyTheKeyTakesTheLane() {
    QTemporaryDir dir;
    AgentLane lane(dir.path());
    const QByteArray key = lane.offer();
    QSignalSpy connected(&lane, &AgentLane::connected);
    auto agent = dial(lane.socketPath(), key + QByteArray("frames"));
    QVERIFY(agent);
    QVERIFY(connected.wait(3000));
    std::unique_ptr<QLocalSocket> taken(lane.take());
    QVERIFY(taken);
    QVERIFY(!lane.take());
    // The key is not handed on; the bytes behind it are the channel's.
    if (taken->bytesAvailable() < 6) {
        QVERIFY(taken->waitForReadyRead(2000));
    }
    QCOMPARE(taken->readAll(), QByteArray("frames"));
    QCOMPARE(lane.refusedConnections(), 0);
}

void TestAgentLane::connectionFirstCannotHijack() {
    QTemporaryDir dir;
    AgentLane lane(dir.path());
    const QByteArray key = lane.offer();
    QSignalSpy connected(&lane, &AgentLane::connected);
    QSignalSpy refused(&lane, &AgentLane::refused);
    // A command connects before the agent: another key, a key one byte short then the rest of another, and one
    // that holds on without a word.
    QByteArray wrong = key;
    wrong[0] = char(wrong.at(0) ^ 1);
    auto forger = dial(lane.socketPath(), wrong + QByteArray("GET"));
    auto shortKey = dial(lane.socketPath(), key.left(agentframe::kLaneKeySize - 1));
    auto holder = dial(lane.socketPath());
    QVERIFY(forger && shortKey && holder);
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 3000);
    shortKey->write(QByteArray(1, char(key.back() ^ 1)));  // the last byte is not the key's
    shortKey->flush();
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 2, 3000);
    QCOMPARE(connected.count(), 0);
    // The agent comes after them and still gets the lane; the forger reads nothing, ever.
    auto agent = dial(lane.socketPath(), key);
    QVERIFY(agent);
    QVERIFY(connected.wait(3000));
    std::unique_ptr<QLocalSocket> taken(lane.take());
    QVERIFY(taken);
    taken->write("secret tunnel bytes");
    taken->flush();
    QVERIFY(agent->waitForReadyRead(2000));
    QCOMPARE(agent->readAll(), QByteArray("secret tunnel bytes"));
    QTRY_VERIFY_WITH_TIMEOUT(forger->state() == QLocalSocket::UnconnectedState, 3000);
    QCOMPARE(forger->bytesAvailable(), 0);
    // Taking the lane dropped the one still waiting.
    QTRY_VERIFY_WITH_TIMEOUT(holder->state() == QLocalSocket::UnconnectedState, 3000);
}

void TestAgentLane::silentConnectionIsDropped() {
    QTemporaryDir dir;
    AgentLane lane(dir.path());
    const QByteArray key = lane.offer();
    QSignalSpy refused(&lane, &AgentLane::refused);
    auto holder = dial(lane.socketPath());
    QVERIFY(holder);
    QVERIFY(refused.wait(AgentLane::kKeyTimeoutMs + 2000));
    QVERIFY2(refused.first().first().toString().contains(QStringLiteral("in time")),
             qPrintable(refused.first().first().toString()));
    // More than kMaxPending waiting at once: the ones over are dropped at once, the agent still gets in after.
    std::vector<std::unique_ptr<QLocalSocket>> crowd;
    for (int i = 0; i < AgentLane::kMaxPending + 3; ++i) {
        crowd.push_back(dial(lane.socketPath()));
    }
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 4, 3000);
    QSignalSpy connected(&lane, &AgentLane::connected);
    crowd.clear();  // they leave (each is dropped as it goes); then the agent connects
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 4 + AgentLane::kMaxPending, 3000);
    auto agent = dial(lane.socketPath(), key);
    QVERIFY(agent);
    QVERIFY(connected.wait(3000));
}

void TestAgentLane::oneLanePerOffer() {
    QTemporaryDir dir;
    AgentLane lane(dir.path());
    const QByteArray key = lane.offer();
    QSignalSpy connected(&lane, &AgentLane::connected);
    auto agent = dial(lane.socketPath(), key);
    QVERIFY(agent && connected.wait(3000));
    std::unique_ptr<QLocalSocket> taken(lane.take());
    // The socket is gone: whoever learnt the key later (a replay) cannot even connect.
    QVERIFY(!QFileInfo::exists(lane.socketPath()));
    QLocalSocket replay;
    replay.connectToServer(lane.socketPath());
    QVERIFY(!replay.waitForConnected(500));
    QCOMPARE(connected.count(), 1);
}

void TestAgentLane::newOfferVoidsTheOldKey() {
    QTemporaryDir dir;
    AgentLane lane(dir.path());
    const QByteArray old = lane.offer();
    const QByteArray key = lane.offer();
    QVERIFY(old != key);
    QSignalSpy refused(&lane, &AgentLane::refused);
    QSignalSpy connected(&lane, &AgentLane::connected);
    auto stale = dial(lane.socketPath(), old);
    QVERIFY(stale);
    QVERIFY(refused.wait(3000));
    lane.withdraw();
    QVERIFY(!QFileInfo::exists(lane.socketPath()));
    QCOMPARE(connected.count(), 0);
}

void TestAgentLane::folderGoesWithTheLane() {
    QTemporaryDir dir;
    QString folder;
    {
        AgentLane lane(dir.path());
        folder = lane.folder();
        QVERIFY(!lane.offer().isEmpty());
        QVERIFY(QFileInfo::exists(folder));
    }
    QVERIFY(!QFileInfo::exists(folder));
}

QTEST_GUILESS_MAIN(TestAgentLane)
#include "tst_agentlane.moc"
