// Command approval over MCP (SPEC §11, §12): a question about a call whose client declared elicitation becomes an
// elicitation/create request on that call, and only an explicit accept with a known decision runs the command;
// decline, an error answer, an unknown decision or a client that cannot be asked is Deny. A late, forged or foreign
// answer changes nothing. The test's QWebSocket plays the core, the test itself plays the dispatcher's gate.
#include "approval/approvalquestion.h"
#include "mcp/mcpapprovals.h"
#include "mcp/mcpcodec.h"
#include "mcp/mcplocalbackend.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QWebSocket>
#include <QtTest>

#include <memory>
#include <optional>

using namespace zeus;

namespace {

QByteArray text(const QJsonObject& object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject parse(const QByteArray& bytes) {
    return QJsonDocument::fromJson(bytes).object();
}

QJsonObject initializeParams(bool elicitation) {
    QJsonObject capabilities;
    if (elicitation) {
        capabilities.insert(QStringLiteral("elicitation"), QJsonObject{});
    }
    return QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                       {QStringLiteral("capabilities"), capabilities},
                       {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                                                  {QStringLiteral("version"), QStringLiteral("1")}}}};
}

QByteArray answer(const QJsonValue& id, const QJsonObject& result) {
    return text(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                            {QStringLiteral("id"), id},
                            {QStringLiteral("result"), result}});
}

QJsonObject accepted(const QString& decision) {
    return QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")},
                       {QStringLiteral("content"), QJsonObject{{QStringLiteral("decision"), decision}}}};
}

}  // namespace

class TstMcpApprovals : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<McpLocalBackend> backend;
    std::unique_ptr<McpApprovals> approvals;
    std::unique_ptr<QWebSocket> core;
    QList<QJsonObject> out;     // MCP messages to the client
    QList<QJsonObject> toCore;  // what the backend sent the core
    std::optional<ApprovalAnswer> answered;
    int answers = 0;

    void start(bool elicitation) {
        out.clear();
        toCore.clear();
        answered.reset();
        answers = 0;
        approvals.reset();
        core.reset();
        backend = std::make_unique<McpLocalBackend>();
        backend->setDefaultWorkingDirectory(QStringLiteral("/home/user/project"));
        connect(backend.get(), &McpLocalBackend::messageOut, this, [this](const QByteArray& m) { out << parse(m); });
        QVERIFY(backend->listen());
        approvals = std::make_unique<McpApprovals>(*backend);
        connect(&approvals->queue(), &ApprovalQueue::answered, this, [this](const QString&, const ApprovalAnswer& a) {
            answered = a;
            ++answers;
        });
        backend->handleMessage(
            text(McpCodec::makeRequest(QJsonValue(0), QStringLiteral("initialize"), initializeParams(elicitation))));
        out.clear();
        core = std::make_unique<QWebSocket>();
        connect(core.get(), &QWebSocket::textMessageReceived, this,
                [this](const QString& m) { toCore << parse(m.toUtf8()); });
        QNetworkRequest upgrade(backend->url());
        upgrade.setRawHeader("Authorization", "Bearer " + backend->token().toLatin1());
        core->open(upgrade);
        QVERIFY(QTest::qWaitFor([this] { return backend->isCoreConnected(); }, 5000));
    }

    // A run_command the core received; returns its call id.
    QString runCommand(int id, const QString& command) {
        const QJsonObject params{{QStringLiteral("name"), QStringLiteral("run_command")},
                                 {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("command"), command}}}};
        const auto count = [this] {
            int n = 0;
            for (const QJsonObject& m : std::as_const(toCore)) {
                n += m.value(QStringLiteral("type")).toString() == QLatin1String("tool_call") ? 1 : 0;
            }
            return n;
        };
        const int before = count();
        backend->handleMessage(text(McpCodec::makeRequest(QJsonValue(id), QStringLiteral("tools/call"), params)));
        if (!QTest::qWaitFor([&] { return count() > before; }, 5000)) {
            return {};
        }
        for (auto it = toCore.crbegin(); it != toCore.crend(); ++it) {
            if (it->value(QStringLiteral("type")).toString() == QLatin1String("tool_call")) {
                return it->value(QStringLiteral("call_id")).toString();
            }
        }
        return {};
    }

    ApprovalQuestion question(const QString& callId, const QString& prefix = QStringLiteral("make")) const {
        ApprovalQuestion q;
        q.callId = callId;
        q.sessionId = backend->sessionId();
        q.command = QStringLiteral("make install");
        q.folder = QStringLiteral("/home/user/project");
        q.decision.reason = QStringLiteral("make is not on the read-only list");
        q.decision.suggestedPrefix = prefix;
        return q;
    }

    QList<QJsonObject> elicitations() const {
        QList<QJsonObject> found;
        for (const QJsonObject& m : out) {
            if (m.value(QStringLiteral("method")).toString() == QLatin1String("elicitation/create")) {
                found << m;
            }
        }
        return found;
    }

private Q_SLOTS:
    void questionBecomesAnElicitationNamingCommandFolderAndChoices() {
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        QVERIFY(!callId.isEmpty());
        approvals->queue().ask(question(callId));
        QCOMPARE(elicitations().size(), 1);
        const QJsonObject request = elicitations().constFirst();
        QVERIFY(request.value(QStringLiteral("id")).isString());
        const QJsonObject params = request.value(QStringLiteral("params")).toObject();
        const QString message = params.value(QStringLiteral("message")).toString();
        QVERIFY(message.contains(QLatin1String("make install")));
        QVERIFY(message.contains(QLatin1String("/home/user/project")));
        QVERIFY(message.contains(QLatin1String("read-only list")));
        const QJsonObject decision = params.value(QStringLiteral("requestedSchema"))
                                         .toObject()
                                         .value(QStringLiteral("properties"))
                                         .toObject()
                                         .value(QStringLiteral("decision"))
                                         .toObject();
        QCOMPARE(decision.value(QStringLiteral("enum")).toArray(),
                 (QJsonArray{QStringLiteral("run_once"), QStringLiteral("always_allow"), QStringLiteral("deny")}));
        QVERIFY(decision.value(QStringLiteral("enumNames")).toArray().at(1).toString().contains(QLatin1String("make")));
        QCOMPARE(answers, 0);  // nothing decided before the user answers
        QVERIFY(approvals->queue().isWaiting(callId));
    }

    void noPrefixOffersNoAlwaysAllow() {
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId, QString()));
        QCOMPARE(elicitations().size(), 1);
        const QJsonArray choices = elicitations()
                                       .constFirst()
                                       .value(QStringLiteral("params"))
                                       .toObject()
                                       .value(QStringLiteral("requestedSchema"))
                                       .toObject()
                                       .value(QStringLiteral("properties"))
                                       .toObject()
                                       .value(QStringLiteral("decision"))
                                       .toObject()
                                       .value(QStringLiteral("enum"))
                                       .toArray();
        QCOMPARE(choices, (QJsonArray{QStringLiteral("run_once"), QStringLiteral("deny")}));
        // "always_allow" sent anyway is not a choice that was offered: Deny.
        backend->handleMessage(
            answer(elicitations().constFirst().value(QStringLiteral("id")), accepted(QStringLiteral("always_allow"))));
        QCOMPARE(answers, 1);
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::Deny);
    }

    void answersMapToDecisions_data() {
        QTest::addColumn<QJsonObject>("result");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("prefix");
        const int runOnce = int(ApprovalAnswer::Kind::RunOnce);
        const int always = int(ApprovalAnswer::Kind::AlwaysAllow);
        const int deny = int(ApprovalAnswer::Kind::Deny);
        QTest::newRow("run once") << accepted(QStringLiteral("run_once")) << runOnce << QString();
        QTest::newRow("always allow") << accepted(QStringLiteral("always_allow")) << always << QStringLiteral("make");
        QTest::newRow("deny chosen") << accepted(QStringLiteral("deny")) << deny << QString();
        QTest::newRow("unknown decision") << accepted(QStringLiteral("yes")) << deny << QString();
        QTest::newRow("accept without content")
            << QJsonObject{{QStringLiteral("action"), QStringLiteral("accept")}} << deny << QString();
        QTest::newRow("decline") << QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}} << deny
                                 << QString();
        QTest::newRow("cancel") << QJsonObject{{QStringLiteral("action"), QStringLiteral("cancel")}} << deny
                                << QString();
        QTest::newRow("decline with run_once content")
            << QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")},
                           {QStringLiteral("content"),
                            QJsonObject{{QStringLiteral("decision"), QStringLiteral("run_once")}}}}
            << deny << QString();
    }

    void answersMapToDecisions() {
        QFETCH(QJsonObject, result);
        QFETCH(int, kind);
        QFETCH(QString, prefix);
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        QCOMPARE(elicitations().size(), 1);
        backend->handleMessage(answer(elicitations().constFirst().value(QStringLiteral("id")), result));
        QCOMPARE(answers, 1);
        QCOMPARE(int(answered->kind), kind);
        QCOMPARE(answered->by, ApprovalAnswer::By::User);
        QCOMPARE(answered->prefix, prefix);
    }

    void errorAnswerIsDeny() {
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        const QJsonValue id = elicitations().constFirst().value(QStringLiteral("id"));
        backend->handleMessage(text(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id},
            {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), -32601},
                                                  {QStringLiteral("message"), QStringLiteral("no elicitation")}}}}));
        QCOMPARE(answers, 1);
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::Deny);
    }

    void clientWithoutElicitationIsDeniedAtOnceAsHeadless() {
        start(false);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        QVERIFY(elicitations().isEmpty());
        QCOMPARE(answers, 1);
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::Deny);
        QCOMPARE(answered->by, ApprovalAnswer::By::Nobody);
    }

    void withoutElicitationTheFallbackIsAskedAndItsAnswerCounts() {
        start(false);
        ApprovalQueue tray;  // the tray app's dialog
        tray.setInteractive(true);
        approvals->setFallback(&tray);
        QSignalSpy asked(&tray, &ApprovalQueue::questionAdded);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        QVERIFY(elicitations().isEmpty());
        QCOMPARE(asked.size(), 1);
        QCOMPARE(answers, 0);
        tray.answer(callId, ApprovalAnswer{ApprovalAnswer::Kind::AlwaysAllow, ApprovalAnswer::By::User,
                                           QStringLiteral("make")});
        QCOMPARE(answers, 1);
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::AlwaysAllow);
        QCOMPARE(answered->prefix, QStringLiteral("make"));
        // An answer of the tray's about a call this queue never asked changes nothing here.
        tray.ask(question(QStringLiteral("a-backend-call")));
        tray.answer(QStringLiteral("a-backend-call"),
                    ApprovalAnswer{ApprovalAnswer::Kind::RunOnce, ApprovalAnswer::By::User, {}});
        QCOMPARE(answers, 1);
        approvals->setFallback(nullptr);
    }

    void elicitationComesBeforeTheFallbackAndAWithdrawnQuestionLeavesIt() {
        start(true);
        ApprovalQueue tray;
        tray.setInteractive(true);
        approvals->setFallback(&tray);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        QCOMPARE(elicitations().size(), 1);
        QVERIFY(tray.pending().isEmpty());
        approvals->setFallback(nullptr);

        start(false);
        approvals->setFallback(&tray);
        const QString other = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(other));
        QVERIFY(tray.isWaiting(other));
        approvals->queue().withdraw(other);  // the call was cancelled: the dialog no longer asks
        QVERIFY(!tray.isWaiting(other));
        approvals->setFallback(nullptr);
    }

    void questionAboutAnUnknownCallIsDeniedAtOnce() {
        start(true);
        approvals->queue().ask(question(QStringLiteral("call-the-core-never-had")));
        QVERIFY(elicitations().isEmpty());
        QCOMPARE(answers, 1);
        QCOMPARE(answered->by, ApprovalAnswer::By::Nobody);
    }

    void forgedOrForeignAnswersChangeNothing() {
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        const QString id = elicitations().constFirst().value(QStringLiteral("id")).toString();
        // An id this session never sent, the right number as a number, and the client's own request id.
        backend->handleMessage(
            answer(QJsonValue(QStringLiteral("zeus-elicit-999")), accepted(QStringLiteral("run_once"))));
        backend->handleMessage(answer(QJsonValue(1), accepted(QStringLiteral("run_once"))));
        bool isNumber = false;
        const int serial = id.section(QLatin1Char('-'), -1).toInt(&isNumber);
        QVERIFY(isNumber);
        backend->handleMessage(answer(QJsonValue(serial), accepted(QStringLiteral("run_once"))));
        QCOMPARE(answers, 0);
        QVERIFY(approvals->queue().isWaiting(callId));
        // The real answer still counts, once; a repeat of it is an answer to nothing.
        backend->handleMessage(answer(QJsonValue(id), accepted(QStringLiteral("run_once"))));
        backend->handleMessage(answer(QJsonValue(id), accepted(QStringLiteral("always_allow"))));
        QCOMPARE(answers, 1);
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::RunOnce);
    }

    void answerAfterTheQuestionWasWithdrawnIsDropped() {
        start(true);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        const QJsonValue id = elicitations().constFirst().value(QStringLiteral("id"));
        approvals->queue().withdraw(callId);  // the call was cancelled meanwhile
        backend->handleMessage(answer(id, accepted(QStringLiteral("run_once"))));
        QCOMPARE(answers, 0);
    }

    void noAnswerInTimeIsDenyAndTheLateAnswerIsDropped() {
        start(true);
        approvals->queue().setTimeoutMs(100);
        const QString callId = runCommand(1, QStringLiteral("make install"));
        approvals->queue().ask(question(callId));
        const QJsonValue id = elicitations().constFirst().value(QStringLiteral("id"));
        QVERIFY(QTest::qWaitFor([this] { return answers == 1; }, 5000));
        QCOMPARE(answered->kind, ApprovalAnswer::Kind::Deny);
        QCOMPARE(answered->by, ApprovalAnswer::By::Timeout);
        backend->handleMessage(answer(id, accepted(QStringLiteral("run_once"))));
        QCOMPARE(answers, 1);
    }

    void openQuestionsAreBoundedPerSession() {
        start(true);
        for (int i = 0; i < McpSession::kMaxElicitations + 1; ++i) {
            const QString callId = runCommand(i + 1, QStringLiteral("make install"));
            QVERIFY(!callId.isEmpty());
            approvals->queue().ask(question(callId));
        }
        QCOMPARE(elicitations().size(), McpSession::kMaxElicitations);
        QCOMPARE(answers, 1);  // the one past the bound: denied at once, never asked
        QCOMPARE(answered->by, ApprovalAnswer::By::Nobody);
    }

    void elicitationsAreNotAnsweredBeforeInitialize() {
        // A response before initialize is not routed anywhere (nothing was asked): no crash, no reply.
        backend = std::make_unique<McpLocalBackend>();
        out.clear();
        connect(backend.get(), &McpLocalBackend::messageOut, this, [this](const QByteArray& m) { out << parse(m); });
        backend->handleMessage(
            answer(QJsonValue(QStringLiteral("zeus-elicit-1")), accepted(QStringLiteral("run_once"))));
        QVERIFY(out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstMcpApprovals)
#include "tst_mcpapprovals.moc"
