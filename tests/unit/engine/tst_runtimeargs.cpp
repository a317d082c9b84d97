// Container runtimes as pure argument builders and parsers: no process is started.
#include "engine/appleruntime.h"
#include "engine/dockerruntime.h"
#include "engine/podmanruntime.h"
#include "sandbox/sandboxconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace zeus;

Q_DECLARE_METATYPE(zeus::ImageInspection::Outcome)

namespace {

ContainerSpec spec(HardeningProfile profile) {
    ContainerSpec s;
    s.name = QStringLiteral("zeus-abc");
    s.image = QStringLiteral("img:1");
    s.workspace = QStringLiteral("/home/u/proj");
    s.sessionId = QStringLiteral("s1");
    s.ownerId = QStringLiteral("owner-1");
    s.profile = profile;
    s.pidsLimit = 64;
    s.memory = QStringLiteral("256m");
    s.cpus = QStringLiteral("1.5");
    s.uid = 1000;
    s.gid = 1001;
    return s;
}

// The value following `flag` (every occurrence).
QStringList valuesOf(const QStringList& args, const QString& flag) {
    QStringList values;
    for (int i = 0; i + 1 < args.size(); ++i) {
        if (args.at(i) == flag) {
            values << args.at(i + 1);
        }
    }
    return values;
}

}  // namespace

class TestRuntimeArgs : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void profiles_data();
    void profiles();
    void neverDangerousFlags();
    void mountQuoting_data();
    void mountQuoting();
    void podmanRootlessKeepsId();
    void gitOverlaysMountOverThemselves();
    void reviewCopyMountsNothingOfTheHost();
    void gitProtectionOverlays_data();
    void gitProtectionOverlays();
    void networkOverride();
    void execRemoveInspect();
    void dockerList();
    void podmanList();
    void inspectParsing_data();
    void inspectParsing();
    void imageInspect_data();
    void imageInspect();
    void appleVersionGates_data();
    void appleVersionGates();
    void appleParsing_data();
    void appleParsing();
    void appleMemory_data();
    void appleMemory();
    void buildCommand_data();
    void buildCommand();
    void buildCommandNamesAFolderThatExists();
    void execWithStdin();
    void logsArguments();
    void errorLine_data();
    void errorLine();
    void engineFailure_data();
    void engineFailure();
};

void TestRuntimeArgs::profiles_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("profile");
    QTest::newRow("docker standard") << QStringLiteral("docker") << int(HardeningProfile::Standard);
    QTest::newRow("docker hardened") << QStringLiteral("docker") << int(HardeningProfile::Hardened);
    QTest::newRow("podman standard") << QStringLiteral("podman") << int(HardeningProfile::Standard);
    QTest::newRow("podman hardened") << QStringLiteral("podman") << int(HardeningProfile::Hardened);
}

void TestRuntimeArgs::profiles() {
    QFETCH(QString, engine);
    QFETCH(int, profile);
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    QVERIFY(runtime);
    const bool hardened = profile == int(HardeningProfile::Hardened);
    const QStringList args = runtime->runArguments(spec(static_cast<HardeningProfile>(profile)));
    QCOMPARE(args.mid(0, 3), (QStringList{QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--init")}));
    QCOMPARE(args.mid(args.size() - 3),
             (QStringList{QStringLiteral("img:1"), QStringLiteral("sleep"), QStringLiteral("infinity")}));
    QCOMPARE(valuesOf(args, QStringLiteral("--cap-drop")), QStringList{QStringLiteral("ALL")});
    QCOMPARE(valuesOf(args, QStringLiteral("--security-opt")), QStringList{QStringLiteral("no-new-privileges")});
    QCOMPARE(valuesOf(args, QStringLiteral("--pids-limit")), QStringList{QStringLiteral("64")});
    QCOMPARE(valuesOf(args, QStringLiteral("--memory")), QStringList{QStringLiteral("256m")});
    QCOMPARE(valuesOf(args, QStringLiteral("--cpus")), QStringList{QStringLiteral("1.5")});
    QCOMPARE(valuesOf(args, QStringLiteral("--user")), QStringList{QStringLiteral("1000:1001")});
    QCOMPARE(valuesOf(args, QStringLiteral("--pull")), QStringList{QStringLiteral("never")});
    // Podman would copy the host's proxy variables (passwords included) into the container.
    QCOMPARE(args.contains(QStringLiteral("--http-proxy=false")), engine == QLatin1String("podman"));
    QCOMPARE(valuesOf(args, QStringLiteral("-w")), QStringList{QStringLiteral("/workspace")});
    QCOMPARE(valuesOf(args, QStringLiteral("-e")), QStringList{QStringLiteral("HOME=/home/zeus")});
    // Podman mounts the folder nosuid (SPEC §3); Docker's --mount has no such option (docs/security.md).
    QCOMPARE(valuesOf(args, QStringLiteral("--mount")),
             QStringList{QStringLiteral("type=bind,source=/home/u/proj,target=/workspace")
                         + QLatin1String(engine == QLatin1String("podman") ? ",nosuid" : "")});
    QCOMPARE(valuesOf(args, QStringLiteral("--label")),
             (QStringList{QStringLiteral("zeus.desktop=1"), QStringLiteral("zeus.desktop.owner=owner-1"),
                          QStringLiteral("zeus.desktop.session=s1"),
                          QStringLiteral("zeus.desktop.workspace=/home/u/proj")}));
    QStringList tmpfs = valuesOf(args, QStringLiteral("--tmpfs"));
    QVERIFY(tmpfs.contains(QStringLiteral("/home/zeus:rw,exec,mode=1777")));
    QCOMPARE(tmpfs.contains(QStringLiteral("/tmp:rw,exec,mode=1777")), hardened);
    QCOMPARE(args.contains(QStringLiteral("--read-only")), hardened);
    QCOMPARE(valuesOf(args, QStringLiteral("--network")),
             hardened ? QStringList{QStringLiteral("none")} : QStringList{});
}

void TestRuntimeArgs::neverDangerousFlags() {
    for (const QString& engine : {QStringLiteral("docker"), QStringLiteral("podman"), QStringLiteral("apple")}) {
        for (const auto profile : {HardeningProfile::Standard, HardeningProfile::Hardened}) {
            const QString joined = ContainerRuntime::create(*runtimeKindFromString(engine))
                                       ->runArguments(spec(profile))
                                       .join(QLatin1Char(' '));
            QVERIFY(!joined.contains(QLatin1String("--privileged")));
            QVERIFY(!joined.contains(QLatin1String("docker.sock")));
            QVERIFY(!joined.contains(QLatin1String("podman.sock")));
            QVERIFY(!joined.contains(QLatin1String("unconfined")));
            QVERIFY(!joined.contains(QLatin1String("=host")));
            QVERIFY(!joined.contains(QLatin1String("--network host")));
            QVERIFY(!joined.contains(QLatin1String("--pid ")) && !joined.contains(QLatin1String("--ipc")));
            QVERIFY(!joined.contains(QLatin1String("--cap-add")));
        }
    }
}

void TestRuntimeArgs::mountQuoting_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QStringLiteral("/a/b") << QStringLiteral("type=bind,source=/a/b,target=/workspace");
    QTest::newRow("spaces colon") << QStringLiteral("/a/my p:x")
                                  << QStringLiteral("type=bind,source=/a/my p:x,target=/workspace");
    QTest::newRow("comma") << QStringLiteral("/a/b,c")
                           << QStringLiteral("type=bind,\"source=/a/b,c\",target=/workspace");
    QTest::newRow("quote") << QStringLiteral("/a/\"q\"")
                           << QStringLiteral("type=bind,\"source=/a/\"\"q\"\"\",target=/workspace");
    QTest::newRow("non-ascii all") << QStringLiteral("/p/项目 a,b:c \"q\"")
                                   << QStringLiteral("type=bind,\"source=/p/项目 a,b:c \"\"q\"\"\",target=/workspace");
}

void TestRuntimeArgs::mountQuoting() {
    QFETCH(QString, source);
    QFETCH(QString, expected);
    QCOMPARE(OciCliRuntime::bindMountValue(source, QStringLiteral("/workspace")), expected);
}

// SPEC §3 "Direct mode protects git's executable config": the overlays follow the workspace mount, in order,
// .git pinned read-write, config and hooks read-only; Apple (directories only) gets what it can bind.
void TestRuntimeArgs::gitOverlaysMountOverThemselves() {
    ContainerSpec s = spec(HardeningProfile::Standard);
    s.workspace = QStringLiteral("/home/u/my proj");
    s.overlays = {{QStringLiteral(".git"), false, true},
                  {QStringLiteral(".git/config"), true, false},
                  {QStringLiteral(".git/hooks"), true, true}};
    const QStringList docker = DockerRuntime().runArguments(s);
    QStringList mounts;
    for (int i = 0; i + 1 < docker.size(); ++i) {
        if (docker.at(i) == QLatin1String("--mount")) {
            mounts << docker.at(i + 1);
        }
    }
    QCOMPARE(mounts, (QStringList{QStringLiteral("type=bind,source=/home/u/my proj,target=/workspace"),
                                  QStringLiteral("type=bind,source=/home/u/my proj/.git,target=/workspace/.git"),
                                  QStringLiteral("type=bind,source=/home/u/my proj/.git/config,target=/workspace/"
                                                 ".git/config,readonly"),
                                  QStringLiteral("type=bind,source=/home/u/my proj/.git/hooks,target=/workspace/"
                                                 ".git/hooks,readonly")}));
    QCOMPARE(PodmanRuntime().runArguments(s).count(QStringLiteral("--mount")), 4);
    AppleRuntime apple;
    apple.setVersion(QVersionNumber(0, 12, 0));
    const QStringList appleArgs = apple.runArguments(s);
    QVERIFY(appleArgs.contains(
        QStringLiteral("type=bind,source=/home/u/my proj/.git/hooks,target=/workspace/.git/hooks,readonly")));
    QVERIFY(!appleArgs.join(QLatin1Char(' ')).contains(QLatin1String(".git/config")));
}

// SPEC §10: a review copy's container mounts nothing of the host's folder, not even the git overlays; its
// /workspace is a volume of its own; Apple refuses it with a reason.
void TestRuntimeArgs::reviewCopyMountsNothingOfTheHost() {
    ContainerSpec s = spec(HardeningProfile::Hardened);
    s.workspace = QStringLiteral("/home/u/secret proj");
    s.reviewCopy = true;
    s.overlays = {{QStringLiteral(".git"), false, true}};
    for (const QStringList& args : {DockerRuntime().runArguments(s), PodmanRuntime().runArguments(s)}) {
        QStringList mounts;
        for (int i = 0; i + 1 < args.size(); ++i) {
            if (args.at(i) == QLatin1String("--mount") || args.at(i) == QLatin1String("-v")) {
                mounts << args.at(i + 1);
            }
        }
        QCOMPARE(mounts, QStringList{QStringLiteral("type=volume,target=/workspace")});
        QVERIFY(!args.join(QLatin1Char(' ')).contains(QLatin1String("source=/home/u")));
    }
    AppleRuntime apple;
    apple.setVersion(QVersionNumber(0, 12, 0));
    QVERIFY(apple.unsupportedReason(s).contains(QLatin1String("Review mode")));
}

void TestRuntimeArgs::gitProtectionOverlays_data() {
    QTest::addColumn<QString>("layout");  // what the workspace holds
    QTest::addColumn<bool>("allowWrites");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("no repository") << QStringLiteral("") << false << QStringList();
    // The whole .git read-only: overlays of config and hooks alone leave commondir, config.worktree, info/,
    // modules/*/config and worktrees/* writable (SPEC §3).
    QTest::newRow("repository: .git read-only as a whole")
        << QStringLiteral("git") << false << QStringList{QStringLiteral(".git ro")};
    QTest::newRow("repository without hooks or config: nothing made")
        << QStringLiteral("bare-git") << false << QStringList{QStringLiteral(".git ro")};
    QTest::newRow("git writes allowed: .git pinned read-write")
        << QStringLiteral("git") << true << QStringList{QStringLiteral(".git rw")};
    QTest::newRow(".git is a file (worktree)") << QStringLiteral("git-file") << false << QStringList();
    QTest::newRow(".git is a symlink") << QStringLiteral("git-link") << false << QStringList();
    QTest::newRow("config is a symlink: still one read-only .git")
        << QStringLiteral("config-link") << false << QStringList{QStringLiteral(".git ro")};
}

void TestRuntimeArgs::gitProtectionOverlays() {
    QFETCH(QString, layout);
    QFETCH(bool, allowWrites);
    QFETCH(QStringList, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ws = dir.path();
    const QString git = ws + QStringLiteral("/.git");
    if (layout == QLatin1String("git") || layout == QLatin1String("config-link")) {
        QVERIFY(QDir().mkpath(git + QStringLiteral("/hooks")));
    }
    if (layout == QLatin1String("git")) {
        QFile config(git + QStringLiteral("/config"));
        QVERIFY(config.open(QIODevice::WriteOnly));
    } else if (layout == QLatin1String("bare-git")) {
        QVERIFY(QDir().mkpath(git));
    } else if (layout == QLatin1String("git-file")) {
        QFile file(git);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("gitdir: /elsewhere\n");
    } else if (layout == QLatin1String("git-link")) {
        QVERIFY(QDir().mkpath(ws + QStringLiteral("/real-git/hooks")));
        QVERIFY(QFile::link(ws + QStringLiteral("/real-git"), git));
    } else if (layout == QLatin1String("config-link")) {
        QVERIFY(QFile::link(QStringLiteral("/etc/hostname"), git + QStringLiteral("/config")));
    }
    QStringList got;
    for (const WorkspaceOverlay& overlay : zeus::gitProtectionOverlays(ws, allowWrites)) {
        got << overlay.path + (overlay.readOnly ? QStringLiteral(" ro") : QStringLiteral(" rw"));
    }
    QCOMPARE(got, expected);
    if (layout == QLatin1String("bare-git")) {
        // The host's folder is only read: nothing is created in it.
        QVERIFY(!QFileInfo::exists(git + QStringLiteral("/hooks")));
        QVERIFY(!QFileInfo::exists(git + QStringLiteral("/config")));
    }
}

void TestRuntimeArgs::podmanRootlessKeepsId() {
    ContainerSpec s = spec(HardeningProfile::Standard);
    s.podmanRootless = true;
    const QStringList podman = PodmanRuntime().runArguments(s);
    QVERIFY(podman.contains(QStringLiteral("--userns=keep-id")));
    QVERIFY(!podman.contains(QStringLiteral("--user")));
    QVERIFY(!DockerRuntime().runArguments(s).contains(QStringLiteral("--userns=keep-id")));
    s.uid = -1;
    s.podmanRootless = false;
    QVERIFY(!DockerRuntime().runArguments(s).contains(QStringLiteral("--user")));
}

void TestRuntimeArgs::networkOverride() {
    ContainerSpec s = spec(HardeningProfile::Standard);
    s.network = QStringLiteral("none");
    QCOMPARE(valuesOf(DockerRuntime().runArguments(s), QStringLiteral("--network")),
             QStringList{QStringLiteral("none")});
}

void TestRuntimeArgs::execRemoveInspect() {
    const QStringList cmd = {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo 'a b'")};
    QCOMPARE(DockerRuntime().execArguments(QStringLiteral("c1"), cmd),
             (QStringList{QStringLiteral("exec"), QStringLiteral("c1")} + cmd));
    QCOMPARE(PodmanRuntime().removeArguments(QStringList{QStringLiteral("a"), QStringLiteral("b")}),
             (QStringList{QStringLiteral("rm"), QStringLiteral("-f"), QStringLiteral("-v"), QStringLiteral("a"),
                          QStringLiteral("b")}));
    QCOMPARE(
        DockerRuntime().execAsRootArguments(QStringLiteral("c1"), cmd),
        (QStringList{QStringLiteral("exec"), QStringLiteral("-u"), QStringLiteral("0"), QStringLiteral("c1")} + cmd));
    QVERIFY(AppleRuntime().execAsRootArguments(QStringLiteral("c1"), cmd).isEmpty());
    QCOMPARE(DockerRuntime().stopArguments({QStringLiteral("c1")}),
             (QStringList{QStringLiteral("stop"), QStringLiteral("-t"), QStringLiteral("2"), QStringLiteral("c1")}));
    QCOMPARE(DockerRuntime().inspectArguments(QStringLiteral("c1")).last(), QStringLiteral("c1"));
    QCOMPARE(AppleRuntime().removeArguments(QStringList{QStringLiteral("a")}),
             (QStringList{QStringLiteral("delete"), QStringLiteral("--force"), QStringLiteral("a")}));
    const QStringList list = DockerRuntime().listArguments(QStringLiteral("o1"));
    QCOMPARE(list.mid(0, 6), (QStringList{QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--no-trunc"),
                                          QStringLiteral("--filter"), QStringLiteral("label=zeus.desktop.owner=o1"),
                                          QStringLiteral("--format")}));
    // Each label read on its own, never the joined "k=v,k=v" string.
    QVERIFY(list.last().contains(QStringLiteral("{{json (.Label \"zeus.desktop.session\")}}")));
    QVERIFY(list.last().contains(QStringLiteral("{{json (.Label \"zeus.desktop.owner\")}}")));
    QVERIFY(!list.last().contains(QStringLiteral(".Labels")));
    QCOMPARE(PodmanRuntime().listArguments(QStringLiteral("o1")).last(), QStringLiteral("json"));
}

void TestRuntimeArgs::dockerList() {
    // What the per-label format prints: values escaped by the template's json, commas and '=' kept as they are.
    const QByteArray out =
        "{\"ID\":\"abc123\",\"Names\":\"zeus-1\",\"State\":\"running\",\"label0\":\"1\",\"label1\":\"o1\","
        "\"label2\":\"s,zeus.desktop.owner=x\",\"label3\":\"/p/a,b:c,zeus.desktop.session=y\"}\n"
        "WARNING: something\n"
        "{\"ID\":\"def456\",\"Names\":\"zeus-2\",\"State\":\"exited\",\"label0\":\"\",\"label1\":\"o1\","
        "\"label2\":\"\",\"label3\":\"\"}\n";
    const QList<ContainerInfo> list = DockerRuntime().parseList(out);
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).id, QStringLiteral("abc123"));
    QCOMPARE(list.at(0).name, QStringLiteral("zeus-1"));
    QVERIFY(list.at(0).running);
    QCOMPARE(list.at(0).labels.value(QStringLiteral("zeus.desktop.owner")), QStringLiteral("o1"));
    QCOMPARE(list.at(0).labels.value(QStringLiteral("zeus.desktop.session")), QStringLiteral("s,zeus.desktop.owner=x"));
    QCOMPARE(list.at(0).labels.value(QStringLiteral("zeus.desktop.workspace")),
             QStringLiteral("/p/a,b:c,zeus.desktop.session=y"));
    QVERIFY(!list.at(1).running);
    QVERIFY(!list.at(1).labels.contains(QStringLiteral("zeus.desktop.session")));
    QVERIFY(DockerRuntime().parseList("").isEmpty());
    QVERIFY(DockerRuntime().parseList("garbage").isEmpty());
}

void TestRuntimeArgs::podmanList() {
    const QByteArray out =
        "[{\"Id\":\"abc\",\"Names\":[\"zeus-1\"],\"State\":\"running\",\"Labels\":{\"zeus.desktop.owner\":\"o1\","
        "\"zeus.desktop.session\":\"s,1\"}},{\"Id\":\"def\",\"Names\":[\"zeus-2\"],\"State\":\"exited\"}]";
    const QList<ContainerInfo> list = PodmanRuntime().parseList(out);
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).name, QStringLiteral("zeus-1"));
    QVERIFY(list.at(0).running);
    QCOMPARE(list.at(0).labels.value(QStringLiteral("zeus.desktop.session")), QStringLiteral("s,1"));
    QVERIFY(!list.at(1).running);
    QVERIFY(PodmanRuntime().parseList("[]").isEmpty());
    QVERIFY(PodmanRuntime().parseList("not json").isEmpty());
}

void TestRuntimeArgs::inspectParsing_data() {
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<bool>("found");
    QTest::addColumn<bool>("running");
    QTest::newRow("running") << QByteArray(
        "[{\"Id\":\"abc\",\"Name\":\"/zeus-1\",\"State\":{\"Status\":\"running\","
        "\"Running\":true},\"Config\":{\"Labels\":{\"a\":\"b\"}}}]")
                             << true << true;
    QTest::newRow("exited") << QByteArray(
        "[{\"Id\":\"abc\",\"Name\":\"zeus-1\",\"State\":{\"Status\":\"exited\","
        "\"Running\":false}}]")
                            << true << false;
    QTest::newRow("empty array") << QByteArray("[]") << false << false;
    QTest::newRow("error text") << QByteArray("Error: No such container: x") << false << false;
}

void TestRuntimeArgs::inspectParsing() {
    QFETCH(QByteArray, output);
    QFETCH(bool, found);
    QFETCH(bool, running);
    const auto info = DockerRuntime().parseInspect(output);
    QCOMPARE(info.has_value(), found);
    if (found) {
        QCOMPARE(info->running, running);
        QCOMPARE(info->name, QStringLiteral("zeus-1"));
    }
}

void TestRuntimeArgs::imageInspect_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("exitCode");  // -1: the CLI could not be started
    QTest::addColumn<QByteArray>("out");
    QTest::addColumn<QByteArray>("err");
    QTest::addColumn<ImageInspection::Outcome>("outcome");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("title");  // org.opencontainers.image.title
    QTest::addColumn<QString>("comment");

    using Outcome = ImageInspection::Outcome;
    // Shapes as docker 20.10 / podman 4.3 print them for the imported test image and a built image (trimmed).
    QTest::newRow("docker: imported test image")
        << "docker" << 0
        << QByteArray(R"([{"Id":"sha256:3d4d","RepoTags":["zeus-desktop-sandbox:test"],"Comment":"Imported from -",)"
                      R"("Created":"2026-11-30T20:30:25Z","Config":{"Env":null,"Labels":null}}])")
        << QByteArray() << Outcome::Present << "sha256:3d4d"
        << ""
        << "Imported from -";
    QTest::newRow("docker: built sandbox image")
        << "docker" << 0
        << QByteArray(R"([{"Id":"sha256:aa","Comment":"","Config":{"Labels":{"org.opencontainers.image.title":)"
                      R"("Zeus Desktop sandbox","org.opencontainers.image.version":"0.1.0"}}}])")
        << QByteArray() << Outcome::Present << "sha256:aa"
        << "Zeus Desktop sandbox"
        << "";
    QTest::newRow("podman: imported test image, labels at the top")
        << "podman" << 0 << QByteArray(R"([{"Id":"d6bb","Comment":"imported from tarball","Config":{},"Labels":null}])")
        << QByteArray() << Outcome::Present << "d6bb"
        << ""
        << "imported from tarball";
    QTest::newRow("podman: offline fallback with title")
        << "podman" << 0
        << QByteArray(R"([{"Id":"e1","Comment":"imported from tarball","Labels":{"org.opencontainers.image.title":)"
                      R"("zeus-desktop-sandbox-offline-test"}}])")
        << QByteArray() << Outcome::Present << "e1"
        << "zeus-desktop-sandbox-offline-test"
        << "imported from tarball";
    QTest::newRow("apple fake: configuration and variants")
        << "apple" << 0
        << QByteArray(R"([{"configuration":{"name":"zeus-desktop-sandbox:latest"},"id":"0123","variants":[]}])")
        << QByteArray() << Outcome::Present << "0123"
        << ""
        << "";
    QTest::newRow("apple: labels in a variant's OCI config")
        << "apple" << 0
        << QByteArray(R"([{"name":"x","index":{"digest":"sha256:77"},"variants":[{"config":{"created":"2026",)"
                      R"("config":{"Labels":{"org.opencontainers.image.title":"Zeus Desktop sandbox"}}}}]}])")
        << QByteArray() << Outcome::Present << "sha256:77"
        << "Zeus Desktop sandbox"
        << "";
    QTest::newRow("docker: no such image") << "docker" << 1 << QByteArray("[]\n")
                                           << QByteArray(
                                                  "Error response from daemon: no such image: nope:1: No such "
                                                  "image: nope:1\n")
                                           << Outcome::Missing << ""
                                           << ""
                                           << "";
    QTest::newRow("podman: image not known")
        << "podman" << 125 << QByteArray("[]\n") << QByteArray("Error: inspecting object: nope:1: image not known\n")
        << Outcome::Missing << ""
        << ""
        << "";
    QTest::newRow("apple fake: notFound")
        << "apple" << 1 << QByteArray() << QByteArray("Error: notFound: \"image not found: nope\"\n")
        << Outcome::Missing << ""
        << ""
        << "";
    QTest::newRow("docker: daemon down also prints []")
        << "docker" << 1 << QByteArray("[]\n")
        << QByteArray(
               "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
               "running?\n")
        << Outcome::Failed << ""
        << ""
        << "";
    QTest::newRow("not started") << "docker" << -1 << QByteArray() << QByteArray() << Outcome::Failed << ""
                                 << ""
                                 << "";
    QTest::newRow("garbage with exit 0") << "podman" << 0 << QByteArray("WARN something") << QByteArray()
                                         << Outcome::Failed << ""
                                         << ""
                                         << "";
}

void TestRuntimeArgs::imageInspect() {
    QFETCH(QString, kind);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, out);
    QFETCH(QByteArray, err);
    QFETCH(ImageInspection::Outcome, outcome);
    QFETCH(QString, id);
    QFETCH(QString, title);
    QFETCH(QString, comment);
    const std::unique_ptr<ContainerRuntime> runtime = ContainerRuntime::create(*runtimeKindFromString(kind));
    QVERIFY(runtime);
    QCOMPARE(runtime->imageInspectArguments(QStringLiteral("img:1")),
             (QStringList{QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("img:1")}));
    ProcessResult result;
    result.program = kind;
    result.started = exitCode >= 0;
    result.exitCode = exitCode;
    result.standardOutput = out;
    result.standardError = err;
    const ImageInspection inspection = runtime->parseImageInspect(QStringLiteral("img:1"), result);
    QCOMPARE(inspection.outcome, outcome);
    QCOMPARE(inspection.image, QStringLiteral("img:1"));
    QCOMPARE(inspection.id, id);
    QCOMPARE(inspection.labels.value(QStringLiteral("org.opencontainers.image.title")), title);
    QCOMPARE(inspection.comment, comment);
    QCOMPARE(inspection.error.isEmpty(), outcome == ImageInspection::Outcome::Present);
}

void TestRuntimeArgs::appleVersionGates_data() {
    QTest::addColumn<QString>("version");
    QTest::addColumn<int>("profile");
    QTest::addColumn<bool>("supported");
    QTest::addColumn<bool>("init");
    QTest::addColumn<bool>("readOnly");
    QTest::newRow("1.2.2 hardened") << QStringLiteral("1.2.2") << int(HardeningProfile::Hardened) << true << true
                                    << true;
    QTest::newRow("1.0.0 standard") << QStringLiteral("1.0.0") << int(HardeningProfile::Standard) << true << true
                                    << false;
    QTest::newRow("0.12.0 hardened") << QStringLiteral("0.12.0") << int(HardeningProfile::Hardened) << true << true
                                     << true;
    QTest::newRow("0.11.0 no cap-drop") << QStringLiteral("0.11.0") << int(HardeningProfile::Standard) << false << true
                                        << false;
    QTest::newRow("0.9.0 no init") << QStringLiteral("0.9.0") << int(HardeningProfile::Standard) << false << false
                                   << false;
}

void TestRuntimeArgs::appleVersionGates() {
    QFETCH(QString, version);
    QFETCH(int, profile);
    QFETCH(bool, supported);
    QFETCH(bool, init);
    QFETCH(bool, readOnly);
    AppleRuntime apple;
    apple.setVersion(QVersionNumber::fromString(version));
    const ContainerSpec s = spec(static_cast<HardeningProfile>(profile));
    QCOMPARE(apple.unsupportedReason(s).isEmpty(), supported);
    const QStringList args = apple.runArguments(s);
    QCOMPARE(args.contains(QStringLiteral("--init")), init);
    QCOMPARE(args.contains(QStringLiteral("--read-only")), readOnly);
    QCOMPARE(args.contains(QStringLiteral("--cap-drop")), supported);
    QVERIFY(!args.contains(QStringLiteral("--pids-limit")));
    QVERIFY(!args.contains(QStringLiteral("--security-opt")));
    // Options come before the image; everything after it is the process.
    QCOMPARE(args.mid(args.size() - 3),
             (QStringList{QStringLiteral("img:1"), QStringLiteral("sleep"), QStringLiteral("infinity")}));
    QCOMPARE(valuesOf(args, QStringLiteral("--mount")),
             QStringList{QStringLiteral("type=bind,source=/home/u/proj,target=/workspace")});
    QCOMPARE(valuesOf(args, QStringLiteral("--network")),
             profile == int(HardeningProfile::Hardened) ? QStringList{QStringLiteral("none")} : QStringList{});
    ContainerSpec comma = s;
    comma.workspace = QStringLiteral("/a,b");
    QVERIFY(!apple.unsupportedReason(comma).isEmpty());
}

void TestRuntimeArgs::appleParsing_data() {
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<int>("count");
    QTest::addColumn<bool>("firstRunning");
    QTest::newRow("1.x") << QByteArray(
        "[{\"configuration\":{\"id\":\"zeus-1\",\"labels\":{\"zeus.desktop.owner\":\"o1\"}},"
        "\"id\":\"zeus-1\",\"status\":{\"networks\":[],\"state\":\"running\"}},"
        "{\"configuration\":{\"id\":\"x\",\"labels\":{}},\"id\":\"x\",\"status\":{\"state\":"
        "\"stopped\"}}]") << 2
                         << true;
    QTest::newRow("0.x") << QByteArray(
        "[{\"status\":\"running\",\"configuration\":{\"id\":\"zeus-1\",\"labels\":{\"zeus."
        "desktop.owner\":\"o1\"}},\"networks\":[],\"startedDate\":786000000.5}]")
                         << 1 << true;
    QTest::newRow("stopped 0.x") << QByteArray("[{\"status\":\"stopped\",\"configuration\":{\"id\":\"zeus-1\"}}]") << 1
                                 << false;
    QTest::newRow("empty") << QByteArray("[]") << 0 << false;
}

void TestRuntimeArgs::appleParsing() {
    QFETCH(QByteArray, output);
    QFETCH(int, count);
    QFETCH(bool, firstRunning);
    const QList<ContainerInfo> list = AppleRuntime().parseList(output);
    QCOMPARE(list.size(), count);
    QCOMPARE(AppleRuntime().parseInspect(output).has_value(), count > 0);
    if (count > 0) {
        QCOMPARE(list.first().id, QStringLiteral("zeus-1"));
        QCOMPARE(list.first().running, firstRunning);
    }
}

void TestRuntimeArgs::appleMemory_data() {
    QTest::addColumn<QString>("in");
    QTest::addColumn<QString>("out");
    QTest::newRow("32m") << QStringLiteral("32m") << QStringLiteral("200M");
    QTest::newRow("2g") << QStringLiteral("2g") << QStringLiteral("2g");
    QTest::newRow("512M") << QStringLiteral("512M") << QStringLiteral("512M");
    QTest::newRow("bytes") << QStringLiteral("1048576") << QStringLiteral("200M");
}

void TestRuntimeArgs::appleMemory() {
    QFETCH(QString, in);
    QFETCH(QString, out);
    QCOMPARE(AppleRuntime::memoryArgument(in), out);
}

void TestRuntimeArgs::buildCommand_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("folder");  // the Dockerfile folder found; empty: none
    QTest::addColumn<QString>("command");
    QTest::newRow("docker, installed") << QStringLiteral("docker") << QStringLiteral("/usr/share/zeus-desktop/docker")
                                       << QStringLiteral(
                                              "docker build -t zeus-desktop-sandbox:latest "
                                              "/usr/share/zeus-desktop/docker");
    QTest::newRow("podman, build tree") << QStringLiteral("podman")
                                        << QStringLiteral("/src/build/share/zeus-desktop/docker")
                                        << QStringLiteral(
                                               "podman build -t zeus-desktop-sandbox:latest "
                                               "/src/build/share/zeus-desktop/docker");
    QTest::newRow("apple, bundle with a space")
        << QStringLiteral("apple") << QStringLiteral("/Applications/Zeus Desktop.app/Contents/Resources/docker")
        << QStringLiteral(
               "container build -t zeus-desktop-sandbox:latest "
               "\"/Applications/Zeus Desktop.app/Contents/Resources/docker\"");
    QTest::newRow("docker, no folder") << QStringLiteral("docker") << QString()
                                       << QStringLiteral(
                                              "zeus-desktop --build-image --runtime docker --image "
                                              "zeus-desktop-sandbox:latest");
    QTest::newRow("podman, no folder") << QStringLiteral("podman") << QString()
                                       << QStringLiteral(
                                              "zeus-desktop --build-image --runtime podman --image "
                                              "zeus-desktop-sandbox:latest");
}

void TestRuntimeArgs::buildCommand() {
    QFETCH(QString, engine);
    QFETCH(QString, folder);
    QFETCH(QString, command);
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    QCOMPARE(runtime->buildImageCommand(QStringLiteral("zeus-desktop-sandbox:latest"), folder), command);
}

// The image_missing message's build command names a Dockerfile folder that exists here (the one --build-image
// uses), or says to run zeus-desktop --build-image: never a folder this installation does not have.
void TestRuntimeArgs::buildCommandNamesAFolderThatExists() {
    const QString command = DockerRuntime().buildImageCommand(QStringLiteral("zeus-desktop-sandbox:latest"));
    const QString prefix = QStringLiteral("docker build -t zeus-desktop-sandbox:latest ");
    if (command.startsWith(prefix)) {
        QString folder = command.mid(prefix.size());
        if (folder.startsWith(QLatin1Char('"')) && folder.endsWith(QLatin1Char('"'))) {
            folder = folder.mid(1, folder.size() - 2);
        }
        QVERIFY2(QFileInfo(folder + QStringLiteral("/Dockerfile")).isFile(), qPrintable(command));
    } else {
        QVERIFY2(command.contains(QLatin1String("zeus-desktop --build-image")), qPrintable(command));
    }
}

// The command text goes over the exec's stdin (SPEC §3): every adapter asks for -i and nothing else.
void TestRuntimeArgs::execWithStdin() {
    const QStringList expected{QStringLiteral("exec"), QStringLiteral("-i"), QStringLiteral("ctr"),
                               QStringLiteral("sh")};
    QCOMPARE(DockerRuntime().execWithStdinArguments(QStringLiteral("ctr"), {QStringLiteral("sh")}), expected);
    QCOMPARE(PodmanRuntime().execWithStdinArguments(QStringLiteral("ctr"), {QStringLiteral("sh")}), expected);
    QCOMPARE(AppleRuntime().execWithStdinArguments(QStringLiteral("ctr"), {QStringLiteral("sh")}), expected);
}

void TestRuntimeArgs::logsArguments() {
    const QStringList oci{QStringLiteral("logs"), QStringLiteral("--tail"), QStringLiteral("5"), QStringLiteral("c")};
    QCOMPARE(DockerRuntime().logsArguments(QStringLiteral("c"), 5), oci);
    QCOMPARE(PodmanRuntime().logsArguments(QStringLiteral("c"), 5), oci);
    QCOMPARE(AppleRuntime().logsArguments(QStringLiteral("c"), 5),
             (QStringList{QStringLiteral("logs"), QStringLiteral("-n"), QStringLiteral("5"), QStringLiteral("c")}));
    // 0: the whole log, on every engine.
    const QStringList whole{QStringLiteral("logs"), QStringLiteral("c")};
    QCOMPARE(DockerRuntime().logsArguments(QStringLiteral("c"), 0), whole);
    QCOMPARE(PodmanRuntime().logsArguments(QStringLiteral("c"), 0), whole);
    QCOMPARE(AppleRuntime().logsArguments(QStringLiteral("c"), 0), whole);
}

void TestRuntimeArgs::errorLine_data() {
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<QString>("line");
    QTest::newRow("docker run refused") << QByteArray(
        "docker: Error response from daemon: failed to create shim task: "
        "not a directory\n\nRun 'docker run --help' for more information\n")
                                        << QStringLiteral(
                                               "docker: Error response from daemon: failed to create shim "
                                               "task: not a directory");
    QTest::newRow("podman") << QByteArray("Error: runc: error setting rlimit type 7: operation not permitted\n")
                            << QStringLiteral("Error: runc: error setting rlimit type 7: operation not permitted");
    QTest::newRow("several lines") << QByteArray("warning: one\nError: two\n") << QStringLiteral("Error: two");
    QTest::newRow("only the hint") << QByteArray("Run 'docker run --help' for more information\n") << QString();
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("long") << QByteArray(900, 'e') << QString(500, QLatin1Char('e'));
}

void TestRuntimeArgs::errorLine() {
    QFETCH(QByteArray, standardError);
    QFETCH(QString, line);
    QCOMPARE(ContainerRuntime::errorLine(standardError), line);
}

void TestRuntimeArgs::engineFailure_data() {
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<int>("imageCheck");     // EngineFailure after `image inspect`
    QTest::addColumn<int>("containerCall");  // EngineFailure after `inspect` / `stats`
    const int other = int(EngineFailure::Other);
    const int image = int(EngineFailure::ImageMissing);
    const int container = int(EngineFailure::NoSuchContainer);
    // Each function reads the answer to its own call: after a container call, any "no such" or
    // "not found" names the container.
    QTest::newRow("docker image") << "docker" << QByteArray("Error: No such image: zeus:1") << image << container;
    QTest::newRow("podman image") << "podman" << QByteArray("Error: zeus:1: image not known") << image << other;
    QTest::newRow("apple image") << "apple" << QByteArray("Error: not found: \"zeus:1\"") << image << container;
    QTest::newRow("apple image, older") << "apple" << QByteArray("failed to find image zeus:1") << image << other;
    QTest::newRow("docker container") << "docker" << QByteArray("Error: No such container: abc") << other << container;
    QTest::newRow("podman container") << "podman" << QByteArray("Error: no such container abc") << other << container;
    QTest::newRow("apple container") << "apple" << QByteArray("Error: notFound: container not found") << other
                                     << container;
    // An engine that is down names nothing missing: neither counts.
    QTest::newRow("docker down") << "docker"
                                 << QByteArray(
                                        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
                                        "Is the docker daemon running?")
                                 << other << other;
    QTest::newRow("empty") << "podman" << QByteArray() << other << other;
}

void TestRuntimeArgs::engineFailure() {
    QFETCH(QString, engine);
    QFETCH(QByteArray, output);
    QFETCH(int, imageCheck);
    QFETCH(int, containerCall);
    const auto runtime = ContainerRuntime::create(*runtimeKindFromString(engine));
    QCOMPARE(int(runtime->imageCheckFailure(output)), imageCheck);
    QCOMPARE(int(runtime->containerCallFailure(output)), containerCall);
}

QTEST_GUILESS_MAIN(TestRuntimeArgs)
#include "tst_runtimeargs.moc"
