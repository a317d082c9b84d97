// --mcp [--workspace DIR]…: an MCP server on stdin and stdout for an agent on this computer (docs/mcp.md "stdio
// transport"). When the tray app runs, this process is only a bridge to it (its single-instance socket, same user
// only): the tray's MCP server takes the calls, its dialog asks, its approvals decide, its dashboard shows the
// session. Otherwise every tool call runs through the GUI-free core that headless mode runs (runHeadlessCore), which
// connects to this process's own loopback backend (McpLocalBackend) as to any backend: the same gates, one path.
// stdout carries MCP messages only, one compact JSON per line; notices and logs go to stderr. EOF on stdin, SIGINT
// or SIGTERM cancel the running calls, remove the containers and exit 0.
#include "agenthostservice.h"
#include "appsettings.h"
#include "mcp/mcpapprovals.h"
#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"
#include "mcpbridgechannel.h"
#include "modes.h"
#include "quitsignals.h"
#include "sandbox/review/reviewservice.h"
#include "sandbox/sessionmanager.h"
#include "sandbox/workspaceguard.h"
#include "sandboxhost.h"
#include "singleinstance.h"
#include "support/logging.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QLocalSocket>
#include <QSocketNotifier>
#include <QTextStream>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <unistd.h>
#include <utility>

namespace zeus {

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitWorkspaceRefused = 125;  // as headless mode
constexpr int kBridgeAnswerMs = 10000;      // for the tray app to answer the bridge's request

// stdin as MCP's stdio framing: one message per line. A line longer than McpCodec::kMaxMessageBytes is dropped as it
// comes (never buffered whole) and reported once; blank lines are skipped. Read with a notifier and one read() per
// wake-up, so the event loop never blocks on a client that is slow to write.
class StdinLines {
public:
    struct Handlers {
        std::function<void(const QByteArray&)> line;
        std::function<void()> oversized;
        std::function<void()> end;
    };

    explicit StdinLines(Handlers handlers) : m_handlers(std::move(handlers)) {}

    void start() {
        m_notifier = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
        QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this] { onReadable(); });
    }

private:
    void onReadable() {
        constexpr size_t kChunk = 64 * 1024;
        char chunk[kChunk];
        const ssize_t n = ::read(STDIN_FILENO, chunk, kChunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            return;
        }
        if (n <= 0) {
            m_notifier->setEnabled(false);
            if (!m_discarding) {
                deliver();  // a last line without its newline
            }
            m_handlers.end();
            return;
        }
        const QByteArray data = QByteArray::fromRawData(chunk, n);
        qsizetype from = 0;
        while (from < data.size()) {
            const qsizetype newline = data.indexOf('\n', from);
            const qsizetype to = newline < 0 ? data.size() : newline;
            if (!m_discarding) {
                m_buffer.append(data.constData() + from, to - from);
                if (m_buffer.size() > McpCodec::kMaxMessageBytes + 1) {  // +1: a '\r' before the newline
                    m_buffer = QByteArray();
                    m_discarding = true;
                    m_handlers.oversized();
                }
            }
            if (newline < 0) {
                break;
            }
            if (!m_discarding) {
                deliver();
            }
            m_discarding = false;
            from = newline + 1;
        }
    }

    void deliver() {
        QByteArray line = std::exchange(m_buffer, QByteArray());
        if (line.endsWith('\r')) {
            line.chop(1);
        }
        if (!line.trimmed().isEmpty()) {
            m_handlers.line(line);
        }
    }

    Handlers m_handlers;
    std::unique_ptr<QSocketNotifier> m_notifier;
    QByteArray m_buffer;
    bool m_discarding = false;
};

void writeMessage(const QByteArray& message) {
    std::fwrite(message.constData(), 1, size_t(message.size()), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

void printToStderr(const QString& line) {
    QTextStream(stderr) << "zeus-desktop: " << line << "\n";
}

const QString kDirectMode = QStringLiteral("this folder is in direct mode: changes are written to it as they happen");

QJsonObject changesResult(const QString& session, const QList<Change>& changes) {
    QJsonArray array;
    QStringList lines;
    for (const Change& change : changes) {
        array.append(change.summaryJson());
        lines << QStringLiteral("%1  %2").arg(Change::kindLetter(change.kind), change.path)
                     + (change.flagged ? QStringLiteral("  [needs its own confirmation: %1]").arg(change.flagReason)
                                       : QString());
    }
    const QString head = changes.isEmpty()
                             ? QStringLiteral("No changes are pending in session %1.").arg(session)
                             : QStringLiteral("%1 changes are pending in session %2:").arg(changes.size()).arg(session);
    return McpLocalBackend::toolResult(
        lines.isEmpty() ? head : head + QLatin1Char('\n') + lines.join(QLatin1Char('\n')), false,
        QJsonObject{{QStringLiteral("session"), session}, {QStringLiteral("changes"), array}});
}

// list_changes: the review copy's changes as ReviewService lists them for the tray app and --changes. A session
// with no review copy yet has none; a folder in direct mode has none to review at all.
void listChanges(ReviewService& reviews, bool directMode, const QString& session,
                 const McpLocalBackend::Answer& answer) {
    if (!reviews.store().record(session)) {
        answer(directMode ? McpLocalBackend::toolResult(kDirectMode, true) : changesResult(session, {}));
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        &reviews, &ReviewService::changesReady, &reviews,
        [connection, session, answer](const QString& id, bool ok, const QString& error, const QList<Change>& changes) {
            if (id != session) {
                return;
            }
            QObject::disconnect(*connection);
            answer(ok ? changesResult(session, changes) : McpLocalBackend::toolResult(error, true));
        });
    reviews.refreshChanges(session);
}

// run_command's changes_pending (SPEC §12): whether the session's review copy differs from the folder now. A session
// without a copy (direct mode, or none taken yet) has nothing pending; a listing that fails or takes longer than
// kPendingWaitMs says false rather than holding the call's answer.
void changesPending(ReviewService& reviews, const QString& session, const std::function<void(bool)>& done) {
    constexpr int kPendingWaitMs = 30000;
    if (!reviews.store().record(session)) {
        done(false);
        return;
    }
    struct Wait {
        QMetaObject::Connection connection;
        QMetaObject::Connection timerConnection;
        QTimer timer;
        std::function<void(bool)> done;
        void finish(bool changed) {
            // Both connections hold this object: dropping them ends it once the running slot returns.
            QObject::disconnect(connection);
            QObject::disconnect(timerConnection);
            timer.stop();
            if (done) {
                const auto call = std::exchange(done, {});
                call(changed);
            }
        }
    };
    auto wait = std::make_shared<Wait>();
    wait->done = done;
    wait->timer.setSingleShot(true);
    wait->timerConnection = QObject::connect(&wait->timer, &QTimer::timeout, &reviews, [wait] { wait->finish(false); });
    wait->connection =
        QObject::connect(&reviews, &ReviewService::changesReady, &reviews,
                         [wait, session](const QString& id, bool ok, const QString&, const QList<Change>& changes) {
                             if (id == session) {
                                 wait->finish(ok && !changes.isEmpty());
                             }
                         });
    wait->timer.start(kPendingWaitMs);
    reviews.refreshChanges(session);
}

// Removes the copy's container and record with ReviewService, as the tray app's Discard Copy and --discard do.
void discardCopy(ReviewService& reviews, const QString& session, const McpLocalBackend::Answer& answer) {
    const QJsonObject structured{{QStringLiteral("session"), session}};
    if (!reviews.store().record(session)) {
        // Ending the session removed a copy without changes with its record: nothing was left to discard.
        answer(McpLocalBackend::toolResult(
            QStringLiteral("No changes are pending in session %1: nothing to discard.").arg(session), false,
            structured));
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        &reviews, &ReviewService::discarded, &reviews,
        [connection, session, answer, structured](const QString& id, bool ok, const QString& error) {
            if (id != session) {
                return;
            }
            QObject::disconnect(*connection);
            answer(ok ? McpLocalBackend::toolResult(
                       QStringLiteral("Discarded the review copy of session %1: its changes are gone.").arg(session),
                       false, structured)
                      : McpLocalBackend::toolResult(error, true));
        });
    reviews.discard(session);
}

// discard_changes: the session ends first (its running calls are cancelled, its container stopped and kept), so
// no command writes into a copy being removed; then the copy goes. The session's next command takes a new copy.
void discardChanges(AgentHostService& service, bool directMode, const QString& session,
                    const McpLocalBackend::Answer& answer) {
    ReviewService& reviews = service.reviews();
    if (!reviews.store().record(session)) {
        answer(directMode ? McpLocalBackend::toolResult(kDirectMode, true)
                          : McpLocalBackend::toolResult(
                              QStringLiteral("No changes are pending in session %1: nothing to discard.").arg(session),
                              false, QJsonObject{{QStringLiteral("session"), session}}));
        return;
    }
    SessionManager* manager = service.sandbox().manager();
    if (!manager || manager->sessionState(session) == SessionState::Stopped) {
        discardCopy(reviews, session, answer);
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(manager, &SessionManager::sessionStateChanged, &reviews,
                                   [connection, &reviews, session, answer](const QString& id, SessionState state) {
                                       if (id != session || state != SessionState::Stopped) {
                                           return;
                                       }
                                       QObject::disconnect(*connection);
                                       discardCopy(reviews, session, answer);
                                   });
    manager->endSession(session);
}

// What apply_changes says of a flagged change it left in the copy: only the user applies such a file.
QString leftLine(const QString& session, const QString& path) {
    return QStringLiteral(
               "left: %1 (it can make this computer run code: only you can apply it, in the tray app or with "
               "zeus-desktop --apply %2 %1)")
        .arg(path, session);
}

// Applies `selection` with ReviewService (the tray app's Apply, --apply's code), answering with each outcome.
void applySelection(ReviewService& reviews, const QString& session, const QList<Change>& selection,
                    const QStringList& left, const McpLocalBackend::Answer& answer) {
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        &reviews, &ReviewService::applied, &reviews,
        [connection, session, left, answer](const QString& id, const QList<ApplyOutcome>& outcomes,
                                            const QString& error) {
            if (id != session) {
                return;
            }
            QObject::disconnect(*connection);
            QStringList lines;
            QJsonArray array;
            int problems = 0;
            for (const ApplyOutcome& outcome : outcomes) {
                const QString word = ApplyOutcome::word(outcome.result);
                lines << QStringLiteral("%1: %2").arg(word, outcome.path)
                             + (outcome.reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(outcome.reason));
                QJsonObject object{{QStringLiteral("path"), outcome.path}, {QStringLiteral("result"), word}};
                if (!outcome.reason.isEmpty()) {
                    object.insert(QStringLiteral("reason"), outcome.reason);
                }
                array.append(object);
                if (outcome.result == ApplyOutcome::Result::Conflict
                    || outcome.result == ApplyOutcome::Result::Refused) {
                    ++problems;
                }
            }
            for (const QString& path : left) {
                lines << leftLine(session, path);
            }
            if (!error.isEmpty()) {
                lines << error;
            }
            if (lines.isEmpty()) {
                lines << QStringLiteral("No changes are pending in session %1: nothing to apply.").arg(session);
            }
            answer(
                McpLocalBackend::toolResult(lines.join(QLatin1Char('\n')), problems > 0 || !error.isEmpty(),
                                            QJsonObject{{QStringLiteral("session"), session},
                                                        {QStringLiteral("outcomes"), array},
                                                        {QStringLiteral("left"), QJsonArray::fromStringList(left)}}));
        });
    reviews.apply(session, selection);
}

// apply_changes: the change list first, then the selection --apply makes of it (all: never a flagged change,
// never one that is not applied as a file; named paths: exactly those, but never a flagged one: the agent naming
// it is not the user's confirmation), then Apply.
// Nobody is asked here, so only --allow-apply lets it run.
void applyChanges(ReviewService& reviews, bool directMode, bool allowed, const McpToolCall& call,
                  const QString& session, const McpLocalBackend::Answer& answer) {
    if (directMode) {
        answer(McpLocalBackend::toolResult(kDirectMode, true));
        return;
    }
    if (!allowed) {
        answer(McpLocalBackend::toolResult(
            QStringLiteral("apply_changes needs zeus-desktop --mcp --allow-apply: nobody is asked here. Apply with "
                           "the tray app or zeus-desktop --apply %1")
                .arg(session),
            true));
        return;
    }
    if (!reviews.store().record(session)) {
        answer(McpLocalBackend::toolResult(
            QStringLiteral("No changes are pending in session %1: nothing to apply.").arg(session), false,
            QJsonObject{{QStringLiteral("session"), session}, {QStringLiteral("outcomes"), QJsonArray{}}}));
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = QObject::connect(
        &reviews, &ReviewService::changesReady, &reviews,
        [connection, &reviews, session, call, answer](const QString& id, bool ok, const QString& error,
                                                      const QList<Change>& changes) {
            if (id != session) {
                return;
            }
            QObject::disconnect(*connection);
            if (!ok) {
                answer(McpLocalBackend::toolResult(error, true));
                return;
            }
            QList<Change> selection;
            QStringList left;
            if (call.allPaths) {
                for (const Change& change : changes) {
                    if (change.applicable && !change.flagged) {
                        selection.append(change);
                    } else if (change.flagged) {
                        left << change.path;
                    }
                }
            } else {
                QStringList unknown;
                for (const QString& path : call.paths) {
                    const auto it = std::find_if(changes.cbegin(), changes.cend(),
                                                 [&path](const Change& change) { return change.path == path; });
                    if (it == changes.cend()) {
                        unknown << path;
                    } else if (it->flagged) {
                        // The agent naming a file that makes this computer run code is not the user confirming it
                        // (SPEC §10): it stays in the copy for the user.
                        left << path;
                    } else {
                        selection.append(*it);
                    }
                }
                if (!unknown.isEmpty()) {
                    answer(McpLocalBackend::toolResult(QStringLiteral("Not a change of session %1: %2")
                                                           .arg(session, unknown.join(QStringLiteral(", "))),
                                                       true));
                    return;
                }
            }
            if (selection.isEmpty() && !left.isEmpty()) {
                QStringList lines;
                for (const QString& path : std::as_const(left)) {
                    lines << leftLine(session, path);
                }
                answer(McpLocalBackend::toolResult(
                    lines.join(QLatin1Char('\n')), true,
                    QJsonObject{{QStringLiteral("session"), session},
                                {QStringLiteral("outcomes"), QJsonArray{}},
                                {QStringLiteral("left"), QJsonArray::fromStringList(left)}}));
                return;
            }
            if (selection.isEmpty() && left.isEmpty()) {
                answer(McpLocalBackend::toolResult(
                    QStringLiteral("Nothing to apply in session %1.").arg(session), false,
                    QJsonObject{{QStringLiteral("session"), session}, {QStringLiteral("outcomes"), QJsonArray{}}}));
                return;
            }
            applySelection(reviews, session, selection, left, answer);
        });
    reviews.refreshChanges(session);
}

QByteArray oversizedError() {
    return McpCodec::toBytes(McpCodec::makeError(
        JsonRpcCode::kInvalidRequest, QStringLiteral("message is larger than %1 bytes").arg(McpCodec::kMaxMessageBytes),
        QJsonValue(QJsonValue::Null)));
}

// The bridge to the tray app (SPEC §12 "stdio"): this process only carries lines, stdin to the tray's socket and
// the socket's lines to stdout; the tray's MCP server does the rest. Returns the exit code, or nullopt when no
// tray app listens (the caller then serves by itself). The request names no token or id: the socket is the
// user's own (0700 folder, the peer's uid checked both ways).
std::optional<int> bridgeToTray(const QStringList& workspaces) {
    enum class Phase { Connecting, Asking, Bridged, Leaving };
    Phase phase = Phase::Connecting;
    bool noTray = false;
    auto* socket = new QLocalSocket;
    McpBridgeChannel channel(socket);
    QTimer answerDeadline;
    answerDeadline.setSingleShot(true);
    const auto end = [&phase](int code) {
        phase = Phase::Leaving;
        QCoreApplication::exit(code);
    };
    const auto leave = [&phase, &channel] {
        phase = Phase::Leaving;
        channel.close();  // the tray ends the session and removes its container; closed() ends this process
    };
    StdinLines stdinLines({[&channel](const QByteArray& line) { channel.sendLine(line); },
                           [] { writeMessage(oversizedError()); },
                           [&leave] {
                               qCInfo(lcApp) << "stdin closed: ending";
                               leave();
                           }});
    QuitSignals quitSignals;
    quitSignals.install();
    QObject::connect(&quitSignals, &QuitSignals::quitRequested, &channel, [&leave] { leave(); });
    QObject::connect(&answerDeadline, &QTimer::timeout, &channel, [&end] {
        printToStderr(QStringLiteral("the tray app did not answer the MCP bridge's request"));
        end(1);
    });
    QObject::connect(socket, &QLocalSocket::connected, &channel, [&] {
        if (!SingleInstance::isSameUser(socket->socketDescriptor())) {
            printToStderr(QStringLiteral("refused the tray app's socket: another user's process holds it"));
            end(1);
            return;
        }
        phase = Phase::Asking;
        answerDeadline.start(kBridgeAnswerMs);
        socket->write(McpBridgeChannel::requestBytes(workspaces));
    });
    QObject::connect(&channel, &McpBridgeChannel::lineReceived, &channel, [&](const QByteArray& line) {
        if (phase == Phase::Bridged) {
            writeMessage(line);
            return;
        }
        if (phase != Phase::Asking) {
            return;
        }
        answerDeadline.stop();
        const std::optional<McpBridgeChannel::Answer> answer = McpBridgeChannel::parseAnswer(line);
        if (!answer || !answer->ok) {
            printToStderr(answer ? answer->message
                                 : QStringLiteral("the tray app did not take the MCP connection (an older version?)"));
            const bool folder = answer && answer->code.startsWith(QLatin1String("workspace_"));
            end(folder ? kExitWorkspaceRefused : 1);
            return;
        }
        phase = Phase::Bridged;
        printToStderr(QStringLiteral("serving through the tray app: session %1").arg(answer->session));
        stdinLines.start();
    });
    QObject::connect(&channel, &McpBridgeChannel::closed, &channel, [&] {
        switch (phase) {
            case Phase::Connecting:
                noTray = true;  // no socket, or a stale one: nobody listens
                QCoreApplication::exit(0);
                break;
            case Phase::Asking:
                printToStderr(QStringLiteral("the tray app closed the MCP bridge before answering"));
                end(1);
                break;
            case Phase::Bridged:
                printToStderr(
                    QStringLiteral("the tray app closed the MCP bridge (it quit or restarted): this session is over"));
                end(1);
                break;
            case Phase::Leaving:
                QCoreApplication::exit(0);
                break;
        }
    });
    const QString server = SingleInstance().serverName();
    QTimer::singleShot(0, socket, [socket, server] { socket->connectToServer(server); });
    const int code = QCoreApplication::exec();
    if (noTray) {
        return std::nullopt;
    }
    return code;
}

}  // namespace

int mcpWorkspaces(const AppOptions& options, AppSettings& settings, QStringList& workspaces) {
    // The folders of this run: the command line's, each checked; without any, those approved in the tray app.
    const bool fromSettings = options.workspaces.isEmpty();
    const QStringList given = fromSettings ? settings.approvedWorkspaces() : options.workspaces;
    workspaces.clear();
    for (const QString& folder : given) {
        const WorkspaceGuard::Result guard = WorkspaceGuard::check(folder);
        if (guard.accepted()) {
            workspaces << guard.canonicalPath;
            continue;
        }
        QTextStream(stderr) << "zeus-desktop: refused workspace " << folder << ": " << guard.message
                            << " (rule: " << WorkspaceGuard::ruleName(guard.rule) << ")\n";
        if (!fromSettings) {
            return kExitWorkspaceRefused;
        }
    }
    workspaces.removeDuplicates();
    if (workspaces.isEmpty()) {
        printToStderr(QStringLiteral("%1 needs --workspace DIR, or a folder approved in the tray app")
                          .arg(options.mode == AppOptions::Mode::McpHttp ? QStringLiteral("--mcp-http")
                                                                         : QStringLiteral("--mcp")));
        return kExitUsage;
    }
    return 0;
}

void wireMcpReviewTools(McpLocalBackend& backend, AgentHostService& service, bool directMode, bool allowApply) {
    backend.setToolHandler(McpTool::ListChanges, [&service, directMode](const McpToolCall&, const QString& session,
                                                                        const McpLocalBackend::Answer& answer) {
        listChanges(service.reviews(), directMode, session, answer);
    });
    backend.setToolHandler(McpTool::DiscardChanges, [&service, directMode](const McpToolCall&, const QString& session,
                                                                           const McpLocalBackend::Answer& answer) {
        discardChanges(service, directMode, session, answer);
    });
    backend.setToolHandler(McpTool::ApplyChanges,
                           [&service, directMode, allowApply](const McpToolCall& call, const QString& session,
                                                              const McpLocalBackend::Answer& answer) {
                               applyChanges(service.reviews(), directMode, allowApply, call, session, answer);
                           });
    if (!directMode) {
        backend.setChangesPendingQuery([&service](const QString& session, const std::function<void(bool)>& done) {
            changesPending(service.reviews(), session, done);
        });
    }
}

int runMcpMode(const AppOptions& options) {
    installHeadlessLogFormat();
    AppSettings settings;
    QStringList workspaces;
    // The folders named here, each checked here as in a run of its own; none: the ones the tray app approved.
    if (!options.workspaces.isEmpty()) {
        if (const int exitCode = mcpWorkspaces(options, settings, workspaces); exitCode != 0) {
            return exitCode;
        }
    }
    if (const std::optional<int> bridged = bridgeToTray(workspaces)) {
        return *bridged;
    }
    if (const int exitCode = mcpWorkspaces(options, settings, workspaces); exitCode != 0) {
        return exitCode;
    }

    McpLocalBackend backend;
    if (!backend.listen()) {
        printToStderr(QStringLiteral("cannot listen on 127.0.0.1 for the sandbox's own connection"));
        return 1;
    }
    backend.setDefaultWorkingDirectory(workspaces.constFirst());
    QObject::connect(&backend, &McpLocalBackend::messageOut, &backend, &writeMessage);

    std::function<void()> onEnd;
    StdinLines stdinLines({[&backend](const QByteArray& line) { backend.handleMessage(line); },
                           [&backend] { backend.refuseOversizedMessage(); }, [&onEnd] { onEnd(); }});

    HeadlessCore core;
    core.backend = backend.url();
    core.workspaces = workspaces;
    core.token = backend.token();
    core.journal = false;  // every result is acked at once; the URL is new each run (docs/mcp.md)
    core.notice = printToStderr;
    core.description = QStringLiteral("mcp: serving %1 on stdin and stdout, session %2")
                           .arg(workspaces.join(QStringLiteral(", ")), backend.sessionId());
    const bool directMode =
        options.workspaceMode.value_or(settings.workspaceMode(workspaces.constFirst())) == WorkspaceMode::Direct;
    McpApprovals approvals(backend);  // a command to ask about is asked of the client's user (elicitation)
    core.wire = [&backend, &approvals, &stdinLines, &onEnd, directMode, allowApply = options.allowApply](
                    AgentHostService& service, const std::function<void(int)>& endWith) {
        wireMcpReviewTools(backend, service, directMode, allowApply);
        service.dispatcher().setApprovalQueue(&approvals.queue());
        onEnd = [&backend, endWith] {
            qCInfo(lcApp) << "stdin closed: ending";
            backend.cancelAll();
            endWith(0);
        };
        QObject::connect(&service, &AgentHostService::stateChanged, &backend, [&backend](AgentHostService::State s) {
            if (s == AgentHostService::State::ShuttingDown) {
                backend.cancelAll();
            }
        });
        stdinLines.start();
    };
    return runHeadlessCore(options, settings, core);
}

}  // namespace zeus
