// The container's hardening on real engines (Docker and Podman, both profiles), checked
// by inspect and from inside; hostile workspaces are refused before any container exists.
#include "sessionfixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QUuid>

#include <unistd.h>

using namespace zeus;
using namespace zeus::test;

namespace {

// The agent's lane folder (docs/agent-protocol.md "The lane"): a private folder of the app's in the user's runtime
// folder, never anything else of the host.
bool laneFolder(const QString& source) {
    const QString lanes =
        QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation) + QStringLiteral("/zeus-lanes/");
    return source.startsWith(lanes) && source.mid(lanes.size()).size() == 16
           && !source.mid(lanes.size()).contains(QLatin1Char('/'));
}

}  // namespace

class TestHardening : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void hostileWorkspaces_data();
    void hostileWorkspaces();
    void profile_data();
    void profile();
    void mountRaceNeverMountsAnotherFolder_data();
    void mountRaceNeverMountsAnotherFolder();
    void mergedUsrImageRuns_data();
    void mergedUsrImageRuns();
    void gitMetadataIsReadOnly_data();
    void gitMetadataIsReadOnly();
    void canaryBesideTheWorkspaceIsUnreachable_data();
    void canaryBesideTheWorkspaceIsUnreachable();
    void forkBombHitsThePidLimit_data();
    void forkBombHitsThePidLimit();
    void memoryHogIsKilled_data();
    void memoryHogIsKilled();

private:
    std::unique_ptr<SessionManager> makeManager(const QString& engine, SandboxConfig config);
    QTemporaryDir m_homeRoot;  // holds the fake home folder
    QTemporaryDir m_workRoot;  // holds workspaces (not inside the fake home's ancestors)
    QString m_home;
    QString m_owner;
    QString m_engine;
};

void TestHardening::initTestCase() {
    QVERIFY(m_homeRoot.isValid() && m_workRoot.isValid());
    // The guard uses the user's home folder: point it at a temporary one, so ~/.ssh and
    // friends can be made without touching the real home.
    m_home = QFileInfo(m_homeRoot.path()).canonicalFilePath() + QStringLiteral("/home/tester");
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/.ssh")));
    QVERIFY(QDir().mkpath(m_home + QStringLiteral("/code")));
    qputenv("HOME", m_home.toUtf8());
    QCOMPARE(QDir::homePath(), m_home);
}

void TestHardening::cleanup() {
    if (!m_owner.isEmpty()) {
        removeContainersOf(m_engine, m_owner);
    }
}

std::unique_ptr<SessionManager> TestHardening::makeManager(const QString& engine, SandboxConfig config) {
    m_engine = engine;
    m_owner = uniqueOwner();
    config.ownerId = m_owner;
    return std::make_unique<SessionManager>(ContainerRuntime::create(*runtimeKindFromString(engine)), config);
}

void TestHardening::hostileWorkspaces_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("rule");
    const QString home = QFileInfo(m_homeRoot.path()).canonicalFilePath() + QStringLiteral("/home/tester");
    const QString work = QFileInfo(m_workRoot.path()).canonicalFilePath();
    QDir().mkpath(work + QStringLiteral("/ws"));
    QFile file(work + QStringLiteral("/a-file"));
    file.open(QIODevice::WriteOnly);
    QFile::link(home, work + QStringLiteral("/to-home"));
    QFile::link(home + QStringLiteral("/.ssh"), work + QStringLiteral("/to-ssh"));
    for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman")}) {
        const QByteArray e = engine.toUtf8();
        QTest::addRow("%s root", e.constData()) << engine << QStringLiteral("/") << QStringLiteral("file_system_root");
        QTest::addRow("%s home", e.constData()) << engine << home << QStringLiteral("home_or_ancestor");
        QTest::addRow("%s home parent", e.constData())
            << engine << QFileInfo(home).path() << QStringLiteral("home_or_ancestor");
        QTest::addRow("%s ssh", e.constData())
            << engine << home + QStringLiteral("/.ssh") << QStringLiteral("secret_store");
        QTest::addRow("%s etc", e.constData()) << engine << QStringLiteral("/etc") << QStringLiteral("system_tree");
        QTest::addRow("%s symlink to home", e.constData())
            << engine << work + QStringLiteral("/to-home") << QStringLiteral("home_or_ancestor");
        QTest::addRow("%s symlink to ssh", e.constData())
            << engine << work + QStringLiteral("/to-ssh") << QStringLiteral("secret_store");
        QTest::addRow("%s missing", e.constData())
            << engine << work + QStringLiteral("/missing/deeper") << QStringLiteral("not_found");
        QTest::addRow("%s file", e.constData())
            << engine << work + QStringLiteral("/a-file") << QStringLiteral("not_a_directory");
        QTest::addRow("%s newline", e.constData())
            << engine << work + QStringLiteral("/ws\n") << QStringLiteral("control_character");
    }
}

void TestHardening::hostileWorkspaces() {
    QFETCH(QString, engine);
    QFETCH(QString, path);
    QFETCH(QString, rule);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    QVERIFY(containersOf(engine, m_owner).isEmpty());
    const ExecResult result = rec.run(QStringLiteral("s"), path, QStringLiteral("touch /workspace/owned"));
    QCOMPARE(execErrorName(result.errorCode), QStringLiteral("workspace_invalid"));
    QVERIFY2(result.errorMessage.contains(QStringLiteral("rule: ") + rule), qPrintable(result.errorMessage));
    QVERIFY(!result.exitCode.has_value());
    QTest::qWait(300);  // anything started by mistake would show up now
    QVERIFY(containersOf(engine, m_owner).isEmpty());
    QVERIFY(!QFileInfo::exists(QFileInfo(m_workRoot.path()).canonicalFilePath() + QStringLiteral("/missing")));
}

void TestHardening::profile_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("hardened");
    QTest::newRow("docker standard") << QStringLiteral("docker") << false;
    QTest::newRow("docker hardened") << QStringLiteral("docker") << true;
    QTest::newRow("podman standard") << QStringLiteral("podman") << false;
    QTest::newRow("podman hardened") << QStringLiteral("podman") << true;
}

void TestHardening::profile() {
    QFETCH(QString, engine);
    QFETCH(bool, hardened);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.profile = hardened ? HardeningProfile::Hardened : HardeningProfile::Standard;
    config.pidsLimit = 100;
    config.memory = QStringLiteral("300m");
    config.cpus = QStringLiteral("0.5");
    // The test engines have no bridge; the hardened profile's own choice is none anyway.
    config.network = hardened ? QString() : QStringLiteral("none");
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("profile-") + engine);

    const ExecResult inside =
        rec.run(QStringLiteral("s"), ws,
                QStringLiteral("grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status; echo uid=$(id -u):$(id -g); "
                               "awk '$2==\"/\"{print \"root=\" substr($4,1,2)}' /proc/mounts; "
                               "touch /tmp/t && echo tmp=rw; touch $HOME/h && echo home=rw; "
                               "touch /workspace/w && echo ws=rw; "
                               "echo ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ',')"));
    QCOMPARE(inside.exitCode.value_or(-1), 0);
    const QString out = inside.output;
    QVERIFY2(out.contains(QLatin1String("CapEff:\t0000000000000000")), qPrintable(out));
    QVERIFY2(out.contains(QLatin1String("CapPrm:\t0000000000000000")), qPrintable(out));
    QVERIFY2(out.contains(QLatin1String("NoNewPrivs:\t1")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("uid=%1:%2").arg(::getuid()).arg(::getgid())), qPrintable(out));
    QVERIFY2(out.contains(hardened ? QLatin1String("root=ro") : QLatin1String("root=rw")), qPrintable(out));
    QVERIFY(out.contains(QLatin1String("tmp=rw")));
    QVERIFY(out.contains(QLatin1String("home=rw")));
    QVERIFY(out.contains(QLatin1String("ws=rw")));
    QVERIFY2(out.contains(QLatin1String("ifaces=lo,\n")), qPrintable(out));  // no network but loopback
    QVERIFY(QFile::exists(ws + QStringLiteral("/w")));

    const QString container = manager->containerId(QStringLiteral("s"));
    const ProcessOutput raw = runProgram(engine, {QStringLiteral("inspect"), container});
    QCOMPARE(raw.exitCode, 0);
    const QJsonObject info = QJsonDocument::fromJson(raw.out).array().first().toObject();
    const QJsonObject host = info.value(QLatin1String("HostConfig")).toObject();
    QVERIFY(!host.value(QLatin1String("Privileged")).toBool());
    const QJsonArray capDrop = host.value(QLatin1String("CapDrop")).toArray();
    QVERIFY2(capDrop.contains(QStringLiteral("ALL")) || capDrop.size() >= 10, raw.out.left(200).constData());
    const QString securityOpt =
        QString::fromUtf8(QJsonDocument(host.value(QLatin1String("SecurityOpt")).toArray()).toJson());
    QVERIFY2(securityOpt.contains(QLatin1String("no-new-privileges")), qPrintable(securityOpt));
    QVERIFY(!securityOpt.contains(QLatin1String("unconfined")));
    QCOMPARE(host.value(QLatin1String("PidsLimit")).toInteger(), qint64(100));
    QCOMPARE(host.value(QLatin1String("Memory")).toInteger(), qint64(300) * 1024 * 1024);
    QCOMPARE(host.value(QLatin1String("NanoCpus")).toInteger(), qint64(500000000));
    QCOMPARE(host.value(QLatin1String("ReadonlyRootfs")).toBool(), hardened);
    QCOMPARE(host.value(QLatin1String("NetworkMode")).toString(), QStringLiteral("none"));
    QCOMPARE(host.value(QLatin1String("PidMode")).toString() == QLatin1String("host"), false);
    QCOMPARE(host.value(QLatin1String("IpcMode")).toString() == QLatin1String("host"), false);
    QCOMPARE(info.value(QLatin1String("Config")).toObject().value(QLatin1String("User")).toString(),
             QStringLiteral("%1:%2").arg(::getuid()).arg(::getgid()));
    // Exactly three bind mounts: the workspace, the app's own agent read-only and the agent's lane folder read-only
    // (a private folder of the app's runtime folder). No engine socket.
    int binds = 0;
    for (const QJsonValue& mount : info.value(QLatin1String("Mounts")).toArray()) {
        const QJsonObject m = mount.toObject();
        QVERIFY(!m.value(QLatin1String("Source")).toString().contains(QLatin1String(".sock")));
        if (m.value(QLatin1String("Type")).toString() != QLatin1String("bind")) {
            continue;
        }
        ++binds;
        if (m.value(QLatin1String("Destination")).toString() == QLatin1String("/run/zeus/agent")) {
            QCOMPARE(m.value(QLatin1String("Source")).toString(),
                     QFileInfo(QStringLiteral(ZEUS_AGENT_BINARY)).canonicalFilePath());
            QCOMPARE(m.value(QLatin1String("RW")).toBool(), false);
            continue;
        }
        if (m.value(QLatin1String("Destination")).toString() == QLatin1String("/run/zeus/lane")) {
            QVERIFY2(laneFolder(m.value(QLatin1String("Source")).toString()),
                     qPrintable(m.value(QLatin1String("Source")).toString()));
            QCOMPARE(m.value(QLatin1String("RW")).toBool(), false);
            continue;
        }
        QCOMPARE(m.value(QLatin1String("Source")).toString(), ws);
        QCOMPARE(m.value(QLatin1String("Destination")).toString(), QStringLiteral("/workspace"));
        QCOMPARE(m.value(QLatin1String("RW")).toBool(), true);
    }
    QCOMPARE(binds, 3);
}

void TestHardening::gitMetadataIsReadOnly_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<bool>("allowGitWrites");
    QTest::newRow("docker") << QStringLiteral("docker") << false;
    QTest::newRow("podman") << QStringLiteral("podman") << false;
    // The control: with the folder's "let the sandbox write .git" on, the same attack does reach the host's git,
    // so the rows above would see it if the protection went.
    QTest::newRow("docker, git writes allowed (control)") << QStringLiteral("docker") << true;
}

// SPEC §3 "Direct mode keeps the repository's metadata read-only": nothing a command writes makes the host's git
// run a program. Each way git finds a program to run is tried with the image's real git: core.fsmonitor through
// `git config`, a hook, core.hooksPath, include.path and includeIf to a planted file, and .git/commondir naming a
// folder of the command's own (read-only overlays of .git/config and .git/hooks alone let that one through). Then
// the host's git runs `status` and `commit` in the folder, as a shell prompt and the user would.
void TestHardening::gitMetadataIsReadOnly() {
    QFETCH(QString, engine);
    QFETCH(bool, allowGitWrites);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString git = QStandardPaths::findExecutable(QStringLiteral("git"));
    if (git.isEmpty()) {
        QFAIL("git is not installed on this host (cmake/install-deps.sh installs it)");
    }
    SandboxConfig config = testConfig(QString());
    config.gitWritesForced = allowGitWrites;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws =
        makeWorkspace(m_workRoot, QStringLiteral("gitmeta-") + engine + QLatin1String(allowGitWrites ? "-rw" : ""));
    const QString markers = QFileInfo(m_workRoot.path()).canonicalFilePath() + QStringLiteral("/markers-") + engine
                            + QLatin1String(allowGitWrites ? "-rw" : "");
    QVERIFY(QDir().mkpath(markers));
    QProcessEnvironment hostEnv = QProcessEnvironment::systemEnvironment();
    hostEnv.insert(QStringLiteral("HOME"), m_workRoot.path());  // no user config of this machine
    hostEnv.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    const auto hostGit = [&](const QStringList& args) {
        QProcess process;
        process.setProcessEnvironment(hostEnv);
        process.setWorkingDirectory(ws);
        process.start(git, QStringList{QStringLiteral("-c"), QStringLiteral("user.name=t"), QStringLiteral("-c"),
                                       QStringLiteral("user.email=t@example.com")}
                               + args);
        process.waitForFinished(30000);
        return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
    };
    hostGit({QStringLiteral("init"), QStringLiteral("-q")});
    hostGit({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("--allow-empty"), QStringLiteral("-m"),
             QStringLiteral("first")});

    // Each planted program creates its own marker on the host, where only the host's git could run it.
    const QString touch = QStringLiteral("touch %1/").arg(markers);
    const QString attack =
        QStringLiteral(
            "export HOME=/tmp; git log --oneline && echo log=ok; git status --short && echo status=ok; "
            "git config core.fsmonitor '%1fsmonitor' && echo fsmonitor=planted; "
            "printf '#!/bin/sh\\n%1hook\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && "
            "echo hook=planted; "
            "mkdir -p /workspace/.h && printf '#!/bin/sh\\n%1hookspath\\n' > /workspace/.h/pre-commit && "
            "chmod +x /workspace/.h/pre-commit && git config core.hooksPath /workspace/.h && echo hookspath=planted; "
            "printf '[core]\\n\\tfsmonitor = %1include\\n' > /workspace/.inc && "
            "git config include.path ../.inc && echo include=planted; "
            "git config 'includeIf.gitdir:/.path' ../.inc && echo includeif=planted; "
            "mkdir -p /workspace/.c/hooks /workspace/.c/objects /workspace/.c/refs && "
            "printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %1commondir\\n' > /workspace/.c/config "
            "&& "
            "echo ../.c > .git/commondir && echo commondir=planted; "
            "echo '[core]' > .git/config.worktree && echo worktree=planted; "
            "git add -A 2>&1; git commit -qm x 2>&1; echo done")
            .arg(touch);
    const ExecResult result = rec.run(QStringLiteral("s"), ws, attack);
    QCOMPARE(result.exitCode.value_or(-1), 0);
    const QString out = result.output;
    QVERIFY2(out.contains(QLatin1String("log=ok")), qPrintable(out));  // reading history works
    QVERIFY2(out.contains(QLatin1String("status=ok")), qPrintable(out));
    if (!allowGitWrites) {
        for (const char* planted :
             {"fsmonitor=", "hook=", "hookspath=", "include=", "includeif=", "commondir=", "worktree="}) {
            QVERIFY2(!out.contains(QLatin1String(planted) + QLatin1String("planted")), qPrintable(out));
        }
        QVERIFY2(out.contains(QLatin1String("Read-only file system")), qPrintable(out));  // git's own error
        // The session log says why, and where to go.
        bool explained = false;
        for (const SessionLogEntry& entry : manager->sessionLog(QStringLiteral("s"))) {
            explained = explained || entry.message.contains(QLatin1String("review mode"), Qt::CaseInsensitive);
        }
        QVERIFY(explained);
    }

    // The host's git, as a shell prompt and the user run it.
    hostGit({QStringLiteral("status")});
    hostGit({QStringLiteral("commit"), QStringLiteral("-q"), QStringLiteral("--allow-empty"), QStringLiteral("-m"),
             QStringLiteral("second")});
    const QStringList ran = QDir(markers).entryList(QDir::Files);
    if (allowGitWrites) {
        QVERIFY2(!ran.isEmpty(), "the control: with .git writable the planted programs run on the host");
        return;
    }
    QVERIFY2(ran.isEmpty(), qPrintable(QStringLiteral("the host's git ran: ") + ran.join(QLatin1Char(' '))));

    // Exactly these bind mounts: the workspace, the agent, .git read-only.
    const ProcessOutput raw =
        runProgram(engine, {QStringLiteral("inspect"), manager->containerId(QStringLiteral("s"))});
    QCOMPARE(raw.exitCode, 0);
    const QJsonObject info = QJsonDocument::fromJson(raw.out).array().first().toObject();
    QMap<QString, bool> binds;  // destination -> writable
    for (const QJsonValue& mount : info.value(QLatin1String("Mounts")).toArray()) {
        const QJsonObject m = mount.toObject();
        if (m.value(QLatin1String("Type")).toString() == QLatin1String("bind")) {
            const QString destination = m.value(QLatin1String("Destination")).toString();
            binds.insert(destination, m.value(QLatin1String("RW")).toBool());
            if (destination.startsWith(QLatin1String("/workspace"))) {
                QCOMPARE(m.value(QLatin1String("Source")).toString(), ws + destination.mid(10));
            }
        }
    }
    QMap<QString, bool> expected;
    expected.insert(QStringLiteral("/workspace"), true);
    expected.insert(QStringLiteral("/run/zeus/agent"), false);
    expected.insert(QStringLiteral("/run/zeus/lane"), false);
    expected.insert(QStringLiteral("/workspace/.git"), false);
    QCOMPARE(binds, expected);
}

void TestHardening::mountRaceNeverMountsAnotherFolder_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("sessions");
    QTest::newRow("docker") << QStringLiteral("docker") << 50;
    QTest::newRow("podman") << QStringLiteral("podman") << 50;
}

// SPEC §3 "Every mount source is pinned": a command of one session swaps `.git` (a folder) and a symbolic link to a
// host folder outside the workspace atomically, as fast as it can (renameat2 RENAME_EXCHANGE), while new sessions
// of the same folder start. The engine resolves each mount source again at `run`, after the app looked: without the
// pins and the check in the container, some new containers get the outside folder at /workspace/.git. No command
// may ever see the marker kept there, and no container may be left with a mount source outside the folder.
void TestHardening::mountRaceNeverMountsAnotherFolder() {
    QFETCH(QString, engine);
    QFETCH(int, sessions);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("race-") + engine);
    const QString outside = makeWorkspace(m_workRoot, QStringLiteral("outside-") + engine);
    QFile marker(outside + QStringLiteral("/marker-outside"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();
    QVERIFY(QFile::copy(QStringLiteral(ZEUS_RENAMESWAP_BINARY), ws + QStringLiteral("/.swap")));
    QVERIFY(QFile(ws + QStringLiteral("/.swap")).setPermissions(QFileDevice::ReadOwner | QFileDevice::ExeOwner));

    // The attacker's session starts before .git exists, so `.git` is no mount point in its container.
    const ExecResult started = rec.run(QStringLiteral("attacker"), ws, QStringLiteral("true"));
    QCOMPARE(started.status, ExecStatus::Ok);
    QVERIFY(QDir().mkpath(ws + QStringLiteral("/.git/refs")));
    QVERIFY(QFile::link(outside, ws + QStringLiteral("/.git-link")));
    const ExecResult loop = rec.run(QStringLiteral("attacker"), ws,
                                    QStringLiteral("cd /workspace && (./.swap .git .git-link 120 >/dev/null 2>&1 &) "
                                                   "; sleep 0.2; echo swapping"));
    QVERIFY2(loop.output.contains(QLatin1String("swapping")), qPrintable(loop.output));

    int refused = 0;
    int byPins = 0;
    int ran = 0;
    for (int i = 0; i < sessions; ++i) {
        const QString id = QStringLiteral("new-%1").arg(i);
        const ExecResult result = rec.run(id, ws, QStringLiteral("ls -a /workspace/.git/ 2>&1; echo listed"));
        QVERIFY2(!result.output.contains(QLatin1String("marker-outside")),
                 qPrintable(QStringLiteral("session %1 saw the outside folder: %2").arg(id, result.output)));
        if (result.status == ExecStatus::Ok) {
            ++ran;
        } else {
            // Refused by the pins (workspace_invalid), or by the engine itself when the mount target had become
            // the link (container_failed): either way nothing ran in that container.
            QVERIFY2(result.errorCode == ExecError::WorkspaceInvalid || result.errorCode == ExecError::ContainerFailed,
                     qPrintable(result.errorMessage));
            ++refused;
            byPins += result.errorCode == ExecError::WorkspaceInvalid ? 1 : 0;
        }
        manager->endSession(id);
    }
    qInfo("%d new sessions ran, %d were refused (%d of them by the pins)", ran, refused, byPins);
    QVERIFY2(byPins > 0, "the race never reached the pins: the test did not exercise them");

    // Whatever is still there mounts nothing outside the folder (and the agent).
    const ProcessOutput list =
        runProgram(engine, {QStringLiteral("ps"), QStringLiteral("-aq"), QStringLiteral("--filter"),
                            QStringLiteral("label=zeus.desktop.owner=") + manager->config().ownerId});
    QCOMPARE(list.exitCode, 0);
    const QStringList ids = QString::fromUtf8(list.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY(!ids.isEmpty());
    // One at a time: a session ended above may still be removing its container (`rm -f` runs on), and one
    // `inspect` of a list fails as a whole when any of them is gone by then.
    QJsonArray inspected;
    for (const QString& id : ids) {
        const ProcessOutput raw = runProgram(engine, {QStringLiteral("inspect"), id});
        if (raw.exitCode != 0) {
            QVERIFY2(raw.err.toLower().contains("no such"), raw.err.constData());
            continue;
        }
        for (const QJsonValue& container : QJsonDocument::fromJson(raw.out).array()) {
            inspected.append(container);
        }
    }
    for (const QJsonValue& container : std::as_const(inspected)) {
        for (const QJsonValue& mount : container.toObject().value(QLatin1String("Mounts")).toArray()) {
            const QJsonObject m = mount.toObject();
            if (m.value(QLatin1String("Type")).toString() != QLatin1String("bind")) {
                continue;
            }
            const QString source = m.value(QLatin1String("Source")).toString();
            const QString destination = m.value(QLatin1String("Destination")).toString();
            QVERIFY2(source == ws || source.startsWith(ws + QLatin1Char('/'))
                         || destination == QLatin1String("/run/zeus/agent")
                         || (destination == QLatin1String("/run/zeus/lane") && laneFolder(source)),
                     qPrintable(source));
        }
    }
    manager->endSession(QStringLiteral("attacker"));
}

void TestHardening::mergedUsrImageRuns_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

// Debian and Ubuntu images have a merged /usr (/sbin is a link to usr/sbin), so Docker's init is mounted at
// /usr/sbin/docker-init. The mount check must know the engine's own mounts there: found by a new user's first run
// on the real image, where every session was refused.
void TestHardening::mergedUsrImageRuns() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QString variant =
        QStringLiteral("zeus-desktop-sandbox:test-mergedusr-") + QUuid::createUuid().toString(QUuid::Id128).left(8);
    QVERIFY(makeVariantImage(engine, variant,
                             QStringLiteral("mkdir -p /usr/sbin && cp -a /sbin/. /usr/sbin/ && rm -rf /sbin && "
                                            "ln -s usr/sbin /sbin")));
    const auto cleanup = qScopeGuard([&] { removeImage(engine, variant); });
    SandboxConfig config = testConfig(QString());
    config.image = variant;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("mergedusr-") + engine);
    QVERIFY(QDir().mkpath(ws + QStringLiteral("/.git")));
    const ExecResult result = rec.run(QStringLiteral("s"), ws, QStringLiteral("ls -ld /sbin; echo ran"));
    QVERIFY2(result.errorCode == ExecError::None, qPrintable(result.errorMessage));
    QVERIFY2(result.output.contains(QLatin1String("ran")), qPrintable(result.output));
    QVERIFY2(result.output.contains(QLatin1String("-> usr/sbin")), qPrintable(result.output));
}

void TestHardening::canaryBesideTheWorkspaceIsUnreachable_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestHardening::canaryBesideTheWorkspaceIsUnreachable() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    auto manager = makeManager(engine, testConfig(QString()));
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("canary-ws-") + engine);
    QFile canary(QFileInfo(ws).path() + QStringLiteral("/canary-") + engine + QStringLiteral(".txt"));
    QVERIFY(canary.open(QIODevice::WriteOnly));
    canary.write("host secret");
    canary.close();
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("ls /workspace/..; cat /workspace/../canary-*.txt 2>&1; find / -name 'canary-*' 2>/dev/null; "
                       "echo done"));
    QCOMPARE(result.exitCode.value_or(-1), 0);
    QVERIFY2(!result.output.contains(QLatin1String("host secret")), qPrintable(result.output));
    QVERIFY2(!result.output.contains(QLatin1String("canary-") + engine + QLatin1String(".txt\n")),
             qPrintable(result.output));
    // /workspace/.. is the image's root: its own folders, nothing of the host.
    QVERIFY(result.output.contains(QLatin1String("workspace\n")));
    QVERIFY(result.output.contains(QLatin1String("bin\n")));
    QVERIFY(result.output.endsWith(QLatin1String("done\n")));
}

void TestHardening::forkBombHitsThePidLimit_data() {
    canaryBesideTheWorkspaceIsUnreachable_data();
}

void TestHardening::forkBombHitsThePidLimit() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.pidsLimit = 64;
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("bomb"));
    // A bounded bomb: 500 background processes, far more than the limit allows.
    const ExecResult result = rec.run(
        QStringLiteral("s"), ws,
        QStringLiteral("sh -c 'i=0; while [ $i -lt 500 ]; do sleep 3 & i=$((i+1)); done; echo all-started'"), 30);
    QVERIFY2(!result.output.contains(QLatin1String("all-started")), qPrintable(result.output));
    QVERIFY2(result.output.contains(QLatin1String("fork")), qPrintable(result.output));
    // The container survives; once the sleepers are gone it takes commands again.
    QTest::qWait(3500);
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo alive")).output, QStringLiteral("alive\n"));
}

void TestHardening::memoryHogIsKilled_data() {
    canaryBesideTheWorkspaceIsUnreachable_data();
}

void TestHardening::memoryHogIsKilled() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    SandboxConfig config = testConfig(QString());
    config.memory = QStringLiteral("32m");
    auto manager = makeManager(engine, config);
    Recorder rec(*manager);
    const QString ws = makeWorkspace(m_workRoot, QStringLiteral("hog"));
    // tail buffers its whole input when it sees no newline: 400 MiB cannot fit in 32 MiB.
    const ExecResult result = rec.run(QStringLiteral("s"), ws, QStringLiteral("head -c 400m /dev/zero | tail"), 120);
    QCOMPARE(QString(execStatusName(result.status)), QStringLiteral("ok"));
    QCOMPARE(result.exitCode.value_or(-1), 137);
    QCOMPARE(rec.run(QStringLiteral("s"), ws, QStringLiteral("echo alive")).output, QStringLiteral("alive\n"));
}

QTEST_GUILESS_MAIN(TestHardening)
#include "tst_hardening.moc"
