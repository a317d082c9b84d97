#pragma once

#include "approval/commandreader.h"
#include "approval/shelllexer.h"

#include <QList>
#include <QString>

namespace zeus {

// The spellings git accepts for one command, so that a deny rule on "git push" holds however it is written:
// "git [globals] SUB …", "git-SUB …" (or a path to it), aliases from -c / --config-env, plumbing for porcelain.
// It adds what they stand for to the part's readings, and reads the shell commands git would run (aliases
// starting with "!", programs set with -c, submodule foreach, rebase --exec, bisect run, filter-branch filters)
// as deeper parts. An alias or subcommand whose meaning cannot be told is read as "any git command".
class GitReader {
public:
    GitReader() = delete;

    // "git", "git-SUB", or a path to either.
    static bool isGitWord(const QString& word);
    // Reads the git command whose command word is raw.argv[at].
    static void read(const ShellLexer::Part& raw, int at, const CommandReader::Context& context, CommandPart& part,
                     QList<CommandPart>& inner);
};

}  // namespace zeus
