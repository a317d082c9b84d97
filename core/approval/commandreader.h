#pragma once

#include "approval/shelllexer.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// Another way of reading a part's command for deny rules: git's aliases, dashed and plumbing spellings read as
// the porcelain they stand for ("git -c alias.p=push p" is read as "git push").
struct CommandReading {
    QStringList words;
    QList<bool> expands;
    bool open = false;  // more words follow that cannot be told (a rule longer than `words` may match)
};

// One simple command of a command line, as the analyser understood it.
struct CommandPart {
    QString text;         // as written (trimmed), for the dialog
    QStringList argv;     // every word after quote removal (redirections and their targets left out)
    QList<bool> expands;  // per argv word: its value is decided at run time ($VAR, ${…}, globs, ~, braces)
    int start = 0;        // argv index of the command word once keywords and assignments are passed
    int command = 0;      // argv index of the command word once command/exec/nice/nohup/timeout/time are passed too
    // Why no rule can allow this part (empty: fully understood). Asked in the ask modes, never allowed.
    QString problem;
    // It may run commands that cannot be read from the text ($(…), backticks, a variable as the command, a
    // here-doc, an unreadable sh -c string): whether a deny rule applies cannot be told.
    bool opaque = false;
    // 0: a part of the command line itself; 1+: read from inside a wrapper (sh -c '…', eval, sudo, env, xargs,
    // find -exec …) of the part before it. Deny rules look at every depth; allowing looks at depth 0 only.
    int depth = 0;
    // Deny rules also look at every word from scanFrom on as a possible command word (-1: none): after a wrapper
    // whose words could not be told apart (scanDenies: a match denies), or after a program the analyser does not
    // know, which may run its arguments (a match asks).
    int scanFrom = -1;
    bool scanDenies = false;
    // Read from a string given to a program the analyser does not know: a deny rule that matches makes the command
    // asked; nothing else about this part counts.
    bool hint = false;
    QList<CommandReading> readings;

    // The words from the command word on (what rules match).
    QStringList words() const { return argv.mid(command); }
    // The first problem found is the one shown; any opaque one makes the part opaque.
    void setProblem(const QString& why, bool isOpaque = false) {
        if (problem.isEmpty()) {
            problem = why;
        }
        opaque = opaque || isOpaque;
    }
};

// Reads a command line into the parts CommandAnalyser decides on: each simple command ShellLexer found, with its
// keywords, assignments and transparent wrappers passed, followed by whatever it runs inside (sh -c strings, eval,
// sudo, env -S, xargs, find -exec, git aliases, …) as deeper parts. Never executes or expands anything; a nested
// string is read at most kMaxDepth deep, so the work stays linear in the command's length.
class CommandReader {
public:
    static constexpr int kMaxDepth = 4;

    // What a part is read within.
    struct Context {
        int depth = 0;
        QString placeholder;  // find -exec's {} / xargs -I's string: a command word holding it is decided when it runs
        bool hint = false;    // read from a string of a program the analyser does not know
        Context deeper() const {
            Context c = *this;
            ++c.depth;
            return c;
        }
    };

    CommandReader() = delete;

    // The parts of a command line, each wrapper's inner parts right after it.
    static QList<CommandPart> read(const QString& command);

    // For readers of one program's syntax (GitReader): a string the program runs with the shell, and words it runs as
    // a command, read into `inner` on behalf of `parent` (which is told when they nest too deep).
    static void readScript(const QString& script, const Context& context, CommandPart& parent,
                           QList<CommandPart>& inner);
    static void readWords(const ShellLexer::Part& words, const Context& context, CommandPart& parent,
                          QList<CommandPart>& inner);
};

}  // namespace zeus
