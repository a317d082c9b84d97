// SandboxSetup: settings plus command-line overrides into a SandboxConfig, the detection's choice into a
// runtime (its CLI path, and for Apple its version gates) and into hello.runtime. Pure apart from a temporary
// settings file.
#include "appsettings.h"
#include "engine/appleruntime.h"
#include "runtime/detectionresult.h"
#include "sandboxsetup.h"
#include "support/vocabulary.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

namespace {

RuntimeProbe probeOf(RuntimeKind kind, RuntimeProbe::State state, const QString& binary, const QString& server,
                     std::optional<bool> rootless = std::nullopt) {
    RuntimeProbe probe;
    probe.kind = kind;
    probe.state = state;
    probe.binaryPath = binary;
    probe.clientVersion = QStringLiteral("client-1");
    probe.serverVersion = server;
    probe.rootless = rootless;
    if (state != RuntimeProbe::State::Ready) {
        probe.reason = QStringLiteral("not usable here");
    }
    return probe;
}

}  // namespace

class TestSandboxSetup : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void configFromSettingsAndOverrides_data() {
        QTest::addColumn<QString>("imageOverride");
        QTest::addColumn<QString>("profileOverride");
        QTest::addColumn<QString>("image");
        QTest::addColumn<int>("profile");

        QTest::newRow("settings only") << QString() << QString() << QStringLiteral("registry.example/sandbox:7")
                                       << int(HardeningProfile::Standard);
        QTest::newRow("image override") << QStringLiteral("zeus-desktop-sandbox:test") << QString()
                                        << QStringLiteral("zeus-desktop-sandbox:test")
                                        << int(HardeningProfile::Standard);
        QTest::newRow("profile override")
            << QString() << QStringLiteral("hardened") << QStringLiteral("registry.example/sandbox:7")
            << int(HardeningProfile::Hardened);
    }

    void configFromSettingsAndOverrides() {
        QFETCH(QString, imageOverride);
        QFETCH(QString, profileOverride);
        QFETCH(QString, image);
        QFETCH(int, profile);
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(settings.setImage(QStringLiteral("registry.example/sandbox:7")));
        QVERIFY(settings.setHardeningProfile(QStringLiteral("standard")));
        QVERIFY(settings.setPidsLimit(300));
        QVERIFY(settings.setMemoryMiB(1536));
        QVERIFY(settings.setCpus(1.5));
        QVERIFY(settings.setIdleTimeoutMinutes(7));

        SandboxOverrides overrides;
        overrides.image = imageOverride;
        if (!profileOverride.isEmpty()) {
            overrides.profile = fromWord<HardeningProfile>(profileOverride);
            QVERIFY(overrides.profile);
        }
        const SandboxConfig config = SandboxSetup::configFrom(settings, overrides);
        QCOMPARE(config.image, image);
        QCOMPARE(int(config.profile), profile);
        QCOMPARE(config.pidsLimit, 300);
        QCOMPARE(config.memory, QStringLiteral("1536m"));
        QCOMPARE(config.cpus, QStringLiteral("1.5"));
        QCOMPARE(config.idleTimeoutMs, 7 * 60 * 1000);
        QVERIFY(!config.ownerId.isEmpty());
        QCOMPARE(config.ownerId, settings.installId());  // the owner label is this install's id
    }

    void runtimeAndReport_data() {
        QTest::addColumn<QList<RuntimeProbe>>("probes");
        QTest::addColumn<int>("preference");
        QTest::addColumn<QString>("kind");  // empty: none
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("podmanRootless");

        const RuntimeProbe dockerReady = probeOf(RuntimeKind::Docker, RuntimeProbe::State::Ready,
                                                 QStringLiteral("/usr/bin/docker"), QStringLiteral("20.10.24"));
        const RuntimeProbe dockerDown =
            probeOf(RuntimeKind::Docker, RuntimeProbe::State::NotRunning, QStringLiteral("/usr/bin/docker"), QString());
        const RuntimeProbe podmanRootless = probeOf(RuntimeKind::Podman, RuntimeProbe::State::Ready,
                                                    QStringLiteral("/opt/podman"), QStringLiteral("4.3.1"), true);
        const RuntimeProbe podmanNoServer = probeOf(RuntimeKind::Podman, RuntimeProbe::State::Ready,
                                                    QStringLiteral("/usr/bin/podman"), QString(), false);

        QTest::newRow("docker") << QList<RuntimeProbe>{dockerReady} << int(RuntimePreference::Auto)
                                << QStringLiteral("docker") << QStringLiteral("/usr/bin/docker")
                                << QStringLiteral("20.10.24") << false;
        QTest::newRow("rootless docker is not the podman rule")
            << QList<RuntimeProbe>{probeOf(RuntimeKind::Docker, RuntimeProbe::State::Ready,
                                           QStringLiteral("/usr/bin/docker"), QStringLiteral("24.0.7"), true)}
            << int(RuntimePreference::Auto) << QStringLiteral("docker") << QStringLiteral("/usr/bin/docker")
            << QStringLiteral("24.0.7") << false;
        QTest::newRow("rootless podman") << QList<RuntimeProbe>{dockerDown, podmanRootless}
                                         << int(RuntimePreference::Auto) << QStringLiteral("podman")
                                         << QStringLiteral("/opt/podman") << QStringLiteral("4.3.1") << true;
        QTest::newRow("client version when the server has none")
            << QList<RuntimeProbe>{podmanNoServer} << int(RuntimePreference::Auto) << QStringLiteral("podman")
            << QStringLiteral("/usr/bin/podman") << QStringLiteral("client-1") << false;
        QTest::newRow("nothing usable") << QList<RuntimeProbe>{dockerDown} << int(RuntimePreference::Auto) << QString()
                                        << QString() << QString() << false;
        QTest::newRow("preferred runtime not usable, no fallback")
            << QList<RuntimeProbe>{dockerReady, probeOf(RuntimeKind::Podman, RuntimeProbe::State::NotInstalled,
                                                        QString(), QString())}
            << int(RuntimePreference::Podman) << QString() << QString() << QString() << false;
    }

    void runtimeAndReport() {
        QFETCH(QList<RuntimeProbe>, probes);
        QFETCH(int, preference);
        QFETCH(QString, kind);
        QFETCH(QString, program);
        QFETCH(QString, version);
        QFETCH(bool, podmanRootless);

        const DetectionResult detection = DetectionResult::choose(probes, RuntimePreference(preference));
        SandboxConfig config;
        const std::unique_ptr<ContainerRuntime> runtime = SandboxSetup::runtimeFor(detection, config);
        const RuntimeReport report = SandboxSetup::runtimeReport(detection);
        if (kind.isEmpty()) {
            QVERIFY(!runtime);
            QVERIFY(!report.ready);
            QVERIFY(report.kind.isEmpty());
            QVERIFY(!report.reason.isEmpty());
            return;
        }
        QVERIFY(runtime);
        QCOMPARE(runtimeKindToString(runtime->kind()), kind);
        QCOMPARE(runtime->program(), program);
        QCOMPARE(config.podmanRootless, podmanRootless);
        QVERIFY(report.ready);
        QCOMPARE(report.kind, kind);
        QCOMPARE(report.version, version);
        QVERIFY(report.reason.isEmpty());
    }

    // The Apple path through the setup: the detected CLI version reaches the runtime, so each flag appears only
    // from the version that accepts it (reference/apple-container-cli.md) and a CLI that cannot drop
    // capabilities is refused rather than run weaker.
    void appleVersionGates_data() {
        QTest::addColumn<QString>("cliVersion");  // as `container --version` reports it
        QTest::addColumn<QString>("parsed");
        QTest::addColumn<bool>("init");       // --init, 0.10.0
        QTest::addColumn<bool>("capDrop");    // --cap-drop ALL, 0.12.0
        QTest::addColumn<bool>("readOnly");   // --read-only (hardened), 0.8.0
        QTest::addColumn<bool>("supported");  // no unsupportedReason: needs --cap-drop

        QTest::newRow("0.9.0") << QStringLiteral("0.9.0") << QStringLiteral("0.9.0") << false << false << true << false;
        QTest::newRow("0.10.0 debug build")
            << QStringLiteral("0.10.0-27-g9fd15f0") << QStringLiteral("0.10.0") << true << false << true << false;
        QTest::newRow("0.11.0") << QStringLiteral("0.11.0") << QStringLiteral("0.11.0") << true << false << true
                                << false;
        QTest::newRow("0.12.0") << QStringLiteral("0.12.0") << QStringLiteral("0.12.0") << true << true << true << true;
        QTest::newRow("1.2.0") << QStringLiteral("1.2.0") << QStringLiteral("1.2.0") << true << true << true << true;
    }

    void appleVersionGates() {
        QFETCH(QString, cliVersion);
        QFETCH(QString, parsed);
        QFETCH(bool, init);
        QFETCH(bool, capDrop);
        QFETCH(bool, readOnly);
        QFETCH(bool, supported);
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(settings.setHardeningProfile(QStringLiteral("hardened")));
        RuntimeProbe apple = probeOf(RuntimeKind::Apple, RuntimeProbe::State::Ready,
                                     QStringLiteral("/usr/local/bin/container"), QStringLiteral("1.2.3"));
        apple.clientVersion = cliVersion;
        const DetectionResult detection = DetectionResult::choose({apple}, RuntimePreference::Apple);

        const SandboxSetup setup = SandboxSetup::from(detection, settings);
        QVERIFY(setup.runtime);
        QCOMPARE(setup.runtime->kind(), RuntimeKind::Apple);
        QCOMPARE(setup.runtime->program(), QStringLiteral("/usr/local/bin/container"));
        const auto* runtime = dynamic_cast<const AppleRuntime*>(setup.runtime.get());
        QVERIFY(runtime);
        QCOMPARE(runtime->version(), QVersionNumber::fromString(parsed));
        QVERIFY(!setup.config.podmanRootless);

        const ContainerSpec spec =
            setup.config.containerSpec(QStringLiteral("zeus-test"), QStringLiteral("/work"), QStringLiteral("s1"));
        const QStringList args = setup.runtime->runArguments(spec);
        QCOMPARE(args.contains(QStringLiteral("--init")), init);
        QCOMPARE(args.contains(QStringLiteral("--cap-drop")), capDrop);
        QCOMPARE(args.contains(QStringLiteral("--read-only")), readOnly);
        QCOMPARE(setup.runtime->unsupportedReason(spec).isEmpty(), supported);
        QCOMPARE(setup.report.version, QStringLiteral("1.2.3"));  // hello names the service's version
    }

    void cliProgram_data() {
        QTest::addColumn<QList<RuntimeProbe>>("probes");
        QTest::addColumn<QString>("program");

        QTest::newRow("the path detection found")
            << QList<RuntimeProbe>{probeOf(RuntimeKind::Podman, RuntimeProbe::State::Ready,
                                           QStringLiteral("/opt/podman/bin/podman"), QStringLiteral("4.9"))}
            << QStringLiteral("/opt/podman/bin/podman");
        QTest::newRow("no path: the CLI's name") << QList<RuntimeProbe>{probeOf(
            RuntimeKind::Docker, RuntimeProbe::State::Ready, QString(), QStringLiteral("24.0"))}
                                                 << QStringLiteral("docker");
        QTest::newRow("nothing usable") << QList<RuntimeProbe>{probeOf(
            RuntimeKind::Docker, RuntimeProbe::State::NotRunning, QStringLiteral("/usr/bin/docker"), QString())}
                                        << QString();
    }

    void cliProgram() {
        QFETCH(QList<RuntimeProbe>, probes);
        QFETCH(QString, program);
        QCOMPARE(SandboxSetup::cliProgram(DetectionResult::choose(probes, RuntimePreference::Auto)), program);
    }

    void outputCapOverride() {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QCOMPARE(SandboxSetup::configFrom(settings).outputCapBytes, SandboxConfig().outputCapBytes);
        SandboxOverrides overrides;
        overrides.outputCapBytes = 4096;
        QCOMPARE(SandboxSetup::configFrom(settings, overrides).outputCapBytes, qint64(4096));
    }

    // --expose-host reaches every session's config as it was written, the container port defaulting to the host's.
    void exposeHostOverride() {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(SandboxSetup::configFrom(settings).exposeHost.isEmpty());
        SandboxOverrides overrides;
        overrides.exposeHost = {QStringLiteral("15432:5432"), QStringLiteral("6379")};
        const QList<ExposeSpec> expected{{15432, 5432}, {6379, 6379}};
        QCOMPARE(SandboxSetup::configFrom(settings, overrides).exposeHost, expected);
    }

    // SPEC §9: Settings → Secrets "Use only with…" binds a secret in every mode (presets expanded); this run's
    // --bind-secret replaces a name's hosts and adds names; a setting that no longer parses stays a binding with
    // no host (its placeholder goes nowhere), never a secret handed out as a value.
    void secretBindingsFromSettingsAndOverrides() {
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        QVERIFY(SandboxSetup::configFrom(settings).secretBindings.isEmpty());
        for (const char* name : {"GH_TOKEN", "NPM_TOKEN", "BROKEN"}) {
            settings.addSecretName(QString::fromLatin1(name));
        }
        settings.secrets().setBinding(QStringLiteral("UNKNOWN"), {QStringLiteral("example.com")});  // not stored
        settings.secrets().setBinding(QStringLiteral("GH_TOKEN"), {QStringLiteral("@github")});
        settings.secrets().setBinding(QStringLiteral("NPM_TOKEN"), {QStringLiteral("registry.npmjs.org")});
        settings.secrets().setBinding(QStringLiteral("BROKEN"), {QStringLiteral("not a host")});
        const SandboxConfig fromSettings = SandboxSetup::configFrom(settings);
        QCOMPARE(fromSettings.secretBindings.keys().size(), 3);
        QVERIFY(fromSettings.secretBindings.value(QStringLiteral("GH_TOKEN"))
                    .allows(QStringLiteral("api.github.com"), 443, true));
        QVERIFY(fromSettings.secretBindings.value(QStringLiteral("BROKEN")).hosts.isEmpty());
        QVERIFY(!fromSettings.secretBindings.contains(QStringLiteral("UNKNOWN")));
        SandboxOverrides overrides;
        overrides.bindSecrets = {QStringLiteral("NPM_TOKEN=npm.corp.example"), QStringLiteral("API_KEY=api.example")};
        const SandboxConfig both = SandboxSetup::configFrom(settings, overrides);
        QCOMPARE(both.secretBindings.value(QStringLiteral("NPM_TOKEN")).ruleTexts(),
                 QStringList({QStringLiteral("npm.corp.example")}));
        QVERIFY(both.secretBindings.contains(QStringLiteral("API_KEY")));
        QVERIFY(both.secretBindings.contains(QStringLiteral("GH_TOKEN")));
    }

    // The folder's setting, unless --workspace-mode names one mode for the whole run.
    void workspaceModes_data() {
        QTest::addColumn<QString>("override");
        QTest::addColumn<QString>("reviewFolder");  // the mode /r gets
        QTest::addColumn<QString>("otherFolder");   // the mode /o gets
        QTest::newRow("settings") << ""
                                  << "review"
                                  << "direct";
        QTest::newRow("--workspace-mode direct") << "direct"
                                                 << "direct"
                                                 << "direct";
        QTest::newRow("--workspace-mode review") << "review"
                                                 << "review"
                                                 << "review";
    }

    void workspaceModes() {
        QFETCH(QString, override);
        QFETCH(QString, reviewFolder);
        QFETCH(QString, otherFolder);
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        settings.setWorkspaceMode(QStringLiteral("/r"), WorkspaceMode::Review);
        SandboxOverrides overrides;
        if (!override.isEmpty()) {
            overrides.workspaceMode = fromWord<WorkspaceMode>(override);
            QVERIFY(overrides.workspaceMode);
        }
        const SandboxConfig config = SandboxSetup::configFrom(settings, overrides);
        QCOMPARE(workspaceModeName(config.workspaceModeFor(QStringLiteral("/r"))), reviewFolder);
        QCOMPARE(workspaceModeName(config.workspaceModeFor(QStringLiteral("/o"))), otherFolder);
    }

    // The detection's engine location reaches the config; a remote engine never gets the host's agent mounted
    // (it would mount a file of its own machine) and uses the image's copy.
    // Adapters for a CLI a record names (review copies) and copies of a running one (the monitor, the image
    // check) keep the Apple CLI's version the detection found, so its version gates hold there too.
    void adapterFactoryKeepsTheAppleVersion() {
        RuntimeProbe apple = probeOf(RuntimeKind::Apple, RuntimeProbe::State::Ready,
                                     QStringLiteral("/usr/local/bin/container"), QStringLiteral("1.2.3"));
        apple.clientVersion = QStringLiteral("0.10.0-27-g9fd15f0");
        const RuntimeFactory factory =
            SandboxSetup::adapterFactory(DetectionResult::choose({apple}, RuntimePreference::Apple));

        const std::unique_ptr<ContainerRuntime> probed = factory(RuntimeKind::Apple, apple.binaryPath);
        QVERIFY(probed);
        QCOMPARE(probed->program(), apple.binaryPath);
        const auto* probedApple = dynamic_cast<const AppleRuntime*>(probed.get());
        QVERIFY(probedApple);
        QCOMPARE(probedApple->version(), QVersionNumber(0, 10, 0));

        const std::unique_ptr<ContainerRuntime> copy = probed->clone();
        const auto* copiedApple = dynamic_cast<const AppleRuntime*>(copy.get());
        QVERIFY(copiedApple);
        QCOMPARE(copiedApple->program(), apple.binaryPath);
        QCOMPARE(copiedApple->version(), QVersionNumber(0, 10, 0));

        // Another CLI than the one probed: its version is not known.
        const std::unique_ptr<ContainerRuntime> other = factory(RuntimeKind::Apple, QStringLiteral("/opt/container"));
        const auto* otherApple = dynamic_cast<const AppleRuntime*>(other.get());
        QVERIFY(otherApple);
        QVERIFY(otherApple->version().isNull());

        const std::unique_ptr<ContainerRuntime> docker = factory(RuntimeKind::Docker, QString());
        QVERIFY(docker);
        QCOMPARE(docker->kind(), RuntimeKind::Docker);
        QCOMPARE(docker->program(), QStringLiteral("docker"));
    }

    void engineLocation_data() {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<bool>("remote");
        QTest::addColumn<QString>("host");
        QTest::newRow("local socket") << "unix:///var/run/docker.sock" << false << "unix:///var/run/docker.sock";
        QTest::newRow("tcp") << "tcp://u:p@127.0.0.1:23750" << true << "tcp://127.0.0.1:23750";
        QTest::newRow("ssh") << "ssh://me@build" << true << "ssh://build";
    }

    void engineLocation() {
        QFETCH(QString, endpoint);
        QFETCH(bool, remote);
        QFETCH(QString, host);
        QTemporaryDir dir;
        AppSettings settings(dir.filePath(QStringLiteral("settings.ini")));
        // An agent the setup would mount for a local Linux engine.
        const QString agent = dir.filePath(QStringLiteral("zeus-sandbox-agent"));
        QFile file(agent);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
        qputenv("ZEUS_SANDBOX_AGENT", agent.toUtf8());
        RuntimeProbe docker = probeOf(RuntimeKind::Docker, RuntimeProbe::State::Ready,
                                      QStringLiteral("/usr/bin/docker"), QStringLiteral("28.2.2"));
        docker.location = EngineLocation::fromEndpoint(endpoint);
        const SandboxSetup setup =
            SandboxSetup::from(DetectionResult::choose({docker}, RuntimePreference::Auto), settings);
        qunsetenv("ZEUS_SANDBOX_AGENT");
        QCOMPARE(setup.config.engineRemote, remote);
        QCOMPARE(setup.config.engineHost, host);
#if defined(Q_OS_LINUX)
        QCOMPARE(setup.config.agentHostPath.isEmpty(), remote);
#endif
        // A folder without a mode of its own works on a copy on a remote engine (nothing to refuse); one the user
        // set to direct mode is refused there.
        QVERIFY(setup.config.workspaceModeRefusal(QStringLiteral("/w")).isEmpty());
        if (remote) {
            QCOMPARE(setup.config.workspaceModeFor(QStringLiteral("/w")), WorkspaceMode::Review);
        }
        SandboxConfig direct = setup.config;
        direct.folderWorkspaceModes.insert(QStringLiteral("/d"), WorkspaceMode::Direct);
        QCOMPARE(direct.workspaceModeRefusal(QStringLiteral("/d")).isEmpty(), !remote);
    }
};

QTEST_GUILESS_MAIN(TestSandboxSetup)
#include "tst_sandboxsetup.moc"
