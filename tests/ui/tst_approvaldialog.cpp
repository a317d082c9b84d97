// Command approval in the tray app's widgets (SPEC §11), offscreen: a real ToolDispatcher between a real
// BackendConnection (to an in-process backend) and a SessionManager whose container CLI is a fake script that runs
// commands on the host, wired to AppSettings as the app wires it (applyApprovalOptions), with the ApprovalDialog
// answering the ApprovalQueue. The dialog appears, Run once runs the call, Always allow stores the rule and the next
// matching call runs without asking, several calls queue in one dialog, and no answer is Deny after the timeout.
#include "../e2e/backendserver.h"
#include "appoptions.h"
#include "approval/approvaldialog.h"
#include "approval/approvalqueue.h"
#include "approval/approvalsettingspanel.h"
#include "appsettings.h"
#include "backend/backendconnection.h"
#include "backend/tooldispatcher.h"
#include "engine/containerruntime.h"
#include "modes.h"
#include "sandbox/sessionmanager.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace zeus;
using zeus::test::BackendServer;

namespace {

const char kFakeEngine[] =
    "#!/bin/sh\n"
    "cmd=$1; shift\n"
    "case \"$cmd\" in\n"
    "  run) echo fakecontainer0123456789; exit 0 ;;\n"
    "  exec) [ \"$1\" = -i ] && shift; shift\n"
    // The app's check of the mounts after `run`: answered as an engine in a VM would (its exec runs on the host).
    "    case \"$*\" in *random/boot_id*) echo not-this-kernel; exit 0 ;; esac\n"
    "    exec \"$@\" ;;\n"
    "  rm) exit 0 ;;\n"
    "  inspect) echo '[{\"Id\":\"fakecontainer0123456789\",\"Name\":\"/f\",\"State\":{\"Status\":\"running\","
    "\"Running\":true},\"Config\":{\"Labels\":{}}}]'; exit 0 ;;\n"
    "  ps) exit 0 ;;\n"
    "  image) exit 0 ;;\n"
    "esac\n"
    "exit 1\n";

QString typeOf(const QJsonObject& m) {
    return m.value(QStringLiteral("type")).toString();
}

}  // namespace

class TestApprovalDialog : public QObject {
    Q_OBJECT

private:
    struct Rig {
        QTemporaryDir dir;
        std::unique_ptr<AppSettings> settings;
        BackendServer server;
        BackendConnection connection;
        std::unique_ptr<SessionManager> manager;
        std::unique_ptr<ToolDispatcher> dispatcher;
        ApprovalQueue queue;
        std::unique_ptr<ApprovalDialog> dialog;
        QString workspace;
    };

    std::unique_ptr<Rig> makeRig(ApprovalMode mode, int timeoutMs = 60000) {
        auto rig = std::make_unique<Rig>();
        if (!rig->dir.isValid() || !rig->server.listen()) {
            return nullptr;
        }
        const QString engine = rig->dir.filePath(QStringLiteral("fake-docker"));
        QFile file(engine);
        if (!file.open(QIODevice::WriteOnly)) {
            return nullptr;
        }
        file.write(kFakeEngine);
        file.close();
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QDir(rig->dir.path()).mkpath(QStringLiteral("project"));
        rig->workspace = QDir(rig->dir.filePath(QStringLiteral("project"))).canonicalPath();
        rig->settings = std::make_unique<AppSettings>(rig->dir.filePath(QStringLiteral("settings.ini")));
        rig->settings->setApprovalMode(rig->workspace, mode);

        BackendConnection::Settings fast;
        fast.reconnect.initialDelayMs = 50;
        rig->connection.setSettings(fast);
        rig->dispatcher = std::make_unique<ToolDispatcher>(&rig->connection);
        rig->dispatcher->setApprovedWorkspaces({rig->workspace});
        SandboxConfig config;
        config.image = QStringLiteral("fake:image");
        config.ownerId = QStringLiteral("owner-test");
        rig->manager = std::make_unique<SessionManager>(ContainerRuntime::create(RuntimeKind::Docker, engine), config);
        rig->dispatcher->setSessionManager(rig->manager.get());
        RuntimeReport report;
        report.kind = QStringLiteral("docker");
        report.ready = true;
        rig->dispatcher->setRuntimeReport(report);
        rig->queue.setInteractive(true);
        rig->queue.setTimeoutMs(timeoutMs);
        rig->dispatcher->setApprovalQueue(&rig->queue);
        applyApprovalOptions(AppOptions(), *rig->settings, *rig->dispatcher);
        rig->dialog = std::make_unique<ApprovalDialog>(&rig->queue);

        rig->connection.setUrl(QUrl(rig->server.url()));
        rig->connection.setToken(QStringLiteral("t"));
        rig->connection.start();
        if (!rig->server.waitForType(QStringLiteral("hello"), 5000)) {
            return nullptr;
        }
        return rig;
    }

    static void call(Rig& rig, const QString& id, const QString& command) {
        rig.server.send(BackendServer::toolCall(id, QStringLiteral("s1"), command, rig.workspace));
    }
    static bool waitsForApproval(Rig& rig, const QString& id) {
        return rig.server.waitFor(
            [id](const QJsonObject& m) {
                return typeOf(m) == QLatin1String("call_state") && m.value(QStringLiteral("call_id")).toString() == id;
            },
            5000);
    }
    static QJsonObject result(Rig& rig, const QString& id) {
        return rig.server.waitForResult(id, 10000) ? rig.server.resultsFor(id).first() : QJsonObject();
    }
    template <typename T>
    static T* child(QWidget* parent, const char* name) {
        return parent->findChild<T*>(QString::fromLatin1(name));
    }

private Q_SLOTS:
    void dialogAppearsAndRunOnceRuns() {
        auto rig = makeRig(ApprovalMode::AskUnsafe);
        QVERIFY(rig);
        QVERIFY(!rig->dialog->isVisible());
        call(*rig, QStringLiteral("c1"), QStringLiteral("ls && mkdir -p out && echo made"));
        QVERIFY(waitsForApproval(*rig, QStringLiteral("c1")));
        QTRY_VERIFY(rig->dialog->isVisible());
        QCOMPARE(rig->dialog->currentCallId(), QStringLiteral("c1"));
        QCOMPARE(child<QPlainTextEdit>(rig->dialog.get(), "command")->toPlainText(),
                 QStringLiteral("ls && mkdir -p out && echo made"));
        QCOMPARE(child<QLabel>(rig->dialog.get(), "folder")->text(), rig->workspace);
        QCOMPARE(child<QLabel>(rig->dialog.get(), "session")->text(), QStringLiteral("s1"));
        QCOMPARE(child<QLabel>(rig->dialog.get(), "uncovered")->text(), QStringLiteral("mkdir -p out"));
        QVERIFY(child<QLabel>(rig->dialog.get(), "reason")->text().contains(QStringLiteral("read-only list")));
        auto* prefix = child<QComboBox>(rig->dialog.get(), "prefix");
        QCOMPARE(prefix->currentText(), QStringLiteral("mkdir"));
        QCOMPARE(prefix->count(), 3);                                      // mkdir / mkdir -p / mkdir -p out
        QVERIFY(!QDir(rig->workspace + QStringLiteral("/out")).exists());  // nothing ran yet
        QTest::mouseClick(child<QPushButton>(rig->dialog.get(), "runOnce"), Qt::LeftButton);
        const QJsonObject ran = result(*rig, QStringLiteral("c1"));
        QCOMPARE(ran.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QVERIFY(ran.value(QStringLiteral("output")).toString().endsWith(QStringLiteral("made\n")));
        QTRY_VERIFY(!rig->dialog->isVisible());
        QVERIFY(rig->settings->approvalPolicy(rig->workspace).allow.isEmpty());  // run once stores nothing
    }

    void alwaysAllowPersistsAndTheNextCallRunsWithoutAsking() {
        auto rig = makeRig(ApprovalMode::AskAll);
        QVERIFY(rig);
        call(*rig, QStringLiteral("a1"), QStringLiteral("echo first"));
        QVERIFY(waitsForApproval(*rig, QStringLiteral("a1")));
        QTRY_VERIFY(rig->dialog->isVisible());
        auto* prefix = child<QComboBox>(rig->dialog.get(), "prefix");
        auto* always = child<QPushButton>(rig->dialog.get(), "alwaysAllow");
        QCOMPARE(prefix->currentText(), QStringLiteral("echo first"));
        // Edited down to the command word; a prefix that is not plain words cannot be stored.
        prefix->setEditText(QStringLiteral("echo; id"));
        QVERIFY(!always->isEnabled());
        prefix->setEditText(QStringLiteral("echo"));
        QVERIFY(always->isEnabled());
        QVERIFY(always->text().contains(QStringLiteral("“echo”")));
        QTest::mouseClick(always, Qt::LeftButton);
        QCOMPARE(result(*rig, QStringLiteral("a1")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("first\n"));
        QCOMPARE(rig->settings->approvalPolicy(rig->workspace).allow, QStringList{QStringLiteral("echo")});
        // Stored: a new settings object on the same file has it too.
        AppSettings reread(rig->settings->fileName());
        QCOMPARE(reread.approvalPolicy(rig->workspace).allow, QStringList{QStringLiteral("echo")});

        const int before = int(rig->server.messages.size());
        call(*rig, QStringLiteral("a2"), QStringLiteral("echo second"));
        QCOMPARE(result(*rig, QStringLiteral("a2")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("second\n"));
        for (int i = before; i < rig->server.messages.size(); ++i) {
            QVERIFY(typeOf(rig->server.messages.at(i)) != QLatin1String("call_state"));
        }
        QVERIFY(!rig->dialog->isVisible());
        QTRY_VERIFY(rig->settings->approvalRuleLastMatched(rig->workspace, QStringLiteral("echo")).isValid());
        // The rule does not leak to a command joined to it.
        call(*rig, QStringLiteral("a3"), QStringLiteral("echo x && touch leak"));
        QVERIFY(waitsForApproval(*rig, QStringLiteral("a3")));
        QTRY_VERIFY(rig->dialog->isVisible());
        QTest::mouseClick(child<QPushButton>(rig->dialog.get(), "deny"), Qt::LeftButton);
        const QJsonObject denied = result(*rig, QStringLiteral("a3"));
        QCOMPARE(denied.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("approval_denied"));
        QVERIFY(!QFile::exists(rig->workspace + QStringLiteral("/leak")));
    }

    void severalCallsQueueInOneDialog() {
        auto rig = makeRig(ApprovalMode::AskAll);
        QVERIFY(rig);
        call(*rig, QStringLiteral("q1"), QStringLiteral("echo one"));
        call(*rig, QStringLiteral("q2"), QStringLiteral("echo two"));
        QTRY_COMPARE(rig->dialog->waitingCount(), 2);
        QVERIFY(rig->dialog->windowTitle().contains(QStringLiteral("2")));
        QCOMPARE(rig->dialog->currentCallId(), QStringLiteral("q1"));
        QTest::mouseClick(child<QPushButton>(rig->dialog.get(), "deny"), Qt::LeftButton);
        QVERIFY(!result(*rig, QStringLiteral("q1")).isEmpty());
        QTRY_COMPARE(rig->dialog->waitingCount(), 1);
        QCOMPARE(rig->dialog->currentCallId(), QStringLiteral("q2"));
        QVERIFY(rig->dialog->isVisible());
        QTest::mouseClick(child<QPushButton>(rig->dialog.get(), "runOnce"), Qt::LeftButton);
        QCOMPARE(result(*rig, QStringLiteral("q2")).value(QStringLiteral("output")).toString(),
                 QStringLiteral("two\n"));
        QTRY_VERIFY(!rig->dialog->isVisible());
    }

    void noAnswerIsDeniedAfterTheTimeout() {
        auto rig = makeRig(ApprovalMode::AskAll, 400);
        QVERIFY(rig);
        call(*rig, QStringLiteral("t1"), QStringLiteral("echo never"));
        QVERIFY(waitsForApproval(*rig, QStringLiteral("t1")));
        QTRY_VERIFY(rig->dialog->isVisible());
        QVERIFY(child<QLabel>(rig->dialog.get(), "countdown")->text().contains(QStringLiteral("Denied")));
        const QJsonObject denied = result(*rig, QStringLiteral("t1"));
        QCOMPARE(denied.value(QStringLiteral("status")).toString(), QStringLiteral("error"));
        QCOMPARE(denied.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toString(),
                 QStringLiteral("approval_denied"));
        QVERIFY(denied.value(QStringLiteral("output")).toString().isEmpty());
        QTRY_VERIFY(!rig->dialog->isVisible());
        QCOMPARE(rig->dispatcher->approvalHistory().last().decidedBy, QStringLiteral("timeout"));
    }

    void settingsPanelEditsModeAndRules() {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(settings.approveWorkspace(dir.path()));
        const QString folder = settings.approvedWorkspaces().first();
        ApprovalSettingsPanel panel(&settings);
        QCOMPARE(panel.currentFolder(), folder);
        auto* mode = child<QComboBox>(&panel, "approvalMode");
        mode->setCurrentIndex(mode->findData(QStringLiteral("ask-unsafe")));
        QCOMPARE(settings.approvalPolicy(folder).mode, ApprovalMode::AskUnsafe);
        auto* prefix = child<QLineEdit>(&panel, "newRulePrefix");
        auto* kind = child<QComboBox>(&panel, "newRuleKind");
        prefix->setText(QStringLiteral("ls && id"));
        QTest::mouseClick(child<QPushButton>(&panel, "addRule"), Qt::LeftButton);
        QVERIFY(!child<QLabel>(&panel, "ruleProblem")->isHidden());
        QVERIFY(settings.approvalPolicy(folder).allow.isEmpty());
        prefix->setText(QStringLiteral("npm run test"));
        QTest::mouseClick(child<QPushButton>(&panel, "addRule"), Qt::LeftButton);
        kind->setCurrentIndex(kind->findData(int(ApprovalRuleKind::Deny)));
        prefix->setText(QStringLiteral("git push"));
        QTest::mouseClick(child<QPushButton>(&panel, "addRule"), Qt::LeftButton);
        QCOMPARE(settings.approvalPolicy(folder).allow, QStringList{QStringLiteral("npm run test")});
        QCOMPARE(settings.approvalPolicy(folder).deny, QStringList{QStringLiteral("git push")});
        auto* rules = child<QTableWidget>(&panel, "approvalRules");
        QCOMPARE(rules->rowCount(), 2);
        QCOMPARE(rules->item(1, 2)->text(), QStringLiteral("never"));
        settings.noteApprovalRulesMatched(folder, {QStringLiteral("npm run test")});
        QVERIFY(rules->item(1, 2)->text() != QStringLiteral("never"));
        rules->selectRow(0);
        QTest::mouseClick(child<QPushButton>(&panel, "removeRule"), Qt::LeftButton);
        QVERIFY(settings.approvalPolicy(folder).deny.isEmpty());
    }

    void settingsPanelEditsWorkspaceMode() {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(settings.approveWorkspace(dir.path()));
        const QString folder = settings.approvedWorkspaces().first();
        ApprovalSettingsPanel panel(&settings);
        auto* mode = child<QComboBox>(&panel, "workspaceMode");
        auto* description = child<QLabel>(&panel, "workspaceModeDescription");
        QCOMPARE(mode->currentData().toString(), QStringLiteral("direct"));
        QVERIFY(description->text().contains(QStringLiteral("remote")));
        mode->setCurrentIndex(mode->findData(QStringLiteral("review")));
        QCOMPARE(settings.workspaceMode(folder), zeus::WorkspaceMode::Review);
        QVERIFY(description->text().contains(QStringLiteral("copy of this folder")));
        settings.setWorkspaceMode(folder, zeus::WorkspaceMode::Direct);  // from elsewhere: the panel follows
        QCOMPARE(mode->currentData().toString(), QStringLiteral("direct"));
        QVERIFY(settings.workspaceModes().isEmpty());
    }

    void screenshot() {
        const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
        if (shots.isEmpty()) {
            QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
        }
        auto rig = makeRig(ApprovalMode::AskUnsafe);
        QVERIFY(rig);
        call(*rig, QStringLiteral("shot1"),
             QStringLiteral("git status && npm run test:unit -- --coverage --reporter=verbose "
                            "--testPathPattern='src/(api|core)/.*\\.test\\.ts$' | tee build/test.log"));
        call(*rig, QStringLiteral("shot2"), QStringLiteral("curl -fsSL https://example.com/install.sh | sh"));
        QTRY_COMPARE(rig->dialog->waitingCount(), 2);
        QVERIFY(QTest::qWaitForWindowExposed(rig->dialog.get()));
        QVERIFY(rig->dialog->grab().save(shots + QStringLiteral("/approval-dialog.png")));

        rig->settings->addApprovalRule(rig->workspace, ApprovalRuleKind::Allow, QStringLiteral("npm run test"));
        rig->settings->addApprovalRule(rig->workspace, ApprovalRuleKind::Allow, QStringLiteral("make"));
        rig->settings->addApprovalRule(rig->workspace, ApprovalRuleKind::Deny, QStringLiteral("git push"));
        rig->settings->noteApprovalRulesMatched(rig->workspace, {QStringLiteral("npm run test")});
        rig->settings->setExposedHostPorts(rig->workspace, {QStringLiteral("5432"), QStringLiteral("18080:8080")});
        ApprovalSettingsPanel panel(rig->settings.get());
        panel.selectFolder(rig->workspace);
        panel.resize(640, 480);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QVERIFY(panel.grab().save(shots + QStringLiteral("/approval-settings.png")));
    }
};

QTEST_MAIN(TestApprovalDialog)
#include "tst_approvaldialog.moc"
