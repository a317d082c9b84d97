#include "approval/commandreader.h"

#include "approval/commandtable.h"
#include "approval/gitreader.h"
#include "approval/wrappersyntax.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace zeus {

using RawPart = ShellLexer::Part;
using Context = CommandReader::Context;

namespace {

// Reads one part: keywords, assignments, wrappers; appends it and whatever it runs inside (deeper parts).
void analyse(const RawPart& raw, const Context& context, QList<CommandPart>& out);

RawPart pick(const RawPart& from, const QList<int>& indexes) {
    RawPart part;
    for (const int k : indexes) {
        part.argv << from.argv.at(k);
        part.raw << from.raw.at(k);
        part.expands << from.expands.at(k);
    }
    part.text = part.raw.join(QLatin1Char(' '));
    return part;
}

RawPart wordsFrom(const RawPart& from, int first) {
    QList<int> indexes;
    for (int k = first; k < from.argv.size(); ++k) {
        indexes << k;
    }
    return pick(from, indexes);
}

void analyseWords(const RawPart& from, int first, const Context& context, CommandPart& parent,
                  QList<CommandPart>& inner) {
    if (first < from.argv.size()) {
        CommandReader::readWords(wordsFrom(from, first), context, parent, inner);
    }
}

// Words given to a program that may run them: deny rules look at each as a command, and strings among them are
// read as shell commands.
void scanWords(const RawPart& raw, int from, bool denies, const Context& context, CommandPart& part,
               QList<CommandPart>& inner) {
    if (part.scanFrom < 0 || part.scanFrom > from) {
        part.scanFrom = from;
    }
    part.scanDenies = part.scanDenies || denies;
    Context strings = context.deeper();
    strings.hint = strings.hint || !denies;
    int gits = 0;
    static const QRegularExpression script(QStringLiteral("[\\s;&|()`$<>]"));
    for (int k = from; k < raw.argv.size(); ++k) {
        if (raw.expands.at(k)) {
            continue;
        }
        const QString& word = raw.argv.at(k);
        if (denies && GitReader::isGitWord(word) && gits++ < 8) {
            GitReader::read(raw, k, context, part, inner);
        }
        if (script.match(word).hasMatch()) {
            CommandReader::readScript(word.startsWith(QLatin1String("--")) && word.contains(QLatin1Char('='))
                                          ? word.section(QLatin1Char('='), 1)
                                          : word,
                                      strings, part, inner);
        }
    }
}

// ---- wrappers ---------------------------------------------------------------------------------------------

// sg [-] GROUP [-c] COMMAND-STRING
void readSg(const RawPart& raw, int i, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const QStringList& argv = part.argv;
    const int n = int(argv.size());
    int k = i + 1;
    if (k < n && argv.at(k) == QLatin1String("-")) {
        ++k;
    }
    ++k;
    if (k < n && argv.at(k) == QLatin1String("-c")) {
        ++k;
    }
    if (k >= n) {
        part.setProblem(QStringLiteral("runs a shell that reads its input (sg)"), true);
    } else if (raw.expands.mid(k).contains(true)) {
        part.setProblem(QStringLiteral("runs a command through sg that is decided when it runs"), true);
    } else {
        CommandReader::readScript(argv.mid(k).join(QLatin1Char(' ')), context.deeper(), part, inner);
    }
    scanWords(raw, i + 1, true, context, part, inner);
}

// env -S STRING: the string's words take its place, and env reads on (options, assignments, the command).
void readEnvString(const RawPart& raw, int i, const WrapperCall& call, const Context& deeper, CommandPart& part,
                   QList<CommandPart>& inner) {
    bool unclear = false;
    RawPart spliced = ShellLexer::splitWords(call.scripts.constFirst(), &unclear);
    spliced.argv.prepend(part.argv.at(i));
    spliced.raw.prepend(raw.raw.at(i));
    spliced.expands.prepend(false);
    const RawPart rest = wordsFrom(raw, call.scriptEnd);
    spliced.argv << rest.argv;
    spliced.raw << rest.raw;
    spliced.expands << rest.expands;
    spliced.text = spliced.raw.join(QLatin1Char(' '));
    CommandReader::readWords(spliced, deeper, part, inner);
}

// su [options] [-] [USER [ARGUMENT…]]: the arguments go to the user's shell ("su root -- -c 'rm x'").
void readUserShell(const RawPart& raw, const QString& name, const WrapperCall& call, const Context& deeper,
                   CommandPart& part, QList<CommandPart>& inner) {
    if (call.operands.size() > 1) {
        RawPart shell = pick(raw, call.operands.mid(1));
        shell.argv.prepend(QStringLiteral("sh"));
        shell.raw.prepend(QStringLiteral("sh"));
        shell.expands.prepend(false);
        CommandReader::readWords(shell, deeper, part, inner);
    } else if (call.scripts.isEmpty()) {
        part.setProblem(QStringLiteral("runs a shell that reads its input (%1)").arg(name), true);
    }
}

// A wrapper given no command: some then run a shell, which reads its commands from the input.
void readWithoutCommand(const QString& name, const WrapperCall& call, CommandPart& part) {
    static const QSet<QString> shellWithoutCommand{QStringLiteral("chroot"), QStringLiteral("unshare"),
                                                   QStringLiteral("nsenter")};
    if (shellWithoutCommand.contains(name)
        || ((name == QLatin1String("sudo") || name == QLatin1String("doas")) && call.seenOption("is", "--shell"))
        || ((name == QLatin1String("sudo")) && call.seenOption("", "--login"))) {
        part.setProblem(QStringLiteral("runs a shell that reads its input (%1)").arg(name), true);
    }
    if (name == QLatin1String("parallel") || name == QLatin1String("sem") || name == QLatin1String("env_parallel")) {
        part.setProblem(QStringLiteral("runs commands it reads from its input (%1)").arg(name), true);
    }
}

// flock [options] FILE -c COMMAND-STRING
void readFlockString(int command, const Context& deeper, CommandPart& part, QList<CommandPart>& inner) {
    const QStringList& argv = part.argv;
    const bool attached = argv.at(command).contains(QLatin1Char('='));
    const int at = attached ? command : command + 1;
    if (at >= argv.size() || part.expands.at(at)) {
        part.setProblem(QStringLiteral("runs a command through flock that is decided when it runs"), true);
    } else {
        CommandReader::readScript(attached ? argv.at(at).section(QLatin1Char('='), 1) : argv.at(at), deeper, part,
                                  inner);
    }
}

// parallel [options] [COMMAND…] [::: ARGUMENTS…]: the command is joined into a shell string ({} and friends are
// replaced); without one, each argument is a command. Every word could become a command.
void readParallel(const RawPart& raw, int i, int command, const Context& context, CommandPart& part,
                  QList<CommandPart>& inner) {
    const QStringList& argv = part.argv;
    const int n = int(argv.size());
    const QString name = commandtable::commandName(argv.at(i));
    static const QRegularExpression separator(QStringLiteral("^::::?\\+?$"));
    int end = command;
    while (end < n && !separator.match(argv.at(end)).hasMatch()) {
        ++end;
    }
    Context each = context.deeper();
    each.placeholder = QStringLiteral("{");
    if (end > command) {
        if (part.expands.mid(command, end - command).contains(true)) {
            part.setProblem(QStringLiteral("runs a command through %1 that is decided when it runs").arg(name), true);
        } else {
            CommandReader::readScript(argv.mid(command, end - command).join(QLatin1Char(' ')), each, part, inner);
        }
    } else if (end >= n) {
        part.setProblem(QStringLiteral("runs commands it reads from its input (%1)").arg(name), true);
    } else {
        for (int k = end + 1; k < n; ++k) {
            if (part.expands.at(k)) {
                part.setProblem(QStringLiteral("runs a command through %1 that is decided when it runs").arg(name),
                                true);
            } else if (!separator.match(argv.at(k)).hasMatch()) {
                CommandReader::readScript(argv.at(k), each, part, inner);
            }
        }
    }
    scanWords(raw, i + 1, true, context, part, inner);
}

// xargs -I STRING / -i[STRING] / --replace[=STRING]: words holding it are replaced by its input.
QString xargsPlaceholder(const WrapperCall& call) {
    if (call.values.contains(QStringLiteral("I"))) {
        return call.values.value(QStringLiteral("I"));
    }
    if (call.values.contains(QStringLiteral("i")) || call.seenOption("", "--replace")) {
        const QString placeholder = call.values.value(QStringLiteral("i"));
        return placeholder.isEmpty() ? QStringLiteral("{}") : placeholder;
    }
    return {};
}

// The wrapper at argv[i] of a part (after the transparent ones): reads what it runs.
void analyseWrapper(const RawPart& raw, int i, const WrapperSyntax& syntax, const Context& context, CommandPart& part,
                    QList<CommandPart>& inner) {
    const QStringList& argv = part.argv;
    const int n = int(argv.size());
    const QString name = commandtable::commandName(argv.at(i));
    part.setProblem(QStringLiteral("runs another command through %1").arg(name));
    const Context deeper = context.deeper();
    if (name == QLatin1String("sg")) {
        readSg(raw, i, context, part, inner);
        return;
    }
    const WrapperCall call = syntax.read(argv, part.expands, i);
    if (!call.uncertain.isEmpty()) {
        part.setProblem(call.uncertain, true);
        scanWords(raw, i + 1, true, context, part, inner);
    }
    for (int k = 0; k < call.scripts.size(); ++k) {
        if (call.scriptExpands.at(k)) {
            part.setProblem(QStringLiteral("runs a command through %1 that is decided when it runs").arg(name), true);
        } else {
            CommandReader::readScript(call.scripts.at(k), deeper, part, inner);
        }
    }
    const int command = call.command;
    for (int k = i + 1; name == QLatin1String("env") && k < command && k < n; ++k) {
        if (!part.expands.at(k) && ShellLexer::isAssignment(argv.at(k))
            && commandtable::runsProgramVariable(argv.at(k).section(QLatin1Char('='), 0, 0))) {
            CommandReader::readScript(argv.at(k).section(QLatin1Char('='), 1), deeper, part, inner);
        }
    }
    if (name == QLatin1String("env") && call.scriptEnd >= 0 && !call.scriptExpands.constFirst()) {
        readEnvString(raw, i, call, deeper, part, inner);
    } else if (name == QLatin1String("su") || (name == QLatin1String("runuser") && !call.seenOption("u", "--user"))) {
        readUserShell(raw, name, call, deeper, part, inner);
    } else if (name == QLatin1String("runuser")) {
        CommandReader::readWords(pick(raw, call.operands), deeper, part, inner);
    } else if (name == QLatin1String("script")) {
        if (call.operands.size() > 1) {
            CommandReader::readWords(pick(raw, call.operands.mid(1)), deeper, part,
                                     inner);  // BSD: script FILE COMMAND…
        } else if (call.scripts.isEmpty()) {
            part.setProblem(QStringLiteral("runs a shell that reads its input (script)"), true);
        }
    } else if (command >= n) {
        readWithoutCommand(name, call, part);
    } else if (name == QLatin1String("flock")
               && (argv.at(command) == QLatin1String("-c")
                   || argv.at(command).startsWith(QLatin1String("--command")))) {
        readFlockString(command, deeper, part, inner);
    } else if (name == QLatin1String("parallel") || name == QLatin1String("sem")
               || name == QLatin1String("env_parallel")) {
        readParallel(raw, i, command, context, part, inner);
    } else {
        if (name == QLatin1String("watch")) {
            // watch runs its words joined as a shell string (with -x, as a command).
            if (part.expands.mid(command).contains(true)) {
                part.setProblem(QStringLiteral("runs a command through watch that is decided when it runs"), true);
            } else {
                CommandReader::readScript(argv.mid(command).join(QLatin1Char(' ')), deeper, part, inner);
            }
        }
        Context next = deeper;
        if (name == QLatin1String("xargs")) {
            next.placeholder = xargsPlaceholder(call);
        }
        analyseWords(raw, command, next, part, inner);
    }
}

// ---- a part's command word --------------------------------------------------------------------------------

// Keywords and assignments before the command word; returns the index of the word after them.
int readPrefix(const RawPart& raw, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const int n = int(part.argv.size());
    // Shell code kept in a string can run later without appearing as a command: by eval, arithmetic, a prompt
    // string (PS4) or an exported function (BASH_FUNC_…). Whatever may evaluate it, such a string is not read.
    static const QRegularExpression hidden(
        QStringLiteral("\\$\\(|`|BASH_FUNC_|(^|[^A-Za-z0-9_])(PS[0-4]|PROMPT_COMMAND)\\+?="));
    for (const QString& word : part.argv) {
        if (hidden.match(word).hasMatch()) {
            part.setProblem(QStringLiteral("holds shell code in a string (%1)").arg(word.left(40)), true);
            break;
        }
    }
    int i = 0;
    while (i < n && !part.expands.at(i) && commandtable::isKeyword(raw.raw.at(i))) {
        // [[ … ]] evaluates arithmetic operands, which can run a command substitution hidden in a variable.
        part.setProblem(QStringLiteral("uses the shell keyword “%1”").arg(part.argv.at(i)),
                        raw.raw.at(i) == QLatin1String("[["));
        ++i;
    }
    while (i < n && ShellLexer::isAssignment(raw.raw.at(i))) {
        const QString variable = raw.raw.at(i).section(QLatin1Char('='), 0, 0);
        if (commandtable::runsProgramVariable(variable) && !part.expands.at(i)) {
            CommandReader::readScript(part.argv.at(i).section(QLatin1Char('='), 1), context.deeper(), part, inner);
        }
        if (variable.contains(QLatin1Char('['))) {
            part.setProblem(QStringLiteral("assigns to an array element (its subscript is arithmetic)"), true);
        }
        part.setProblem(QStringLiteral("sets a variable for the command (%1)").arg(variable));
        ++i;
    }
    return i;
}

// command / exec / nice / nohup / timeout / time / builtin / busybox / toybox: allowing and denying look through.
// Returns the index of the command word they run.
int passTransparentWrappers(const RawPart& raw, int i, const Context& context, CommandPart& part,
                            QList<CommandPart>& inner) {
    const int n = int(part.argv.size());
    for (int rounds = 0; i < n && !part.expands.at(i); ++rounds) {
        const QString name = commandtable::commandName(part.argv.at(i));
        const WrapperSyntax* wrapper = commandtable::wrapper(name);
        if (!wrapper || !wrapper->transparent) {
            break;
        }
        if (rounds == 16) {
            part.setProblem(QStringLiteral("nests wrappers too deep to read"), true);
            scanWords(raw, i + 1, true, context, part, inner);
            break;
        }
        const WrapperCall call = wrapper->read(part.argv, part.expands, i);
        if (!call.uncertain.isEmpty()) {
            part.setProblem(call.uncertain, true);
            scanWords(raw, i + 1, true, context, part, inner);
            break;
        }
        if (name == QLatin1String("command") && call.seenOption("vV")) {
            break;  // command -v only says where a command is
        }
        if (name == QLatin1String("time") && call.seenOption("o", "--output")) {
            part.setProblem(QStringLiteral("writes a file (time -o)"));
        }
        if (call.command >= n) {
            break;  // "nice" or "time" alone: they are the command
        }
        i = call.command;
    }
    return i;
}

// A shell as the command (sh, bash -c, …): its script string is read; one from its input cannot be.
void readShell(const QString& name, int i, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const int n = int(part.argv.size());
    bool hasScript = false;
    int j = i + 1;
    for (; j < n; ++j) {
        const QString& word = part.argv.at(j);
        if (part.expands.at(j)) {
            part.setProblem(QStringLiteral("passes options to %1 that are decided when it runs").arg(name), true);
            break;
        }
        if (word == QLatin1String("--")) {
            ++j;
            break;
        }
        if (!commandtable::isOption(word) && !(word.size() > 1 && word.startsWith(QLatin1Char('+')))) {
            break;
        }
        if (word.startsWith(QLatin1String("--"))) {
            if (word == QLatin1String("--rcfile") || word == QLatin1String("--init-file")
                || word == QLatin1String("--command")) {
                hasScript = hasScript || word == QLatin1String("--command");
                if (word != QLatin1String("--command")) {
                    ++j;
                }
            }
            continue;
        }
        if (word.mid(1).contains(QLatin1Char('c'))) {
            hasScript = true;
        }
        if (word.endsWith(QLatin1Char('o')) || word.endsWith(QLatin1Char('O'))) {
            ++j;
        }
    }
    if (hasScript) {
        part.setProblem(QStringLiteral("runs a shell script (%1 -c)").arg(name));
        if (j < n && part.expands.at(j)) {
            part.setProblem(QStringLiteral("runs a shell script that is decided when it runs"), true);
        } else if (j < n) {
            CommandReader::readScript(part.argv.at(j), context.deeper(), part, inner);
        }
    } else if (j >= n || part.argv.mid(i + 1, j - i - 1).contains(QStringLiteral("-s"))) {
        // "echo 'rm -rf /' | sh": the script comes from its input, which is not read here.
        part.setProblem(QStringLiteral("runs a shell script from its input (%1)").arg(name), true);
    }
}

// find -exec rm {} ; runs rm: deny rules see it (and the read-only list never allows -exec).
void readFindExec(const RawPart& raw, int i, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const int n = int(part.argv.size());
    Context exec = context.deeper();
    exec.placeholder = QStringLiteral("{}");
    for (int j = i + 1; j < n; ++j) {
        const QString& word = part.argv.at(j);
        if (word == QLatin1String("-exec") || word == QLatin1String("-execdir") || word == QLatin1String("-ok")
            || word == QLatin1String("-okdir")) {
            int end = j + 1;
            while (end < n && part.argv.at(end) != QLatin1String(";") && part.argv.at(end) != QLatin1String("+")) {
                ++end;
            }
            QList<int> indexes;
            for (int k = j + 1; k < end; ++k) {
                indexes << k;
            }
            CommandReader::readWords(pick(raw, indexes), exec, part, inner);
            j = end;
        }
    }
}

// What the command word at argv[i] runs, by its name.
void readCommand(const RawPart& raw, int i, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const QString name = commandtable::commandName(part.argv.at(i));
    const WrapperSyntax* wrapper = commandtable::wrapper(name);
    if (commandtable::isShell(name)) {
        readShell(name, i, context, part, inner);
    } else if (name == QLatin1String("eval")) {
        part.setProblem(QStringLiteral("runs a string as a command (eval)"));
        if (part.expands.mid(i + 1).contains(true)) {
            part.setProblem(QStringLiteral("runs a string that is decided when it runs (eval)"), true);
        } else {
            CommandReader::readScript(part.argv.mid(i + 1).join(QLatin1Char(' ')), context.deeper(), part, inner);
        }
    } else if (name == QLatin1String("source") || name == QLatin1String(".")) {
        part.setProblem(QStringLiteral("runs a script file in the shell (%1)").arg(name), true);
    } else if (commandtable::definesCode(name)) {
        // Aliases, hashed paths, traps, builtins switched off and arithmetic change or hide what later words run.
        part.setProblem(QStringLiteral("uses %1, which can change or hide what runs").arg(name), true);
    } else if (commandtable::assigns(name)
               || (name == QLatin1String("printf")
                   && std::any_of(part.argv.cbegin() + i + 1, part.argv.cend(),
                                  [](const QString& w) { return w.startsWith(QLatin1String("-v")); }))) {
        // An array subscript in a variable name is arithmetic, which runs a substitution hidden in a value.
        const bool subscript = std::any_of(part.argv.cbegin() + i + 1, part.argv.cend(),
                                           [](const QString& w) { return w.contains(QLatin1Char('[')); });
        part.setProblem(QStringLiteral("assigns variables (%1)").arg(name), subscript);
    } else if (GitReader::isGitWord(part.argv.at(i))) {
        GitReader::read(raw, i, context, part, inner);
    } else if (wrapper) {
        if (!wrapper->transparent) {  // a transparent one here is the command itself ("command -v", "nice")
            analyseWrapper(raw, i, *wrapper, context, part, inner);
        }
    } else if (name == QLatin1String("find")) {
        readFindExec(raw, i, context, part, inner);
    } else if (!commandtable::isKnownPlain(name) && !(context.depth > 0 && context.hint)) {
        // A program the analyser does not know may be a wrapper: a denied command among its words is asked.
        scanWords(raw, i + 1, false, context, part, inner);
    }
}

void analyse(const RawPart& raw, const Context& context, QList<CommandPart>& out) {
    CommandPart part;
    part.text = raw.text;
    part.argv = raw.argv;
    part.expands = raw.expands;
    part.problem = raw.problem;
    part.opaque = raw.opaque;
    part.depth = context.depth;
    part.hint = context.hint;
    const int n = int(part.argv.size());
    QList<CommandPart> inner;

    part.start = readPrefix(raw, context, part, inner);
    const int i = passTransparentWrappers(raw, part.start, context, part, inner);
    part.command = i;

    const bool decidedWhenRun =
        i < n
        && (part.expands.at(i) || (!context.placeholder.isEmpty() && part.argv.at(i).contains(context.placeholder)));
    if (decidedWhenRun) {
        part.setProblem(QStringLiteral("has a command name that is decided when it runs (%1)").arg(raw.raw.at(i)),
                        true);
    } else if (i < n) {
        readCommand(raw, i, context, part, inner);
    }
    out.append(part);
    out.append(inner);
}

}  // namespace

QList<CommandPart> CommandReader::read(const QString& command) {
    QList<CommandPart> parts;
    const QList<RawPart> raw = ShellLexer(command).run();
    for (const RawPart& part : raw) {
        analyse(part, Context{}, parts);
    }
    return parts;
}

void CommandReader::readScript(const QString& script, const Context& context, CommandPart& parent,
                               QList<CommandPart>& inner) {
    if (context.depth > kMaxDepth) {
        if (!context.hint) {
            parent.setProblem(QStringLiteral("nests shells too deep to read"), true);
        }
        return;
    }
    const QList<RawPart> parts = ShellLexer(script).run();
    for (const RawPart& part : parts) {
        analyse(part, context, inner);
    }
}

void CommandReader::readWords(const RawPart& words, const Context& context, CommandPart& parent,
                              QList<CommandPart>& inner) {
    if (words.argv.isEmpty() && words.problem.isEmpty()) {
        return;
    }
    if (context.depth > kMaxDepth) {
        readScript(QString(), context, parent, inner);
        return;
    }
    analyse(words, context, inner);
}

}  // namespace zeus
