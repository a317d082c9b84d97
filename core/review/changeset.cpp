#include "review/changeset.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace zeus {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("zeus::ChangeSet", text);
}

// The risky patterns as one case-insensitive matcher, and each pattern's reason.
struct RiskyIndex {
    IgnoreMatcher matcher{false};
    QHash<QString, QString> reasons;
};

const RiskyIndex& riskyIndex() {
    static const RiskyIndex index = [] {
        RiskyIndex built;
        QByteArray text;
        for (const ChangeSet::RiskyPattern& risky : ChangeSet::riskyPatterns()) {
            text += risky.pattern.toUtf8() + '\n';
            built.reasons.insert(risky.pattern, risky.reason);
        }
        built.matcher.addPatterns(QString(), text, Qt::CaseInsensitive);
        return built;
    }();
    return index;
}

void addReason(Change& change, const QString& reason) {
    if (reason.isEmpty()) {
        return;
    }
    change.flagged = true;
    change.flagReason = change.flagReason.isEmpty() ? reason : change.flagReason + QStringLiteral("; ") + reason;
}

void classify(Change& change, const QSet<QString>& linksOut) {
    // Before the .git and risky-file rules: "GIT~1/config" or ".git./hooks" must not pass as ordinary files because
    // they do not spell ".git". Refused on every host (the folder may be on a disk that follows Windows' rules).
    const QString windows = ChangeSet::windowsNameProblem(change.path);
    if (!windows.isEmpty()) {
        change.applicable = false;
        change.notApplicableReason = windows;
        return;
    }
    if (ChangeSet::isGitInternal(change.path)) {
        change.applicable = false;
        change.notApplicableReason = QCoreApplication::translate(
            "zeus::ChangeSet",
            "Inside .git: never applied as files; the agent's commits are fetched from a git bundle instead.");
    }
    if (!change.hasAfter) {
        return;  // a deletion runs nothing
    }
    const ManifestEntry& after = change.after;
    addReason(change, ChangeSet::hostRunsCodeReason(change.path));
    if (after.type == ManifestEntry::Type::Directory) {
        const QString asFolder = riskyIndex().matcher.matchEntry(change.path, true).pattern;
        if (change.flagReason.isEmpty() && !asFolder.isEmpty()) {
            addReason(change, QCoreApplication::translate("zeus::ChangeSet",
                                                          riskyIndex().reasons.value(asFolder).toLatin1().constData()));
        }
    }
    if (after.type == ManifestEntry::Type::Symlink
        && (ChangeSet::linkLeavesFolder(change.path, after.linkTarget) || linksOut.contains(change.path))) {
        addReason(change,
                  QCoreApplication::translate("zeus::ChangeSet", "a symbolic link that points outside the folder"));
    }
    const bool wasExecutable = change.hasBefore && change.before.isExecutable();
    if (after.isExecutable() && !wasExecutable) {
        addReason(change, QCoreApplication::translate("zeus::ChangeSet", "becomes executable"));
    }
}

// Where the links of a review copy lead, followed as the host would follow them once applied (SPEC §10: a link whose
// target resolves through other links outside the folder is flagged). Which links the host will hold depends on
// what the user applies, so every path that is a link on either side is followed every way it can be: as each
// side's link and, unless it is a link on both sides, as a plain folder. Names are compared case-insensitively (a
// macOS or Windows disk). A way that expands more than kMaxDepth links (a loop), or a walk that takes more than
// kMaxSteps expansions in all, counts as leaving the folder.
class LinkWalker {
public:
    LinkWalker(const WorkspaceManifest& before, const WorkspaceManifest& after) {
        add(before, m_inBefore, false);
        add(after, m_inAfter, true);
        for (auto it = m_links.begin(); it != m_links.end(); ++it) {
            it->plain = !(m_inBefore.contains(it.key()) && m_inAfter.contains(it.key()));
        }
    }

    const QStringList& linkPaths() const { return m_paths; }

    // Walks to `path` (a link: its targets are followed) and adds to `out` the copy's links on every way that
    // leaves the folder.
    void collectLeaving(const QString& path, QSet<QString>& out) {
        m_steps = 0;
        walk({}, path.split(QLatin1Char('/')), {}, 0, out);
    }

private:
    static constexpr int kMaxDepth = 40;  // Linux's own limit on links in one path
    static constexpr int kMaxSteps = 4096;

    struct Node {
        QStringList targets;
        bool plain = false;     // a folder, a file or absent on one side: a way may go on through it as a name
        QStringList copyPaths;  // the copy's spellings of the path, where it is a link there
    };

    static QString key(const QString& path) { return path.toCaseFolded(); }

    static bool isAbsolute(const QString& target) {
        return target.isEmpty() || target.startsWith(QLatin1Char('/')) || target.startsWith(QLatin1Char('\\'))
               || (target.size() >= 2 && target.at(1) == QLatin1Char(':'));
    }

    static QStringList splitTarget(const QString& target) {
        static const QRegularExpression separator(QStringLiteral("[/\\\\]"));
        return target.split(separator);
    }

    void add(const WorkspaceManifest& manifest, QSet<QString>& side, bool copy) {
        for (const ManifestEntry& entry : manifest.entries) {
            if (entry.type != ManifestEntry::Type::Symlink) {
                continue;
            }
            const QString k = key(entry.path);
            Node& node = m_links[k];
            if (!node.targets.contains(entry.linkTarget)) {
                node.targets.append(entry.linkTarget);
            }
            if (copy) {
                node.copyPaths.append(entry.path);
            }
            if (!side.contains(k) && !m_inBefore.contains(k) && !m_inAfter.contains(k)) {
                m_paths.append(entry.path);
            }
            side.insert(k);
        }
    }

    static void mark(const QStringList& through, QSet<QString>& out) {
        for (const QString& path : through) {
            out.insert(path);
        }
    }

    // Resolves `queue` from the folder `stack`; true when some way leaves the folder (its copy's links are added
    // to `out`).
    bool walk(QStringList stack, QStringList queue, const QStringList& through, int depth, QSet<QString>& out) {
        bool leaves = false;
        while (!queue.isEmpty()) {
            const QString part = queue.takeFirst();
            if (part.isEmpty() || part == QLatin1String(".")) {
                continue;
            }
            if (part == QLatin1String("..")) {
                if (stack.isEmpty()) {
                    mark(through, out);
                    return true;
                }
                stack.removeLast();
                continue;
            }
            stack.append(part);
            const auto it = m_links.constFind(key(stack.join(QLatin1Char('/'))));
            if (it == m_links.constEnd()) {
                continue;
            }
            const Node& node = *it;  // m_links is never changed during a walk
            const QStringList next = through + node.copyPaths;
            if (depth >= kMaxDepth || ++m_steps > kMaxSteps) {
                mark(next, out);
                return true;
            }
            QStringList folder = stack;
            folder.removeLast();
            for (const QString& target : node.targets) {
                if (isAbsolute(target)) {
                    mark(next, out);
                    leaves = true;
                } else if (walk(folder, splitTarget(target) + queue, next, depth + 1, out)) {
                    leaves = true;
                }
            }
            if (!node.plain) {
                return leaves;
            }
        }
        return leaves;
    }

    QHash<QString, Node> m_links;
    QSet<QString> m_inBefore;
    QSet<QString> m_inAfter;
    QStringList m_paths;
    int m_steps = 0;
};

// The copy's links that a way out of the folder goes through, starting from any link of either side.
QSet<QString> linksLeavingFolder(const WorkspaceManifest& before, const WorkspaceManifest& after) {
    QSet<QString> out;
    LinkWalker walker(before, after);
    for (const QString& path : walker.linkPaths()) {
        walker.collectLeaving(path, out);
    }
    return out;
}

}  // namespace

QJsonObject Change::summaryJson() const {
    QJsonObject object{{QStringLiteral("kind"), kindLetter(kind)},
                       {QStringLiteral("path"), path},
                       {QStringLiteral("flagged"), flagged},
                       {QStringLiteral("applicable"), applicable},
                       {QStringLiteral("exec_changed"), execChanged}};
    if (flagged) {
        object.insert(QStringLiteral("flag_reason"), flagReason);
    }
    if (!applicable) {
        object.insert(QStringLiteral("not_applicable_reason"), notApplicableReason);
    }
    return object;
}

QString Change::kindLetter(Kind kind) {
    switch (kind) {
        case Kind::Added:
            return QStringLiteral("A");
        case Kind::Modified:
            return QStringLiteral("M");
        case Kind::ModeChanged:
            return QStringLiteral("X");
        case Kind::Deleted:
            return QStringLiteral("D");
        case Kind::TypeChanged:
            return QStringLiteral("T");
    }
    return {};
}

const QList<ChangeSet::RiskyPattern>& ChangeSet::riskyPatterns() {
    // Keep in step with docs/review-mode.md. Files a tool, an editor, CI or git acts on without the user reading
    // them first; a source file the user runs on purpose is not on the list (the diff is the review for it).
    static const QList<RiskyPattern> list = {
        {QStringLiteral(".git/hooks/"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                            "zeus::ChangeSet", "git runs hooks on commit, checkout, merge and push"))},
        {QStringLiteral(".git/config"),
         QString::fromLatin1(QT_TRANSLATE_NOOP(
             "zeus::ChangeSet", "git config can set hooksPath, fsmonitor, filters and aliases that run commands"))},
        {QStringLiteral(".gitattributes"),
         QString::fromLatin1(
             QT_TRANSLATE_NOOP("zeus::ChangeSet", "names filter and diff drivers git runs on checkout and diff"))},
        {QStringLiteral(".gitmodules"),
         QString::fromLatin1(QT_TRANSLATE_NOOP(
             "zeus::ChangeSet", "submodule URLs: the next update fetches and checks out code from them"))},
        {QStringLiteral(".github/workflows/"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI runs workflows, with the repository's secrets"))},
        {QStringLiteral(".github/actions/"),
         QString::fromLatin1(
             QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI runs local actions, with the repository's secrets"))},
        {QStringLiteral(".gitlab-ci.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral(".circleci/"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral(".travis.yml"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral("azure-pipelines.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral("bitbucket-pipelines.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral(".buildkite/"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral(".drone.yml"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral("appveyor.yml"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral(".appveyor.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral("Jenkinsfile"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CI configuration"))},
        {QStringLiteral("Makefile"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "make runs its recipes"))},
        {QStringLiteral("GNUmakefile"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "make runs its recipes"))},
        {QStringLiteral("*.mk"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "make includes it"))},
        {QStringLiteral("CMakeLists.txt"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CMake runs it when the project is configured"))},
        {QStringLiteral("*.cmake"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "CMake runs it when the project is configured"))},
        {QStringLiteral("CMakePresets.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "sets the compilers and tools CMake runs"))},
        {QStringLiteral("CMakeUserPresets.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "sets the compilers and tools CMake runs"))},
        {QStringLiteral("meson.build"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Meson runs it when the project is configured"))},
        {QStringLiteral("build.gradle"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Gradle runs build scripts; IDEs do on import"))},
        {QStringLiteral("build.gradle.kts"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Gradle runs build scripts; IDEs do on import"))},
        {QStringLiteral("settings.gradle"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Gradle runs build scripts; IDEs do on import"))},
        {QStringLiteral("settings.gradle.kts"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Gradle runs build scripts; IDEs do on import"))},
        {QStringLiteral("gradle.properties"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "sets the JVM options Gradle starts with"))},
        {QStringLiteral("gradlew"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "the Gradle wrapper script"))},
        {QStringLiteral("gradle/wrapper/"),
         QString::fromLatin1(
             QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which Gradle the wrapper downloads and runs"))},
        {QStringLiteral("pom.xml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Maven runs its plugins; IDEs do on import"))},
        {QStringLiteral(".mvn/"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Maven wrapper and JVM options"))},
        {QStringLiteral("build.xml"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Ant runs it"))},
        {QStringLiteral("build.sbt"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "sbt runs it; IDEs do on import"))},
        {QStringLiteral("package.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "npm runs its scripts, also on install"))},
        {QStringLiteral("package-lock.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code npm installs and runs"))},
        {QStringLiteral("npm-shrinkwrap.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code npm installs and runs"))},
        {QStringLiteral("yarn.lock"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                          "zeus::ChangeSet", "decides which package code yarn installs and runs"))},
        {QStringLiteral("pnpm-lock.yaml"),
         QString::fromLatin1(
             QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code pnpm installs and runs"))},
        {QStringLiteral(".npmrc"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                       "zeus::ChangeSet", "can set the shell and Node options npm runs scripts with"))},
        {QStringLiteral(".yarnrc"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "can name the program yarn runs"))},
        {QStringLiteral(".yarnrc.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "yarnPath names the program yarn runs"))},
        {QStringLiteral("composer.json"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Composer runs its scripts"))},
        {QStringLiteral("setup.py"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "pip runs it on install"))},
        {QStringLiteral("pyproject.toml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "names the build backend pip runs"))},
        {QStringLiteral("requirements*.txt"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code pip installs"))},
        {QStringLiteral("Pipfile"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code pipenv installs"))},
        {QStringLiteral("Pipfile.lock"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code pipenv installs"))},
        {QStringLiteral("poetry.lock"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code poetry installs"))},
        {QStringLiteral("uv.lock"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which package code uv installs"))},
        {QStringLiteral("conftest.py"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "pytest imports it on every run"))},
        {QStringLiteral("tox.ini"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "tox runs its commands"))},
        {QStringLiteral("noxfile.py"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "nox runs it"))},
        {QStringLiteral("Gemfile"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Bundler evaluates it"))},
        {QStringLiteral("Gemfile.lock"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which gem code Bundler installs"))},
        {QStringLiteral("*.gemspec"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Bundler evaluates it"))},
        {QStringLiteral("Rakefile"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "rake runs it"))},
        {QStringLiteral("Cargo.toml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides what cargo builds and runs"))},
        {QStringLiteral("Cargo.lock"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "decides which crate code cargo builds"))},
        {QStringLiteral("build.rs"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "cargo runs build scripts on every build"))},
        {QStringLiteral(".cargo/"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                        "zeus::ChangeSet", "cargo config can set the runner and compiler wrappers"))},
        {QStringLiteral("Dockerfile"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "builds run its commands"))},
        {QStringLiteral("docker-compose.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "can mount host folders and run containers"))},
        {QStringLiteral("docker-compose.yaml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "can mount host folders and run containers"))},
        {QStringLiteral("compose.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "can mount host folders and run containers"))},
        {QStringLiteral("compose.yaml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "can mount host folders and run containers"))},
        {QStringLiteral(".devcontainer/"),
         QString::fromLatin1(
             QT_TRANSLATE_NOOP("zeus::ChangeSet", "editors run its lifecycle commands when the folder opens"))},
        {QStringLiteral("Justfile"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "just runs its recipes"))},
        {QStringLiteral("Taskfile.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "task runs its commands"))},
        {QStringLiteral("Taskfile.yaml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "task runs its commands"))},
        {QStringLiteral("flake.nix"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Nix evaluates it (nix develop, direnv)"))},
        {QStringLiteral("shell.nix"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Nix evaluates it (nix-shell, direnv)"))},
        {QStringLiteral("default.nix"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Nix evaluates it"))},
        {QStringLiteral(".envrc"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "direnv runs it when a shell enters the folder"))},
        {QStringLiteral(".env"),
         QString::fromLatin1(QT_TRANSLATE_NOOP(
             "zeus::ChangeSet", "tools load it into their environment (NODE_OPTIONS and the like run code)"))},
        {QStringLiteral("mise.toml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "mise runs its hooks and tasks"))},
        {QStringLiteral(".mise.toml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "mise runs its hooks and tasks"))},
        {QStringLiteral(".pre-commit-config.yaml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "pre-commit installs and runs its hooks"))},
        {QStringLiteral(".husky/"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "husky installs these as git hooks"))},
        {QStringLiteral("lefthook.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "lefthook installs these as git hooks"))},
        {QStringLiteral(".lefthook.yml"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "lefthook installs these as git hooks"))},
        {QStringLiteral(".vscode/"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet",
                                               "editor tasks, launch configurations and settings that name programs"))},
        {QStringLiteral("*.code-workspace"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "editor tasks and settings that name programs"))},
        {QStringLiteral(".idea/"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                       "zeus::ChangeSet", "IDE run configurations and settings that name programs"))},
        {QStringLiteral(".zed/"), QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "editor tasks"))},
        {QStringLiteral(".exrc"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "vim runs it when exrc is on"))},
        {QStringLiteral(".nvimrc"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Neovim runs it when exrc is on"))},
        {QStringLiteral(".nvim.lua"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Neovim runs it when exrc is on"))},
        {QStringLiteral(".dir-locals.el"),
         QString::fromLatin1(QT_TRANSLATE_NOOP("zeus::ChangeSet", "Emacs evaluates it"))},
        {QStringLiteral(".zeusignore"), QString::fromLatin1(QT_TRANSLATE_NOOP(
                                            "zeus::ChangeSet", "decides what the next review copy shows the agent"))},
    };
    return list;
}

QString ChangeSet::hostRunsCodeReason(const QString& path) {
    const RiskyIndex& index = riskyIndex();
    const IgnoreMatcher::Match match = index.matcher.match(path, false);
    return match.ignored ? tr(index.reasons.value(match.pattern).toLatin1().constData()) : QString();
}

bool ChangeSet::linkLeavesFolder(const QString& linkPath, const QString& target) {
    if (target.isEmpty() || target.startsWith(QLatin1Char('/')) || target.startsWith(QLatin1Char('\\'))
        || (target.size() >= 2 && target.at(1) == QLatin1Char(':'))) {
        return true;
    }
    QStringList stack = linkPath.split(QLatin1Char('/'));
    stack.removeLast();  // the link's own name: the target is read from its folder
    for (const QString& part : target.split(QRegularExpression(QStringLiteral("[/\\\\]")))) {
        if (part.isEmpty() || part == QLatin1String(".")) {
            continue;
        }
        if (part == QLatin1String("..")) {
            if (stack.isEmpty()) {
                return true;
            }
            stack.removeLast();
            continue;
        }
        stack.append(part);
    }
    return false;
}

QString ChangeSet::windowsNameProblem(const QString& path) {
    static const QRegularExpression shortName(QStringLiteral("~[0-9]"));
    static const QRegularExpression device(
        QStringLiteral("^(CON|PRN|AUX|NUL|CONIN\\$|CONOUT\\$|(COM|LPT)[0-9\u00b9\u00b2\u00b3])$"),
        QRegularExpression::CaseInsensitiveOption);
    const QStringList parts = path.split(QLatin1Char('/'));
    for (const QString& part : parts) {
        if (part.endsWith(QLatin1Char('.')) || part.endsWith(QLatin1Char(' '))) {
            return QCoreApplication::translate("zeus::ChangeSet",
                                               "Windows drops a name's trailing dot or space: %1 would land on another "
                                               "file there.")
                .arg(part);
        }
        if (part.contains(shortName)) {
            return QCoreApplication::translate(
                       "zeus::ChangeSet",
                       "%1 looks like a Windows short name (GIT~1 is .git): it can name another file.")
                .arg(part);
        }
        // A device name counts up to the first dot, trailing spaces dropped: "nul.txt" and "CON .log" are devices.
        QString base = part.left(part.indexOf(QLatin1Char('.')));
        while (base.endsWith(QLatin1Char(' '))) {
            base.chop(1);
        }
        if (device.match(base).hasMatch()) {
            return QCoreApplication::translate("zeus::ChangeSet", "%1 is a device name on Windows.").arg(part);
        }
    }
    return {};
}

bool ChangeSet::isGitInternal(const QString& path) {
    const QStringList parts = path.split(QLatin1Char('/'));
    return std::any_of(parts.cbegin(), parts.cend(), [](const QString& part) {
        return part.compare(QLatin1String(".git"), Qt::CaseInsensitive) == 0;
    });
}

int ChangeSet::peopleCount(const QList<Change>& changes) {
    int files = 0;
    bool repository = false;
    for (const Change& change : changes) {
        if (isGitInternal(change.path)) {
            repository = true;
        } else {
            ++files;
        }
    }
    return files + (repository ? 1 : 0);
}

QList<Change> ChangeSet::compute(const WorkspaceManifest& baseline, const WorkspaceManifest& current) {
    WorkspaceManifest before = baseline;
    before.sort();
    WorkspaceManifest after = current.withoutIgnored(baseline.ignoreMatcher());
    after.sort();

    const QSet<QString> linksOut = linksLeavingFolder(before, after);
    QList<Change> changes;
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < before.entries.size() || j < after.entries.size()) {
        Change change;
        if (j >= after.entries.size()
            || (i < before.entries.size() && before.entries.at(i).path < after.entries.at(j).path)) {
            change.kind = Change::Kind::Deleted;
            change.hasBefore = true;
            change.before = before.entries.at(i++);
            change.path = change.before.path;
        } else if (i >= before.entries.size() || after.entries.at(j).path < before.entries.at(i).path) {
            change.kind = Change::Kind::Added;
            change.hasAfter = true;
            change.after = after.entries.at(j++);
            change.path = change.after.path;
        } else {
            const ManifestEntry& old = before.entries.at(i++);
            const ManifestEntry& now = after.entries.at(j++);
            change.path = now.path;
            change.hasBefore = true;
            change.hasAfter = true;
            change.before = old;
            change.after = now;
            change.execChanged = old.type == ManifestEntry::Type::File && now.type == ManifestEntry::Type::File
                                 && old.isExecutable() != now.isExecutable();
            // A folder's mode is not compared: two folders of one path are never a change.
            const bool contentDiffers =
                old.type != ManifestEntry::Type::Directory
                && (old.sha256 != now.sha256 || old.size != now.size || old.linkTarget != now.linkTarget);
            if (old.type != now.type) {
                change.kind = Change::Kind::TypeChanged;
            } else if (contentDiffers) {
                change.kind = Change::Kind::Modified;
            } else if (change.execChanged) {
                change.kind = Change::Kind::ModeChanged;
            } else {
                continue;
            }
        }
        classify(change, linksOut);
        changes.append(change);
    }
    return changes;
}

}  // namespace zeus
