// The command line of zeus-desktop, run as a process: usage errors exit 2, --version works with no display.
#include "appoptions.h"
#include "support/vocabulary.h"
#include "testenvironment.h"

#include <QProcessEnvironment>
#include <QtTest>

class TestAppOptions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void versionRunsWithoutDisplay();
    void usageErrors_data();
    void usageErrors();
    void approvalOptions();
    void workspaceMode_data();
    void workspaceMode();
    void wordsBecomeEnums();
    void upstreamProxy();
    void publish();
    void exposeHost();
    void mcpModeTakesEveryWorkspace();
    void mcpHttpPort_data();
    void mcpHttpPort();
};

void TestAppOptions::versionRunsWithoutDisplay() {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(ZEUS_APP_BINARY), {QStringLiteral("--version")});
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitCode(), 0);
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    QVERIFY2(out.startsWith(QStringLiteral("Zeus Desktop ")), qPrintable(out));
}

void TestAppOptions::usageErrors_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--frobnicate"), QStringLiteral("--diagnose")}
                                    << QStringLiteral("Unknown option");
    QTest::newRow("bad runtime") << QStringList{QStringLiteral("--diagnose"), QStringLiteral("--runtime"),
                                                QStringLiteral("lxc")}
                                 << QStringLiteral("--runtime must be auto, apple, docker or podman");
    QTest::newRow("bad profile") << QStringList{QStringLiteral("--exec"),      QStringLiteral("true"),
                                                QStringLiteral("--workspace"), QStringLiteral("/tmp"),
                                                QStringLiteral("--profile"),   QStringLiteral("open")}
                                 << QStringLiteral("--profile must be standard or hardened");
    QTest::newRow("exec without workspace")
        << QStringList{QStringLiteral("--exec"), QStringLiteral("true")} << QStringLiteral("--exec needs --workspace");
    QTest::newRow("bad timeout") << QStringList{QStringLiteral("--exec"),      QStringLiteral("true"),
                                                QStringLiteral("--workspace"), QStringLiteral("/tmp"),
                                                QStringLiteral("--timeout"),   QStringLiteral("soon")}
                                 << QStringLiteral("--timeout needs");
    const QStringList diagnose{QStringLiteral("--diagnose")};
    QTest::newRow("bad network") << diagnose + QStringList{QStringLiteral("--network"), QStringLiteral("bridge")}
                                 << QStringLiteral("--network must be allowlist, none or open");
    QTest::newRow("bad preset") << diagnose + QStringList{QStringLiteral("--network-preset"), QStringLiteral("all")}
                                << QStringLiteral("--network-preset must be dev or locked");
    QTest::newRow("bad allow rule") << diagnose + QStringList{QStringLiteral("--allow-host"), QStringLiteral("*.com")}
                                    << QStringLiteral("would allow a whole top-level domain");
    QTest::newRow("bad deny rule") << diagnose + QStringList{QStringLiteral("--deny-host"), QStringLiteral("a b")}
                                   << QStringLiteral("is not a host name");
    QTest::newRow("bad resolve") << diagnose + QStringList{QStringLiteral("--resolve"), QStringLiteral("a.test:443")}
                                 << QStringLiteral("--resolve: 'a.test:443' is not HOST:PORT:ADDRESS");
    QTest::newRow("socks upstream") << diagnose
                                           + QStringList{QStringLiteral("--upstream-proxy"),
                                                         QStringLiteral("socks5://u:secret@proxy:1080")}
                                    << QStringLiteral("--upstream-proxy: only http:// proxies");
    QTest::newRow("publish port 70000") << diagnose + QStringList{QStringLiteral("--publish"), QStringLiteral("70000")}
                                        << QStringLiteral("--publish: '70000' is not [HOST_PORT:]CONTAINER_PORT");
    QTest::newRow("publish on an address")
        << diagnose + QStringList{QStringLiteral("--publish"), QStringLiteral("0.0.0.0:8000:80")}
        << QStringLiteral("the host side is always 127.0.0.1");
    QTest::newRow("expose port 70000") << diagnose
                                              + QStringList{QStringLiteral("--expose-host"), QStringLiteral("70000")}
                                       << QStringLiteral("--expose-host: '70000' is not HOST_PORT[:CONTAINER_PORT]");
    QTest::newRow("expose on the agent's proxy port")
        << diagnose + QStringList{QStringLiteral("--expose-host"), QStringLiteral("8080:3128")}
        << QStringLiteral("container port 3128 is the sandbox agent's own proxy");
    QStringList seventeen = diagnose;
    for (int port = 5000; port < 5017; ++port) {
        seventeen << QStringLiteral("--expose-host") << QString::number(port);
    }
    QTest::newRow("expose 17 ports") << seventeen << QStringLiteral("--expose-host: at most 16 ports");
    QTest::newRow("expose one container port twice")
        << diagnose
               + QStringList{QStringLiteral("--expose-host"), QStringLiteral("5432"), QStringLiteral("--expose-host"),
                             QStringLiteral("15432:5432")}
        << QStringLiteral("--expose-host: container port 5432 is given twice");
    QTest::newRow("headless without backend")
        << QStringList{QStringLiteral("--headless"), QStringLiteral("--workspace"), QStringLiteral("/tmp")}
        << QStringLiteral("--headless needs");
    QTest::newRow("bad approval mode") << QStringList{QStringLiteral("--diagnose"), QStringLiteral("--approval"),
                                                      QStringLiteral("never")}
                                       << QStringLiteral("--approval must be auto, ask-unsafe or ask-all");
    QTest::newRow("bad exec mode") << diagnose + QStringList{QStringLiteral("--exec-mode"), QStringLiteral("shell")}
                                   << QStringLiteral("--exec-mode must be agent or exec");
    QTest::newRow("runtime in another case")
        << diagnose + QStringList{QStringLiteral("--runtime"), QStringLiteral("Docker")}
        << QStringLiteral("--runtime must be auto, apple, docker or podman");
    QTest::newRow("bad workspace mode") << diagnose
                                               + QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("copy")}
                                        << QStringLiteral("--workspace-mode must be direct or review");
    QTest::newRow("workspace mode in another case")
        << diagnose + QStringList{QStringLiteral("--workspace-mode"), QStringLiteral("Review")}
        << QStringLiteral("--workspace-mode must be direct or review");
    QTest::newRow("workspace mode without a value")
        << diagnose + QStringList{QStringLiteral("--workspace-mode")} << QStringLiteral("Missing value");
    QTest::newRow("allow-command with shell syntax")
        << QStringList{QStringLiteral("--diagnose"), QStringLiteral("--allow-command"), QStringLiteral("ls && id")}
        << QStringLiteral("plain words");
    QTest::newRow("deny-command with a glob")
        << QStringList{QStringLiteral("--diagnose"), QStringLiteral("--deny-command"), QStringLiteral("rm *")}
        << QStringLiteral("plain words");
}

void TestAppOptions::approvalOptions() {
    const zeus::AppOptions options = zeus::parseAppOptions(
        {QStringLiteral("zeus-desktop"), QStringLiteral("--approval"), QStringLiteral("ask-all"),
         QStringLiteral("--allow-command"), QStringLiteral("ls"), QStringLiteral("--allow-command"),
         QStringLiteral("git status"), QStringLiteral("--deny-command"), QStringLiteral("rm")});
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.approval, std::optional<zeus::ApprovalMode>(zeus::ApprovalMode::AskAll));
    QCOMPARE(options.allowCommands, (QStringList{QStringLiteral("ls"), QStringLiteral("git status")}));
    QCOMPARE(options.denyCommands, QStringList{QStringLiteral("rm")});
    QVERIFY(!zeus::parseAppOptions({QStringLiteral("zeus-desktop")}).approval);
}

void TestAppOptions::workspaceMode_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("overridden");  // what the sandbox overrides carry
    QTest::newRow("direct") << "direct"
                            << "direct";
    QTest::newRow("review") << "review"
                            << "review";
    QTest::newRow("not given: each folder's setting") << ""
                                                      << "";
}

void TestAppOptions::workspaceMode() {
    QFETCH(QString, value);
    QFETCH(QString, overridden);
    QStringList arguments{QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose")};
    if (!value.isEmpty()) {
        arguments << QStringLiteral("--workspace-mode") << value;
    }
    const zeus::AppOptions options = zeus::parseAppOptions(arguments);
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.workspaceMode ? zeus::wordOf(*options.workspaceMode) : QString(), value);
    const std::optional<zeus::WorkspaceMode> carried = zeus::sandboxOverridesOf(options).workspaceMode;
    QCOMPARE(carried ? zeus::wordOf(*carried) : QString(), overridden);
}

// Every word option is read into its enum at parse time; the sandbox overrides carry the same values on.
void TestAppOptions::wordsBecomeEnums() {
    const zeus::AppOptions options = zeus::parseAppOptions(
        {QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose"), QStringLiteral("--runtime"),
         QStringLiteral("podman"), QStringLiteral("--profile"), QStringLiteral("hardened"),
         QStringLiteral("--exec-mode"), QStringLiteral("exec"), QStringLiteral("--network"), QStringLiteral("open"),
         QStringLiteral("--network-preset"), QStringLiteral("locked")});
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QCOMPARE(options.runtimePreference, std::optional<zeus::RuntimePreference>(zeus::RuntimePreference::Podman));
    QCOMPARE(options.hardeningProfile, std::optional<zeus::HardeningProfile>(zeus::HardeningProfile::Hardened));
    QCOMPARE(options.execMode, std::optional<zeus::ExecMode>(zeus::ExecMode::Exec));
    QCOMPARE(options.network, std::optional<zeus::NetworkMode>(zeus::NetworkMode::Open));
    QCOMPARE(options.networkPreset, std::optional<zeus::EgressPreset>(zeus::EgressPreset::Locked));
    const zeus::SandboxOverrides overrides = zeus::sandboxOverridesOf(options);
    QCOMPARE(overrides.profile, options.hardeningProfile);
    QCOMPARE(overrides.execMode, options.execMode);
    QCOMPARE(overrides.network, options.network);
    QCOMPARE(overrides.networkPreset, options.networkPreset);

    const zeus::AppOptions none = zeus::parseAppOptions({QStringLiteral("zeus-desktop")});
    QVERIFY(!none.runtimePreference && !none.hardeningProfile && !none.execMode && !none.network && !none.networkPreset
            && !none.workspaceMode && !none.approval);
    QVERIFY(!zeus::sandboxOverridesOf(none).network);
    QVERIFY(zeus::sandboxOverridesOf(none).upstreamProxy.isEmpty());
}

void TestAppOptions::upstreamProxy() {
    for (const QString& value : {QStringLiteral("none"), QStringLiteral("http://u:p@proxy.corp:3128")}) {
        const zeus::AppOptions options = zeus::parseAppOptions(
            {QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose"), QStringLiteral("--upstream-proxy"), value});
        QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
        QCOMPARE(zeus::sandboxOverridesOf(options).upstreamProxy, value);
    }
}

void TestAppOptions::exposeHost() {
    QStringList arguments{QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose")};
    for (int port = 5000; port < 5016; ++port) {
        arguments << QStringLiteral("--expose-host") << QString::number(port);
    }
    arguments << QStringLiteral("--publish") << QStringLiteral("8000");
    const zeus::AppOptions sixteen = zeus::parseAppOptions(arguments);
    QVERIFY2(sixteen.error.isEmpty(), qPrintable(sixteen.error));
    QCOMPARE(zeus::sandboxOverridesOf(sixteen).exposeHost.size(), 16);
    const zeus::AppOptions pair = zeus::parseAppOptions({QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose"),
                                                         QStringLiteral("--expose-host"), QStringLiteral("15432:5432"),
                                                         QStringLiteral("--expose-host"), QStringLiteral("6379")});
    QVERIFY2(pair.error.isEmpty(), qPrintable(pair.error));
    QCOMPARE(zeus::sandboxOverridesOf(pair).exposeHost,
             (QStringList{QStringLiteral("15432:5432"), QStringLiteral("6379")}));
    QVERIFY(zeus::sandboxOverridesOf(zeus::parseAppOptions({QStringLiteral("zeus-desktop")})).exposeHost.isEmpty());
}

void TestAppOptions::publish() {
    const zeus::AppOptions options =
        zeus::parseAppOptions({QStringLiteral("zeus-desktop"), QStringLiteral("--diagnose"),
                               QStringLiteral("--publish"), QStringLiteral("18000:8000"), QStringLiteral("--publish"),
                               QStringLiteral("5173"), QStringLiteral("--allow-publish")});
    QVERIFY2(options.error.isEmpty(), qPrintable(options.error));
    QVERIFY(options.allowPublish);
    QCOMPARE(zeus::sandboxOverridesOf(options).publish,
             (QStringList{QStringLiteral("18000:8000"), QStringLiteral("5173")}));
    const zeus::AppOptions none = zeus::parseAppOptions({QStringLiteral("zeus-desktop")});
    QVERIFY(!none.allowPublish && zeus::sandboxOverridesOf(none).publish.isEmpty());
    QVERIFY(!none.allowApply);
    QVERIFY(zeus::parseAppOptions(
                {QStringLiteral("zeus-desktop"), QStringLiteral("--mcp"), QStringLiteral("--allow-apply")})
                .allowApply);
}

// --mcp serves every --workspace given; the other modes keep taking the last one, as before.
void TestAppOptions::mcpModeTakesEveryWorkspace() {
    const zeus::AppOptions mcp =
        zeus::parseAppOptions({QStringLiteral("zeus-desktop"), QStringLiteral("--mcp"), QStringLiteral("--workspace"),
                               QStringLiteral("/a"), QStringLiteral("--workspace"), QStringLiteral("/b")});
    QVERIFY2(mcp.error.isEmpty(), qPrintable(mcp.error));
    QCOMPARE(mcp.mode, zeus::AppOptions::Mode::Mcp);
    QCOMPARE(mcp.workspaces, (QStringList{QStringLiteral("/a"), QStringLiteral("/b")}));
    QCOMPARE(mcp.workspace, QStringLiteral("/b"));
    const zeus::AppOptions none = zeus::parseAppOptions({QStringLiteral("zeus-desktop"), QStringLiteral("--mcp")});
    QVERIFY2(none.error.isEmpty(), qPrintable(none.error));  // the folders approved in the settings
    QVERIFY(none.workspaces.isEmpty());
    QByteArray program("zeus-desktop");
    QByteArray flag("--mcp");
    char* argv[] = {program.data(), flag.data()};
    QVERIFY(zeus::wantsConsoleMode(2, argv));  // an MCP server never needs a display
}

void TestAppOptions::mcpHttpPort_data() {
    QTest::addColumn<QString>("port");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("a port") << QStringLiteral("8765") << true;
    QTest::newRow("zero: a free one") << QStringLiteral("0") << true;
    QTest::newRow("highest") << QStringLiteral("65535") << true;
    QTest::newRow("too high") << QStringLiteral("65536") << false;
    QTest::newRow("negative") << QStringLiteral("-1") << false;
    QTest::newRow("plus sign") << QStringLiteral("+80") << false;
    QTest::newRow("a word") << QStringLiteral("http") << false;
    QTest::newRow("an address") << QStringLiteral("0.0.0.0:80") << false;
}

// --mcp-http PORT: the HTTP MCP server, every --workspace kept as --mcp does, never a display.
void TestAppOptions::mcpHttpPort() {
    QFETCH(QString, port);
    QFETCH(bool, accepted);
    const zeus::AppOptions options =
        zeus::parseAppOptions({QStringLiteral("zeus-desktop"), QStringLiteral("--mcp-http"), port,
                               QStringLiteral("--workspace"), QStringLiteral("/a"), QStringLiteral("--workspace"),
                               QStringLiteral("/b"), QStringLiteral("--mcp-http-token-reset")});
    QCOMPARE(options.error.isEmpty(), accepted);
    if (accepted) {
        QCOMPARE(options.mode, zeus::AppOptions::Mode::McpHttp);
        QCOMPARE(options.mcpHttpPort, port);
        QVERIFY(options.mcpHttpTokenReset);
        QCOMPARE(options.workspaces, (QStringList{QStringLiteral("/a"), QStringLiteral("/b")}));
    }
    QByteArray program("zeus-desktop");
    QByteArray flag("--mcp-http");
    char* argv[] = {program.data(), flag.data()};
    QVERIFY(zeus::wantsConsoleMode(2, argv));
}

void TestAppOptions::usageErrors() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const zeus::test::ProcessOutput result = zeus::test::runProgram(QStringLiteral(ZEUS_APP_BINARY), arguments, 20000);
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(QString::fromUtf8(result.err).contains(message), result.err.constData());
}

QTEST_GUILESS_MAIN(TestAppOptions)
#include "tst_appoptions.moc"
