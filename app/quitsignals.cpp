#include "quitsignals.h"

#include <QSocketNotifier>

#if defined(Q_OS_UNIX)
#include <csignal>
#include <fcntl.h>
#include <unistd.h>
#endif

namespace zeus {

#if defined(Q_OS_UNIX)
namespace {

int g_quitPipe[2] = {-1, -1};

extern "C" void onQuitSignal(int signal) {
    const char byte = char(signal);
    [[maybe_unused]] const ssize_t written = ::write(g_quitPipe[1], &byte, 1);
}

bool setHandler(int signal, void (*handler)(int)) {
    struct sigaction action = {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return ::sigaction(signal, &action, nullptr) == 0;
}

}  // namespace
#endif

QuitSignals::QuitSignals(QObject* parent) : QObject(parent) {}

QuitSignals::~QuitSignals() {
#if defined(Q_OS_UNIX)
    if (!m_installed) {
        return;
    }
    setHandler(SIGINT, SIG_DFL);
    setHandler(SIGTERM, SIG_DFL);
    if (m_hangup) {
        setHandler(SIGHUP, SIG_DFL);
    }
    m_notifier.reset();
    for (int& fd : g_quitPipe) {
        ::close(fd);
        fd = -1;
    }
#endif
}

bool QuitSignals::install(Hangup hangup) {
#if defined(Q_OS_UNIX)
    if (m_installed || g_quitPipe[0] >= 0 || ::pipe(g_quitPipe) != 0) {
        return false;
    }
    for (int fd : g_quitPipe) {
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    m_installed = true;
    m_hangup = hangup == Hangup::Quit;
    m_notifier = std::make_unique<QSocketNotifier>(g_quitPipe[0], QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, &QuitSignals::onReadable);
    bool ok = setHandler(SIGINT, onQuitSignal) && setHandler(SIGTERM, onQuitSignal);
    if (m_hangup) {
        ok = setHandler(SIGHUP, onQuitSignal) && ok;
    }
    return ok;
#else
    Q_UNUSED(hangup);
    return true;
#endif
}

void QuitSignals::onReadable() {
#if defined(Q_OS_UNIX)
    char byte = 0;
    while (::read(g_quitPipe[0], &byte, 1) == 1) {
        Q_EMIT quitRequested(int(byte));
    }
#endif
}

}  // namespace zeus
