#include "sandbox/workspaceguard.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace zeus {

namespace {

bool hasControlCharacter(const QString& path) {
    for (const QChar c : path) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator || c == QChar::ParagraphSeparator) {
            return true;
        }
    }
    return false;
}

// Normalised for comparison: forward slashes, no trailing slash except for a root.
QString normalised(const QString& path) {
    QString p = QDir::fromNativeSeparators(path);
    // A Windows path is normalised the same on every platform (rules are also checked there).
    static const QRegularExpression windowsLike(QStringLiteral("^([A-Za-z]:[\\\\/]|\\\\\\\\)"));
    if (windowsLike.match(p).hasMatch()) {
        p.replace(QLatin1Char('\\'), QLatin1Char('/'));
    }
    while (p.size() > 1 && p.endsWith(QLatin1Char('/')) && !p.endsWith(QLatin1String(":/"))) {
        p.chop(1);
    }
    return p;
}

// True when `path` is `base` or lies below it.
bool isSameOrInside(const QString& path, const QString& base, Qt::CaseSensitivity cs) {
    if (base.isEmpty()) {
        return false;
    }
    if (path.compare(base, cs) == 0) {
        return true;
    }
    const QString prefix = base.endsWith(QLatin1Char('/')) ? base : base + QLatin1Char('/');
    return path.startsWith(prefix, cs);
}

bool isDriveRoot(const QString& path) {
    // "C:", "C:/", "//server/share" (a UNC share root)
    static const QRegularExpression drive(QStringLiteral("^[A-Za-z]:/?$"));
    static const QRegularExpression unc(QStringLiteral("^//[^/]+(/[^/]+)?/?$"));
    return drive.match(path).hasMatch() || unc.match(path).hasMatch();
}

QString resolvedHome(const QString& home) {
    const QString canonical = QFileInfo(home).canonicalFilePath();
    return normalised(canonical.isEmpty() ? home : canonical);
}

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::WorkspaceGuard", text);
}

WorkspaceGuard::Result refuse(WorkspaceGuard::Rule rule, const QString& canonical, const QString& message) {
    WorkspaceGuard::Result result;
    result.rule = rule;
    result.canonicalPath = canonical;
    result.message = message;
    return result;
}

}  // namespace

const QStringList& WorkspaceGuard::secretStores() {
    static const QStringList stores = {
        QStringLiteral(".ssh"),
        QStringLiteral(".gnupg"),
        QStringLiteral(".aws"),
        QStringLiteral(".azure"),
        QStringLiteral(".config"),
        QStringLiteral(".kube"),
        QStringLiteral(".docker"),
        QStringLiteral(".password-store"),
        QStringLiteral(".pki"),
        QStringLiteral(".local/share/keyrings"),
        QStringLiteral(".netrc"),
        QStringLiteral(".git-credentials"),
        QStringLiteral(".terraform.d"),
        QStringLiteral(".vault-token"),
        QStringLiteral("Library/Keychains"),
        QStringLiteral("Library/Application Support"),
        QStringLiteral("Library/Preferences"),
        QStringLiteral("AppData"),
        // Programs and start-up items this computer runs by itself: a command writing there runs on the host.
        QStringLiteral(".local/bin"),
        QStringLiteral("bin"),
        QStringLiteral("Library/LaunchAgents"),
        QStringLiteral("Library/LaunchDaemons"),
        QStringLiteral("Library/StartupItems"),
        // Browser profiles (cookies, saved passwords); Chromium's and the Linux ones under ~/.config are covered.
        QStringLiteral(".mozilla"),
        QStringLiteral(".thunderbird"),
        QStringLiteral("snap/firefox"),
        QStringLiteral("snap/chromium"),
        QStringLiteral("Library/Safari"),
        QStringLiteral("Library/Cookies"),
        QStringLiteral("Library/Containers"),
    };
    return stores;
}

const QStringList& WorkspaceGuard::systemTrees() {
    static const QStringList trees = {
        // Linux / Unix
        QStringLiteral("/etc"),
        QStringLiteral("/usr"),
        QStringLiteral("/bin"),
        QStringLiteral("/sbin"),
        QStringLiteral("/lib"),
        QStringLiteral("/lib32"),
        QStringLiteral("/lib64"),
        QStringLiteral("/libx32"),
        QStringLiteral("/boot"),
        QStringLiteral("/dev"),
        QStringLiteral("/proc"),
        QStringLiteral("/sys"),
        QStringLiteral("/var"),
        QStringLiteral("/run"),
        QStringLiteral("/root"),
        QStringLiteral("/snap"),
        QStringLiteral("/opt/homebrew"),
        // macOS (/etc and /var resolve into /private)
        QStringLiteral("/System"),
        QStringLiteral("/Library"),
        QStringLiteral("/Applications"),
        QStringLiteral("/private/etc"),
        QStringLiteral("/private/var"),
        QStringLiteral("/cores"),
        QStringLiteral("/Volumes/Macintosh HD"),
        // Windows (any drive letter is checked below)
        QStringLiteral("C:/Windows"),
        QStringLiteral("C:/Program Files"),
        QStringLiteral("C:/Program Files (x86)"),
        QStringLiteral("C:/ProgramData"),
        QStringLiteral("C:/Users/Default"),
        QStringLiteral("C:/Users/Public"),
    };
    return trees;
}

WorkspaceGuard::Environment WorkspaceGuard::hostEnvironment() {
    Environment environment;
    environment.homePath = QDir::homePath();
#if defined(Q_OS_MACOS) || defined(Q_OS_WIN)
    environment.caseInsensitive = true;
#endif
    return environment;
}

QString WorkspaceGuard::ruleName(Rule rule) {
    switch (rule) {
        case Rule::Accepted:
            return QStringLiteral("accepted");
        case Rule::Empty:
            return QStringLiteral("empty");
        case Rule::ControlCharacter:
            return QStringLiteral("control_character");
        case Rule::NotAbsolute:
            return QStringLiteral("not_absolute");
        case Rule::NotFound:
            return QStringLiteral("not_found");
        case Rule::NotADirectory:
            return QStringLiteral("not_a_directory");
        case Rule::FileSystemRoot:
            return QStringLiteral("file_system_root");
        case Rule::DriveRoot:
            return QStringLiteral("drive_root");
        case Rule::HomeOrAncestor:
            return QStringLiteral("home_or_ancestor");
        case Rule::SystemTree:
            return QStringLiteral("system_tree");
        case Rule::SecretStore:
            return QStringLiteral("secret_store");
    }
    return QStringLiteral("unknown");
}

WorkspaceGuard::Result WorkspaceGuard::check(const QString& path, const Environment& environment) {
    if (path.trimmed().isEmpty()) {
        return refuse(Rule::Empty, {}, tr("No working directory was given."));
    }
    if (hasControlCharacter(path)) {
        return refuse(Rule::ControlCharacter, {},
                      tr("The path contains a control character (such as a newline); it is refused."));
    }
    const QString given = QDir::fromNativeSeparators(path);
    if (!QDir::isAbsolutePath(given) && !QRegularExpression(QStringLiteral("^[A-Za-z]:/")).match(given).hasMatch()) {
        return refuse(Rule::NotAbsolute, {}, tr("The working directory must be an absolute path."));
    }
    // QFileInfo::exists() and canonicalFilePath() only read metadata; nothing is created.
    const QFileInfo info(given);
    if (!info.exists()) {
        return refuse(Rule::NotFound, {}, tr("The folder does not exist: %1").arg(path));
    }
    const QString canonical = normalised(info.canonicalFilePath());
    if (canonical.isEmpty()) {
        return refuse(Rule::NotFound, {}, tr("The folder cannot be resolved: %1").arg(path));
    }
    if (!QFileInfo(canonical).isDir()) {
        return refuse(Rule::NotADirectory, canonical, tr("This is not a folder: %1").arg(canonical));
    }
    if (hasControlCharacter(canonical)) {
        return refuse(Rule::ControlCharacter, canonical,
                      tr("The resolved path contains a control character; it is refused."));
    }
    return checkResolved(canonical, environment);
}

WorkspaceGuard::Result WorkspaceGuard::checkResolved(const QString& canonicalPath, const Environment& environment) {
    const QString canonical = normalised(canonicalPath);
    if (hasControlCharacter(canonical)) {
        return refuse(Rule::ControlCharacter, canonical,
                      tr("The resolved path contains a control character; it is refused."));
    }
    if (canonical == QLatin1String("/")) {
        return refuse(Rule::FileSystemRoot, canonical,
                      tr("The root of the file system cannot be a working directory."));
    }
    if (isDriveRoot(canonical)) {
        return refuse(Rule::DriveRoot, canonical, tr("A drive root cannot be a working directory: %1").arg(canonical));
    }

    const Qt::CaseSensitivity cs = environment.caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    // The shared temporary folder itself (other programs' sockets live there, the X11 display's among them); a
    // folder inside it is fine.
    for (const QLatin1String shared : {QLatin1String("/tmp"), QLatin1String("/private/tmp")}) {
        if (canonical.compare(shared, cs) == 0) {
            return refuse(Rule::SystemTree, canonical,
                          tr("%1 is the shared temporary folder (other programs' sockets are in it); choose a folder "
                             "inside it.")
                              .arg(canonical));
        }
    }
    const QString home = environment.homePath.isEmpty() ? QString() : resolvedHome(environment.homePath);
    // Secret stores first: ~/.ssh is also "inside home" and must name the stricter rule.
    if (!home.isEmpty()) {
        for (const QString& store : secretStores()) {
            if (isSameOrInside(canonical, home + QLatin1Char('/') + store, cs)) {
                return refuse(Rule::SecretStore, canonical,
                              tr("%1 holds credentials, browser data or programs this computer runs (%2) and cannot "
                                 "be a working directory.")
                                  .arg(canonical, QStringLiteral("~/") + store));
            }
        }
        if (isSameOrInside(home, canonical, cs)) {
            return refuse(
                Rule::HomeOrAncestor, canonical,
                tr("%1 is your home folder or contains it; choose a project folder inside it.").arg(canonical));
        }
    }
    for (const QString& tree : systemTrees()) {
        // Windows trees are compared on every drive letter and always without case.
        if (tree.startsWith(QLatin1String("C:/"))) {
            if (canonical.size() >= 2 && canonical.at(1) == QLatin1Char(':')
                && isSameOrInside(canonical.mid(2), tree.mid(2), Qt::CaseInsensitive)) {
                return refuse(Rule::SystemTree, canonical,
                              tr("%1 is a system folder and cannot be a working directory.").arg(canonical));
            }
            continue;
        }
        // The home folder may live in a system tree (root's is /root, a service user's under /var/lib): a folder
        // inside it is the user's own, like anywhere else. The home folder itself was refused above.
        if (!home.isEmpty() && isSameOrInside(home, tree, cs) && isSameOrInside(canonical, home, cs)) {
            continue;
        }
        if (isSameOrInside(canonical, tree, cs)) {
            return refuse(Rule::SystemTree, canonical,
                          tr("%1 is a system folder (%2) and cannot be a working directory.").arg(canonical, tree));
        }
    }

    Result result;
    result.rule = Rule::Accepted;
    result.canonicalPath = canonical;
    return result;
}

QString WorkspaceGuard::mountRefusal(const QString& approvedPath) {
    const Environment environment = hostEnvironment();
    const Result guard = check(approvedPath, environment);
    if (!guard.accepted()) {
        return guard.message + QStringLiteral(" (rule: ") + ruleName(guard.rule) + QLatin1Char(')');
    }
    const QString approved = QDir::cleanPath(approvedPath);
    const Qt::CaseSensitivity cs = environment.caseInsensitive ? Qt::CaseInsensitive : Qt::CaseSensitive;
    if (guard.canonicalPath.compare(approved, cs) != 0) {
        return QStringLiteral(
                   "The folder %1 changed since it was approved: it now resolves to %2. Approve it again "
                   "in Zeus Desktop.")
            .arg(approved, guard.canonicalPath);
    }
    return {};
}

}  // namespace zeus
