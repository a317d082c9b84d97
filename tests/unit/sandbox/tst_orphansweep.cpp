#include "engine/containerruntime.h"
#include "sandbox/orphansweep.h"

#include <QTest>

using namespace zeus;

namespace {

ContainerInfo container(const QString& id, const QString& owner, bool running = true) {
    ContainerInfo info;
    info.id = id;
    info.running = running;
    info.labels.insert(labels::owner(), owner);
    return info;
}

}  // namespace

// What the sweep removes and stops: only this install's containers that no live session owns; review containers are
// stopped and kept, never removed.
class TestOrphanSweep : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void plan_data() {
        QTest::addColumn<QList<ContainerInfo>>("containers");
        QTest::addColumn<QStringList>("live");
        QTest::addColumn<QStringList>("reviews");
        QTest::addColumn<QStringList>("removed");
        QTest::addColumn<QStringList>("stopped");
        const QString me = QStringLiteral("me");
        const QString other = QStringLiteral("other");
        QTest::newRow("nothing live: all of mine go")
            << QList<ContainerInfo>{container(QStringLiteral("aaa"), me), container(QStringLiteral("bbb"), me, false)}
            << QStringList() << QStringList() << QStringList{QStringLiteral("aaa"), QStringLiteral("bbb")}
            << QStringList();
        QTest::newRow("another install's stay") << QList<ContainerInfo>{container(QStringLiteral("aaa"), other),
                                                                        container(QStringLiteral("bbb"), QString())}
                                                << QStringList() << QStringList() << QStringList() << QStringList();
        QTest::newRow("a live session's stays, by short or full id")
            << QList<ContainerInfo>{container(QStringLiteral("aaa111"), me), container(QStringLiteral("bbb"), me)}
            << QStringList{QStringLiteral("aaa"), QStringLiteral("bbb222")} << QStringList() << QStringList()
            << QStringList();
        QTest::newRow("an empty live id owns nothing")
            << QList<ContainerInfo>{container(QStringLiteral("aaa"), me)} << QStringList{QString()} << QStringList()
            << QStringList{QStringLiteral("aaa")} << QStringList();
        QTest::newRow("review containers are stopped when running, never removed")
            << QList<ContainerInfo>{container(QStringLiteral("rev1"), me), container(QStringLiteral("rev2"), me, false),
                                    container(QStringLiteral("ccc"), me)}
            << QStringList() << QStringList{QStringLiteral("rev1"), QStringLiteral("rev2")}
            << QStringList{QStringLiteral("ccc")} << QStringList{QStringLiteral("rev1")};
    }

    void plan() {
        QFETCH(QList<ContainerInfo>, containers);
        QFETCH(QStringList, live);
        QFETCH(QStringList, reviews);
        QFETCH(QStringList, removed);
        QFETCH(QStringList, stopped);
        const OrphanSweep::Plan plan = OrphanSweep::plan(
            containers, QStringLiteral("me"), live, [&reviews](const QString& id) { return reviews.contains(id); });
        QCOMPARE(plan.remove, removed);
        QCOMPARE(plan.stop, stopped);
    }

    // A session making a container: the listing may already show the container under way, whose id the session
    // learns only when `run` returns; none of that session's containers is swept, another session's old one is.
    void aContainerUnderWayStays() {
        ContainerInfo underWay = container(QStringLiteral("new1"), QStringLiteral("me"));
        underWay.labels.insert(labels::session(), QStringLiteral("s"));
        ContainerInfo old = container(QStringLiteral("old1"), QStringLiteral("me"));
        old.labels.insert(labels::session(), QStringLiteral("t"));
        const auto noReviews = [](const QString&) { return false; };
        const OrphanSweep::Plan plan =
            OrphanSweep::plan({underWay, old}, QStringLiteral("me"), {QString()}, noReviews, {QStringLiteral("s")});
        QCOMPARE(plan.remove, QStringList{QStringLiteral("old1")});
        QCOMPARE(OrphanSweep::plan({underWay, old}, QStringLiteral("me"), {QString()}, noReviews).remove,
                 (QStringList{QStringLiteral("new1"), QStringLiteral("old1")}));
    }
};

QTEST_GUILESS_MAIN(TestOrphanSweep)
#include "tst_orphansweep.moc"
