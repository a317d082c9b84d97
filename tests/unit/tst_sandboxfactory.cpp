// SandboxFactory: settings plus command-line overrides into a SandboxConfig, the detection's choice into a
// runtime and into hello.runtime. Pure apart from a temporary settings file.
#include "appsettings.h"
#include "runtime/detectionresult.h"
#include "sandboxfactory.h"

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

class TestSandboxFactory : public QObject {
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
        QTest::newRow("unknown profile keeps the setting")
            << QString() << QStringLiteral("paranoid") << QStringLiteral("registry.example/sandbox:7")
            << int(HardeningProfile::Standard);
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

        const SandboxConfig config = SandboxFactory::configFrom(settings, imageOverride, profileOverride);
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
        const std::unique_ptr<ContainerRuntime> runtime = SandboxFactory::runtimeFor(detection, config);
        const RuntimeReport report = SandboxFactory::runtimeReport(detection);
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
};

QTEST_GUILESS_MAIN(TestSandboxFactory)
#include "tst_sandboxfactory.moc"
