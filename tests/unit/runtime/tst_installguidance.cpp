// Install guidance is data: every runtime x state x OS must say what to do, with a command
// to run and a command to check it; the OS family comes from os-release.
#include "runtime/detectionresult.h"
#include "runtime/installguidance.h"

#include <QTest>

using zeus::InstallGuidance;
using zeus::RuntimeKind;
using zeus::RuntimeProbe;
using Os = zeus::InstallGuidance::Os;
using State = zeus::RuntimeProbe::State;

class TestInstallGuidance : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCombinationHasText_data();
    void everyCombinationHasText();
    void specificAdvice_data();
    void specificAdvice();
    void noRuntime();
    void osRelease_data();
    void osRelease();
    void currentOsIsKnown();
    void text();
};

void TestInstallGuidance::everyCombinationHasText_data() {
    QTest::addColumn<RuntimeKind>("kind");
    QTest::addColumn<State>("state");
    QTest::addColumn<Os>("os");
    for (const RuntimeKind kind : zeus::runtimePriorityOrder()) {
        for (const State state : RuntimeProbe::allStates()) {
            for (const Os os : InstallGuidance::allOses()) {
                const QByteArray name =
                    (zeus::runtimeKindToString(kind) + QLatin1Char('/') + RuntimeProbe::stateToString(state)
                     + QLatin1Char('/') + InstallGuidance::osToString(os))
                        .toUtf8();
                QTest::newRow(name.constData()) << kind << state << os;
            }
        }
    }
}

void TestInstallGuidance::everyCombinationHasText() {
    QFETCH(RuntimeKind, kind);
    QFETCH(State, state);
    QFETCH(Os, os);
    const InstallGuidance guidance = InstallGuidance::lookup(kind, state, os);
    QVERIFY(!guidance.isEmpty());
    QVERIFY(guidance.summary.size() > 10);
    QVERIFY(!guidance.commands.isEmpty());
    for (const QString& command : guidance.commands) {
        QVERIFY2(!command.trimmed().isEmpty(), qPrintable(guidance.summary));
        QVERIFY2(!command.contains(QLatin1Char('\n')), qPrintable(command));
    }
    QVERIFY(!guidance.verify.isEmpty());
}

void TestInstallGuidance::specificAdvice_data() {
    QTest::addColumn<RuntimeKind>("kind");
    QTest::addColumn<State>("state");
    QTest::addColumn<Os>("os");
    QTest::addColumn<QString>("command");  // one of the commands must contain it
    QTest::addColumn<QString>("verify");

    QTest::newRow("docker missing on debian")
        << RuntimeKind::Docker << State::NotInstalled << Os::Debian << "apt-get install -y docker.io"
        << "docker info";
    QTest::newRow("docker stopped on fedora")
        << RuntimeKind::Docker << State::NotRunning << Os::Fedora << "systemctl enable --now docker"
        << "docker info";
    QTest::newRow("docker group on arch")
        << RuntimeKind::Docker << State::PermissionDenied << Os::Arch << "usermod -aG docker"
        << "docker info";
    QTest::newRow("docker desktop on macOS")
        << RuntimeKind::Docker << State::NotInstalled << Os::MacOS << "brew install --cask docker"
        << "docker info";
    QTest::newRow("docker-users on windows")
        << RuntimeKind::Docker << State::PermissionDenied << Os::Windows << "docker-users"
        << "docker info";
    QTest::newRow("old runc on debian") << RuntimeKind::Docker << State::Unsupported << Os::Debian << "runc"
                                        << "docker info";
    QTest::newRow("podman machine on macOS")
        << RuntimeKind::Podman << State::NotRunning << Os::MacOS << "podman machine start"
        << "podman info";
    QTest::newRow("podman subuids on debian")
        << RuntimeKind::Podman << State::PermissionDenied << Os::Debian << "--add-subuids"
        << "podman info";
    QTest::newRow("apple service stopped")
        << RuntimeKind::Apple << State::NotRunning << Os::MacOS << "container system start"
        << "container system status";
    QTest::newRow("apple on linux: use docker")
        << RuntimeKind::Apple << State::NotInstalled << Os::Debian << "docker.io"
        << "docker info";
}

void TestInstallGuidance::specificAdvice() {
    QFETCH(RuntimeKind, kind);
    QFETCH(State, state);
    QFETCH(Os, os);
    QFETCH(QString, command);
    QFETCH(QString, verify);
    const InstallGuidance guidance = InstallGuidance::lookup(kind, state, os);
    QVERIFY2(guidance.commands.join(QLatin1Char('\n')).contains(command), qPrintable(guidance.toText()));
    QCOMPARE(guidance.verify, verify);
}

void TestInstallGuidance::noRuntime() {
    // The refusal names Docker Desktop: on a Mac the guidance installs exactly that.
    const InstallGuidance mac = InstallGuidance::noRuntime(Os::MacOS);
    QVERIFY(mac.summary.contains(QLatin1String("Docker Desktop")));
    QVERIFY(mac.commands.contains(QStringLiteral("brew install --cask docker")));
    for (const Os os : InstallGuidance::allOses()) {
        QVERIFY(!InstallGuidance::noRuntime(os).commands.isEmpty());
    }
    QCOMPARE(QString(zeus::kNoRuntimeMessage),
             QStringLiteral("No container runtime detected. Please install Docker Desktop or upgrade to macOS 26 for "
                            "Apple Containerization."));
}

void TestInstallGuidance::osRelease_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<Os>("os");
    QTest::newRow("debian") << "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n"
                            << Os::Debian;
    QTest::newRow("ubuntu") << "NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n" << Os::Debian;
    QTest::newRow("linux mint via ID_LIKE") << "ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n" << Os::Debian;
    QTest::newRow("fedora") << "NAME=\"Fedora Linux\"\nID=fedora\nVERSION_ID=40\n" << Os::Fedora;
    QTest::newRow("rocky via ID_LIKE") << "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n" << Os::Fedora;
    QTest::newRow("arch") << "NAME=\"Arch Linux\"\nID=arch\n" << Os::Arch;
    QTest::newRow("manjaro via ID_LIKE") << "ID=manjaro\nID_LIKE=arch\n" << Os::Arch;
    QTest::newRow("single quotes") << "ID='fedora'\n" << Os::Fedora;
    QTest::newRow("unknown falls back to debian") << "ID=alpine\n" << Os::Debian;
    QTest::newRow("empty") << "" << Os::Debian;
}

void TestInstallGuidance::osRelease() {
    QFETCH(QString, text);
    QFETCH(Os, os);
    QCOMPARE(InstallGuidance::osFromOsRelease(text), os);
}

void TestInstallGuidance::currentOsIsKnown() {
    const Os os = InstallGuidance::currentOs();
    QVERIFY(InstallGuidance::allOses().contains(os));
#ifdef Q_OS_LINUX
    QVERIFY(os != Os::MacOS && os != Os::Windows);
#endif
}

void TestInstallGuidance::text() {
    const InstallGuidance guidance = InstallGuidance::lookup(RuntimeKind::Docker, State::NotRunning, Os::Debian);
    const QString text = guidance.toText();
    QVERIFY(text.startsWith(guidance.summary));
    QVERIFY(text.contains(QStringLiteral("\n    sudo systemctl enable --now docker")));
    QVERIFY(text.endsWith(QStringLiteral("\n    docker info")));
}

QTEST_GUILESS_MAIN(TestInstallGuidance)
#include "tst_installguidance.moc"
