#pragma once

#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace zeus {

// The tools of SPEC §12, by the names McpTools gives them on the wire.
enum class McpTool { RunCommand, ListChanges, ApplyChanges, DiscardChanges, OpenPort };

// One validated tools/call, handed to whoever runs it; McpServerState never runs it. Only the members of its
// tool are set; every string is within McpTools' limits.
struct McpToolCall {
    QJsonValue requestId;                                          // the id the result answers
    QJsonValue progressToken = QJsonValue(QJsonValue::Undefined);  // params._meta.progressToken, when sent
    McpTool tool = McpTool::RunCommand;

    // run_command
    QString command;
    QString workingDirectory;  // empty: the session's folder
    qint64 timeoutMs = 0;      // 0: the app's default
    QStringList secrets;
    QString session;  // empty: the connection's own session

    // apply_changes: empty with allPaths = every pending change
    QStringList paths;
    bool allPaths = true;

    // open_port
    int port = 0;

    bool operator==(const McpToolCall& other) const {
        return requestId == other.requestId && progressToken == other.progressToken && tool == other.tool
               && command == other.command && workingDirectory == other.workingDirectory && timeoutMs == other.timeoutMs
               && secrets == other.secrets && session == other.session && paths == other.paths
               && allPaths == other.allPaths && port == other.port;
    }
};

// notifications/cancelled for a tool call still running.
struct McpCancel {
    QJsonValue requestId;
    QString reason;  // optional, at most McpTools::kMaxReasonLength characters

    bool operator==(const McpCancel& other) const { return requestId == other.requestId && reason == other.reason; }
};

}  // namespace zeus
