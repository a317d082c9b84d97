#pragma once

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace zeus {

// What one finished (or never started) child process left behind. A plain value: it is
// copied into probe evidence, logs and diagnostics, so it must never hold the process.
struct ProcessResult {
    QString program;       // as requested ("docker"), not the resolved path
    QString resolvedPath;  // the executable that was started; empty when none was found
    QStringList arguments;
    bool started = false;   // false: not installed, not executable, or failed to start
    bool timedOut = false;  // the runner gave up and terminated (then killed) it
    bool crashed = false;   // ended by a signal (includes our own terminate/kill)
    int exitCode = -1;      // meaningful only when started && !crashed
    qint64 durationMs = 0;
    QByteArray standardOutput;  // at most the runner's output limit
    QByteArray standardError;
    qint64 droppedOutputBytes = 0;  // stdout + stderr bytes beyond the limit, counted and dropped
    QString errorString;            // QProcess's own words when it failed to start or crashed

    // True when the program ran to completion by itself with exit code 0.
    bool succeeded() const { return started && !timedOut && !crashed && exitCode == 0; }
    // program + arguments, for evidence and logs.
    QStringList argv() const { return QStringList{program} + arguments; }
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::ProcessResult)
