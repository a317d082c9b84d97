#include "privatedockerd.h"

#include "testenvironment.h"

#include <QFile>
#include <QStandardPaths>
#include <QTest>

#include <cstdlib>
#include <unistd.h>

namespace zeus::test {

PrivateDockerd::PrivateDockerd() {
    // A short path: unix socket paths are limited to about 100 bytes.
    char pattern[] = "/tmp/zd.XXXXXX";
    if (::mkdtemp(pattern) != nullptr) {
        m_dir = QString::fromLocal8Bit(pattern);
        m_host = QStringLiteral("unix://") + m_dir + QStringLiteral("/docker.sock");
    }
}

PrivateDockerd::~PrivateDockerd() {
    stop();
    if (m_dir.isEmpty()) {
        return;
    }
    // A killed engine leaves container shims of its own running: stop exactly those (their
    // command line names this folder), then unmount what it left (netns, vfs layers) and remove it.
    runProgram(QStringLiteral("sh"),
               {QStringLiteral("-c"),
                QStringLiteral("for p in /proc/[0-9]*; do [ \"${p#/proc/}\" = $$ ] && continue; "
                               "grep -q -F \"$1\" \"$p/cmdline\" 2>/dev/null && kill -9 \"${p#/proc/}\"; done; true"),
                QStringLiteral("sh"), m_dir},
               30000);
    runProgram(QStringLiteral("sh"),
               {QStringLiteral("-c"),
                QStringLiteral("awk -v d=\"$1\" 'index($2, d) == 1 {print $2}' /proc/mounts | sort -r | "
                               "xargs -r -n1 umount -l; rm -rf \"$1\""),
                QStringLiteral("sh"), m_dir},
               60000);
}

bool PrivateDockerd::canRun() {
    return ::geteuid() == 0 && !QStandardPaths::findExecutable(QStringLiteral("dockerd")).isEmpty();
}

bool PrivateDockerd::start() {
    if (m_dir.isEmpty()) {
        return false;
    }
    // After a crash containerd's pid file is stale and a restart would wait on it.
    QFile::remove(m_dir + QStringLiteral("/exec/containerd/containerd.pid"));
    m_process = std::make_unique<QProcess>();
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_dir + QStringLiteral("/log"), QIODevice::Append);
    m_process->start(
        QStringLiteral("dockerd"),
        {QStringLiteral("--iptables=false"), QStringLiteral("--ip6tables=false"), QStringLiteral("--bridge=none"),
         QStringLiteral("--storage-driver=vfs"), QStringLiteral("--data-root"), m_dir + QStringLiteral("/data"),
         QStringLiteral("--exec-root"), m_dir + QStringLiteral("/exec"), QStringLiteral("--pidfile"),
         m_dir + QStringLiteral("/pid"), QStringLiteral("-H"), m_host});
    if (!m_process->waitForStarted(10000)) {
        return false;
    }
    return QTest::qWaitFor(
        [&] {
            return runProgram(QStringLiteral("docker"),
                              {QStringLiteral("-H"), m_host, QStringLiteral("version"), QStringLiteral("--format"),
                               QStringLiteral("{{.Server.Version}}")},
                              5000)
                       .exitCode
                   == 0;
        },
        60000);
}

bool PrivateDockerd::loadImageFromSharedEngine(const QString& image) {
    const ProcessOutput copy =
        runProgram(QStringLiteral("sh"),
                   {QStringLiteral("-c"), QStringLiteral("docker save \"$1\" | docker -H \"$2\" load"),
                    QStringLiteral("sh"), image, m_host},
                   120000);
    if (copy.exitCode != 0) {
        qWarning("copying %s into the private dockerd failed: %s", qPrintable(image), copy.err.constData());
    }
    return copy.exitCode == 0;
}

void PrivateDockerd::crash() {
    if (isRunning()) {
        m_process->kill();
        m_process->waitForFinished(10000);
    }
}

void PrivateDockerd::stop() {
    if (!isRunning()) {
        return;
    }
    runProgram(QStringLiteral("sh"),
               {QStringLiteral("-c"), QStringLiteral("docker -H \"$1\" ps -aq | xargs -r docker -H \"$1\" rm -f"),
                QStringLiteral("sh"), m_host},
               30000);
    m_process->terminate();
    if (!m_process->waitForFinished(15000)) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

}  // namespace zeus::test
