#pragma once
// Reads and applies a unified diff ("--- a/P", "+++ b/P", "@@ -l,n +l,n @@" hunks, "\ No newline at end of file")
// the way patch and git apply do, written apart from TextDiff so the diff tests have an independent oracle. Strict:
// a hunk whose counts, positions, context or removed lines do not fit the text makes the whole patch fail.

#include <QByteArray>
#include <QList>
#include <QRegularExpression>
#include <QString>

#include <optional>

namespace zeus::test {

struct UnifiedHunk {
    int oldStart = 0;  // as written in the header: 1-based, or the line before when the count is 0
    int oldCount = 0;
    int newStart = 0;
    int newCount = 0;
    QList<QByteArray> lines;  // each with its prefix (' ', '-', '+'), its '\n' unless the marker followed it
};

struct UnifiedPatch {
    QByteArray oldName;  // "a/P" or "/dev/null"
    QByteArray newName;
    QList<UnifiedHunk> hunks;
};

// nullopt when the text is not a well-formed unified diff; an empty text is an empty patch.
inline std::optional<UnifiedPatch> parseUnified(const QString& text) {
    UnifiedPatch patch;
    if (text.isEmpty()) {
        return patch;
    }
    const QByteArray bytes = text.toUtf8();
    if (!bytes.endsWith('\n')) {
        return std::nullopt;
    }
    const QList<QByteArray> lines = bytes.chopped(1).split('\n');
    if (lines.size() < 3 || !lines.at(0).startsWith("--- ") || !lines.at(1).startsWith("+++ ")) {
        return std::nullopt;
    }
    patch.oldName = lines.at(0).mid(4);
    patch.newName = lines.at(1).mid(4);
    static const QRegularExpression header(QStringLiteral("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@$"));
    qsizetype at = 2;
    while (at < lines.size()) {
        const QRegularExpressionMatch match = header.match(QString::fromUtf8(lines.at(at++)));
        if (!match.hasMatch()) {
            return std::nullopt;
        }
        UnifiedHunk hunk;
        hunk.oldStart = match.captured(1).toInt();
        hunk.oldCount = match.captured(2).isEmpty() ? 1 : match.captured(2).toInt();
        hunk.newStart = match.captured(3).toInt();
        hunk.newCount = match.captured(4).isEmpty() ? 1 : match.captured(4).toInt();
        // diff writes ",1" never, ",0" always.
        if (match.captured(2) == QLatin1String("1") || match.captured(4) == QLatin1String("1")) {
            return std::nullopt;
        }
        int oldSeen = 0;
        int newSeen = 0;
        while (oldSeen < hunk.oldCount || newSeen < hunk.newCount) {
            if (at == lines.size() || lines.at(at).isEmpty()) {
                return std::nullopt;
            }
            QByteArray line = lines.at(at++);
            const char prefix = line.at(0);
            if (prefix == ' ') {
                ++oldSeen;
                ++newSeen;
            } else if (prefix == '-') {
                ++oldSeen;
            } else if (prefix == '+') {
                ++newSeen;
            } else {
                return std::nullopt;
            }
            if (oldSeen > hunk.oldCount || newSeen > hunk.newCount) {
                return std::nullopt;
            }
            if (at < lines.size() && lines.at(at).startsWith('\\')) {
                if (lines.at(at) != "\\ No newline at end of file") {
                    return std::nullopt;
                }
                ++at;
            } else {
                line += '\n';
            }
            hunk.lines.append(line);
        }
        patch.hunks.append(hunk);
    }
    return patch;
}

// The text the patch makes of `before`; nullopt when it does not apply exactly. A null result for "+++ /dev/null".
inline std::optional<QByteArray> applyUnified(const QByteArray& before, const QString& text) {
    const std::optional<UnifiedPatch> patch = parseUnified(text);
    if (!patch) {
        return std::nullopt;
    }
    if (patch->hunks.isEmpty()) {
        return before;
    }
    QList<QByteArray> source;
    for (qsizetype start = 0; start < before.size();) {
        const qsizetype newline = before.indexOf('\n', start);
        const qsizetype end = newline < 0 ? before.size() : newline + 1;
        source.append(before.mid(start, end - start));
        start = end;
    }
    if (patch->oldName == "/dev/null" && !source.isEmpty()) {
        return std::nullopt;
    }
    QByteArray out;
    qsizetype used = 0;     // source lines consumed
    qsizetype written = 0;  // lines in `out`
    bool outEnded = false;  // `out` ends with a line without '\n': nothing may follow
    const auto write = [&](const QByteArray& line) {
        if (outEnded) {
            return false;
        }
        out += line;
        ++written;
        outEnded = !line.endsWith('\n');
        return true;
    };
    for (const UnifiedHunk& hunk : patch->hunks) {
        const qsizetype oldFirst = hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1;
        const qsizetype newFirst = hunk.newCount == 0 ? hunk.newStart : hunk.newStart - 1;
        if (oldFirst < used || oldFirst > source.size()) {
            return std::nullopt;
        }
        while (used < oldFirst) {
            if (!write(source.at(used++))) {
                return std::nullopt;
            }
        }
        if (newFirst != written) {
            return std::nullopt;
        }
        for (const QByteArray& line : hunk.lines) {
            const QByteArray content = line.mid(1);
            if (line.at(0) != '+') {
                if (used == source.size() || source.at(used) != content) {
                    return std::nullopt;
                }
                ++used;
            }
            if (line.at(0) != '-' && !write(content)) {
                return std::nullopt;
            }
        }
    }
    while (used < source.size()) {
        if (!write(source.at(used++))) {
            return std::nullopt;
        }
    }
    if (patch->newName == "/dev/null") {
        return out.isEmpty() ? std::optional<QByteArray>(QByteArray()) : std::nullopt;
    }
    return out;
}

}  // namespace zeus::test
