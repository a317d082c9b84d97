// The Changes view of review mode: the change list (what is picked for Apply by default, what can never be
// picked), the confirmation that flagged changes need, the detail (text diff, binary sizes and hashes, a file
// changed on the host), what Apply did with Take Theirs for conflicts, Discard's confirmation, the empty state,
// and the dashboard's Changes page.
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "dashboard/dashboardwindow.h"
#include "dashboard/localconsole.h"
#include "dashboard/networkpanel.h"
#include "manifestentries.h"
#include "review/changelistmodel.h"
#include "review/changeset.h"
#include "review/diffhighlighter.h"
#include "review/reviewpanel.h"
#include "review/sidebyside.h"
#include "review/textdiff.h"
#include "runtime/runtimedetector.h"
#include "sandbox/review/reviewservice.h"
#include "sessions/sessionspanel.h"

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QIcon>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeWidget>
#include <QtTest>

#include <memory>

using zeus::ApplyOutcome;
using zeus::Change;
using zeus::ChangeDetail;
using zeus::ChangeListModel;
using zeus::ChangeSet;
using zeus::CommitsResult;
using zeus::ReviewPanel;
using zeus::ReviewRecord;
using zeus::test::dirEntry;
using zeus::test::fileEntry;

namespace {

const QByteArray kForecastBefore =
    "import requests\n"
    "\n"
    "API = \"https://api.example.com/v1\"\n"
    "\n"
    "\n"
    "def forecast(city):\n"
    "    reply = requests.get(f\"{API}/forecast\", params={\"q\": city})\n"
    "    return reply.json()[\"days\"]\n"
    "\n"
    "\n"
    "def summary(days):\n"
    "    return \", \".join(day[\"sky\"] for day in days)\n";
const QByteArray kForecastAfter =
    "import requests\n"
    "\n"
    "API = \"https://api.example.com/v1\"\n"
    "TIMEOUT = 10  # seconds\n"
    "\n"
    "\n"
    "def forecast(city, days=3):\n"
    "    reply = requests.get(f\"{API}/forecast\", params={\"q\": city, \"days\": days}, timeout=TIMEOUT)\n"
    "    reply.raise_for_status()\n"
    "    return reply.json()[\"days\"]\n"
    "\n"
    "\n"
    "def summary(days):\n"
    "    return \", \".join(day[\"sky\"] for day in days)\n";
const QByteArray kMakefileBefore = "test:\n\tpytest -q\n";
const QByteArray kMakefileAfter = "test:\n\tpytest -q\n\ndeploy:\n\t./scripts/deploy.sh\n";
const QByteArray kLogoBefore = QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + QByteArray(2032, 'a');
const QByteArray kLogoAfter = QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) + QByteArray(3500, 'b');

// A baseline and the copy after an agent's work: a modified source file, a modified Makefile (flagged), a binary
// logo, a new test, a new executable script (flagged), a deleted note, a file inside .git (never applied).
QList<Change> sampleChanges() {
    zeus::WorkspaceManifest baseline;
    baseline.entries = {dirEntry(QStringLiteral(".git")),
                        fileEntry(QStringLiteral(".git/HEAD"), "ref: refs/heads/main\n"),
                        fileEntry(QStringLiteral("Makefile"), kMakefileBefore),
                        fileEntry(QStringLiteral("README.md"), "# Weather\n"),
                        dirEntry(QStringLiteral("assets")),
                        fileEntry(QStringLiteral("assets/logo.png"), kLogoBefore),
                        dirEntry(QStringLiteral("docs")),
                        fileEntry(QStringLiteral("docs/old-notes.md"), "Notes from the first prototype.\n"),
                        dirEntry(QStringLiteral("src")),
                        fileEntry(QStringLiteral("src/forecast.py"), kForecastBefore),
                        dirEntry(QStringLiteral("tests"))};
    zeus::WorkspaceManifest current;
    current.entries = {dirEntry(QStringLiteral(".git")),
                       fileEntry(QStringLiteral(".git/HEAD"), "ref: refs/heads/main\n"),
                       fileEntry(QStringLiteral(".git/ORIG_HEAD"), "4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"),
                       fileEntry(QStringLiteral("Makefile"), kMakefileAfter),
                       fileEntry(QStringLiteral("README.md"), "# Weather\n"),
                       dirEntry(QStringLiteral("assets")),
                       fileEntry(QStringLiteral("assets/logo.png"), kLogoAfter),
                       dirEntry(QStringLiteral("docs")),
                       dirEntry(QStringLiteral("scripts")),
                       fileEntry(QStringLiteral("scripts/deploy.sh"), "#!/bin/sh\nrsync -a dist/ web:/srv/\n", 0755),
                       dirEntry(QStringLiteral("src")),
                       fileEntry(QStringLiteral("src/forecast.py"), kForecastAfter),
                       dirEntry(QStringLiteral("tests")),
                       fileEntry(QStringLiteral("tests/test_forecast.py"), "def test_summary():\n    pass\n")};
    baseline.sort();
    current.sort();
    return zeus::ChangeSet::compute(baseline, current);
}

ReviewRecord sampleRecord(const QString& session, const QString& folder) {
    ReviewRecord record;
    record.sessionId = session;
    record.workspace = folder;
    record.containerId = QStringLiteral("3f9c2a71b0d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e");
    record.containerName = QStringLiteral("zeus-review-") + session;
    record.engine = QStringLiteral("docker");
    record.engineProgram = QStringLiteral("docker");
    record.created = QDateTime(QDate(2025, 3, 14), QTime(9, 26), Qt::UTC);
    return record;
}

QStringList pathsOf(const QList<Change>& changes) {
    QStringList paths;
    for (const Change& change : changes) {
        paths.append(change.path);
    }
    return paths;
}

template <typename T>
T* child(QObject* parent, const char* name) {
    auto* found = parent->findChild<T*>(QLatin1String(name));
    if (!found) {
        qWarning("no child %s", name);
    }
    return found;
}

// The question the panel asks (opened with open(): the test answers it like a user would).
QMessageBox* waitForQuestion() {
    QMessageBox* box = nullptr;
    (void)QTest::qWaitFor(
        [&box] {
            box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            return box != nullptr && box->isVisible();
        },
        5000);
    return box;
}

void answer(QMessageBox* box, QMessageBox::StandardButton button) {
    QVERIFY(box);
    QAbstractButton* target = box->button(button);
    QVERIFY(target);
    target->click();
    QTRY_VERIFY(QApplication::activeModalWidget() != box);
}

// No icon, or one with nothing to see.
bool isBlank(const QIcon& icon) {
    if (icon.isNull()) {
        return true;
    }
    const QImage image = icon.pixmap(16).toImage().convertToFormat(QImage::Format_ARGB32);
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            if (qAlpha(image.pixel(x, y)) != 0) {
                return false;
            }
        }
    }
    return true;
}

QColor foregroundOfLine(const QPlainTextEdit* edit, const QString& startsWith) {
    for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next()) {
        if (block.text().startsWith(startsWith)) {
            const QList<QTextLayout::FormatRange> formats = block.layout()->formats();
            return formats.isEmpty() ? QColor() : formats.first().format.foreground().color();
        }
    }
    return {};
}

// A panel with one or more review copies, shown, its first session listed with the sample changes.
struct Rig {
    std::unique_ptr<ReviewPanel> panel = std::make_unique<ReviewPanel>();
    std::unique_ptr<QSignalSpy> refresh = std::make_unique<QSignalSpy>(panel.get(), &ReviewPanel::refreshRequested);
    std::unique_ptr<QSignalSpy> detail = std::make_unique<QSignalSpy>(panel.get(), &ReviewPanel::detailRequested);
    std::unique_ptr<QSignalSpy> apply = std::make_unique<QSignalSpy>(panel.get(), &ReviewPanel::applyRequested);
    std::unique_ptr<QSignalSpy> discard = std::make_unique<QSignalSpy>(panel.get(), &ReviewPanel::discardRequested);
    QList<Change> changes = sampleChanges();
    QString session = QStringLiteral("sess-7f3a2c");

    ChangeListModel* model() const { return panel->changeModel(); }
    QTableView* list() const { return child<QTableView>(panel.get(), "changeList"); }
    QPlainTextEdit* diff() const { return child<QPlainTextEdit>(panel.get(), "changeDiff"); }
    QPushButton* button(const char* name) const { return child<QPushButton>(panel.get(), name); }
    void select(const QString& path) const {
        list()->setCurrentIndex(model()->index(model()->rowOf(path), ChangeListModel::PathColumn));
    }
};

std::unique_ptr<Rig> listedRig() {
    auto rig = std::make_unique<Rig>();
    rig->panel->resize(1000, 640);
    rig->panel->show();
    if (!QTest::qWaitForWindowExposed(rig->panel.get())) {
        return nullptr;
    }
    rig->panel->setRecords({sampleRecord(rig->session, QStringLiteral("/home/ana/projects/weather"))});
    if (rig->refresh->count() != 1) {
        return nullptr;
    }
    rig->panel->setChanges(rig->session, true, QString(), rig->changes);
    return rig;
}

}  // namespace

class TestChangesView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void modelShowsChangesAndPicksDefaults();
    void picksSurviveARefresh();
    void notApplicableCannotBePicked();
    void diffHighlighterFollowsHunks();
    void emptyStateAndSessions();
    void flaggedNeedConfirmation();
    void unflaggedApplyAtOnceAndApplyAllLeavesFlagged();
    void detailRendering();
    void filterHidesRowsAndKeepsPicks();
    void sideBySidePairsLines();
    void sideBySideToggle();
    void appliedSummaryAndTakeTheirs();
    void discardAsksFirst();
    void errorsAreInline();
    void dashboardHasChangesPage();
    void screenshot();
};

void TestChangesView::modelShowsChangesAndPicksDefaults() {
    const QList<Change> changes = sampleChanges();
    ChangeListModel model;
    model.setChanges(changes);
    QCOMPARE(model.rowCount(), int(changes.size()));
    QCOMPARE(model.columnCount(), int(ChangeListModel::ColumnCount));

    int flagged = 0;
    int notApplicable = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const Change& change = changes.at(row);
        const QString what = change.path;
        QCOMPARE(model.index(row, ChangeListModel::KindColumn).data().toString(), Change::kindLetter(change.kind));
        QCOMPARE(model.index(row, ChangeListModel::KindColumn)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .section(QLatin1Char('\n'), 0, 0)
                     .section(QLatin1Char(':'), 0, 0),
                 ChangeListModel::kindName(change.kind));
        QVERIFY2(model.index(row, ChangeListModel::PathColumn).data().toString().startsWith(change.path),
                 qPrintable(what));
        // Picked by default exactly when applicable and not flagged.
        QCOMPARE(model.isChecked(row), change.applicable && !change.flagged);
        const QVariant check = model.index(row, ChangeListModel::CheckColumn).data(Qt::CheckStateRole);
        if (change.applicable) {
            QCOMPARE(check.value<Qt::CheckState>(), change.flagged ? Qt::Unchecked : Qt::Checked);
        } else {
            QVERIFY2(!check.isValid(), qPrintable(what));  // no box at all
        }
        const QIcon icon = model.index(row, ChangeListModel::PathColumn).data(Qt::DecorationRole).value<QIcon>();
        if (change.flagged && change.applicable) {
            flagged += 1;
            QVERIFY2(!icon.isNull(), qPrintable(what));
            QVERIFY2(!isBlank(icon), qPrintable(what));
            QVERIFY2(model.index(row, ChangeListModel::PathColumn)
                         .data(Qt::ToolTipRole)
                         .toString()
                         .contains(change.flagReason),
                     qPrintable(what));
        } else if (!change.flagged) {
            QVERIFY2(isBlank(icon), qPrintable(what));  // no sign, only its room
        }
        if (!change.applicable) {
            notApplicable += 1;
            QCOMPARE(model.index(row, ChangeListModel::PathColumn).data(Qt::ToolTipRole).toString(),
                     change.notApplicableReason);
            QCOMPARE(model.index(row, ChangeListModel::PathColumn).data(Qt::ForegroundRole).value<QBrush>().color(),
                     QApplication::palette().color(QPalette::Disabled, QPalette::Text));
        }
    }
    QVERIFY(flagged >= 2);  // the Makefile and the new executable script
    QVERIFY(notApplicable >= 1);
    const int makefile = model.rowOf(QStringLiteral("Makefile"));
    QVERIFY(makefile >= 0);
    QVERIFY(changes.at(makefile).flagged);
    QVERIFY(!model.isChecked(makefile));

    // The size column: a new file grows by its size, a deleted one shrinks by it, a modified one by the difference.
    const int added = model.rowOf(QStringLiteral("tests/test_forecast.py"));
    const int deleted = model.rowOf(QStringLiteral("docs/old-notes.md"));
    const int modified = model.rowOf(QStringLiteral("src/forecast.py"));
    QVERIFY(added >= 0 && deleted >= 0 && modified >= 0);
    QCOMPARE(ChangeListModel::sizeDeltaBytes(changes.at(added)), changes.at(added).after.size);
    QCOMPARE(ChangeListModel::sizeDeltaBytes(changes.at(deleted)), -changes.at(deleted).before.size);
    QCOMPARE(ChangeListModel::sizeDeltaBytes(changes.at(modified)),
             qint64(kForecastAfter.size() - kForecastBefore.size()));
    QVERIFY(model.index(added, ChangeListModel::SizeColumn).data().toString().startsWith(QLatin1Char('+')));
    QVERIFY(model.index(deleted, ChangeListModel::SizeColumn).data().toString().startsWith(QChar(0x2212)));

    QCOMPARE(pathsOf(model.checkedChanges()).size(), model.checkedCount());
    for (const Change& change : model.checkedChanges()) {
        QVERIFY(change.applicable && !change.flagged);
    }
}

void TestChangesView::picksSurviveARefresh() {
    QList<Change> changes = sampleChanges();
    ChangeListModel model;
    QSignalSpy picks(&model, &ChangeListModel::checkedChanged);
    model.setChanges(changes);
    const int main = model.rowOf(QStringLiteral("src/forecast.py"));
    const int makefile = model.rowOf(QStringLiteral("Makefile"));
    QVERIFY(model.isChecked(main));
    picks.clear();
    QVERIFY(model.setData(model.index(main, ChangeListModel::CheckColumn), Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(model.setChecked(makefile, true));
    QCOMPARE(picks.count(), 2);
    QVERIFY(!model.isChecked(main));
    QVERIFY(model.isChecked(makefile));

    model.setChanges(changes);  // the same list again: the user's picks stay
    QVERIFY(!model.isChecked(main));
    QVERIFY(model.isChecked(makefile));

    changes[main].after.sha256 = QByteArray(64, 'c');  // the agent changed it again: a new change, picked anew
    changes[makefile].after.size += 1;
    changes[makefile].after.sha256 = QByteArray(64, 'd');
    model.setChanges(changes);
    QVERIFY(model.isChecked(main));
    QVERIFY(!model.isChecked(makefile));
}

void TestChangesView::notApplicableCannotBePicked() {
    auto rig = listedRig();
    QVERIFY(rig);
    ChangeListModel* model = rig->model();
    const int git = model->rowOf(QStringLiteral(".git/ORIG_HEAD"));
    QVERIFY(git >= 0);
    QVERIFY(!model->change(git).applicable);
    const QModelIndex gitBox = model->index(git, ChangeListModel::CheckColumn);
    QVERIFY(!(model->flags(gitBox) & Qt::ItemIsUserCheckable));
    QVERIFY(!model->setData(gitBox, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!model->setChecked(git, true));
    QVERIFY(!model->isChecked(git));

    // Clicking the box in the list: an applicable change toggles, the one inside .git does not.
    QTableView* list = rig->list();
    const int test = model->rowOf(QStringLiteral("tests/test_forecast.py"));
    QVERIFY(model->isChecked(test));
    const QRect testBox = list->visualRect(model->index(test, ChangeListModel::CheckColumn));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, testBox.center());
    QVERIFY(!model->isChecked(test));
    const QRect gitRect = list->visualRect(gitBox);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, gitRect.center());
    QVERIFY(!model->isChecked(git));
    QVERIFY(!pathsOf(model->checkedChanges()).contains(QStringLiteral(".git/ORIG_HEAD")));

    // Apply Selected never sends it.
    rig->button("applySelected")->click();
    QCOMPARE(rig->apply->count(), 1);
    const auto sent = rig->apply->first().at(1).value<QList<Change>>();
    QVERIFY(!pathsOf(sent).contains(QStringLiteral(".git/ORIG_HEAD")));
    QVERIFY(!pathsOf(sent).contains(QStringLiteral("tests/test_forecast.py")));

    // A copy whose only changes are in .git (commits) and need no file: Apply All is there and asks for an Apply
    // of nothing, which brings the commits.
    rig->panel->setApplied(rig->session, {}, QString());
    QList<Change> onlyGit;
    for (const Change& change : std::as_const(rig->changes)) {
        if (ChangeSet::isGitInternal(change.path) || change.flagged) {
            onlyGit.append(change);
        }
    }
    QVERIFY(!onlyGit.isEmpty());
    rig->panel->setChanges(rig->session, true, QString(), onlyGit);
    QPushButton* applyAll = rig->button("applyAll");
    QVERIFY(applyAll->isEnabled());
    applyAll->click();
    QCOMPARE(rig->apply->count(), 2);
    QCOMPARE(rig->apply->last().at(1).value<QList<Change>>().size(), 0);
}

void TestChangesView::diffHighlighterFollowsHunks() {
    QPlainTextEdit edit;
    zeus::DiffHighlighter highlighter(edit.document());
    // The removed line "-- old comment" reads "--- old comment": inside the hunk it is a removed line.
    edit.setPlainText(
        QStringLiteral("--- a/query.sql\n"
                       "+++ b/query.sql\n"
                       "@@ -1,3 +1,3 @@\n"
                       " SELECT 1;\n"
                       "--- old comment\n"
                       "+-- new comment\n"
                       " SELECT 2;\n"
                       "\\ No newline at end of file\n"));
    highlighter.rehighlight();
    const QColor added = foregroundOfLine(&edit, QStringLiteral("+-- new"));
    const QColor removed = foregroundOfLine(&edit, QStringLiteral("--- old"));
    const QColor hunk = foregroundOfLine(&edit, QStringLiteral("@@"));
    QVERIFY(added.isValid() && removed.isValid() && hunk.isValid());
    QVERIFY2(added.green() > added.red(), qPrintable(added.name()));
    QVERIFY2(removed.red() > removed.green(), qPrintable(removed.name()));
    QVERIFY(hunk.blue() > hunk.red());
    QCOMPARE(removed, zeus::DiffHighlighter::formatFor(zeus::DiffHighlighter::LineKind::Removed).foreground().color());

    // The file headers are bold, not red or green; context lines have no format.
    for (QTextBlock block = edit.document()->begin(); block.isValid(); block = block.next()) {
        const QList<QTextLayout::FormatRange> formats = block.layout()->formats();
        if (block.text().startsWith(QLatin1String("--- a/")) || block.text().startsWith(QLatin1String("+++ b/"))) {
            QVERIFY(!formats.isEmpty());
            QCOMPARE(formats.first().format.fontWeight(), int(QFont::Bold));
            QVERIFY(!formats.first().format.foreground().color().isValid()
                    || formats.first().format.foreground().style() == Qt::NoBrush);
        }
        if (block.text().startsWith(QLatin1String(" SELECT"))) {
            QVERIFY2(formats.isEmpty(), qPrintable(block.text()));
        }
    }
}

void TestChangesView::emptyStateAndSessions() {
    ReviewPanel panel;
    panel.resize(800, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy refresh(&panel, &ReviewPanel::refreshRequested);
    auto* empty = child<QLabel>(&panel, "reviewEmpty");
    QVERIFY(empty && empty->isVisible());
    QVERIFY(empty->text().contains(QStringLiteral("No review copies")));
    QVERIFY(!child<QTableView>(&panel, "changeList")->isVisible());
    QVERIFY(panel.currentSession().isEmpty());

    panel.showSession(QStringLiteral("b"));  // not listed yet: chosen once it arrives
    QCOMPARE(refresh.count(), 0);
    panel.setRecords({sampleRecord(QStringLiteral("a"), QStringLiteral("/home/ana/one")),
                      sampleRecord(QStringLiteral("b"), QStringLiteral("/home/ana/two"))});
    QVERIFY(!empty->isVisible());
    QVERIFY(child<QTableView>(&panel, "changeList")->isVisible());
    auto* sessions = child<QComboBox>(&panel, "reviewSessions");
    QCOMPARE(sessions->count(), 2);
    QVERIFY(sessions->itemText(1).contains(QStringLiteral("/home/ana/two")));
    QCOMPARE(panel.currentSession(), QStringLiteral("b"));
    QCOMPARE(refresh.count(), 1);
    QCOMPARE(refresh.last().at(0).toString(), QStringLiteral("b"));
    QVERIFY(panel.isBusy(QStringLiteral("b")));
    QVERIFY(!child<QPushButton>(&panel, "discardCopy")->isEnabled());  // the list is on its way
    QVERIFY(child<QLabel>(&panel, "reviewRecordInfo")->text().contains(QStringLiteral("docker")));

    // The user picks the other session: its list is asked for.
    sessions->setCurrentIndex(0);
    QCOMPARE(panel.currentSession(), QStringLiteral("a"));
    QCOMPARE(refresh.count(), 2);
    QCOMPARE(refresh.last().at(0).toString(), QStringLiteral("a"));
    // The late answer for b is not shown for a.
    panel.setChanges(QStringLiteral("b"), true, QString(), sampleChanges());
    QCOMPARE(panel.changeModel()->rowCount(), 0);
    QVERIFY(!panel.isBusy(QStringLiteral("b")));
    panel.setChanges(QStringLiteral("a"), true, QString(), {});
    QVERIFY(child<QPushButton>(&panel, "discardCopy")->isEnabled());
    QVERIFY(!child<QPushButton>(&panel, "applySelected")->isEnabled());  // nothing to apply
    QVERIFY(child<QLabel>(&panel, "changeSummary")->text().contains(QStringLiteral("No changes")));

    // Refresh asks again; a new record list that still holds the session keeps it without asking.
    child<QPushButton>(&panel, "reviewRefresh")->click();
    QCOMPARE(refresh.count(), 3);
    QVERIFY(!child<QPushButton>(&panel, "reviewRefresh")->isEnabled());
    panel.setChanges(QStringLiteral("a"), true, QString(), {});
    panel.setRecords({sampleRecord(QStringLiteral("a"), QStringLiteral("/home/ana/one")),
                      sampleRecord(QStringLiteral("b"), QStringLiteral("/home/ana/two")),
                      sampleRecord(QStringLiteral("c"), QStringLiteral("/home/ana/three"))});
    QCOMPARE(panel.currentSession(), QStringLiteral("a"));
    QCOMPARE(refresh.count(), 3);
    panel.showSession(QStringLiteral("c"));
    QCOMPARE(panel.currentSession(), QStringLiteral("c"));
    QCOMPARE(refresh.last().at(0).toString(), QStringLiteral("c"));

    panel.setRecords({});
    QVERIFY(empty->isVisible());
    QVERIFY(panel.currentSession().isEmpty());
}

void TestChangesView::flaggedNeedConfirmation() {
    auto rig = listedRig();
    QVERIFY(rig);
    ChangeListModel* model = rig->model();
    const int makefile = model->rowOf(QStringLiteral("Makefile"));
    QVERIFY(model->setChecked(makefile, true));
    const QStringList picked = pathsOf(model->checkedChanges());
    QVERIFY(picked.contains(QStringLiteral("Makefile")));
    QPushButton* apply = rig->button("applySelected");
    QVERIFY(apply->isEnabled());

    // No: nothing is sent, the buttons stay usable.
    apply->click();
    QMessageBox* box = waitForQuestion();
    QVERIFY(box);
    QVERIFY(box->text().contains(QStringLiteral("run code")));
    QVERIFY(box->text().contains(QStringLiteral("Makefile")));
    QVERIFY(box->text().contains(model->change(makefile).flagReason));
    QVERIFY(!box->text().contains(QStringLiteral("src/forecast.py")));  // only the flagged ones are named
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::No));
    answer(box, QMessageBox::No);
    QCOMPARE(rig->apply->count(), 0);
    QVERIFY(apply->isEnabled());

    // Yes: exactly the picked changes, not taking theirs.
    apply->click();
    answer(waitForQuestion(), QMessageBox::Yes);
    QCOMPARE(rig->apply->count(), 1);
    const QList<QVariant> args = rig->apply->first();
    QCOMPARE(args.at(0).toString(), rig->session);
    QCOMPARE(pathsOf(args.at(1).value<QList<Change>>()), picked);
    QCOMPARE(args.at(2).toBool(), false);
    // In flight: no second request.
    QVERIFY(!apply->isEnabled());
    QVERIFY(!rig->button("discardCopy")->isEnabled());
    QVERIFY(rig->panel->isBusy(rig->session));
    rig->panel->setApplied(rig->session, {}, QString());
    QVERIFY(apply->isEnabled());
}

void TestChangesView::unflaggedApplyAtOnceAndApplyAllLeavesFlagged() {
    auto rig = listedRig();
    QVERIFY(rig);
    ChangeListModel* model = rig->model();
    const QStringList picked = pathsOf(model->checkedChanges());
    QVERIFY(!picked.isEmpty());
    rig->button("applySelected")->click();  // nothing flagged picked: no question
    QVERIFY(!qobject_cast<QMessageBox*>(QApplication::activeModalWidget()));
    QCOMPARE(rig->apply->count(), 1);
    QCOMPARE(pathsOf(rig->apply->first().at(1).value<QList<Change>>()), picked);
    rig->panel->setApplied(rig->session, {}, QString());

    // Apply All: every applicable change but the flagged ones, whatever is picked.
    for (int row = 0; row < model->rowCount(); ++row) {
        model->setChecked(row, false);
    }
    QVERIFY(!rig->button("applySelected")->isEnabled());
    rig->button("applyAll")->click();
    QCOMPARE(rig->apply->count(), 2);
    const QList<Change> all = rig->apply->last().at(1).value<QList<Change>>();
    QVERIFY(!all.isEmpty());
    int expected = 0;
    for (const Change& change : rig->changes) {
        expected += change.applicable && !change.flagged ? 1 : 0;
    }
    QCOMPARE(int(all.size()), expected);
    for (const Change& change : all) {
        QVERIFY2(change.applicable && !change.flagged, qPrintable(change.path));
    }
}

// The path filter hides rows (case-insensitive, on the path), never a pick; a new list is filtered too.
void TestChangesView::filterHidesRowsAndKeepsPicks() {
    auto rig = listedRig();
    QVERIFY(rig);
    ChangeListModel* model = rig->model();
    auto* filter = rig->panel->findChild<QLineEdit*>(QStringLiteral("changeFilter"));
    auto* list = rig->panel->findChild<QTableView*>(QStringLiteral("changeList"));
    auto* summary = rig->panel->findChild<QLabel*>(QStringLiteral("changeSummary"));
    QVERIFY(filter && list && summary);
    QVERIFY(model->rowCount() > 1);
    // A path that no other path contains, upper-cased (the filter ignores case).
    QString needle;
    for (int row = 0; row < model->rowCount() && needle.isEmpty(); ++row) {
        const QString path = model->index(row, ChangeListModel::PathColumn).data().toString();
        bool unique = true;
        for (int other = 0; other < model->rowCount(); ++other) {
            unique = unique
                     && (other == row
                         || !model->index(other, ChangeListModel::PathColumn)
                                 .data()
                                 .toString()
                                 .contains(path, Qt::CaseInsensitive));
        }
        needle = unique ? path.toUpper() : QString();
    }
    QVERIFY(!needle.isEmpty());
    const int pickedBefore = model->checkedCount();
    filter->setText(needle);
    int visible = 0;
    int expectedVisible = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QString path = model->index(row, ChangeListModel::PathColumn).data().toString();
        const bool matches = path.contains(needle, Qt::CaseInsensitive);
        QCOMPARE(list->isRowHidden(row), !matches);
        visible += list->isRowHidden(row) ? 0 : 1;
        expectedVisible += matches ? 1 : 0;
    }
    QCOMPARE(visible, expectedVisible);
    QVERIFY(visible >= 1 && visible < model->rowCount());
    QCOMPARE(model->checkedCount(), pickedBefore);
    QVERIFY2(summary->text().contains(QStringLiteral("%1 hidden").arg(model->rowCount() - visible)),
             qPrintable(summary->text()));
    // A refreshed list keeps the filter.
    rig->panel->setChanges(rig->session, true, QString(), rig->changes);
    for (int row = 0; row < model->rowCount(); ++row) {
        const QString path = model->index(row, ChangeListModel::PathColumn).data().toString();
        QCOMPARE(list->isRowHidden(row), !path.contains(needle, Qt::CaseInsensitive));
    }
    filter->clear();
    for (int row = 0; row < model->rowCount(); ++row) {
        QVERIFY(!list->isRowHidden(row));
    }
    QVERIFY(!summary->text().contains(QStringLiteral("hidden")));
}

// Removed lines face added ones row by row, the shorter side gets fillers, context sits on both sides, and the
// line numbers follow each file.
void TestChangesView::sideBySidePairsLines() {
    const QString unified =
        zeus::TextDiff::unified("a\nb\nc\nd\ne\n", "a\nB\nc\nd\ne\nf\ng\n", QStringLiteral("x.txt"), 1).text;
    const QList<zeus::SideBySide::Row> rows = zeus::SideBySide::fromUnified(unified);
    QStringList shown;
    for (const zeus::SideBySide::Row& row : rows) {
        const auto side = [](zeus::SideBySide::Kind kind, int line, const QString& text) {
            switch (kind) {
                case zeus::SideBySide::Kind::Hunk:
                    return QStringLiteral("@");
                case zeus::SideBySide::Kind::Filler:
                    return QStringLiteral(".");
                case zeus::SideBySide::Kind::Removed:
                    return QStringLiteral("-%1%2").arg(line).arg(text);
                case zeus::SideBySide::Kind::Added:
                    return QStringLiteral("+%1%2").arg(line).arg(text);
                case zeus::SideBySide::Kind::Context:
                    break;
            }
            return QStringLiteral(" %1%2").arg(line).arg(text);
        };
        shown << side(row.leftKind, row.leftLine, row.left) + QLatin1Char('|')
                     + side(row.rightKind, row.rightLine, row.right);
    }
    QCOMPARE(shown, (QStringList{QStringLiteral("@|@"), QStringLiteral(" 1a| 1a"), QStringLiteral("-2b|+2B"),
                                 QStringLiteral(" 3c| 3c"), QStringLiteral("@|@"), QStringLiteral(" 5e| 5e"),
                                 QStringLiteral(".|+6f"), QStringLiteral(".|+7g")}));
    // A deleted file: every line on the left, fillers on the right; headers and the newline mark are not rows.
    const QList<zeus::SideBySide::Row> deleted =
        zeus::SideBySide::fromUnified(zeus::TextDiff::unified("one\ntwo", QByteArray(), QStringLiteral("y")).text);
    QCOMPARE(deleted.size(), 3);
    QCOMPARE(deleted.at(2).left, QStringLiteral("two"));
    QCOMPARE(deleted.at(2).rightKind, zeus::SideBySide::Kind::Filler);
    QVERIFY(zeus::SideBySide::fromUnified(QString()).isEmpty());
}

// The toggle shows the text diff in two aligned columns and back; it is there only for a text diff.
void TestChangesView::sideBySideToggle() {
    auto rig = listedRig();
    QVERIFY(rig);
    auto* toggle = child<QCheckBox>(rig->panel.get(), "sideBySideToggle");
    auto* before = child<QPlainTextEdit>(rig->panel.get(), "diffBefore");
    auto* after = child<QPlainTextEdit>(rig->panel.get(), "diffAfter");
    QVERIFY(toggle && before && after);
    rig->select(QStringLiteral("src/forecast.py"));
    ChangeDetail text;
    text.path = QStringLiteral("src/forecast.py");
    text.ok = true;
    text.unifiedDiff = zeus::TextDiff::unified(kForecastBefore, kForecastAfter, text.path).text;
    rig->panel->setDetail(rig->session, text);
    QVERIFY(toggle->isVisible());
    QVERIFY(!toggle->isChecked());  // 1000 pixels: two columns do not fit
    QVERIFY(rig->diff()->isVisible());
    QVERIFY(!before->isVisible());

    toggle->click();
    QVERIFY(toggle->isChecked());
    QVERIFY(before->isVisible() && after->isVisible());
    QVERIFY(!rig->diff()->isVisible());
    QCOMPARE(before->blockCount(), after->blockCount());
    QVERIFY(!before->toPlainText().contains(QStringLiteral("reply.raise_for_status()")));
    QVERIFY(after->toPlainText().contains(QStringLiteral("reply.raise_for_status()")));
    QVERIFY(before->toPlainText().contains(QStringLiteral("def forecast(city):")));
    QVERIFY(!after->toPlainText().contains(QStringLiteral("def forecast(city):")));
    QVERIFY(!before->extraSelections().isEmpty());
    // Scrolled together.
    after->verticalScrollBar()->setValue(after->verticalScrollBar()->maximum());
    QCOMPARE(before->verticalScrollBar()->value(), after->verticalScrollBar()->value());

    // The choice stays for the next change; a binary file has no columns and no toggle.
    rig->select(QStringLiteral("assets/logo.png"));
    ChangeDetail binary;
    binary.path = QStringLiteral("assets/logo.png");
    binary.ok = true;
    binary.binary = true;
    binary.beforeSize = 10;
    binary.afterSize = 20;
    rig->panel->setDetail(rig->session, binary);
    QVERIFY(!toggle->isVisible());
    QVERIFY(rig->diff()->isVisible());
    rig->select(QStringLiteral("src/forecast.py"));
    rig->panel->setDetail(rig->session, text);
    QVERIFY(toggle->isChecked());
    QVERIFY(before->isVisible());
    toggle->click();
    QVERIFY(rig->diff()->isVisible());
    QVERIFY(!before->isVisible());
}

void TestChangesView::detailRendering() {
    auto rig = listedRig();
    QVERIFY(rig);
    // The first change is selected and asked for at once.
    QVERIFY(rig->detail->count() >= 1);
    QCOMPARE(rig->detail->last().at(0).toString(), rig->session);

    // Text: the diff, highlighted.
    rig->select(QStringLiteral("src/forecast.py"));
    QCOMPARE(rig->detail->last().at(1).value<Change>().path, QStringLiteral("src/forecast.py"));
    QVERIFY(rig->diff()->toPlainText().contains(QStringLiteral("Loading")));
    ChangeDetail text;
    text.path = QStringLiteral("src/forecast.py");
    text.ok = true;
    text.unifiedDiff = zeus::TextDiff::unified(kForecastBefore, kForecastAfter, text.path).text;
    QVERIFY(text.unifiedDiff.contains(QStringLiteral("+    reply.raise_for_status()")));
    rig->panel->setDetail(rig->session, text);
    QCOMPARE(rig->diff()->toPlainText(), text.unifiedDiff);
    QVERIFY(rig->diff()->isReadOnly());
    QVERIFY(rig->diff()->font().fixedPitch() || QFontInfo(rig->diff()->font()).fixedPitch());
    QVERIFY(foregroundOfLine(rig->diff(), QStringLiteral("+    reply.raise")).green()
            > foregroundOfLine(rig->diff(), QStringLiteral("+    reply.raise")).red());
    // Added and removed lines are painted across the width: one extra selection per such line and hunk header.
    const zeus::TextDiff::Result counted = zeus::TextDiff::unified(kForecastBefore, kForecastAfter, text.path);
    QCOMPARE(rig->diff()->extraSelections().size(),
             counted.added + counted.removed + text.unifiedDiff.count(QStringLiteral("\n@@")));
    auto* hostChanged = child<QLabel>(rig->panel.get(), "hostChangedBanner");
    QVERIFY(!hostChanged->isVisible());
    auto* note = child<QLabel>(rig->panel.get(), "changeNote");
    QVERIFY(!note->isVisible());  // not flagged

    // An answer for another change (the user moved on) is not shown.
    ChangeDetail stale = text;
    stale.path = QStringLiteral("README.md");
    stale.unifiedDiff = QStringLiteral("--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-x\n+y\n");
    rig->panel->setDetail(rig->session, stale);
    QVERIFY(!rig->diff()->toPlainText().contains(QStringLiteral("README")));

    // Binary: sizes and hashes of both sides.
    rig->select(QStringLiteral("assets/logo.png"));
    ChangeDetail binary;
    binary.path = QStringLiteral("assets/logo.png");
    binary.ok = true;
    binary.binary = true;
    binary.beforeSize = kLogoBefore.size();
    binary.afterSize = kLogoAfter.size();
    binary.beforeSha256 = QCryptographicHash::hash(kLogoBefore, QCryptographicHash::Sha256).toHex();
    binary.afterSha256 = QCryptographicHash::hash(kLogoAfter, QCryptographicHash::Sha256).toHex();
    binary.hostChanged = true;
    rig->panel->setDetail(rig->session, binary);
    const QString shown = rig->diff()->toPlainText();
    QVERIFY2(shown.startsWith(QStringLiteral("Binary file")), qPrintable(shown));
    QVERIFY2(shown.contains(QLocale().toString(binary.beforeSize) + QStringLiteral(" bytes")), qPrintable(shown));
    QVERIFY2(shown.contains(QLocale().toString(binary.afterSize) + QStringLiteral(" bytes")), qPrintable(shown));
    QVERIFY(shown.contains(QString::fromLatin1(binary.beforeSha256)));
    QVERIFY(shown.contains(QString::fromLatin1(binary.afterSha256)));
    QVERIFY(rig->diff()->extraSelections().isEmpty());
    QVERIFY(shown.indexOf(QString::fromLatin1(binary.beforeSha256))
            < shown.indexOf(QString::fromLatin1(binary.afterSha256)));
    QVERIFY(hostChanged->isVisible());
    QVERIFY(hostChanged->text().contains(QStringLiteral("changed on your computer")));

    // A flagged change says why in the detail; a detail that failed says so inline.
    rig->select(QStringLiteral("Makefile"));
    QVERIFY(!hostChanged->isVisible());
    QVERIFY(note->isVisible());
    QVERIFY(note->text().contains(rig->model()->change(rig->model()->rowOf(QStringLiteral("Makefile"))).flagReason));
    ChangeDetail failed;
    failed.path = QStringLiteral("Makefile");
    failed.ok = false;
    failed.error = QStringLiteral("the container is gone");
    rig->panel->setDetail(rig->session, failed);
    auto* error = child<QLabel>(rig->panel.get(), "detailError");
    QVERIFY(error->isVisible());
    QVERIFY(error->text().contains(failed.error));
    QVERIFY(rig->diff()->toPlainText().isEmpty());

    // A change without a text diff (a new folder) is described in words.
    rig->select(QStringLiteral("scripts"));
    ChangeDetail folder;
    folder.path = QStringLiteral("scripts");
    folder.ok = true;
    rig->panel->setDetail(rig->session, folder);
    QVERIFY(!error->isVisible());
    QVERIFY2(rig->diff()->toPlainText().contains(QStringLiteral("Folder added")),
             qPrintable(rig->diff()->toPlainText()));
}

void TestChangesView::appliedSummaryAndTakeTheirs() {
    auto rig = listedRig();
    QVERIFY(rig);
    const QList<Change> picked = rig->model()->checkedChanges();
    QVERIFY(picked.size() >= 3);
    rig->button("applySelected")->click();
    QCOMPARE(rig->apply->count(), 1);

    // The host changed the first picked file: a conflict; the second was refused; the rest applied.
    QList<ApplyOutcome> outcomes;
    for (int i = 0; i < picked.size(); ++i) {
        ApplyOutcome outcome;
        outcome.path = picked.at(i).path;
        outcome.result = i == 0 ? ApplyOutcome::Result::Conflict
                                : (i == 1 ? ApplyOutcome::Result::Refused : ApplyOutcome::Result::Applied);
        if (i == 0) {
            outcome.reason = QStringLiteral("changed on your computer since the copy was taken");
        } else if (i == 1) {
            outcome.reason = QStringLiteral("a symlink is in the way");
        }
        outcomes.append(outcome);
    }
    rig->panel->setApplied(rig->session, outcomes, QString());
    auto* summary = child<QLabel>(rig->panel.get(), "applySummary");
    QVERIFY(summary->isVisible());
    const QString expected = QStringLiteral("Applied %1, conflicts 1, refused 1").arg(picked.size() - 2);
    QVERIFY2(summary->text().startsWith(expected), qPrintable(summary->text()));
    auto* tree = child<QTreeWidget>(rig->panel.get(), "applyOutcomes");
    QCOMPARE(tree->topLevelItemCount(), int(picked.size()));
    QCOMPARE(tree->topLevelItem(0)->text(0), picked.at(0).path);  // the conflict first
    QCOMPARE(tree->topLevelItem(0)->text(1), QStringLiteral("conflict"));
    QCOMPARE(tree->topLevelItem(0)->text(2), outcomes.at(0).reason);
    QCOMPARE(tree->topLevelItem(1)->text(1), QStringLiteral("refused"));

    // Take Theirs: only the conflicting change, after a question.
    QPushButton* take = rig->button("takeTheirs");
    QVERIFY(take->isVisible() && take->isEnabled());
    take->click();
    QMessageBox* box = waitForQuestion();
    QVERIFY(box);
    QVERIFY(box->text().contains(picked.at(0).path));
    QVERIFY(!box->text().contains(picked.at(2).path));
    answer(box, QMessageBox::No);
    QCOMPARE(rig->apply->count(), 1);
    take->click();
    answer(waitForQuestion(), QMessageBox::Yes);
    QCOMPARE(rig->apply->count(), 2);
    QCOMPARE(rig->apply->last().at(0).toString(), rig->session);
    QCOMPARE(pathsOf(rig->apply->last().at(1).value<QList<Change>>()), QStringList{picked.at(0).path});
    QCOMPARE(rig->apply->last().at(2).toBool(), true);

    // An Apply without a conflict offers no Take Theirs; an error around it is shown inline.
    ApplyOutcome applied;
    applied.path = picked.at(0).path;
    applied.result = ApplyOutcome::Result::Applied;
    rig->panel->setApplied(rig->session, {applied}, QStringLiteral("the record could not be updated"));
    QVERIFY(!take->isVisible());
    QVERIFY(summary->text().startsWith(QStringLiteral("Applied 1, conflicts 0, refused 0")));
    auto* message = child<QLabel>(rig->panel.get(), "reviewMessage");
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QStringLiteral("the record could not be updated")));

    // The commits line under the summary: where they landed, or in red why not; another session's is not shown,
    // and the next Apply clears it until its own arrives.
    auto* commits = child<QLabel>(rig->panel.get(), "applyCommits");
    QVERIFY(!commits->isVisible());
    CommitsResult fetched;
    fetched.state = CommitsResult::State::Fetched;
    fetched.prefix = QStringLiteral("refs/zeus/") + rig->session + QLatin1Char('/');
    fetched.refs = {{fetched.prefix + QStringLiteral("heads/topic"), QString(40, QLatin1Char('a'))}};
    rig->panel->setCommits(QStringLiteral("another-session"), fetched.describe(), false);
    QVERIFY(!commits->isVisible());
    rig->panel->setCommits(rig->session, fetched.describe(), false);
    QVERIFY(commits->isVisible());
    QVERIFY2(commits->text().contains(fetched.prefix + QStringLiteral("heads/topic")), qPrintable(commits->text()));
    QVERIFY(commits->styleSheet().isEmpty());
    rig->panel->setApplied(rig->session, {applied}, QString());
    QVERIFY(!commits->isVisible());
    CommitsResult failed;
    failed.state = CommitsResult::State::Failed;
    failed.error = QStringLiteral("Repository lacks these prerequisite commits");
    rig->panel->setCommits(rig->session, failed.describe(), true);
    QVERIFY(commits->isVisible());
    QVERIFY(commits->text().contains(failed.error));
    QVERIFY(commits->styleSheet().contains(QStringLiteral("color")));
    // A folder that is no repository: nothing to say, no line.
    rig->panel->setApplied(rig->session, {applied}, QString());
    rig->panel->setCommits(rig->session, CommitsResult().describe(), false);
    QVERIFY(!commits->isVisible());
}

void TestChangesView::discardAsksFirst() {
    auto rig = listedRig();
    QVERIFY(rig);
    QPushButton* discard = rig->button("discardCopy");
    discard->click();
    QMessageBox* box = waitForQuestion();
    QVERIFY(box);
    QVERIFY(box->text().contains(QStringLiteral("session ") + rig->session));
    QVERIFY2(box->text().contains(QStringLiteral("%1 changes will be lost").arg(rig->changes.size())),
             qPrintable(box->text()));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
    answer(box, QMessageBox::Cancel);
    QCOMPARE(rig->discard->count(), 0);

    discard->click();
    answer(waitForQuestion(), QMessageBox::Discard);
    QCOMPARE(rig->discard->count(), 1);
    QCOMPARE(rig->discard->first().at(0).toString(), rig->session);
    QVERIFY(!discard->isEnabled());
    QVERIFY(!rig->button("applySelected")->isEnabled());

    // It failed: said inline, the copy stays.
    rig->panel->setDiscarded(rig->session, false, QStringLiteral("the engine does not answer"));
    auto* message = child<QLabel>(rig->panel.get(), "reviewMessage");
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QStringLiteral("the engine does not answer")));
    QVERIFY(discard->isEnabled());
    QCOMPARE(rig->panel->currentSession(), rig->session);

    // It worked: the copy is gone from the list; with none left, the empty state.
    rig->panel->setDiscarded(rig->session, true, QString());
    QVERIFY(rig->panel->currentSession().isEmpty());
    QVERIFY(child<QLabel>(rig->panel.get(), "reviewEmpty")->isVisible());
    QVERIFY(message->text().contains(QStringLiteral("discarded")));
}

void TestChangesView::errorsAreInline() {
    auto rig = listedRig();
    QVERIFY(rig);
    rig->button("reviewRefresh")->click();
    QCOMPARE(rig->refresh->count(), 2);
    rig->panel->setChanges(rig->session, false, QStringLiteral("no engine named docker answers"), {});
    QVERIFY(!QApplication::activeModalWidget());
    auto* message = child<QLabel>(rig->panel.get(), "reviewMessage");
    QVERIFY(message->isVisible());
    QVERIFY(message->text().contains(QStringLiteral("no engine named docker answers")));
    QCOMPARE(rig->model()->rowCount(), 0);
    QVERIFY(!rig->button("applySelected")->isEnabled());
    QVERIFY(!rig->button("applyAll")->isEnabled());
    QVERIFY(rig->button("reviewRefresh")->isEnabled());
    // The next list clears it.
    rig->button("reviewRefresh")->click();
    rig->panel->setChanges(rig->session, true, QString(), rig->changes);
    QVERIFY(!message->isVisible());
    QCOMPARE(rig->model()->rowCount(), int(rig->changes.size()));
}

void TestChangesView::dashboardHasChangesPage() {
    QTemporaryDir dir;
    zeus::AppSettings settings(dir.filePath(QStringLiteral("s.ini")));
    zeus::RuntimeDetector::Options options;
    options.appleProgram = QStringLiteral("zeus-test-missing-container");
    options.dockerProgram = QStringLiteral("zeus-test-missing-docker");
    options.podmanProgram = QStringLiteral("zeus-test-missing-podman");
    zeus::RuntimeDetector detector(options);
    zeus::BackendConnection connection;
    zeus::DashboardWindow window(&settings, &detector, &connection, [] { return zeus::DiagnosticsReport(); });
    QVERIFY(window.reviewPanel());
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("pages"));
    QVERIFY(tabs);
    const int changes = tabs->indexOf(window.reviewPanel());
    QCOMPARE(changes, tabs->indexOf(window.sessionsPanel()) + 1);  // right after Sessions
    QCOMPARE(tabs->tabText(changes).remove(QLatin1Char('&')), QStringLiteral("Changes"));

    window.bringToFront();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPage(zeus::DashboardWindow::Page::Changes);
    QCOMPARE(tabs->currentWidget(), window.reviewPanel());
    QCOMPARE(window.currentPage(), zeus::DashboardWindow::Page::Changes);
    window.showPage(zeus::DashboardWindow::Page::Console);
    QCOMPARE(tabs->currentWidget(), window.console());
    QCOMPARE(window.currentPage(), zeus::DashboardWindow::Page::Console);
    QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), zeus::DashboardWindow::Page::Changes);
    QVERIFY(window.reviewPanel()->isVisible());
    QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), zeus::DashboardWindow::Page::Console);
    window.showPage(zeus::DashboardWindow::Page::Network);
    QCOMPARE(tabs->currentWidget(), window.networkPanel());
}

void TestChangesView::screenshot() {
    const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
    if (shots.isEmpty()) {
        QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
    }
    auto rig = listedRig();
    QVERIFY(rig);
    rig->panel->setRecords({sampleRecord(rig->session, QStringLiteral("/home/ana/projects/weather")),
                            sampleRecord(QStringLiteral("sess-19be04"), QStringLiteral("/home/ana/projects/site"))});
    rig->panel->resize(1040, 620);
    rig->select(QStringLiteral("src/forecast.py"));
    ChangeDetail text;
    text.path = QStringLiteral("src/forecast.py");
    text.ok = true;
    text.unifiedDiff = zeus::TextDiff::unified(kForecastBefore, kForecastAfter, text.path).text;
    rig->panel->setDetail(rig->session, text);
    QTest::qWait(50);
    QVERIFY(rig->panel->grab().save(shots + QStringLiteral("/changes-view.png")));
    // Wide enough for two columns: side by side by default.
    rig->panel->resize(1500, 620);
    QTest::qWait(50);
    rig->panel->setDetail(rig->session, text);
    QTest::qWait(50);
    QVERIFY(child<QCheckBox>(rig->panel.get(), "sideBySideToggle")->isChecked());
    QVERIFY(rig->panel->grab().save(shots + QStringLiteral("/changes-view-side-by-side.png")));
}

QTEST_MAIN(TestChangesView)
#include "tst_changesview.moc"
