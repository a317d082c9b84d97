#pragma once

#include <QObject>

#include <memory>

class QSocketNotifier;

namespace zeus {

// SIGINT and SIGTERM (and SIGHUP when asked) as a Qt signal, for every mode: logout, a system shutdown, Ctrl-C or
// a closed terminal must end the app the way Quit does, so its containers are removed. The handler only writes
// the signal number to a pipe (async-signal-safe); quitRequested() is emitted from the event loop.
//
// One instance at a time (the handler has one pipe); the destructor restores the default handlers. Where there
// are no POSIX signals (Windows), install() does nothing and succeeds: the console's Ctrl-C ends the process as
// before.
class QuitSignals : public QObject {
    Q_OBJECT
public:
    enum class Hangup { Default, Quit };  // Quit: SIGHUP (terminal closed) too, for the foreground exec mode

    explicit QuitSignals(QObject* parent = nullptr);
    ~QuitSignals() override;

    // False when the handlers could not be installed (or another instance holds them).
    bool install(Hangup hangup = Hangup::Default);

Q_SIGNALS:
    // Once per signal received; the receiver decides whether a second one means more.
    void quitRequested(int signal);

private:
    void onReadable();

    std::unique_ptr<QSocketNotifier> m_notifier;
    bool m_installed = false;
    bool m_hangup = false;
};

}  // namespace zeus
