#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTcpServer>

class QTcpSocket;
class QTextStream;
class QWebSocket;
class QWebSocketServer;

namespace zeus {

// A minimal backend for trying Zeus Desktop and for end-to-end tests (docs/headless.md): listens on 127.0.0.1,
// accepts one app connection at a time (a new one replaces the old: the app reconnecting), prints the app's
// hello, turns each input line into a tool_call (or a control command, see `help()`), prints streamed output
// and results, and acknowledges every result.
//
// Every upgrade must carry `Authorization: Bearer <token>` (SPEC §5 "No anonymous backends"): any local user can
// reach a loopback port, so one without the token gets HTTP 401 before the upgrade and never replaces the app's
// connection. The token is random per run unless the caller gives one; the caller hands it to the app through a
// 0600 file (main.cpp's --token-file), never through a command line (world-readable in /proc).
//
// It owns its listening socket and the app connection. It must never listen on anything but loopback, and it
// never interprets output beyond printing it. Lines are processed in order; a command line waits for its result
// before the next line is processed, unless it starts with `&`.
class TestBackend : public QObject {
    Q_OBJECT

public:
    struct Options {
        quint16 port = 0;
        QString sessionId = QStringLiteral("local");
        QString workspace;         // working_directory of every tool_call
        int timeoutSeconds = 0;    // timeout_s of every tool_call; 0: the app's default
        int exitAfterResults = 0;  // exit once this many distinct results arrived; 0: never (EOF decides)
        QString token;             // an upgrade without `Authorization: Bearer <it>` gets HTTP 401; never empty
        bool exitAtEnd = true;     // exit when the input has ended and every sent call has its result
    };

    TestBackend(Options options, QTextStream& out, QTextStream& err, QObject* parent = nullptr);
    ~TestBackend() override;

    // Listens; false (with a message on err) when the port cannot be had.
    bool listen();
    quint16 port() const;

    // Queues input lines; processed in order once the app is connected.
    void addLine(const QString& line);
    // No more lines will come.
    void endOfInput();

    static QString help();
    // 256 random bits from the system's generator, as 64 hex digits.
    static QString randomToken();
    // What the terminal gets of a text the app (or the command behind it) chose: C0 and C1 control characters and
    // DEL as visible escapes (\x1b, \x9b), tabs kept, so output cannot move the cursor, retitle the window or
    // send the terminal a query (escape-sequence injection).
    static QString printable(QStringView text);
    // Whether an upgrade request's head carries exactly `Authorization: Bearer <token>` (scheme in any case).
    static bool isAuthorized(const QByteArray& head, const QString& token);

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onTcpConnection();
    void onHandshakeData(QTcpSocket* socket);
    void onAppConnected();
    void onAppDisconnected();
    void onFrame(const QString& text);
    void processLines();
    void sendToolCall(const QString& command, bool wait, const QStringList& secrets = {});
    void sendJson(const QJsonObject& message);
    void sendRaw(const QString& text);
    void printOutput(const QString& callId, const QString& stream, const QString& data, bool flush);
    void flushOutput(const QString& callId);
    void checkDone();

    Options m_options;
    QTextStream& m_out;
    QTextStream& m_err;
    QTcpServer m_tcp;
    QWebSocketServer* m_ws = nullptr;
    QPointer<QWebSocket> m_app;
    bool m_helloSeen = false;

    QStringList m_lines;
    bool m_inputEnded = false;
    QString m_waitingFor;  // call id whose result blocks the next line
    int m_nextCall = 0;
    QSet<QString> m_outstanding;  // sent, no result yet
    QSet<QString> m_resultsSeen;
    QHash<QString, QString> m_partial;       // "callId\nstream" -> unfinished line
    QHash<QString, QElapsedTimer> m_sentAt;  // call id -> since its tool_call left, for the round trip
    bool m_finishedEmitted = false;
};

}  // namespace zeus
