#pragma once

#include "backend/protocolmessages.h"

#include <QFile>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// The unacknowledged results on disk (SPEC §5 "Results survive the app"): an append-only log, one JSON object a
// line, in a folder only the user can enter (0700) and a file only the user can read (0600). Three records:
// `started` (a call began running), `result` (its tool_result, or a refusal's) and `forget` (acknowledged, or
// dropped by the store's bounds). load() replays the log: the results without a `forget` are still owed to the
// backend, and the calls `started` without a result were running when the app died. rewrite() replaces the log
// atomically (QSaveFile) with only what is live, so the file stays within about twice the live records (plus
// kMinCompactBytes) and a crash during it leaves the old file whole.
// It tolerates a damaged file: an unreadable line (a write cut short by a crash, or corruption) is skipped and
// named in Loaded::problems, never fatal. It never decides what to keep: the dispatcher's ResultStore does, and
// tells it. Writes are flushed to the kernel at once (a SIGKILL loses nothing); it does not fsync.
class ResultJournal {
public:
    struct Loaded {
        QList<ToolResultMessage> results;  // unacknowledged, in the order they finished
        QStringList interrupted;           // started, never finished: running when the app stopped
        QStringList problems;              // for the log: what was skipped and why
    };

    static constexpr qint64 kMinCompactBytes = 1024 * 1024;
    static constexpr qint64 kMaxLineBytes = 32 * 1024 * 1024;  // one result, escaped; longer is corrupt

    // The journal of one backend in the app's data folder: results owed to one backend are never re-sent to
    // another one the user switches to. `<dataFolder>/journal/results-<first 16 hex of SHA-256(url)>.jsonl`.
    static QString pathFor(const QString& dataFolder, const QString& backendUrl);

    explicit ResultJournal(QString path);
    ~ResultJournal();
    ResultJournal(const ResultJournal&) = delete;
    ResultJournal& operator=(const ResultJournal&) = delete;

    QString path() const { return m_path; }

    // Reads the log; a missing file is an empty journal.
    Loaded load();
    bool recordStarted(const QString& callId);
    bool recordResult(const ToolResultMessage& result);
    bool recordForgotten(const QString& callId);
    // Replaces the log with exactly these records (atomic), and appends after them from then on.
    bool rewrite(const QStringList& running, const QList<ToolResultMessage>& results);
    // The log has grown past twice its live records (and past kMinCompactBytes): time for rewrite().
    bool needsCompaction() const;
    qint64 fileBytes() const { return m_fileBytes; }

    // What a call that was running when the app died is reported as (SPEC §5).
    static QString interruptedMessage();
    static ToolResultMessage interruptedResult(const QString& callId);

    // One record as its line (newline included) and back; pure.
    static QByteArray startedLine(const QString& callId);
    static QByteArray resultLine(const ToolResultMessage& result);
    static QByteArray forgetLine(const QString& callId);

private:
    bool append(const QByteArray& text, const QString& callId, bool live);
    bool ensureFolder() const;

    QString m_path;
    QFile m_file;  // open for appending once the first record is written
    qint64 m_fileBytes = 0;
    QHash<QString, qint64> m_liveBytes;  // call id -> bytes of its live record
    qint64 m_liveTotal = 0;
};

}  // namespace zeus
