#pragma once

#include <QString>

namespace zeus {

// Decides whether a host folder may be mounted at /workspace (SPEC §3). It owns the
// list of refused places and the reasons; it is pure apart from reading the file
// system's metadata. It must never create, modify or open anything it checks.
class WorkspaceGuard {
public:
    // The rule that refused a folder; Accepted when none did.
    enum class Rule {
        Accepted,
        Empty,             // no path given
        ControlCharacter,  // newline, tab, NUL or another control character in the path
        NotAbsolute,       // a relative path would depend on the app's current directory
        NotFound,          // does not exist (nothing is created)
        NotADirectory,     // exists but is a file or something else
        FileSystemRoot,    // "/"
        DriveRoot,         // "C:/", a network share root
        HomeOrAncestor,    // the home folder itself, or a folder that contains it
        SystemTree,        // /etc, /usr, /System, C:/Windows, ... or inside one
        SecretStore,       // ~/.ssh, ~/.gnupg, ~/.aws, keychains, ... or inside one
    };

    // Where the guard looks; injectable so tests never depend on the real home folder.
    struct Environment {
        QString homePath;              // the user's home folder (resolved through symlinks when it exists)
        bool caseInsensitive = false;  // the file system compares names without case (macOS, Windows)
    };

    struct Result {
        Rule rule = Rule::Empty;
        QString canonicalPath;  // the resolved folder (set when the folder exists)
        QString message;        // for the user: which rule refused, in words
        bool accepted() const { return rule == Rule::Accepted; }
    };

    // The running user's environment (QDir::homePath(), case rule of the platform).
    static Environment hostEnvironment();

    // Checks one folder; the returned canonicalPath is what must be mounted.
    static Result check(const QString& path, const Environment& environment = hostEnvironment());

    // A folder as it was approved, checked again before it is mounted: check()'s rules, and it must still resolve to
    // the very string it was approved as (SPEC §3 "Approvals are exact strings"): one a component of which was swapped
    // for a symlink since is not the folder the user approved. Empty: it may be mounted (by its clean path); else the
    // refusal, for the user, naming the rule.
    static QString mountRefusal(const QString& approvedPath);

    // The location rules alone (root, drive root, home, secret stores, system trees) on a
    // path that is already resolved; no file system access. check() ends with this; tests
    // use it for paths of other platforms (C:/Windows, //server/share).
    static Result checkResolved(const QString& canonicalPath, const Environment& environment);

    // Stable machine name of a rule ("home_or_ancestor"), for logs and reports.
    static QString ruleName(Rule rule);

    // The secret stores below the home folder (relative paths), and the system trees.
    static const QStringList& secretStores();
    static const QStringList& systemTrees();
};

}  // namespace zeus
