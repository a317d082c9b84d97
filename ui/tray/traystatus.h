#pragma once

#include "backend/backendconnection.h"
#include "runtime/detectionresult.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QString>

namespace zeus {

// The dashboard's banner: the first thing the user must do before work can arrive.
enum class DashboardBanner { None, NoRuntime, NotReady, SignIn, ChooseFolder };

// What the tray icon shows, derived in one place from the app's state (syncthingtray's
// updateStatusIconAndText): one of five states, its icon and a tooltip in words; and from the same
// facts, the dashboard's banner and whether the local console is ready.
//
// A value plus a pure function; it must never query anything itself: the caller gathers
// the facts into an Input.
struct TrayStatus {
    Q_DECLARE_TR_FUNCTIONS(zeus::TrayStatus)
public:
    enum class State { Ready, Busy, Disconnected, NoRuntime, Error };

    // The connection's own state (its words: BackendConnection::stateName()).
    using Connection = BackendConnection::State;

    struct Input {
        bool runtimeChecked = false;  // detection has finished at least once
        bool runtimeUsable = false;
        QString runtimeName;     // "Docker 20.10.24"
        QString runtimeProblem;  // why it is unusable
        // Why the sandbox does not call itself ready although the runtime is usable (no sandbox agent it can
        // use, SPEC §7), or empty.
        QString readinessProblem;
        Connection connection = Connection::SignedOut;
        QDateTime nextReconnect;   // for Reconnecting
        QString connectionError;   // for Error / AuthFailed
        QString workspace;         // the working directory, empty when none is chosen
        QString missingWorkspace;  // the chosen approved folder when it no longer exists (then workspace is empty)
        int runningSessions = 0;
        int runningCommands = 0;
        QString lastError;  // an error the user has not dismissed
        // For the banner: the keychain has answered (or there was no URL to ask about), and whether the
        // connection lacks a backend URL or a token for it.
        bool tokenChecked = false;
        bool signInMissing = false;

        // The runtime facts of a finished detection (runtimeChecked and the three after it).
        void setDetection(const DetectionResult& result);
    };

    // The dashboard's banner for the same facts, and what it says beyond its fixed text.
    struct Banner {
        DashboardBanner banner = DashboardBanner::None;
        QString detail;
    };
    // Whether the local console can run commands: in `workspace`, or (empty) not, and `reason` says why.
    struct ConsoleReadiness {
        QString workspace;
        QString reason;
    };

    State state = State::Disconnected;
    QString iconName;  // ":/icons/tray/ready.svg"
    QString title;     // one line: "Zeus Desktop: ready"
    QString tooltip;   // several lines, in words

    static TrayStatus from(const Input& input, const QDateTime& now = QDateTime::currentDateTime());
    static Banner bannerFor(const Input& input);
    static ConsoleReadiness consoleFor(const Input& input);
    // The resource path of a state's icon.
    static QString iconFor(State state);
    // One word for a state, for people ("Ready", "Working", ...).
    static QString stateText(State state);
};

}  // namespace zeus
