#include "agenthostservice.h"

#include "agentreadiness.h"
#include "appsettings.h"
#include "backend/resultjournal.h"
#include "monitor/containermonitor.h"
#include "sandbox/sessionmanager.h"
#include "support/logging.h"

#include <zeus/buildinfo.h>

#include <QDateTime>
#include <QStandardPaths>
#include <QSysInfo>

#include <utility>

namespace zeus {

namespace {

constexpr int kFlushMs = 100;  // for queued frames to leave before the socket is torn down

}  // namespace

AgentHostService::AgentHostService(AppSettings* settings, Options options, QObject* parent)
    : QObject(parent),
      m_settings(settings),
      m_options(std::move(options)),
      m_detector(m_options.detector),
      m_reviewWorker(std::make_shared<ReviewWorker>(ReviewStore())),
      m_sandbox(settings, m_options.sandbox),
      m_reviews(m_reviewWorker, [this](RuntimeKind kind, const QString& program) {
          return SandboxSetup::adapterFactory(m_detector.result())(kind, program);
      }) {
    m_connection.setSettings(m_options.connection);

    HelloMessage client;
    client.clientName = QStringLiteral(ZEUS_APP_NAME);
    client.clientVersion = QStringLiteral(ZEUS_VERSION);
    client.os = QSysInfo::prettyProductName();
    client.arch = QSysInfo::currentCpuArchitecture();
    client.deviceId = m_settings->deviceId();
    m_dispatcher.setClientInfo(client);
    if (!m_options.backend.isEmpty() && m_options.journal) {
        // Results the last run owed this backend, and the calls it left running (SPEC §5 "Results survive the app").
        m_dispatcher.setJournalPath(ResultJournal::pathFor(
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation), m_options.backend.toString()));
    }

    m_secrets.setKnownNames(m_settings->secretNames());
    connect(&m_secrets, &SecretBroker::used, this, [this](const QStringList& names) {
        for (const QString& name : names) {
            m_settings->setSecretLastUsed(name, QDateTime::currentDateTimeUtc());
        }
    });
    m_dispatcher.setSecretBroker(&m_secrets);

    m_sandbox.setReviewWorker(m_reviewWorker);
    m_sandbox.setMonitorEnabled(m_options.monitorEnabled);
    m_sandbox.setDispatcher(&m_dispatcher);

    connect(&m_detector, &RuntimeDetector::detectionFinished, this, &AgentHostService::onDetection);
    connect(&m_imageInspector, &ImageInspector::finished, this, &AgentHostService::onImageInspected);
    connect(&m_credentials, &CredentialStore::readFinished, this,
            [this](const QString&, const CredentialStore::Result& result) { onTokenRead(result); });
    connect(&m_connection, &BackendConnection::stateChanged, this, &AgentHostService::onConnectionState);
    connect(&m_dispatcher, &ToolDispatcher::idle, this, &AgentHostService::maybeFinish);
    connect(&m_sandbox, &SandboxHost::shutdownFinished, this, [this] {
        m_sandboxDone = true;
        maybeFinish();
    });
    m_shutdownDeadline.setSingleShot(true);
    connect(&m_shutdownDeadline, &QTimer::timeout, this, [this] {
        qCWarning(lcApp) << "shutdown took longer than" << m_options.shutdownDeadlineMs << "ms; exiting";
        finish();
    });
}

AgentHostService::~AgentHostService() = default;

void AgentHostService::start() {
    if (m_state != State::Starting) {
        return;
    }
    setState(State::DetectingRuntime);
    m_detector.setPreference(m_options.runtime);
    QTimer::singleShot(0, &m_detector, [this] { m_detector.detect(); });
}

void AgentHostService::setState(State state) {
    if (m_state == state) {
        return;
    }
    m_state = state;
    Q_EMIT stateChanged(state);
}

void AgentHostService::onDetection(const DetectionResult& result) {
    m_sandbox.setDetection(result);
    if (isEnding()) {
        return;
    }
    // Without an agent beside the app, whether the image has one decides if the sandbox is ready (SPEC §7).
    m_agentCheckPending = result.isUsable() && agentNeedsImageCheck(m_sandbox.setupFor(result));
    if (!m_agentCheckPending) {
        m_sandbox.setReadinessProblem({});
    }
    inspectImage();
    if (m_state != State::DetectingRuntime) {
        return;  // a later detection (a re-check), or a front-end that drives the start itself
    }
    if (!m_sandbox.manager()) {
        qCWarning(lcApp).noquote() << "no usable container runtime; every command is refused:" << result.reason;
        readToken();
    } else if (m_agentCheckPending) {
        setState(State::CheckingImage);
    } else {
        readToken();
    }
}

void AgentHostService::inspectImage() {
    if (!m_detector.hasResult()) {
        return;  // detection follows and inspects then
    }
    // The runtime the sandbox builds (same CLI path and version), asked about the image its sessions use.
    const SandboxSetup setup = m_sandbox.setupFor(m_detector.result());
    if (!setup.runtime) {
        m_image.reset();
        return;
    }
    ++m_imageInspectsRunning;
    m_imageInspector.inspect(*setup.runtime, setup.config.image);
}

void AgentHostService::onImageInspected(const ImageInspection& inspection) {
    if (--m_imageInspectsRunning > 0) {
        return;  // a cancelled one; the newest is still running
    }
    m_imageInspectsRunning = 0;
    m_image = inspection;
    if (isEnding()) {
        return;
    }
    if (!m_detector.hasResult() || !m_detector.result().isUsable()) {
        Q_EMIT imageInspected(false);
        return;
    }
    // Every answer about the image decides again (a rebuilt image may carry an agent now); the one a start waits
    // for also lets the token be read.
    const bool wasPending = std::exchange(m_agentCheckPending, false);
    const QString problem = missingAgentProblem(m_sandbox.setupFor(m_detector.result()), m_image);
    m_sandbox.setReadinessProblem(problem);
    Q_EMIT imageInspected(wasPending);
    if (!wasPending || m_state != State::CheckingImage) {
        return;
    }
    if (!problem.isEmpty()) {
        setState(State::NotReady);
        return;
    }
    readToken();
}

void AgentHostService::readToken() {
    setState(State::ReadingToken);
    if (!m_options.token.isEmpty()) {
        connectWith(m_options.token);
        return;
    }
    m_tokenReadPending = true;
    m_credentials.readToken(m_options.backend.toString());
}

void AgentHostService::onTokenRead(const CredentialStore::Result& result) {
    if (!std::exchange(m_tokenReadPending, false)) {
        return;  // a read the front-end asked for
    }
    if (result.status != CredentialStore::Status::Ok || result.token.isEmpty()) {
        // Every backend needs a token, a ws:// one on this computer too (SPEC §5 "No anonymous backends"):
        // another local user can bind a loopback port first.
        m_tokenProblem = result.message;
        if (!isEnding()) {
            setState(State::SignedOut);
        }
        Q_EMIT signInMissing(result.message);
        return;
    }
    qCInfo(lcApp) << "sign-in token from" << (result.fromEnvironment ? "ZEUS_DESKTOP_TOKEN" : "the keychain");
    connectWith(result.token);
}

void AgentHostService::connectWith(const QString& token) {
    if (isEnding()) {
        return;
    }
    m_connection.setUrl(m_options.backend);
    m_connection.setToken(token);
    setState(State::Connecting);
    m_connection.start();
}

void AgentHostService::onConnectionState(BackendConnection::State state) {
    if (isEnding() || (m_state != State::Connecting && m_state != State::Serving)) {
        return;
    }
    switch (state) {
        case BackendConnection::State::Connected:
            setState(State::Serving);
            break;
        case BackendConnection::State::SignedOut:
        case BackendConnection::State::AuthFailed:
            m_tokenProblem = m_connection.lastError();
            setState(State::SignedOut);
            break;
        case BackendConnection::State::Disconnected:
        case BackendConnection::State::Connecting:
        case BackendConnection::State::Reconnecting:
        case BackendConnection::State::Error:
            setState(State::Connecting);
            break;
    }
}

bool AgentHostService::shutdown() {
    if (isEnding()) {
        qCInfo(lcApp) << "already shutting down";
        return false;
    }
    setState(State::ShuttingDown);
    qCInfo(lcApp) << "shutting down:" << m_dispatcher.runningCalls() << "calls running";
    m_shutdownDeadline.start(m_options.shutdownDeadlineMs);
    // Cancels (abandons) every call -- their results go out as cancelled -- and removes every container.
    m_sandbox.shutdown();
    return true;
}

void AgentHostService::maybeFinish() {
    if (m_state != State::ShuttingDown || !m_sandboxDone || m_dispatcher.runningCalls() > 0 || m_finishing) {
        return;
    }
    m_finishing = true;
    if (m_connection.state() == BackendConnection::State::Connected && m_dispatcher.results().size() > 0) {
        // Give the backend a moment to acknowledge the last results; the frames are flushed meanwhile.
        qCInfo(lcApp) << "waiting up to" << m_options.ackWaitMs << "ms for" << m_dispatcher.results().size() << "acks";
        connect(&m_dispatcher, &ToolDispatcher::resultAcknowledged, this, [this] {
            if (m_dispatcher.results().size() == 0) {
                finish();
            }
        });
        QTimer::singleShot(m_options.ackWaitMs, this, [this] { finish(); });
        return;
    }
    QTimer::singleShot(kFlushMs, this, [this] { finish(); });
}

void AgentHostService::finish() {
    if (m_state == State::Stopped) {
        return;
    }
    m_shutdownDeadline.stop();
    setState(State::Stopped);
}

}  // namespace zeus
