#pragma once

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

namespace zeus {

// One row of the diagnostics checklist: what support staff read first. A plain value made by the
// section builders (diagnosticsections.h); it never runs anything.
class DiagnosticCheck {
    Q_GADGET

public:
    enum class Level {
        Ok,       // works; nothing to do
        Warning,  // works in part, or could not be checked; `action` says what would help
        Failed,   // this stops commands from running (or the backend from reaching the app)
    };
    Q_ENUM(Level)

    QString id;  // stable, snake_case ("runtime", "image"); part of the JSON report: never rename
    Level level = Level::Ok;
    QString summary;  // one line for people
    QString action;   // what to do; empty when Ok

    // "ok", "warning", "failed": stable names for JSON.
    static QString levelToString(Level level);
    // The text report's marker: "[ok]", "[ !]", "[!!]" (same width, so the summaries line up).
    static QString levelMarker(Level level);
    // A short translated word ("OK", "Warning", "Failed").
    static QString levelLabel(Level level);
    // The worst level of a list (Ok for none).
    static Level worst(const QList<DiagnosticCheck>& checks);

    // {"id", "level", "summary", "action"}
    QJsonObject toJson() const;

    friend bool operator==(const DiagnosticCheck& a, const DiagnosticCheck& b) {
        return a.id == b.id && a.level == b.level && a.summary == b.summary && a.action == b.action;
    }
};

}  // namespace zeus

Q_DECLARE_METATYPE(zeus::DiagnosticCheck)
