#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace zeus {

// Approvals are exact strings (SPEC §3). An approval is the canonical path the user approved, stored as a string;
// the backend's working_directory is matched against those strings lexically (cleaned, separators normalised),
// before anything touches the file system, so a path nobody approved is never stat'ed, canonicalised or mounted
// (a network path would leak credentials or hang, an automounter would fire). The mount source is the approved
// string. An approval that no longer resolves to itself (a component was replaced by a symlink) is "changed":
// inactive until the user approves it again.
//
// Pure apart from the Resolver, which is the one seam to the file system: tests inject one that records every
// path it is asked about. Must never resolve a path that did not match an approval.
class WorkspaceApproval {
public:
    // What an approval is now.
    enum class State {
        Active,   // resolves to itself: commands may run there
        Missing,  // does not exist (deleted, moved, replaced by a file): workspace_invalid
        Changed,  // exists but resolves elsewhere (a component is a symlink now): inactive until approved again
        Nested,   // inside or around another approval (stored before nesting was refused): inactive until one goes
    };

    // The file system, as far as approvals need it.
    struct Resolver {
        // The canonical path of an existing directory (symlinks resolved, cleaned); empty when it is none.
        std::function<QString(const QString&)> canonicalDirectory;
    };
    static Resolver hostResolver();

    // The device and inode of a directory (following symlinks), where the platform has them (POSIX).
    struct Identity {
        quint64 device = 0;
        quint64 inode = 0;
        bool operator==(const Identity& other) const { return device == other.device && inode == other.inode; }
        bool operator!=(const Identity& other) const { return !(*this == other); }
    };
    static std::optional<Identity> hostIdentity(const QString& path);
    // `stat -c '%d %i'` output ("65024 247066\n"); nullopt when it is not two numbers.
    static std::optional<Identity> parseIdentity(const QString& text);

    // The lexical form of a path for matching: separators normalised (backslashes too on Windows), cleaned, no
    // trailing slash. Empty when the path can never be approved: empty, relative, a control character, or a network
    // path (`\\server\share`, `//host/...`, `\\?\...`), refused outright on every platform.
    static QString lexicalForm(const QString& path, bool windows = isWindowsHost());
    static bool isNetworkPath(const QString& path);

    // The approval `workingDirectory` names, compared lexically; empty when none. No file system access.
    static QString match(const QString& workingDirectory, const QStringList& approved, Qt::CaseSensitivity cs,
                         bool windows = isWindowsHost());

    // What `approved` is now, through the resolver.
    static State stateOf(const QString& approved, const Resolver& resolver, Qt::CaseSensitivity cs);
    // The same among all stored approvals: Nested when another one lies inside or around it. Settings written
    // before nesting was refused may hold both; neither is used until the user revokes one (either could be
    // reached through the other by renaming and symlinking inside it). Lexical, no file system access for that.
    static State stateAmong(const QString& approved, const QStringList& all, const Resolver& resolver,
                            Qt::CaseSensitivity cs);
    static QString stateName(State state);  // "active", "missing", "changed", "nested"

    // The approval that `candidate` (canonical) lies inside or contains, or is; empty when none. A folder inside or
    // containing an approved one cannot be approved as well (SPEC §3): one approval could otherwise be reached through
    // the other by renaming and symlinking inside it.
    static QString overlapping(const QString& candidate, const QStringList& approved, Qt::CaseSensitivity cs);

    static constexpr bool isWindowsHost() {
#ifdef Q_OS_WIN
        return true;
#else
        return false;
#endif
    }
};

}  // namespace zeus
