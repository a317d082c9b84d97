#include "approval/gitreader.h"

#include "approval/commandtable.h"

#include <QHash>
#include <QPair>
#include <QSet>

namespace zeus {

using RawPart = ShellLexer::Part;
using Context = CommandReader::Context;

namespace {

// git's own commands (built in, or shipped with it). Any other subcommand is an alias or a git-NAME program.
// Space-separated in one string, split once: 162 separate literals would take a line each.
const char* const kGitCommands =
    "add am annotate apply archimport archive bisect blame branch bugreport bundle cat-file check-attr "
    "check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone "
    "column commit commit-graph commit-tree config count-objects credential credential-cache credential-store "
    "cvsexportcommit cvsimport cvsserver daemon describe diagnose diff diff-files diff-index diff-tree difftool "
    "fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch "
    "fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id grep gui hash-object help hook http-backend "
    "http-fetch http-push imap-send index-pack init init-db instaweb interpret-trailers log ls-files ls-remote "
    "ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-octopus merge-one-file "
    "merge-ours merge-recursive merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree "
    "merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant "
    "pack-refs patch-id prune prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog "
    "refs remote repack replace replay request-pull rerere reset restore rev-list rev-parse revert rm scalar "
    "send-email send-pack shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status "
    "stripspace submodule subtree svn switch symbolic-ref tag unpack-file unpack-objects update-index update-ref "
    "update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag version whatchanged "
    "worktree write-tree lfs";

// Other spellings of a porcelain command: its synonyms and the plumbing that does the same. A part using one is
// also read as the porcelain (with the rest of its words), so a deny rule on the porcelain applies.
struct GitSpellingText {
    const char* porcelain;
    const char* spelling;  // the subcommand words, a space between; "remote-*" is any remote helper
};

const GitSpellingText kGitSpellings[] = {
    {"push", "send-pack"},
    {"push", "http-push"},
    {"push", "remote-*"},
    {"push", "subtree push"},
    {"push", "lfs push"},
    {"fetch", "fetch-pack"},
    {"fetch", "http-fetch"},
    {"fetch", "remote-*"},
    {"pull", "fetch-pack"},
    {"pull", "remote-*"},
    {"pull", "subtree pull"},
    {"add", "stage"},
    {"add", "update-index"},
    {"rm", "update-index"},
    {"commit", "commit-tree"},
    {"merge", "merge-recursive"},
    {"merge", "merge-ort"},
    {"merge", "merge-resolve"},
    {"merge", "merge-octopus"},
    {"merge", "merge-subtree"},
    {"merge", "merge-index"},
    {"merge", "merge-one-file"},
    {"merge", "merge-file"},
    {"checkout", "switch"},
    {"checkout", "restore"},
    {"checkout", "checkout-index"},
    {"checkout", "read-tree"},
    {"switch", "checkout"},
    {"restore", "checkout"},
    {"restore", "checkout-index"},
    {"reset", "read-tree"},
    {"reset", "update-ref"},
    {"branch", "update-ref"},
    {"tag", "mktag"},
    {"gc", "prune"},
    {"gc", "repack"},
    {"gc", "prune-packed"},
    {"gc", "pack-refs"},
    {"gc", "maintenance"},
    {"init", "init-db"},
    {"fsck", "fsck-objects"},
    {"blame", "annotate"},
};

struct GitSpelling {
    QString porcelain;
    QStringList spelling;
};

const QList<GitSpelling>& gitSpellings() {
    static const QList<GitSpelling> table = [] {
        QList<GitSpelling> list;
        for (const GitSpellingText& each : kGitSpellings) {
            list.append(
                {QString::fromLatin1(each.porcelain), QString::fromLatin1(each.spelling).split(QLatin1Char(' '))});
        }
        return list;
    }();
    return table;
}

bool isGitCommand(const QString& word) {
    static const QSet<QString> names = [] {
        QSet<QString> set;
        for (const QString& name : QString::fromLatin1(kGitCommands).split(QLatin1Char(' '))) {
            set.insert(name);
        }
        return set;
    }();
    return names.contains(word) || (word.startsWith(QLatin1String("remote-")) && word.size() > 7);
}

// git's global options that take an argument (the next word, or after '=').
const QStringList& globalsWithArgument() {
    static const QStringList options{QStringLiteral("-C"),           QStringLiteral("-c"),
                                     QStringLiteral("--git-dir"),    QStringLiteral("--work-tree"),
                                     QStringLiteral("--namespace"),  QStringLiteral("--super-prefix"),
                                     QStringLiteral("--config-env"), QStringLiteral("--attr-source")};
    return options;
}

const QStringList& globalFlags() {
    static const QStringList flags{QStringLiteral("--no-pager"),
                                   QStringLiteral("-p"),
                                   QStringLiteral("--paginate"),
                                   QStringLiteral("-P"),
                                   QStringLiteral("--bare"),
                                   QStringLiteral("--no-replace-objects"),
                                   QStringLiteral("--literal-pathspecs"),
                                   QStringLiteral("--glob-pathspecs"),
                                   QStringLiteral("--noglob-pathspecs"),
                                   QStringLiteral("--icase-pathspecs"),
                                   QStringLiteral("--no-optional-locks"),
                                   QStringLiteral("--no-advice"),
                                   QStringLiteral("--exec-path"),
                                   QStringLiteral("--html-path"),
                                   QStringLiteral("--man-path"),
                                   QStringLiteral("--info-path"),
                                   QStringLiteral("--version"),
                                   QStringLiteral("--help"),
                                   QStringLiteral("-v"),
                                   QStringLiteral("-h"),
                                   QStringLiteral("--no-lazy-fetch")};
    return flags;
}

// One git command as git reads it: the global options (with the aliases and programs -c sets), then each word
// that may be the subcommand, with its aliases resolved, under every spelling it has.
class GitCommandLine {
public:
    GitCommandLine(const RawPart& raw, int at, const Context& context, CommandPart& part, QList<CommandPart>& inner)
        : m_raw(raw), m_at(at), m_context(context), m_part(part), m_inner(inner) {}

    void read();

private:
    // Reads the global options; returns the index of the subcommand, or -1 when it is decided when it runs.
    int readGlobals();
    void config(const QString& setting, bool settingExpands, bool fromEnvironment);
    // `w`: the words from a possible subcommand on.
    void readCandidate(QStringList w, QList<bool> ex);
    // Replaces an alias by its value (again while the value starts with one); false when its value is not known
    // here. A shell alias is read as a script and empties `w`.
    bool resolveAliases(QStringList& w, QList<bool>& ex);
    void addSpellings(const QStringList& w, const QList<bool>& ex);
    // Subcommands that run shell commands of their own.
    void readSubcommandScripts(const QStringList& w, const QList<bool>& ex);
    void readOptionScripts(const QStringList& w, const QList<bool>& ex);
    // git config [set] alias.NAME VALUE at w[k]: a spelling kept for later commands.
    void readConfigAlias(const QStringList& w, const QList<bool>& ex, int k);
    QString literalRest(const QStringList& w, const QList<bool>& ex, int from);
    void addReading(const QStringList& words, const QList<bool>& expands, bool open = false) {
        m_part.readings.append(CommandReading{words, expands, open});
    }
    void readScript(const QString& script) { CommandReader::readScript(script, m_context.deeper(), m_part, m_inner); }

    const RawPart& m_raw;
    const int m_at;
    const Context& m_context;
    CommandPart& m_part;
    QList<CommandPart>& m_inner;
    QHash<QString, QString> m_aliases;  // lower-case name -> value
    QSet<QString> m_unknownAliases;
    bool m_aliasesUnknown = false;  // a -c whose value is decided when it runs
    bool m_uncertain = false;       // an option git may read with an argument: the subcommand may be a later word

    const QStringList m_gitWord{QStringLiteral("git")};
    const QList<bool> m_gitExpands{false};
};

void GitCommandLine::read() {
    const QStringList& argv = m_raw.argv;
    const QList<bool>& expands = m_raw.expands;
    const int n = int(argv.size());
    const QString name = commandtable::commandName(argv.at(m_at));
    // Each candidate: the words from the subcommand on (the subcommand first).
    QList<QPair<QStringList, QList<bool>>> candidates;
    if (name != QLatin1String("git")) {
        // git-SUB: the subcommand is in the command word.
        QList<bool> ex{false};
        QStringList w{name.mid(4)};
        w << argv.mid(m_at + 1);
        ex << expands.mid(m_at + 1);
        candidates.append({w, ex});
    } else {
        const int sub = readGlobals();
        if (sub < 0) {
            if (m_uncertain) {
                m_part.setProblem(QStringLiteral("passes git an option the analyser does not know"), true);
            }
            return;
        }
        const int last = m_uncertain ? qMin(n, sub + 8) : sub + 1;
        for (int k = sub; k < last; ++k) {
            candidates.append({argv.mid(k), expands.mid(k)});
        }
        if (m_uncertain) {
            m_part.setProblem(QStringLiteral("passes git an option the analyser does not know"), true);
        }
    }
    for (const auto& candidate : std::as_const(candidates)) {
        readCandidate(candidate.first, candidate.second);
    }
}

int GitCommandLine::readGlobals() {
    const QStringList& argv = m_raw.argv;
    const QList<bool>& expands = m_raw.expands;
    const int n = int(argv.size());
    int i = m_at + 1;
    while (i < n) {
        const QString& word = argv.at(i);
        if (expands.at(i)) {
            break;  // the subcommand (or an option) is decided when it runs: the part's own words say Maybe
        }
        if (globalsWithArgument().contains(word)) {
            if (i + 1 < n && word == QLatin1String("-c")) {
                config(argv.at(i + 1), expands.at(i + 1), false);
            } else if (i + 1 < n && word == QLatin1String("--config-env")) {
                config(argv.at(i + 1), expands.at(i + 1), true);
            }
            i += 2;
            continue;
        }
        const QString option = word.section(QLatin1Char('='), 0, 0);
        if (word.contains(QLatin1Char('='))
            && (globalsWithArgument().contains(option) || option == QLatin1String("--exec-path")
                || option == QLatin1String("--list-cmds"))) {
            if (option == QLatin1String("--config-env")) {
                config(word.section(QLatin1Char('='), 1), false, true);
            }
            ++i;
            continue;
        }
        if (globalFlags().contains(word)) {
            ++i;
            continue;
        }
        if (commandtable::isOption(word)) {
            m_uncertain = true;  // an option git may read with an argument: the subcommand is one of the next words
            ++i;
            continue;
        }
        break;
    }
    return i >= n || expands.at(i) ? -1 : i;
}

void GitCommandLine::config(const QString& setting, bool settingExpands, bool fromEnvironment) {
    if (settingExpands) {
        m_aliasesUnknown = true;
        return;
    }
    const QString key = setting.section(QLatin1Char('='), 0, 0);
    if (!fromEnvironment && commandtable::runsProgram(key)) {
        QString program = setting.section(QLatin1Char('='), 1);
        readScript(program.startsWith(QLatin1Char('!')) ? program.mid(1) : program);
    }
    if (!key.startsWith(QLatin1String("alias."), Qt::CaseInsensitive)) {
        return;
    }
    const QString aliasName = key.mid(6).toLower();
    if (fromEnvironment) {
        m_unknownAliases.insert(aliasName);
    } else {
        m_aliases.insert(aliasName, setting.section(QLatin1Char('='), 1));
    }
}

void GitCommandLine::readCandidate(QStringList w, QList<bool> ex) {
    const bool resolved = resolveAliases(w, ex);
    if (w.isEmpty()) {
        return;
    }
    if (!resolved || (!ex.constFirst() && !isGitCommand(w.constFirst()))) {
        // An alias whose value is not known here, or a git-NAME program: it may be any git command.
        addReading(m_gitWord, m_gitExpands, true);
        return;
    }
    addReading(m_gitWord + w, m_gitExpands + ex);
    addSpellings(w, ex);
    readSubcommandScripts(w, ex);
}

bool GitCommandLine::resolveAliases(QStringList& w, QList<bool>& ex) {
    for (int rounds = 0; rounds < 10 && !w.isEmpty() && !ex.constFirst(); ++rounds) {
        const QString lower = w.constFirst().toLower();
        if (isGitCommand(w.constFirst())) {
            return true;  // git never lets an alias hide its own commands
        }
        if (m_unknownAliases.contains(lower) || (m_aliasesUnknown && !m_aliases.contains(lower))) {
            return false;
        }
        if (!m_aliases.contains(lower)) {
            return true;
        }
        const QString value = m_aliases.value(lower);
        if (value.startsWith(QLatin1Char('!'))) {
            // A shell alias: git runs it with sh -c, the rest of the words appended.
            QStringList script{value.mid(1)};
            for (int k = 1; k < w.size(); ++k) {
                script << (ex.at(k) ? QStringLiteral("\"$x\"") : w.at(k));
            }
            readScript(script.join(QLatin1Char(' ')));
            w.clear();
            return true;
        }
        bool unclear = false;
        const RawPart expansion = ShellLexer::splitWords(value, &unclear);
        if (unclear || expansion.argv.isEmpty()) {
            return false;
        }
        w = expansion.argv + w.mid(1);
        ex = expansion.expands + ex.mid(1);
    }
    return true;
}

void GitCommandLine::addSpellings(const QStringList& w, const QList<bool>& ex) {
    for (const GitSpelling& spelling : gitSpellings()) {
        const QStringList& s = spelling.spelling;
        bool same = s.size() <= w.size();
        for (int k = 0; same && k < s.size(); ++k) {
            same = !ex.at(k)
                   && (s.at(k) == w.at(k)
                       || (s.at(k) == QLatin1String("remote-*") && w.at(k).startsWith(QLatin1String("remote-"))));
        }
        if (!same) {
            continue;
        }
        if (s.constFirst() == QLatin1String("remote-*")) {
            // A remote helper reads what to do from its input: any command of the porcelain.
            addReading(m_gitWord + QStringList{spelling.porcelain}, {false, false}, true);
        } else {
            addReading(m_gitWord + QStringList{spelling.porcelain} + w.mid(s.size()),
                       QList<bool>{false, false} + ex.mid(s.size()));
        }
    }
}

QString GitCommandLine::literalRest(const QStringList& w, const QList<bool>& ex, int from) {
    QStringList rest;
    for (int k = from; k < w.size(); ++k) {
        if (ex.at(k)) {
            m_part.setProblem(QStringLiteral("runs a git command string that is decided when it runs"), true);
            return {};
        }
        rest << w.at(k);
    }
    return rest.join(QLatin1Char(' '));
}

void GitCommandLine::readSubcommandScripts(const QStringList& w, const QList<bool>& ex) {
    const QString& subcommand = w.constFirst();
    if (subcommand == QLatin1String("submodule")) {
        const int foreach = int(w.indexOf(QStringLiteral("foreach")));
        if (foreach > 0) {
            int k = foreach + 1;
            while (k < w.size() && commandtable::isOption(w.at(k))) {
                ++k;
            }
            readScript(literalRest(w, ex, k));
        }
    } else if (subcommand == QLatin1String("bisect") && w.size() > 1 && w.at(1) == QLatin1String("run")) {
        RawPart run;
        run.argv = w.mid(2);
        run.raw = w.mid(2);
        run.expands = ex.mid(2);
        run.text = run.raw.join(QLatin1Char(' '));
        CommandReader::readWords(run, m_context.deeper(), m_part, m_inner);
    } else if (subcommand == QLatin1String("rebase") || subcommand == QLatin1String("filter-branch")
               || subcommand == QLatin1String("config")) {
        readOptionScripts(w, ex);
    }
}

// rebase --exec / -x, filter-branch's --*-filter, and config's alias.NAME.
void GitCommandLine::readOptionScripts(const QStringList& w, const QList<bool>& ex) {
    const QString& subcommand = w.constFirst();
    for (int k = 1; k < w.size(); ++k) {
        const QString& word = w.at(k);
        const QString option = word.section(QLatin1Char('='), 0, 0);
        const bool takes =
            subcommand == QLatin1String("rebase")
                ? (option == QLatin1String("--exec") || option == QLatin1String("-x")
                   || (word.startsWith(QLatin1String("-x")) && word.size() > 2))
                : subcommand == QLatin1String("filter-branch") && option.endsWith(QLatin1String("-filter"));
        if (subcommand == QLatin1String("config") && word.startsWith(QLatin1String("alias."), Qt::CaseInsensitive)
            && !ex.at(k)) {
            readConfigAlias(w, ex, k);
            break;
        }
        if (!takes) {
            continue;
        }
        QString script;
        if (word.contains(QLatin1Char('='))) {
            script = word.section(QLatin1Char('='), 1);
        } else if (word.startsWith(QLatin1String("-x")) && word.size() > 2) {
            script = word.mid(2);
        } else if (k + 1 < w.size()) {
            ++k;
            if (ex.at(k)) {
                m_part.setProblem(QStringLiteral("runs a git command string that is decided when it runs"), true);
                continue;
            }
            script = w.at(k);
        }
        readScript(script);
    }
}

void GitCommandLine::readConfigAlias(const QStringList& w, const QList<bool>& ex, int k) {
    const QString& word = w.at(k);
    const QString value = word.contains(QLatin1Char('=')) ? word.section(QLatin1Char('='), 1)
                          : k + 1 < w.size()              ? w.at(k + 1)
                                                          : QString();
    if (k + 1 < w.size() && ex.at(k + 1)) {
        addReading(m_gitWord, m_gitExpands, true);
    } else if (value.startsWith(QLatin1Char('!'))) {
        readScript(value.mid(1));
    } else if (!value.isEmpty()) {
        bool unclear = false;
        const RawPart expansion = ShellLexer::splitWords(value, &unclear);
        addReading(m_gitWord + expansion.argv, m_gitExpands + expansion.expands, unclear);
    }
}

}  // namespace

bool GitReader::isGitWord(const QString& word) {
    const QString name = commandtable::commandName(word);
    return name == QLatin1String("git") || (name.startsWith(QLatin1String("git-")) && name.size() > 4);
}

void GitReader::read(const RawPart& raw, int at, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    GitCommandLine(raw, at, context, part, inner).read();
}

}  // namespace zeus
