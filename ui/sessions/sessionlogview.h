#pragma once

#include "sessions/sessionlogmodel.h"

#include <QString>
#include <QTimer>
#include <QWidget>

#include <deque>

class QLabel;
class QListView;
class QPushButton;

namespace zeus {

class SessionLogDelegate;

// The live log of one session: commands, their streamed output and results.
//
// Appends are coalesced: text is queued and applied to the model at most every
// kFlushIntervalMs, and never more than kMaxCharsPerFlush at a time, so a command that
// prints 64 MiB cannot stall the event loop. The view follows the newest line unless the
// user scrolled up; then a bar offers to follow again.
//
// Owns its model, delegate and queue. It must never run a process or parse protocol
// messages: callers hand it text.
class SessionLogView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kFlushIntervalMs = 50;
    static constexpr qsizetype kMaxCharsPerFlush = 2 * 1024 * 1024;

    explicit SessionLogView(QWidget* parent = nullptr);
    ~SessionLogView() override;

    SessionLogModel* model() const { return m_model; }
    QListView* listView() const { return m_list; }

    void appendStdout(const QString& text);
    void appendStderr(const QString& text);
    // "$ command" as its own line.
    void appendCommand(const QString& command);
    // A result line: exit code, status, duration.
    void appendResult(const QString& summary);
    void appendNotice(const QString& notice);
    void clear();

    // Applies everything queued now (tests, and before copying).
    void flushAll();
    qsizetype pendingChars() const { return m_pendingChars; }
    bool isFollowingTail() const { return m_following; }
    void setFollowingTail(bool follow);

    // The selected lines joined by newlines (empty when nothing is selected).
    QString selectedText() const;

Q_SIGNALS:
    void followingTailChanged(bool following);

private:
    struct Chunk {
        SessionLogModel::Kind kind;
        QString text;
        bool wholeLine;
    };

    void enqueue(SessionLogModel::Kind kind, const QString& text, bool wholeLine);
    void flushSome();
    void onScrolled(int value);
    void updatePausedBar();
    void copySelection() const;

    SessionLogModel* m_model = nullptr;
    SessionLogDelegate* m_delegate = nullptr;
    QListView* m_list = nullptr;
    QWidget* m_pausedBar = nullptr;
    QLabel* m_pausedLabel = nullptr;
    QPushButton* m_followButton = nullptr;
    QTimer m_flushTimer;
    std::deque<Chunk> m_pending;
    qsizetype m_pendingChars = 0;
    bool m_following = true;
    bool m_applying = false;
    qint64 m_linesWhilePaused = 0;
};

}  // namespace zeus
