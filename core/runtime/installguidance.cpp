#include "runtime/installguidance.h"

#include <QCoreApplication>
#include <QFile>
#include <QRegularExpression>
#include <QSysInfo>

namespace zeus {

namespace {

constexpr const char* kContext = "zeus::InstallGuidance";

// One thing to do: a sentence (translated at lookup) and up to three commands (never
// translated: they are typed as they are).
struct Action {
    const char* summary;
    const char* commands[3];
};

// Everything we tell a user about one runtime on one OS family.
struct Row {
    RuntimeKind kind;
    InstallGuidance::Os os;
    Action install;
    Action start;
    Action permission;
    Action upgrade;
    const char* verify;
};

using Os = InstallGuidance::Os;

// Apple Containerization elsewhere than macOS: the same advice for every state.
#define ZEUS_APPLE_ELSEWHERE(install_command)                                                                \
    Action {                                                                                                 \
        QT_TRANSLATE_NOOP("zeus::InstallGuidance",                                                           \
                          "Apple Containerization runs only on macOS 26 or later on Apple silicon. On this " \
                          "system, install Docker instead."),                                                \
            {install_command, nullptr, nullptr},                                                             \
    }

const Row kRows[] = {
    // ---- Docker ------------------------------------------------------------------------
    {RuntimeKind::Docker,
     Os::MacOS,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Install Docker Desktop (with Homebrew, or the installer from docker.com), then open it once."),
      {"brew install --cask docker", "open -a Docker", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start Docker Desktop and wait until it says it is running."),
      {"open -a Docker", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Docker Desktop's socket is not accessible to you. Use Docker Desktop's own context, or "
                        "restart Docker Desktop."),
      {"docker context use desktop-linux", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Docker Desktop to the latest release."),
      {"brew upgrade --cask docker", nullptr, nullptr}},
     "docker info"},
    {RuntimeKind::Docker,
     Os::Windows,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Install Docker Desktop (WSL 2 backend), then start it once from the Start menu."),
      {"winget install -e --id Docker.DockerDesktop", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start Docker Desktop and wait until it says it is running."),
      {R"(Start-Process "$Env:ProgramFiles\Docker\Docker\Docker Desktop.exe")", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Your account may not use Docker Desktop. Add it to the docker-users group in an "
                        "administrator terminal, then sign out and back in."),
      {"net localgroup docker-users \"%USERNAME%\" /add", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Docker Desktop to the latest release."),
      {"winget upgrade -e --id Docker.DockerDesktop", nullptr, nullptr}},
     "docker info"},
    {RuntimeKind::Docker,
     Os::Debian,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install the Docker engine from the distribution and start it."),
      {"sudo apt-get install -y docker.io", "sudo systemctl enable --now docker", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the Docker daemon (and enable it at boot)."),
      {"sudo systemctl enable --now docker", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "You are not allowed to use the Docker socket. Add yourself to the docker group, then log "
                        "out and back in."),
      {"sudo usermod -aG docker \"$USER\"", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update the Docker engine and runc to current packages."),
      {"sudo apt-get update", "sudo apt-get install -y --only-upgrade docker.io runc containerd", nullptr}},
     "docker info"},
    {RuntimeKind::Docker,
     Os::Fedora,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install the Docker engine (moby-engine) and start it."),
      {"sudo dnf install -y moby-engine", "sudo systemctl enable --now docker", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the Docker daemon (and enable it at boot)."),
      {"sudo systemctl enable --now docker", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "You are not allowed to use the Docker socket. Add yourself to the docker group, then log "
                        "out and back in."),
      {"sudo usermod -aG docker \"$USER\"", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update the Docker engine and runc to current packages."),
      {"sudo dnf upgrade -y moby-engine runc containerd", nullptr, nullptr}},
     "docker info"},
    {RuntimeKind::Docker,
     Os::Arch,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Docker and start its daemon."),
      {"sudo pacman -S --needed docker", "sudo systemctl enable --now docker", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the Docker daemon (and enable it at boot)."),
      {"sudo systemctl enable --now docker", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "You are not allowed to use the Docker socket. Add yourself to the docker group, then log "
                        "out and back in."),
      {"sudo usermod -aG docker \"$USER\"", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Docker and runc with a full system upgrade."),
      {"sudo pacman -Syu docker runc", nullptr, nullptr}},
     "docker info"},

    // ---- Podman ------------------------------------------------------------------------
    {RuntimeKind::Podman,
     Os::MacOS,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Podman, then create and start its Linux machine."),
      {"brew install podman", "podman machine init", "podman machine start"}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the Podman machine."),
      {"podman machine start", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Podman's connection is not accessible to you. Check the default connection and restart "
                        "the machine."),
      {"podman system connection list", "podman machine stop", "podman machine start"}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Podman and its machine image."),
      {"brew upgrade podman", "podman machine stop", "podman machine start"}},
     "podman info"},
    {RuntimeKind::Podman,
     Os::Windows,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Podman, then create and start its WSL machine."),
      {"winget install -e --id RedHat.Podman", "podman machine init", "podman machine start"}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the Podman machine."),
      {"podman machine start", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Podman's connection is not accessible to you. Check the default connection and restart "
                        "the machine."),
      {"podman system connection list", "podman machine stop", "podman machine start"}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Podman and its machine image."),
      {"winget upgrade -e --id RedHat.Podman", "podman machine stop", "podman machine start"}},
     "podman info"},
    {RuntimeKind::Podman,
     Os::Debian,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Podman from the distribution."),
      {"sudo apt-get install -y podman runc", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Podman is set up to use a service that does not answer. Start your Podman socket."),
      {"systemctl --user enable --now podman.socket", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Rootless Podman needs subordinate user and group IDs for you. Add them, then migrate."),
      {"sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 \"$USER\"", "podman system migrate",
       nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Podman and runc to current packages."),
      {"sudo apt-get update", "sudo apt-get install -y --only-upgrade podman runc", nullptr}},
     "podman info"},
    {RuntimeKind::Podman,
     Os::Fedora,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Podman."), {"sudo dnf install -y podman", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Podman is set up to use a service that does not answer. Start your Podman socket."),
      {"systemctl --user enable --now podman.socket", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Rootless Podman needs subordinate user and group IDs for you. Add them, then migrate."),
      {"sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 \"$USER\"", "podman system migrate",
       nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Podman and its OCI runtimes."),
      {"sudo dnf upgrade -y podman runc crun", nullptr, nullptr}},
     "podman info"},
    {RuntimeKind::Podman,
     Os::Arch,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Install Podman."),
      {"sudo pacman -S --needed podman", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Podman is set up to use a service that does not answer. Start your Podman socket."),
      {"systemctl --user enable --now podman.socket", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Rootless Podman needs subordinate user and group IDs for you. Add them, then migrate."),
      {"sudo usermod --add-subuids 100000-165535 --add-subgids 100000-165535 \"$USER\"", "podman system migrate",
       nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Update Podman and runc with a full system upgrade."),
      {"sudo pacman -Syu podman runc", nullptr, nullptr}},
     "podman info"},

    // ---- Apple Containerization ----------------------------------------------------------
    {RuntimeKind::Apple,
     Os::MacOS,
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Apple Containerization needs macOS 26 or later on Apple silicon. Download the signed "
                        "installer package from the apple/container releases page, open it, then start the "
                        "service."),
      {"open https://github.com/apple/container/releases", "container system start --enable-kernel-install", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance", "Start the container system service."),
      {"container system start --enable-kernel-install", nullptr, nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "The container system service is not accessible to you. Restart it as yourself."),
      {"container system stop", "container system start --enable-kernel-install", nullptr}},
     {QT_TRANSLATE_NOOP("zeus::InstallGuidance",
                        "Stop the service and install the latest release package from the apple/container releases "
                        "page."),
      {"container system stop", "open https://github.com/apple/container/releases", nullptr}},
     "container system status"},
    {RuntimeKind::Apple, Os::Windows, ZEUS_APPLE_ELSEWHERE("winget install -e --id Docker.DockerDesktop"),
     ZEUS_APPLE_ELSEWHERE("winget install -e --id Docker.DockerDesktop"),
     ZEUS_APPLE_ELSEWHERE("winget install -e --id Docker.DockerDesktop"),
     ZEUS_APPLE_ELSEWHERE("winget install -e --id Docker.DockerDesktop"), "docker info"},
    {RuntimeKind::Apple, Os::Debian, ZEUS_APPLE_ELSEWHERE("sudo apt-get install -y docker.io"),
     ZEUS_APPLE_ELSEWHERE("sudo apt-get install -y docker.io"),
     ZEUS_APPLE_ELSEWHERE("sudo apt-get install -y docker.io"),
     ZEUS_APPLE_ELSEWHERE("sudo apt-get install -y docker.io"), "docker info"},
    {RuntimeKind::Apple, Os::Fedora, ZEUS_APPLE_ELSEWHERE("sudo dnf install -y moby-engine"),
     ZEUS_APPLE_ELSEWHERE("sudo dnf install -y moby-engine"), ZEUS_APPLE_ELSEWHERE("sudo dnf install -y moby-engine"),
     ZEUS_APPLE_ELSEWHERE("sudo dnf install -y moby-engine"), "docker info"},
    {RuntimeKind::Apple, Os::Arch, ZEUS_APPLE_ELSEWHERE("sudo pacman -S --needed docker"),
     ZEUS_APPLE_ELSEWHERE("sudo pacman -S --needed docker"), ZEUS_APPLE_ELSEWHERE("sudo pacman -S --needed docker"),
     ZEUS_APPLE_ELSEWHERE("sudo pacman -S --needed docker"), "docker info"},
};

#undef ZEUS_APPLE_ELSEWHERE

const Row* findRow(RuntimeKind kind, Os os) {
    for (const Row& row : kRows) {
        if (row.kind == kind && row.os == os) {
            return &row;
        }
    }
    return nullptr;
}

QStringList commandsOf(const Action& action) {
    QStringList commands;
    for (const char* command : action.commands) {
        if (command) {
            commands.append(QString::fromUtf8(command));
        }
    }
    return commands;
}

}  // namespace

QString InstallGuidance::toText() const {
    QString text = summary;
    if (!commands.isEmpty()) {
        text += QLatin1Char('\n') + QCoreApplication::translate(kContext, "Run:");
        for (const QString& command : commands) {
            text += QStringLiteral("\n    ") + command;
        }
    }
    if (!verify.isEmpty()) {
        text += QLatin1Char('\n') + QCoreApplication::translate(kContext, "Check:") + QStringLiteral("\n    ") + verify;
    }
    return text;
}

InstallGuidance InstallGuidance::lookup(RuntimeKind kind, RuntimeProbe::State state, Os os) {
    InstallGuidance guidance;
    const Row* row = findRow(kind, os);
    if (!row) {
        return guidance;
    }
    guidance.verify = QString::fromUtf8(row->verify);
    const QString name = runtimeDisplayName(kind);
    const auto use = [&guidance](const Action& action, const QString& prefix = QString()) {
        const QString sentence = QCoreApplication::translate(kContext, action.summary);
        guidance.summary = prefix.isEmpty() ? sentence : prefix + QLatin1Char(' ') + sentence;
        guidance.commands = commandsOf(action);
    };
    switch (state) {
        case RuntimeProbe::State::Ready:
            guidance.summary = QCoreApplication::translate(kContext, "%1 is ready. Nothing to do.").arg(name);
            guidance.commands = QStringList{guidance.verify};
            break;
        case RuntimeProbe::State::NotInstalled:
            use(row->install);
            break;
        case RuntimeProbe::State::NotRunning:
            use(row->start);
            break;
        case RuntimeProbe::State::PermissionDenied:
            use(row->permission);
            break;
        case RuntimeProbe::State::TimedOut:
            use(row->start, QCoreApplication::translate(kContext,
                                                        "%1 did not answer in time; restart it and try again. "
                                                        "If it keeps happening, check its logs.")
                                .arg(name));
            break;
        case RuntimeProbe::State::Unsupported:
            use(row->upgrade, QCoreApplication::translate(kContext, "%1 is too old to be used safely.").arg(name));
            break;
        case RuntimeProbe::State::Unparseable:
            use(row->upgrade, QCoreApplication::translate(kContext,
                                                          "%1 answered in a way this app cannot read; update "
                                                          "it, and include this report if you ask for help.")
                                  .arg(name));
            break;
    }
    return guidance;
}

InstallGuidance InstallGuidance::noRuntime(Os os) {
    // macOS: Docker Desktop works on every supported Mac; Apple Containerization needs 26+.
    return lookup(RuntimeKind::Docker, RuntimeProbe::State::NotInstalled, os);
}

InstallGuidance::Os InstallGuidance::currentOs() {
#if defined(Q_OS_MACOS)
    return Os::MacOS;
#elif defined(Q_OS_WIN)
    return Os::Windows;
#else
    for (const QString& path : {QStringLiteral("/etc/os-release"), QStringLiteral("/usr/lib/os-release")}) {
        QFile file(path);
        if (file.open(QIODevice::ReadOnly)) {
            return osFromOsRelease(QString::fromUtf8(file.readAll()));
        }
    }
    return Os::Debian;
#endif
}

InstallGuidance::Os InstallGuidance::osFromOsRelease(const QString& osReleaseText) {
    QString id;
    QString idLike;
    static const QRegularExpression line(QStringLiteral("^\\s*(ID|ID_LIKE)\\s*=\\s*(.*?)\\s*$"),
                                         QRegularExpression::MultilineOption);
    QRegularExpressionMatchIterator it = line.globalMatch(osReleaseText);
    while (it.hasNext()) {
        const QRegularExpressionMatch match = it.next();
        QString value = match.captured(2);
        if (value.size() >= 2 && (value.startsWith(QLatin1Char('"')) || value.startsWith(QLatin1Char('\'')))
            && value.endsWith(value.front())) {
            value = value.mid(1, value.size() - 2);
        }
        (match.captured(1) == QLatin1String("ID") ? id : idLike) = value.toLower();
    }
    const QStringList candidates = QStringList{id} + idLike.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString& candidate : candidates) {
        if (candidate == QLatin1String("debian") || candidate == QLatin1String("ubuntu")) {
            return Os::Debian;
        }
        if (candidate == QLatin1String("fedora") || candidate == QLatin1String("rhel")
            || candidate == QLatin1String("centos")) {
            return Os::Fedora;
        }
        if (candidate == QLatin1String("arch") || candidate == QLatin1String("archlinux")) {
            return Os::Arch;
        }
    }
    return Os::Debian;
}

QString InstallGuidance::osToString(Os os) {
    switch (os) {
        case Os::MacOS:
            return QStringLiteral("macos");
        case Os::Windows:
            return QStringLiteral("windows");
        case Os::Debian:
            return QStringLiteral("debian");
        case Os::Fedora:
            return QStringLiteral("fedora");
        case Os::Arch:
            return QStringLiteral("arch");
    }
    return {};
}

QList<InstallGuidance::Os> InstallGuidance::allOses() {
    return {Os::MacOS, Os::Windows, Os::Debian, Os::Fedora, Os::Arch};
}

}  // namespace zeus
