#pragma once

#include "approval/approvalpolicy.h"
#include "approval/commandreader.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// What the analyser decided for one command line under one folder's policy.
struct ApprovalDecision {
    enum class Verdict { Allow, Ask, Deny };
    Verdict verdict = Verdict::Ask;
    QString reason;             // for the user and the agent: why, in one sentence
    QString why;                // the reason without the part it is about (shown beside the part)
    QString rule;               // the rule that decided (a deny rule, or the allow rule of a one-part command)
    QStringList matchedRules;   // the allow rules that covered parts (their "last matched" time is updated)
    QString uncovered;          // the first part no rule or built-in covers, as written
    QString suggestedPrefix;    // the words an "Always allow" rule would start from; empty when none can help
    QStringList prefixChoices;  // the prefixes that cover `uncovered`, shortest first (for the dialog)
};

// Decides whether a shell command may run without asking (SPEC §11). Pure functions, no I/O; linear in the
// command's length (a nested sh -c string is read at most kMaxDepth deep), so a 100 KB command is decided at once.
//
// It is conservative by construction: a command is split on && || ; | & newlines and parentheses with quotes and
// escapes respected, and it is allowed only if every part is: fully understood, and allowed by a rule or (in
// ask-unsafe) by the built-in read-only list. Anything it does not fully understand is asked, never allowed. Deny
// rules look at every part, at the command word's last path component, through every known wrapper (command,
// exec, nice, timeout, sudo, env -S, xargs, parallel, script -c, su -c, flock, find -exec, sh -c strings, …,
// with their options read as getopt reads them), and at git's other spellings of a subcommand. A wrapper whose
// words cannot be told apart has every word looked at as a possible command (a match denies) and is asked; a
// program the analyser does not know is asked when a denied command appears among its words. It must never allow
// a command it cannot read, nor execute or expand anything.
//
// The reading is CommandReader's (with ShellLexer for the words, GitReader for git, commandtable for what is known
// by name); this class holds the decision: deny, allow and ask rules, the read-only list, the suggested prefix.
class CommandAnalyser {
public:
    static constexpr int kMaxDepth = CommandReader::kMaxDepth;

    CommandAnalyser() = delete;

    static ApprovalDecision decide(const QString& command, const ApprovalPolicy& policy);

    // The parts of a command line, each wrapper's inner parts right after it.
    static QList<CommandPart> split(const QString& command);
    // A rule's words (quotes and escapes as in the shell); empty for a rule that is not plain words.
    static QStringList ruleWords(const QString& rule);
    // Whether a fully understood part is read-only by the built-in list (ask-unsafe); `why` gets the reason it is not.
    static bool isReadOnly(const CommandPart& part, QString* why = nullptr);
    // The shortest prefix worth offering for "Always allow": the command word and the subcommand words after it.
    static QString suggestedPrefix(const CommandPart& part);
    // The last path component of a command word ("/bin/rm" -> "rm").
    static QString commandName(const QString& word);
};

}  // namespace zeus
