#pragma once

#include "approval/wrappersyntax.h"

#include <QString>
#include <QStringList>

// What the command analyser knows about programs by name: the wrappers that run a command (and how each reads its
// options), the shells, the keywords and builtins that hide what runs, the programs known not to run their
// arguments, and the built-in read-only list with the options that make a listed command write or run something.
// Plain data and lookups: no I/O, nothing here reads a whole command line (CommandReader does).
namespace zeus::commandtable {

// The last path component of a command word ("/bin/rm" -> "rm"): every name below is looked up by it.
QString commandName(const QString& word);
// A word of two characters or more starting with '-'.
bool isOption(const QString& word);
// The command word names the program a bare rule word means: a bare name (looked up in PATH) or a system
// directory's. "./ls" or "/workspace/tools/ls" is a program the agent may have written.
bool isTrustedCommandWord(const QString& word);

// The syntax of a wrapper that runs its argument as a command or a shell string; nullptr for any other name.
const WrapperSyntax* wrapper(const QString& name);
bool isShell(const QString& name);
// A shell keyword as written ("if", "{", "[[", …).
bool isKeyword(const QString& raw);
// Builtins that change or hide what later words run (alias, trap, enable, declare, …).
bool definesCode(const QString& name);
// Builtins that assign (or remove) variables: never read-only.
bool assigns(const QString& name);
// Programs known not to run their arguments as commands (the read-only list among them): a denied command among
// their words is an argument. Any other program may be a wrapper the analyser does not know.
bool isKnownPlain(const QString& name);
// git configuration keys whose value is a program git runs with the shell ("-c core.pager='rm x'").
bool runsProgram(const QString& key);
// Environment variables whose value is a program the command may run with the shell (PAGER='rm x' git log).
bool runsProgramVariable(const QString& name);

// Whether a command is read-only by the built-in list (ask-unsafe): `words` from the command word on;
// `argumentsExpand` when an argument is decided at run time. `why` gets the reason it is not.
bool isReadOnly(const QStringList& words, bool argumentsExpand, QString* why);

}  // namespace zeus::commandtable
