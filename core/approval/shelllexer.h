#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace zeus {

// A shell lexer that only reads: it splits a command line into simple commands and their words (on && || ; | &
// newlines and parentheses, quotes and escapes respected), and notes everything it does not fully understand
// (substitutions, redirections to files, here-documents, unterminated quotes). It never expands anything. One pass,
// no backtracking: linear time. What the words run is CommandReader's business, not the lexer's.
class ShellLexer {
public:
    // One simple command as the lexer read it, before wrappers are looked into.
    struct Part {
        QString text;
        QStringList argv;
        QStringList raw;  // each word as written (an assignment is only one while its name is unquoted)
        QList<bool> expands;
        QString problem;
        bool opaque = false;
    };

    explicit ShellLexer(const QString& text) : m_s(text), m_n(int(text.size())) {}

    QList<Part> run();

    // The words of a string as a program would split it (env -S, a git alias): the shell's quoting, separators kept
    // as words' ends. *unclear is set when it holds anything else.
    static Part splitWords(const QString& text, bool* unclear);
    // NAME=value as written (NAME[…]= and NAME+= too): the shell reads the word as an assignment.
    static bool isAssignment(const QString& raw);

private:
    enum class Redirect { None, Out, OutDup, InDup, In, ReadWrite, Here };

    bool isEmptyBraces() const;
    void addProblem(const QString& problem, bool opaque = false);
    void startWord();
    void endWord();
    void redirectTarget();
    void endPart();
    void separator(int length);
    void readEscape();
    void readSingle();
    void readDouble();
    void readBacktick();
    void readDollar(bool inDouble);
    void readCommandSubstitution(bool inDouble);
    void readBracedParameter();
    void readAnsiCQuote();
    void readRedirect();

    const QString& m_s;  // the caller's string: a lexer lives only as long as one run()
    const int m_n;
    int m_i = 0;
    int m_partStart = 0;
    Part m_part;
    QList<Part> m_parts;
    QString m_word;
    QString m_raw;
    bool m_inWord = false;
    bool m_wordExpands = false;
    bool m_wordQuoted = false;
    Redirect m_redirect = Redirect::None;
};

}  // namespace zeus
