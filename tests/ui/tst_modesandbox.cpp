// Every mode builds the same sandbox: exec (execSandboxSetup), headless (its SandboxHost's overrides) and the tray
// app (GuiService::sandbox()) lead, for the same settings and detection, to the same `run` argument list --
// Docker, rootless Podman, and Apple with an old and a new CLI, whose version gates must reach every mode. And
// one Settings -> OK in the tray app, however many fields it changes, rebuilds the sandbox once.
#include "appoptions.h"
#include "appsettings.h"
#include "guiservice.h"
#include "modes.h"
#include "runtime/detectionresult.h"
#include "sandbox/sessionmanager.h"
#include "sandboxhost.h"
#include "settings/settingsdialog.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace zeus;

namespace {

struct Argv {
    QString program;
    QStringList run;
    QString unsupported;
};

Argv argvOf(const SandboxSetup& setup) {
    if (!setup.runtime) {
        return {};
    }
    // Fixed name and folder: only what the mode chose may differ.
    const ContainerSpec spec = setup.config.containerSpec(QStringLiteral("zeus-fixed"),
                                                          QStringLiteral("/home/u/project"), QStringLiteral("s1"));
    return {setup.runtime->program(), setup.runtime->runArguments(spec), setup.runtime->unsupportedReason(spec)};
}

RuntimeProbe readyProbe(RuntimeKind kind, const QString& binary, const QString& clientVersion,
                        std::optional<bool> rootless = std::nullopt) {
    RuntimeProbe probe;
    probe.kind = kind;
    probe.state = RuntimeProbe::State::Ready;
    probe.binaryPath = binary;
    probe.clientVersion = clientVersion;
    probe.serverVersion = clientVersion;
    probe.rootless = rootless;
    return probe;
}

template <typename T>
T* field(const QWidget& dialog, const char* name) {
    auto* widget = dialog.findChild<T*>(QString::fromLatin1(name));
    if (!widget) {
        qFatal("no field %s", name);
    }
    return widget;
}

}  // namespace

class TestModeSandbox : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    std::unique_ptr<AppSettings> freshSettings(const QString& name) {
        const QString file = m_dir.filePath(name + QStringLiteral(".ini"));
        QFile::remove(file);
        auto settings = std::make_unique<AppSettings>(file);
        settings->setImage(QStringLiteral("registry.example/sandbox:5"));
        settings->setPidsLimit(256);
        settings->setMemoryMiB(1536);
        settings->setCpus(1.5);
        return settings;
    }

private Q_SLOTS:
    void sameRunArgvInEveryMode_data() {
        QTest::addColumn<RuntimeProbe>("probe");
        QTest::addColumn<QString>("profileOverride");
        QTest::addColumn<QStringList>("present");  // flags the argv must carry
        QTest::addColumn<QStringList>("absent");   // flags it must not
        QTest::addColumn<bool>("supported");

        QTest::newRow("docker") << readyProbe(RuntimeKind::Docker, QStringLiteral("/usr/bin/docker"),
                                              QStringLiteral("24.0.7"), false)
                                << QString() << QStringList{QStringLiteral("--cap-drop"), QStringLiteral("--user")}
                                << QStringList{QStringLiteral("--userns")} << true;
        QTest::newRow("docker, hardened on the command line")
            << readyProbe(RuntimeKind::Docker, QStringLiteral("/usr/bin/docker"), QStringLiteral("24.0.7"), false)
            << QStringLiteral("hardened") << QStringList{QStringLiteral("--read-only")} << QStringList{} << true;
        QTest::newRow("podman rootless") << readyProbe(RuntimeKind::Podman, QStringLiteral("/opt/podman/bin/podman"),
                                                       QStringLiteral("4.9.3"), true)
                                         << QString() << QStringList{QStringLiteral("--userns=keep-id")}
                                         << QStringList{} << true;
        QTest::newRow("apple 0.9") << readyProbe(RuntimeKind::Apple, QStringLiteral("/usr/local/bin/container"),
                                                 QStringLiteral("0.9.0"))
                                   << QString() << QStringList{}
                                   << QStringList{QStringLiteral("--init"), QStringLiteral("--cap-drop")} << false;
        QTest::newRow("apple 1.2") << readyProbe(RuntimeKind::Apple, QStringLiteral("/usr/local/bin/container"),
                                                 QStringLiteral("1.2.0"))
                                   << QString() << QStringList{QStringLiteral("--init"), QStringLiteral("--cap-drop")}
                                   << QStringList{} << true;
    }

    void sameRunArgvInEveryMode() {
        QFETCH(RuntimeProbe, probe);
        QFETCH(QString, profileOverride);
        QFETCH(QStringList, present);
        QFETCH(QStringList, absent);
        QFETCH(bool, supported);
        const DetectionResult detection = DetectionResult::choose({probe}, RuntimePreference::Auto);
        QVERIFY(detection.isUsable());
        AppOptions options;
        // As the command line leaves it: the enum the word parses to.
        if (!profileOverride.isEmpty()) {
            options.hardeningProfile = zeus::parseHardeningProfile(profileOverride);
            QVERIFY(options.hardeningProfile.has_value());
        }

        std::unique_ptr<AppSettings> execSettings = freshSettings(QStringLiteral("exec"));
        const Argv exec = argvOf(execSandboxSetup(options, *execSettings, detection));

        std::unique_ptr<AppSettings> headlessSettings = freshSettings(QStringLiteral("headless"));
        SandboxHost headlessHost(headlessSettings.get(), headlessSandboxOverrides(options));
        const Argv headless = argvOf(headlessHost.setupFor(detection));

        std::unique_ptr<AppSettings> guiSettings = freshSettings(QStringLiteral("gui"));
        GuiService gui(options, guiSettings.get());
        const Argv tray = argvOf(gui.sandbox().setupFor(detection));

        // The install id (the owner label) is each settings file's own; everything else must agree.
        const auto withoutOwner = [](QStringList args, AppSettings& settings) {
            return args.replaceInStrings(settings.installId(), QStringLiteral("OWNER"));
        };
        const QStringList execArgs = withoutOwner(exec.run, *execSettings);
        QVERIFY(!execArgs.isEmpty());
        QCOMPARE(withoutOwner(headless.run, *headlessSettings), execArgs);
        QCOMPARE(withoutOwner(tray.run, *guiSettings), execArgs);
        QCOMPARE(exec.program, probe.binaryPath);
        QCOMPARE(headless.program, exec.program);
        QCOMPARE(tray.program, exec.program);
        QCOMPARE(headless.unsupported, exec.unsupported);
        QCOMPARE(tray.unsupported, exec.unsupported);
        QCOMPARE(exec.unsupported.isEmpty(), supported);

        // And the settings are in it, in every mode alike.
        QVERIFY2(execArgs.contains(QStringLiteral("registry.example/sandbox:5")),
                 qPrintable(execArgs.join(QLatin1Char(' '))));
        QVERIFY2(execArgs.contains(QStringLiteral("1.5")), qPrintable(execArgs.join(QLatin1Char(' '))));
        for (const QString& flag : present) {
            QVERIFY2(execArgs.contains(flag),
                     qPrintable(flag + QStringLiteral(" missing: ") + execArgs.join(QLatin1Char(' '))));
        }
        for (const QString& flag : absent) {
            QVERIFY2(!execArgs.contains(flag),
                     qPrintable(flag + QStringLiteral(" present: ") + execArgs.join(QLatin1Char(' '))));
        }
    }

    // The dialog's OK writes each field through its own setter, each emitting its own signal: the tray app's
    // sandbox must still be rebuilt once, not once per field (each rebuild starts new engine processes).
    void settingsOkWithFiveChangesIsOneRebuild() {
        std::unique_ptr<AppSettings> settings = freshSettings(QStringLiteral("dialog"));
        AppOptions options;
        GuiService gui(options, settings.get());
        SandboxHost& host = gui.sandbox();
        host.setDetection(DetectionResult::choose(
            {readyProbe(RuntimeKind::Docker, QStringLiteral(ZEUS_TEST_FAKES_DIR "/engine/docker"),
                        QStringLiteral("24.0.7"))},
            RuntimePreference::Auto));
        QCOMPARE(host.rebuilds(), 1);
        QSignalSpy rebuilt(&host, &SandboxHost::rebuilt);

        SettingsDialog dialog(settings.get(), nullptr);
        dialog.show();
        field<QLineEdit>(dialog, "image")->setText(QStringLiteral("registry.example/sandbox:6"));
        field<QComboBox>(dialog, "profile")->setCurrentIndex(1);
        field<QSpinBox>(dialog, "pidsLimit")->setValue(300);
        field<QSpinBox>(dialog, "memoryMiB")->setValue(4096);
        field<QDoubleSpinBox>(dialog, "cpus")->setValue(3.5);
        dialog.accept();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));

        QVERIFY(rebuilt.wait(2000));
        QTest::qWait(200);  // nothing else follows
        QCOMPARE(rebuilt.size(), 1);
        QCOMPARE(host.rebuilds(), 2);
        const SandboxConfig& config = host.manager()->config();
        QCOMPARE(config.image, QStringLiteral("registry.example/sandbox:6"));
        QCOMPARE(config.profile, HardeningProfile::Hardened);
        QCOMPARE(config.pidsLimit, 300);
        QCOMPARE(config.memory, QStringLiteral("4096m"));
        QCOMPARE(config.cpus, QStringLiteral("3.5"));
    }
};

QTEST_MAIN(TestModeSandbox)
#include "tst_modesandbox.moc"
