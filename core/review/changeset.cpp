#include "review/changeset.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>

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

void classify(Change& change) {
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
    if (after.type == ManifestEntry::Type::Symlink && ChangeSet::linkLeavesFolder(change.path, after.linkTarget)) {
        addReason(change,
                  QCoreApplication::translate("zeus::ChangeSet", "a symbolic link that points outside the folder"));
    }
    const bool wasExecutable = change.hasBefore && change.before.isExecutable();
    if (after.isExecutable() && !wasExecutable) {
        addReason(change, QCoreApplication::translate("zeus::ChangeSet", "becomes executable"));
    }
}

}  // namespace

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
        classify(change);
        changes.append(change);
    }
    return changes;
}

}  // namespace zeus
