#pragma once

#include "backend/backendconnection.h"
#include "backend/credentialstore.h"
#include "backend/portrequests.h"
#include "backend/tooldispatcher.h"
#include "engine/imageinspection.h"
#include "engine/imageinspector.h"
#include "runtime/runtimedetector.h"
#include "sandbox/review/reviewservice.h"
#include "sandboxhost.h"
#include "secrets/secretbroker.h"

#include <QObject>
#include <QTimer>
#include <QUrl>

#include <memory>
#include <optional>

namespace zeus {

class AppSettings;

// What serves the backend's tool calls on this computer, with or without a display (SPEC §5, §6): the runtime
// detector, the backend's token read, the connection and its ToolDispatcher (hello, results journal), the sandbox
// (a SandboxHost), the SecretBroker, and the image check that decides whether the sandbox may call itself ready
// without an agent beside the app (SPEC §7). The tray app and headless mode each own one and only show it.
//
// The first hello must say which runtime serves the calls, so the token is read (and the connection started) only
// once detection -- and the image's agent check, when there is one -- has answered. shutdown() cancels every call,
// lets their results go out, removes every container, gives the backend a moment to acknowledge the last results,
// and ends in Stopped (or when the deadline passes).
//
// start() drives that sequence (headless mode). The tray app drives detection, the token and the connection itself
// (the user signs in, disconnects, changes the backend) and uses the service as the owner of the parts and for the
// shutdown; the service then acts on no answer it did not ask for.
//
// The settings belong to the caller. It must never touch a widget, ask the user anything itself (the front-end
// wires the SecretBroker's and the dispatcher's questions), nor keep the token anywhere but in the connection.
class AgentHostService : public QObject {
    Q_OBJECT
public:
    // Where the run is, in one word.
    enum class State {
        Starting,          // built; start() not called yet
        DetectingRuntime,  // asking which container runtime there is
        CheckingImage,     // no agent beside the app: asking the engine whether the image carries one
        ReadingToken,      // reading the backend's sign-in token (environment, then the keychain)
        Connecting,        // the connection is opening, or will retry (see connection() for why)
        Serving,           // connected: hello said, calls are served (or refused, with no usable runtime)
        NotReady,          // no sandbox agent the run can use (readinessProblem()): nothing connects
        SignedOut,         // no token for the backend (tokenProblem()), or the backend refused it
        ShuttingDown,      // shutdown(): calls cancelled, their results sent, containers being removed
        Stopped,           // shutdown finished (or its deadline passed): the event loop may end
    };
    Q_ENUM(State)

    struct Options {
        QUrl backend;
        RuntimePreference runtime = RuntimePreference::Auto;
        SandboxOverrides sandbox;
        BackendConnection::Settings connection;
        RuntimeDetector::Options detector;
        bool monitorEnabled = true;      // a ContainerMonitor next to the manager (headless has no one to show it)
        int shutdownDeadlineMs = 30000;  // cancelling calls and removing containers
        int ackWaitMs = 2000;            // after that, for the backend to acknowledge the last results
        // The backend's token handed over in-process (the MCP mode's own loopback backend): used instead of the
        // environment and the keychain, so it is never on a command line, in a file or in a child's environment.
        QString token;
        // Unacknowledged results journaled for the next run (SPEC §5). Off for a backend whose URL is new each run
        // and that acknowledges every result at once (the MCP mode's): a journal there would only leave files.
        bool journal = true;
    };

    AgentHostService(AppSettings* settings, Options options, QObject* parent = nullptr);
    ~AgentHostService() override;

    // Starts detection; the token read and the connection follow (see the class comment).
    void start();
    // Begins the orderly shutdown; false (and nothing changes) when one has begun already.
    bool shutdown();
    // Asks the engine again whether it has the sandbox's image (the image setting changed, or it was built); the
    // answer decides the readiness again. Every detection asks too.
    void inspectImage();

    State state() const { return m_state; }
    // Why the sandbox may not call itself ready (State::NotReady), or empty.
    QString readinessProblem() const { return m_sandbox.readinessProblem(); }
    // Why there is no token (State::SignedOut after the read), or empty.
    QString tokenProblem() const { return m_tokenProblem; }
    // The sandbox image as the engine last described it (nullopt: not asked, or no answer yet).
    const std::optional<ImageInspection>& imageInspection() const { return m_image; }
    // The runtime is usable but the image has not said yet whether it carries an agent: nothing may call itself
    // ready (nor connect, since hello says the readiness) until it has.
    bool agentCheckPending() const { return m_agentCheckPending; }

    AppSettings& settings() const { return *m_settings; }
    RuntimeDetector& detector() { return m_detector; }
    CredentialStore& credentials() { return m_credentials; }
    SecretBroker& secrets() { return m_secrets; }
    BackendConnection& connection() { return m_connection; }
    ToolDispatcher& dispatcher() { return m_dispatcher; }
    // The backend's open_port requests (SPEC §8 "Ports"); headless approves them with --allow-publish.
    PortRequests& portRequests() { return m_portRequests; }
    SandboxHost& sandbox() { return m_sandbox; }
    // The review copies on disk and the requests about them (SPEC §10), for whichever front-end shows them; told
    // when the sandbox takes or keeps one.
    ReviewService& reviews() { return m_reviews; }

Q_SIGNALS:
    void stateChanged(zeus::AgentHostService::State state);
    // An answer about the image came in; readinessProblem() is decided again (with a usable runtime), and
    // `agentCheckDone` says this answer ended the check a detection started (agentCheckPending()).
    void imageInspected(bool agentCheckDone);
    // The token read found none (also during a shutdown, so the front-end can say why it is ending).
    void signInMissing(const QString& message);

private:
    void setState(State state);
    bool isEnding() const { return m_state == State::ShuttingDown || m_state == State::Stopped; }
    void onDetection(const DetectionResult& result);
    void onImageInspected(const ImageInspection& inspection);
    void readToken();
    void onTokenRead(const CredentialStore::Result& result);
    void connectWith(const QString& token);
    void onConnectionState(BackendConnection::State state);
    void maybeFinish();
    void finish();

    AppSettings* m_settings;
    Options m_options;
    RuntimeDetector m_detector;
    CredentialStore m_credentials;
    SecretBroker m_secrets;
    BackendConnection m_connection;
    ToolDispatcher m_dispatcher{&m_connection};
    // Shared by the sandbox's session managers and m_reviews: one store, one thread for review work. Before both.
    std::shared_ptr<ReviewWorker> m_reviewWorker;
    SandboxHost m_sandbox;
    PortRequests m_portRequests{&m_connection, [this] { return m_sandbox.manager(); }};
    // The records' adapters are made as the sandbox's are (SandboxSetup), told what the latest detection knows.
    ReviewService m_reviews;
    ImageInspector m_imageInspector;
    std::optional<ImageInspection> m_image;
    QString m_tokenProblem;
    State m_state = State::Starting;
    bool m_tokenReadPending = false;   // readToken() asked: the answer is this service's to act on
    bool m_agentCheckPending = false;  // the token is read once the image shows it carries an agent
    int m_imageInspectsRunning = 0;    // an inspect() cancels the one before, which still finishes: keep the last
    bool m_sandboxDone = false;
    bool m_finishing = false;
    QTimer m_shutdownDeadline;
};

}  // namespace zeus
