#pragma once

#include <QList>
#include <QRegularExpression>
#include <QString>

namespace zeus {

// Decides which paths of a folder stay out of a review copy: the patterns of `.zeusignore` files (gitignore
// syntax, each relative to the folder it lies in) and the built-in default exclusions (secrets, SPEC §10).
//
// Paths are relative to the folder's root, with forward slashes, no leading or trailing slash. Matching follows
// git's own rules byte for byte on the UTF-8 form (`?` is one byte, as in git), so `git check-ignore` agrees
// (tst_ignorematcher runs both on one table): the last matching line wins; a deeper ignore file wins over a
// shallower one; the defaults come first, so a user's `!.env` in `.zeusignore` can take one back (it is the
// user's own folder and choice); nothing inside an excluded folder can be re-included. User patterns are case
// sensitive (git's default); the defaults ignore case, so `.ENV` on a case-insensitive disk stays out too.
//
// A plain value: it reads no file itself (the walker hands it each ignore file's text) and never touches the disk.
class IgnoreMatcher {
public:
    // One built-in exclusion and why it is there (docs/review-mode.md lists the same).
    struct DefaultExclusion {
        QString pattern;
        QString reason;
    };

    // What decided about one path.
    struct Match {
        bool ignored = false;
        QString pattern;  // the deciding line as written (with its `!`), empty when no line matched
        QString source;   // the folder of the ignore file ("" for the root), or "(default)"
    };

    // The name of the per-folder ignore file.
    static QString ignoreFileName() { return QStringLiteral(".zeusignore"); }
    static const QList<DefaultExclusion>& defaultExclusions();

    // `withDefaults`: start with the default exclusions (the review copy always does; tests compare with git
    // without them).
    explicit IgnoreMatcher(bool withDefaults = true);

    // Adds the lines of the ignore file found in `folder` (relative to the root, "" for the root itself). Files
    // added later for deeper folders take precedence, as git's do.
    // `sensitivity`: git's default is case sensitive; lists of risky names (ChangeSet) ignore case.
    void addPatterns(const QString& folder, const QByteArray& text,
                     Qt::CaseSensitivity sensitivity = Qt::CaseSensitive);

    // The full answer: ignored when an enclosing folder is, else when the last matching line says so.
    Match match(const QString& relativePath, bool isDirectory) const;
    bool isIgnored(const QString& relativePath, bool isDirectory) const {
        return match(relativePath, isDirectory).ignored;
    }
    // The answer for the path alone, its folders assumed not excluded: what a walker that never descends into an
    // excluded folder asks.
    Match matchEntry(const QString& relativePath, bool isDirectory) const;

    int patternCount() const { return static_cast<int>(m_patterns.size()); }

private:
    struct Pattern {
        QString text;    // as written, for Match::pattern
        QString source;  // folder of its file, "" for the root, "(default)" for a built-in
        QString base;    // folder prefix in Latin-1-of-UTF-8 form with a trailing '/', "" for the root
        int depth = 0;   // of its file's folder (-1 for a built-in): deeper ones win
        bool negative = false;
        bool directoryOnly = false;
        bool basenameOnly = false;  // no slash in the pattern: matched against the last component, at any depth
        QRegularExpression regex;   // over the Latin-1-of-UTF-8 form of the path
    };

    void addLine(const QString& source, const QString& base, const QByteArray& line, bool caseInsensitive);

    QList<Pattern> m_patterns;
};

}  // namespace zeus
