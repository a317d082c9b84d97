#include "podmanoutage.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>
#include <csignal>

namespace zeus::test {

namespace {

QByteArray readProc(const QString& pid, const char* file) {
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid, QLatin1String(file)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

bool PodmanOutage::setUp() {
    const QString podman = QStandardPaths::findExecutable(QStringLiteral("podman"));
    if (!m_dir.isValid() || podman.isEmpty()) {
        return false;
    }
    QFile door(program());
    if (!door.open(QIODevice::WriteOnly)) {
        return false;
    }
    door.write(QStringLiteral("#!/bin/sh\n"
                              "if [ -e '%1/down' ]; then echo 'Error: %2' >&2; exit 125; fi\n"
                              "exec '%3' \"$@\"\n")
                   .arg(m_dir.path(), kWords, podman)
                   .toUtf8());
    door.close();
    return door.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
}

QString PodmanOutage::program() const {
    return m_dir.filePath(QStringLiteral("podman"));
}

void PodmanOutage::crash(const QStringList& containers, pid_t parent) {
    QFile down(m_dir.filePath(QStringLiteral("down")));
    down.open(QIODevice::WriteOnly);
    down.close();
    const QByteArray parentId = QByteArray::number(parent);
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& pid : entries) {
        bool numeric = false;
        const pid_t id = pid.toInt(&numeric);
        if (!numeric) {
            continue;
        }
        const QByteArray comm = readProc(pid, "comm").trimmed();
        const QByteArray stat = readProc(pid, "stat");
        // stat: "pid (comm) state ppid ...": the comm may hold spaces, so read after its closing parenthesis.
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        const bool ourCli = comm == "podman" && fields.size() > 1 && fields.at(1) == parentId;
        const QByteArray cmdline = readProc(pid, "cmdline");
        const bool ourMonitor =
            comm == "conmon" && std::any_of(containers.cbegin(), containers.cend(), [&](const QString& c) {
                // conmon -c <container id>: /proc's cmdline separates the arguments with NULs.
                return !c.isEmpty() && cmdline.contains(QByteArray("-c", 2).append('\0').append(c.toLatin1()));
            });
        if (ourCli || ourMonitor) {
            ::kill(id, SIGKILL);
        }
    }
}

void PodmanOutage::restore() {
    QFile::remove(m_dir.filePath(QStringLiteral("down")));
}

}  // namespace zeus::test
