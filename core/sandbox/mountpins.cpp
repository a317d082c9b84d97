#include "sandbox/mountpins.h"

#include <QFile>

#include <algorithm>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {

#ifdef Q_OS_UNIX
// Closes a descriptor when it goes out of scope.
class Descriptor {
public:
    explicit Descriptor(int fd) : m_fd(fd) {}
    ~Descriptor() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return m_fd; }
    void reset(int fd) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_fd = fd;
    }

private:
    int m_fd = -1;
};
#endif

}  // namespace

std::optional<WorkspaceApproval::Identity> MountPins::pinPath(const QString& path, bool directory, QString* error) {
    const auto fail = [error](const QString& message) {
        if (error) {
            *error = message;
        }
        return std::optional<WorkspaceApproval::Identity>();
    };
#ifdef Q_OS_UNIX
    if (!path.startsWith(QLatin1Char('/'))) {
        return fail(QStringLiteral("%1 is not an absolute path").arg(path));
    }
    const QStringList components = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    Descriptor current(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (current.get() < 0) {
        return fail(QStringLiteral("/ cannot be opened"));
    }
    struct stat buffer {};
    if (::fstat(current.get(), &buffer) != 0) {
        return fail(QStringLiteral("/ cannot be read"));
    }
    QString walked;
    for (qsizetype i = 0; i < components.size(); ++i) {
        const QString& component = components.at(i);
        walked += QLatin1Char('/') + component;
        if (component == QLatin1String("..") || component == QLatin1String(".")) {
            return fail(QStringLiteral("%1 is not a plain path").arg(path));
        }
        // O_PATH|O_NOFOLLOW opens a symbolic link itself, so fstat tells it apart instead of following it.
        const int next =
            ::openat(current.get(), QFile::encodeName(component).constData(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            return fail(QStringLiteral("%1 cannot be opened").arg(walked));
        }
        current.reset(next);
        if (::fstat(current.get(), &buffer) != 0) {
            return fail(QStringLiteral("%1 cannot be read").arg(walked));
        }
        if (S_ISLNK(buffer.st_mode)) {
            return fail(QStringLiteral("%1 is a symbolic link").arg(walked));
        }
        const bool last = i == components.size() - 1;
        if (!last && !S_ISDIR(buffer.st_mode)) {
            return fail(QStringLiteral("%1 is not a folder").arg(walked));
        }
    }
    if (directory ? !S_ISDIR(buffer.st_mode) : !S_ISREG(buffer.st_mode)) {
        return fail(directory ? QStringLiteral("%1 is not a folder").arg(path)
                              : QStringLiteral("%1 is not a regular file").arg(path));
    }
    return WorkspaceApproval::Identity{quint64(buffer.st_dev), quint64(buffer.st_ino)};
#else
    Q_UNUSED(directory);
    return fail(QStringLiteral("%1: mount sources cannot be pinned on this platform").arg(path));
#endif
}

QList<MountPins::Pin> MountPins::pin(const ContainerSpec& spec, QString* error) {
    struct Source {
        QString source;
        QString target;
        bool directory;
    };
    QList<Source> sources;
    if (!spec.reviewCopy) {
        sources.append({spec.workspace, containerWorkspace(), true});
        for (const WorkspaceOverlay& overlay : spec.overlays) {
            const QString relative = QLatin1Char('/') + overlay.path;
            sources.append({spec.workspace + relative, containerWorkspace() + relative, overlay.directory});
        }
    }
    if (!spec.agentSource.isEmpty()) {
        sources.append({spec.agentSource, containerAgentPath(), false});
    }
    if (!spec.laneSource.isEmpty()) {
        sources.append({spec.laneSource, containerLanePath(), true});
    }
    QList<Pin> pins;
    for (const Source& source : std::as_const(sources)) {
        QString problem;
        const auto identity = pinPath(source.source, source.directory, &problem);
        if (!identity) {
            if (error) {
                *error = problem;
            }
            return {};
        }
        pins.append({source.target, source.source, *identity});
    }
    return pins;
}

QStringList MountPins::checkCommand(const QList<Pin>& pins) {
    // No -L: a target that is a symbolic link in the container is reported as the link, never as what it names.
    QStringList command = {QStringLiteral("sh"), QStringLiteral("-c"),
                           QStringLiteral("cat /proc/sys/kernel/random/boot_id && stat -c '%d %i' \"$@\" && echo -- && "
                                          "cat /proc/self/mountinfo"),
                           QStringLiteral("sh")};
    for (const Pin& pin : pins) {
        command << pin.target;
    }
    return command;
}

namespace {

// mountinfo writes space, tab, newline and backslash in paths as \ooo.
QByteArray unescapeMountPath(const QByteArray& field) {
    QByteArray path;
    for (qsizetype i = 0; i < field.size(); ++i) {
        if (field.at(i) == '\\' && i + 3 < field.size()) {
            bool ok = false;
            const int value = field.mid(i + 1, 3).toInt(&ok, 8);
            if (ok) {
                path.append(char(value));
                i += 3;
                continue;
            }
        }
        path.append(field.at(i));
    }
    return path;
}

bool atOrBelow(const QByteArray& path, const QByteArray& root) {
    return path == root || root == "/" || path.startsWith(QByteArray(root + '/'));
}

}  // namespace

QString MountPins::foreignMount(const QByteArray& mountinfo) {
    struct Mount {
        QByteArray device;
        QByteArray root;
        QByteArray point;
        QByteArray type;
    };
    QList<Mount> mounts;
    for (const QByteArray& line : mountinfo.split('\n')) {
        // ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
        const QList<QByteArray> fields = line.split(' ');
        const qsizetype dash = fields.indexOf("-");
        if (fields.size() < 5 || dash < 5 || dash + 1 >= fields.size()) {
            continue;
        }
        mounts.append(
            {fields.at(2), unescapeMountPath(fields.at(3)), unescapeMountPath(fields.at(4)), fields.at(dash + 1)});
    }
    const QByteArray workspace = containerWorkspace().toUtf8();
    const Mount* top = nullptr;
    for (const Mount& mount : std::as_const(mounts)) {
        if (mount.point == workspace) {
            top = &mount;  // the last one mounted there is the one in use
        }
    }
    if (top == nullptr) {
        return QStringLiteral("/workspace is not in the container's mount table");
    }
    // The engine's own mounts: files it writes for the container at fixed places of the image, and file systems of
    // the kernel's (never a folder of a disk) where a container has them. A mount target inside the folder is
    // resolved by the engine in the container, so a link there can send a mount anywhere: everything else is
    // foreign, wherever it landed.
    // The init is where the engine put it: /sbin/docker-init lands on /usr/sbin/docker-init in an image whose /sbin
    // is a link (Debian, Ubuntu: merged /usr), /dev/init on older Docker engines, /run/podman-init on Podman.
    static const QList<QByteArray> engineFiles = {"/etc/hosts",
                                                  "/etc/hostname",
                                                  "/etc/resolv.conf",
                                                  "/run/.containerenv",
                                                  "/run/podman-init",
                                                  "/sbin/docker-init",
                                                  "/usr/sbin/docker-init",
                                                  "/dev/init",
                                                  containerAgentPath().toUtf8(),
                                                  containerLanePath().toUtf8()};
    static const QList<QByteArray> kernelPlaces = {
        "/proc", "/sys", "/dev", "/run", "/tmp", "/var/tmp", containerHome().toUtf8()};
    static const QList<QByteArray> kernelTypes = {"proc",   "sysfs",  "tmpfs",  "devtmpfs",
                                                  "devpts", "mqueue", "cgroup", "cgroup2"};
    for (const Mount& mount : std::as_const(mounts)) {
        const QString where = QString::fromUtf8(mount.point);
        if (mount.point == "/" || engineFiles.contains(mount.point)) {
            continue;
        }
        if (atOrBelow(mount.point, workspace)) {
            if (mount.device != top->device || !atOrBelow(mount.root, top->root)) {
                return QStringLiteral("%1 in the container comes from outside the folder").arg(where);
            }
            continue;
        }
        const bool kernelPlace =
            std::any_of(kernelPlaces.cbegin(), kernelPlaces.cend(),
                        [&mount](const QByteArray& place) { return atOrBelow(mount.point, place); });
        // A kernel file system of the container's own; a tmpfs bound from the host shows a folder as its root.
        const bool ownTmpfs =
            (mount.type != "tmpfs" && mount.type != "devtmpfs") || mount.root == "/" || mount.root == "/null";
        if (kernelPlace && kernelTypes.contains(mount.type) && ownTmpfs) {
            continue;
        }
        return QStringLiteral("%1 in the container is a mount the sandbox never asks for").arg(where);
    }
    return {};
}

MountPins::Verdict MountPins::verify(const QList<Pin>& pins, const QByteArray& output, const QString& hostBootId) {
    const qsizetype separator = output.indexOf("\n--\n");
    const QByteArray head = separator < 0 ? output : output.left(separator + 1);
    const QByteArray mountinfo = separator < 0 ? QByteArray() : output.mid(separator + 4);
    const QStringList lines = QString::fromUtf8(head).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    Verdict verdict;
    if (lines.isEmpty()) {
        verdict.problem = QStringLiteral("the container's mounts could not be checked (no output)");
        return verdict;
    }
    if (hostBootId.isEmpty() || lines.at(0).trimmed() != hostBootId) {
        verdict.outcome = Verdict::Outcome::OtherKernel;
        return verdict;
    }
    if (lines.size() != pins.size() + 1) {
        verdict.problem = QStringLiteral("the container's mounts could not be checked (unexpected output)");
        return verdict;
    }
    for (qsizetype i = 0; i < pins.size(); ++i) {
        const auto seen = WorkspaceApproval::parseIdentity(lines.at(i + 1));
        if (!seen) {
            verdict.problem = QStringLiteral("the container's mounts could not be checked (unexpected output)");
            return verdict;
        }
        if (*seen != pins.at(i).identity) {
            verdict.outcome = Verdict::Outcome::Mismatch;
            const bool folder = pins.at(i).target == containerWorkspace();
            verdict.problem =
                QStringLiteral("%1 in the container is not %2%3 (it changed between the check and the mount)")
                    .arg(pins.at(i).target, folder ? QStringLiteral("the approved folder ") : QString(),
                         pins.at(i).source);
            return verdict;
        }
    }
    if (separator < 0) {
        verdict.outcome = Verdict::Outcome::Unusable;
        verdict.problem = QStringLiteral("the container's mounts could not be checked (no mount table)");
        return verdict;
    }
    const QString foreign = foreignMount(mountinfo);
    if (!foreign.isEmpty()) {
        verdict.outcome = Verdict::Outcome::Mismatch;
        verdict.problem = foreign;
        return verdict;
    }
    verdict.outcome = Verdict::Outcome::Match;
    return verdict;
}

QString MountPins::hostBootId() {
    QFile file(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return QString::fromLatin1(file.readAll()).trimmed();
}

}  // namespace zeus
