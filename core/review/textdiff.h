#pragma once

#include <QByteArray>
#include <QString>

namespace zeus {

// Unified diffs of two versions of one file, for the Changes view (SPEC §10: diffs for text, size and hash for
// binary). Pure: no file is read.
class TextDiff {
public:
    TextDiff() = delete;

    // Binary: a NUL byte in the first 8000 bytes (git's rule), or not valid UTF-8.
    static bool looksBinary(const QByteArray& data);

    struct Result {
        QString text;           // "--- a/PATH\n+++ b/PATH\n@@ -l,n +l,n @@\n…" ("/dev/null" for a missing side)
        bool tooLarge = false;  // more than maxLines lines on a side: no diff, text says so
        int added = 0;
        int removed = 0;
    };
    // `before`/`after` null (QByteArray()) for a file that is missing on that side. Lines end at '\n'; a last line
    // without one is marked "\ No newline at end of file" as diff does. Myers' O(ND) algorithm.
    static Result unified(const QByteArray& before, const QByteArray& after, const QString& path, int context = 3,
                          int maxLines = 200000);
};

}  // namespace zeus
