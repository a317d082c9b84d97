// MountPins (SPEC §3 "Every mount source is pinned"): a source is reached without following any symbolic link, its
// identity is what the host's stat says, and the container's answer is judged strictly (fail closed).
#include "sandbox/mountpins.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace zeus;

class TestMountPins : public QObject {
    Q_OBJECT

private:
    // A container's table as Docker and Podman leave it (read off both engines): the root file system, the
    // kernel's file systems, the engine's files, the folder, its .git, the agent.
    static inline const QByteArray kMountInfo =
        "900 800 8:1 /var/lib/docker/vfs/dir/abc / rw,relatime - ext4 /dev/sda1 rw\n"
        "901 900 0:52 / /proc rw,nosuid - proc proc rw\n"
        "902 901 0:52 /bus /proc/bus ro,nosuid - proc proc rw\n"
        "903 901 0:60 /null /proc/keys rw,nosuid - tmpfs tmpfs rw\n"
        "904 900 0:53 / /dev rw,nosuid - tmpfs tmpfs rw\n"
        "905 904 0:54 / /dev/pts rw,nosuid - devpts devpts rw\n"
        "906 904 0:55 / /dev/mqueue rw,nosuid - mqueue mqueue rw\n"
        "907 900 0:56 / /sys ro,nosuid - sysfs sysfs ro\n"
        "908 907 0:30 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
        "909 900 0:57 / /home/zeus rw,nosuid - tmpfs tmpfs rw\n"
        "913 900 8:1 /var/lib/docker/containers/abc/hosts /etc/hosts rw - ext4 /dev/sda1 rw\n"
        "914 900 8:1 /run/containers/storage/x/userdata/.containerenv /run/.containerenv rw - ext4 /dev/sda1 rw\n"
        "915 900 0:58 / /run rw,nosuid - tmpfs tmpfs rw\n"
        "916 900 8:1 /usr/bin/tini-static /sbin/docker-init ro - ext4 /dev/sda1 rw\n"
        "910 900 8:1 /home/u/my\\040project /workspace rw,relatime - ext4 /dev/sda1 rw\n"
        "911 910 8:1 /home/u/my\\040project/.git /workspace/.git ro,relatime - ext4 /dev/sda1 rw\n"
        "912 900 8:1 /opt/zeus/agent /run/zeus/agent ro,relatime - ext4 /dev/sda1 rw\n";
    QTemporaryDir m_dir;
    QString root() const { return QFileInfo(m_dir.path()).canonicalFilePath(); }
    static WorkspaceApproval::Identity statOf(const QString& path) {
        struct stat buffer {};
        ::lstat(QFile::encodeName(path).constData(), &buffer);
        return {quint64(buffer.st_dev), quint64(buffer.st_ino)};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir().mkpath(root() + QStringLiteral("/ws/.git")));
        QVERIFY(QDir().mkpath(root() + QStringLiteral("/elsewhere/.git")));
        QFile agent(root() + QStringLiteral("/agent"));
        QVERIFY(agent.open(QIODevice::WriteOnly));
        QVERIFY(QFile::link(root() + QStringLiteral("/ws"), root() + QStringLiteral("/ws-link")));
        QVERIFY(QFile::link(root() + QStringLiteral("/elsewhere/.git"), root() + QStringLiteral("/ws/.git-link")));
        QVERIFY(QFile::link(root() + QStringLiteral("/agent"), root() + QStringLiteral("/agent-link")));
    }

    void pinPath_data() {
        QTest::addColumn<QString>("relative");
        QTest::addColumn<bool>("directory");
        QTest::addColumn<bool>("pinned");
        QTest::newRow("the folder") << QStringLiteral("/ws") << true << true;
        QTest::newRow(".git") << QStringLiteral("/ws/.git") << true << true;
        QTest::newRow("the agent") << QStringLiteral("/agent") << false << true;
        QTest::newRow("a link as the last component") << QStringLiteral("/ws/.git-link") << true << false;
        QTest::newRow("a link on the way") << QStringLiteral("/ws-link/.git") << true << false;
        QTest::newRow("the agent through a link") << QStringLiteral("/agent-link") << false << false;
        QTest::newRow("a folder where a file is expected") << QStringLiteral("/ws") << false << false;
        QTest::newRow("a file where a folder is expected") << QStringLiteral("/agent") << true << false;
        QTest::newRow("missing") << QStringLiteral("/ws/missing") << true << false;
        QTest::newRow("dot-dot") << QStringLiteral("/ws/../elsewhere") << true << false;
    }
    void pinPath() {
        QFETCH(QString, relative);
        QFETCH(bool, directory);
        QFETCH(bool, pinned);
        QString error;
        const auto identity = MountPins::pinPath(root() + relative, directory, &error);
        QCOMPARE(bool(identity), pinned);
        if (pinned) {
            QVERIFY(*identity == statOf(root() + relative));
        } else {
            QVERIFY(!error.isEmpty());
        }
    }

    void pinCoversEveryBindMount() {
        ContainerSpec spec;
        spec.workspace = root() + QStringLiteral("/ws");
        spec.overlays = {{QStringLiteral(".git"), true, true}};
        spec.agentSource = root() + QStringLiteral("/agent");
        QString error;
        const QList<MountPins::Pin> pins = MountPins::pin(spec, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(pins.size(), 3);
        QCOMPARE(pins.at(0).target, QStringLiteral("/workspace"));
        QCOMPARE(pins.at(1).target, QStringLiteral("/workspace/.git"));
        QCOMPARE(pins.at(2).target, QStringLiteral("/run/zeus/agent"));
        QVERIFY(pins.at(1).identity == statOf(spec.workspace + QStringLiteral("/.git")));
        // One source that cannot be pinned refuses them all.
        spec.agentSource = root() + QStringLiteral("/agent-link");
        QVERIFY(MountPins::pin(spec, &error).isEmpty());
        QVERIFY(error.contains(QLatin1String("symbolic link")));
        // A review copy binds nothing of the folder.
        spec.agentSource.clear();
        spec.reviewCopy = true;
        error.clear();
        QVERIFY(MountPins::pin(spec, &error).isEmpty());
        QVERIFY(error.isEmpty());
    }

    void checkCommandKeepsTargetsOutOfTheScript() {
        const QList<MountPins::Pin> pins = {{QStringLiteral("/workspace"), QStringLiteral("/w"), {1, 2}},
                                            {QStringLiteral("/run/zeus/agent"), QStringLiteral("/a"), {3, 4}}};
        const QStringList command = MountPins::checkCommand(pins);
        QCOMPARE(command.mid(0, 2), (QStringList{QStringLiteral("sh"), QStringLiteral("-c")}));
        QVERIFY(!command.at(2).contains(QLatin1String("/workspace")));
        QCOMPARE(command.mid(4), (QStringList{QStringLiteral("/workspace"), QStringLiteral("/run/zeus/agent")}));
    }

    void verify_data() {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<int>("outcome");
        using O = MountPins::Verdict::Outcome;
        const QByteArray table = "--\n" + kMountInfo;
        QTest::newRow("match") << QByteArray("boot\n1 2\n3 4\n" + table) << int(O::Match);
        QTest::newRow("a swapped .git") << QByteArray("boot\n1 2\n3 5\n" + table) << int(O::Mismatch);
        QTest::newRow("another device") << QByteArray("boot\n9 2\n3 4\n" + table) << int(O::Mismatch);
        QTest::newRow("a line missing") << QByteArray("boot\n1 2\n" + table) << int(O::Unusable);
        QTest::newRow("a line too many") << QByteArray("boot\n1 2\n3 4\n5 6\n" + table) << int(O::Unusable);
        QTest::newRow("not numbers") << QByteArray("boot\n1 2\nstat: not found\n") << int(O::Unusable);
        QTest::newRow("no mount table") << QByteArray("boot\n1 2\n3 4\n") << int(O::Unusable);
        QTest::newRow("nothing") << QByteArray() << int(O::Unusable);
        QTest::newRow("another kernel") << QByteArray("vm-boot\n1 2\n3 4\n") << int(O::OtherKernel);
        // The stat lines match (the genuine .git is under that name now), but the table shows a folder from
        // outside mounted on an entry the other container renamed.
        QTest::newRow("names swapped under the check")
            << QByteArray("boot\n1 2\n3 4\n--\n" + kMountInfo
                          + "990 900 8:1 /home/u/.ssh /workspace/.git-link ro,relatime - ext4 /dev/sda1 rw\n")
            << int(O::Mismatch);
    }
    void verify() {
        QFETCH(QByteArray, output);
        QFETCH(int, outcome);
        const QList<MountPins::Pin> pins = {{QStringLiteral("/workspace"), QStringLiteral("/w"), {1, 2}},
                                            {QStringLiteral("/workspace/.git"), QStringLiteral("/w/.git"), {3, 4}}};
        const MountPins::Verdict verdict = MountPins::verify(pins, output, QStringLiteral("boot"));
        QCOMPARE(int(verdict.outcome), outcome);
        if (verdict.outcome == MountPins::Verdict::Outcome::Mismatch) {
            QVERIFY(!verdict.problem.isEmpty());
        }
    }

    void foreignMount_data() {
        QTest::addColumn<QByteArray>("extra");
        QTest::addColumn<bool>("foreign");
        QTest::newRow("only the folder's own and the engine's") << QByteArray() << false;
        QTest::newRow("a sibling with the folder's name as prefix")
            << QByteArray("990 910 8:1 /home/u/my\\040project-old /workspace/x rw - ext4 /dev/sda1 rw\n") << true;
        QTest::newRow("another device") << QByteArray(
            "990 910 8:2 /home/u/my\\040project/x /workspace/x rw - ext4 x rw\n")
                                        << true;
        QTest::newRow("a subfolder of its own, renamed")
            << QByteArray("990 910 8:1 /home/u/my\\040project/.git /workspace/.git-link ro - ext4 /dev/sda1 rw\n")
            << false;
        QTest::newRow("outside, anywhere below /workspace")
            << QByteArray("990 910 8:1 /etc /workspace/a/b rw - ext4 /dev/sda1 rw\n") << true;
        // The engine followed a link at the mount target (.git -> /tmp/outside): the outside folder landed where
        // the link pointed, outside /workspace, and /workspace/.git reaches it through the link.
        QTest::newRow("outside, where a link in the folder pointed")
            << QByteArray("990 900 8:1 /home/u/.ssh /tmp/outside ro - ext4 /dev/sda1 rw\n") << true;
        QTest::newRow("outside, under /dev")
            << QByteArray("990 904 8:1 /home/u/.ssh /dev/x ro - ext4 /dev/sda1 rw\n") << true;
        QTest::newRow("a host tmpfs folder under /dev")
            << QByteArray("990 904 0:23 /user/1000 /dev/x ro - tmpfs tmpfs rw\n") << true;
        QTest::newRow("the container's own tmpfs") << QByteArray("990 900 0:99 / /tmp rw - tmpfs tmpfs rw\n") << false;
        // Docker's init in an image with a merged /usr (/sbin is a link): found by running the real Debian image.
        QTest::newRow("the init under a merged /usr")
            << QByteArray("990 900 8:1 /usr/bin/tini-static /usr/sbin/docker-init ro - ext4 /dev/sda1 rw\n") << false;
        QTest::newRow("a disk folder at a kernel place")
            << QByteArray("990 900 8:1 /home/u /proc/x ro - ext4 /dev/sda1 rw\n") << true;
    }
    void foreignMount() {
        QFETCH(QByteArray, extra);
        QFETCH(bool, foreign);
        QCOMPARE(!MountPins::foreignMount(kMountInfo + extra).isEmpty(), foreign);
        QVERIFY(!MountPins::foreignMount("900 800 0:50 / / rw - overlay overlay rw\n").isEmpty());  // no /workspace
    }
};

QTEST_GUILESS_MAIN(TestMountPins)
#include "tst_mountpins.moc"
