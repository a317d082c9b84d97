#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// What a wrapper's words were read as.
struct WrapperCall {
    int command = -1;  // index of the wrapped command's first word; argv.size() when there is none
    QStringList scripts;
    QList<bool> scriptExpands;
    int scriptEnd = -1;              // index of the word after the first script option's argument
    QList<int> operands;             // the operands (permuting wrappers: every word that is not an option)
    QString seen;                    // short options seen, and each long option as "--name" (joined with spaces)
    QHash<QString, QString> values;  // option ("I", "--replace") -> its argument
    QString uncertain;               // why the words could not be told apart (empty: read)

    // Whether one of the short options, or the long one, was given.
    bool seenOption(const char* shortOptions, const char* longOption = nullptr) const;
};

// How a wrapper reads its arguments, as getopt does: short options cluster ("-iu root", "-uroot"), an option's
// argument is attached or the next word, long options may be abbreviated ("--comm" is "--command") and take
// "=value" or the next word. The table of wrappers is in commandtable.h; reading never guesses: words it cannot
// tell apart make the call `uncertain`.
struct WrapperSyntax {
    QString argShort;       // short options with an argument
    QString flagShort;      // short options without one
    QString optionalShort;  // short options with an optional argument, attached only ("-i{}" of xargs)
    QString scriptShort;    // short options whose argument is a shell command string ("-c" of su and script)
    QStringList argLong;
    QStringList flagLong;  // long options without an argument (or with an optional one, given as --opt=value)
    QStringList scriptLong;
    int operands = 0;          // words between the options and the command (timeout's duration, chroot's root)
    bool permute = false;      // options may follow operands (getopt without '+'): every word is read as an option
    bool digits = false;       // "-5" is an option (nice)
    bool assignments = false;  // NAME=value words are options (env)
    bool dash = false;         // "-" alone is an option (env -, su -)
    bool longValues = false;   // any --name=value is an option (valgrind, firejail)
    bool transparent = false;  // only changes how the command runs: allowing looks through it too

    // Reads the words after the wrapper at argv[at].
    WrapperCall read(const QStringList& argv, const QList<bool>& expands, int at) const;
};

}  // namespace zeus
