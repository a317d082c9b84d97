#include "approval/commandanalyser.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace zeus {

namespace {

// One simple command as the lexer read it, before wrappers are looked into.
struct RawPart {
    QString text;
    QStringList argv;
    QStringList raw;  // each word as written (an assignment is only one while its name is unquoted)
    QList<bool> expands;
    QString problem;
    bool opaque = false;
};

// A shell lexer that only reads: it splits a command line into simple commands and their words, and notes
// everything it does not fully understand. It never expands anything. One pass, no backtracking: linear time.
class Lexer {
public:
    explicit Lexer(const QString& text) : m_s(text), m_n(int(text.size())) {}

    QList<RawPart> run() {
        while (m_i < m_n) {
            const QChar c = m_s.at(m_i);
            const QChar next = m_i + 1 < m_n ? m_s.at(m_i + 1) : QChar();
            if (c == QLatin1Char(' ') || c == QLatin1Char('\t')) {
                endWord();
                ++m_i;
            } else if (c == QLatin1Char('\n')) {
                separator(1);
            } else if (c == QLatin1Char('#') && !m_inWord) {
                while (m_i < m_n && m_s.at(m_i) != QLatin1Char('\n')) {
                    ++m_i;
                }
            } else if (c == QLatin1Char('\\')) {
                readEscape();
            } else if (c == QLatin1Char('\'')) {
                readSingle();
            } else if (c == QLatin1Char('"')) {
                readDouble();
            } else if (c == QLatin1Char('`')) {
                readBacktick();
            } else if (c == QLatin1Char('$')) {
                readDollar(false);
            } else if (c == QLatin1Char('>') || c == QLatin1Char('<')
                       || (c == QLatin1Char('&') && next == QLatin1Char('>'))) {
                readRedirect();
            } else if (c == QLatin1Char('&')) {
                separator(next == QLatin1Char('&') ? 2 : 1);
            } else if (c == QLatin1Char('|')) {
                separator(next == QLatin1Char('|') || next == QLatin1Char('&') ? 2 : 1);
            } else if (c == QLatin1Char(';')) {
                separator(next == QLatin1Char(';') || next == QLatin1Char('&') ? 2 : 1);
            } else if (c == QLatin1Char('(') || c == QLatin1Char(')')) {
                // (( … )) evaluates arithmetic, which runs a command substitution hidden in a variable's value.
                addProblem(QStringLiteral("uses a subshell, a function or arithmetic ( … )"),
                           c == QLatin1Char('(') && next == QLatin1Char('('));
                separator(1);
            } else {
                if (c.isNull()) {
                    // The command reaches the shell through the environment, where a NUL ends it early.
                    addProblem(QStringLiteral("contains a NUL character"), true);
                }
                startWord();
                if (c == QLatin1Char('*') || c == QLatin1Char('?') || c == QLatin1Char('[')
                    || ((c == QLatin1Char('{') || c == QLatin1Char('}')) && !isEmptyBraces())
                    || (c == QLatin1Char('~') && m_word.isEmpty())) {
                    m_wordExpands = true;
                }
                m_word += c;
                m_raw += c;
                ++m_i;
            }
        }
        endPart();
        return m_parts;
    }

private:
    enum class Redirect { None, Out, OutDup, InDup, In, ReadWrite, Here };

    // "{}" as find -exec writes it is literal in bash, not a brace expansion.
    bool isEmptyBraces() const {
        if (m_s.at(m_i) == QLatin1Char('{')) {
            return m_i + 1 < m_n && m_s.at(m_i + 1) == QLatin1Char('}');
        }
        return m_i > 0 && m_s.at(m_i - 1) == QLatin1Char('{');
    }

    void addProblem(const QString& problem, bool opaque = false) {
        if (m_part.problem.isEmpty()) {
            m_part.problem = problem;
        }
        m_part.opaque = m_part.opaque || opaque;
    }

    void startWord() {
        if (!m_inWord) {
            m_inWord = true;
            m_word.clear();
            m_raw.clear();
            m_wordExpands = false;
            m_wordQuoted = false;
        }
    }

    void endWord() {
        if (!m_inWord) {
            return;
        }
        m_inWord = false;
        if (m_redirect != Redirect::None) {
            redirectTarget();
            return;
        }
        if (m_raw == QLatin1String("{") || m_raw == QLatin1String("}")) {
            m_wordExpands = false;  // the group keywords, not a brace expansion
        }
        m_part.argv.append(m_word);
        m_part.raw.append(m_raw);
        m_part.expands.append(m_wordExpands);
    }

    void redirectTarget() {
        const Redirect kind = m_redirect;
        m_redirect = Redirect::None;
        static const QSet<QString> harmless{QStringLiteral("/dev/null"), QStringLiteral("/dev/stdout"),
                                            QStringLiteral("/dev/stderr")};
        static const QRegularExpression fd(QStringLiteral("^([0-9]+-?|-)$"));
        switch (kind) {
            case Redirect::OutDup:
                if (!m_wordExpands && fd.match(m_word).hasMatch()) {
                    return;
                }
                [[fallthrough]];
            case Redirect::Out:
                if (m_wordExpands || !harmless.contains(m_word)) {
                    addProblem(QStringLiteral("redirects output to a file (%1)").arg(m_raw));
                }
                return;
            case Redirect::ReadWrite:
                addProblem(QStringLiteral("opens a file for writing (<> %1)").arg(m_raw));
                return;
            case Redirect::In:
            case Redirect::InDup:
            case Redirect::Here:
            case Redirect::None:
                return;
        }
    }

    void endPart() {
        endWord();
        if (m_redirect != Redirect::None) {
            addProblem(QStringLiteral("has a redirection without a target"));
            m_redirect = Redirect::None;
        }
        if (!m_part.argv.isEmpty() || !m_part.problem.isEmpty()) {
            m_part.text = m_s.mid(m_partStart, m_i - m_partStart).trimmed();
            m_parts.append(m_part);
        }
        m_part = RawPart();
    }

    void separator(int length) {
        endPart();
        m_i += length;
        m_partStart = m_i;
    }

    void readEscape() {
        if (m_i + 1 >= m_n) {
            ++m_i;  // a trailing backslash: nothing to escape
            return;
        }
        if (m_s.at(m_i + 1) == QLatin1Char('\n')) {
            m_i += 2;  // line continuation
            return;
        }
        startWord();
        m_wordQuoted = true;
        m_word += m_s.at(m_i + 1);
        m_raw += m_s.mid(m_i, 2);
        m_i += 2;
    }

    void readSingle() {
        startWord();
        m_wordQuoted = true;
        const qsizetype close = m_s.indexOf(QLatin1Char('\''), m_i + 1);
        if (close < 0) {
            addProblem(QStringLiteral("has an unterminated quote"), true);
            m_word += m_s.mid(m_i + 1);
            m_raw += m_s.mid(m_i);
            m_i = m_n;
            return;
        }
        m_word += m_s.mid(m_i + 1, close - m_i - 1);
        m_raw += m_s.mid(m_i, close - m_i + 1);
        m_i = int(close) + 1;
    }

    void readDouble() {
        startWord();
        m_wordQuoted = true;
        const int open = m_i;
        ++m_i;
        while (m_i < m_n) {
            const QChar c = m_s.at(m_i);
            if (c == QLatin1Char('"')) {
                ++m_i;
                m_raw += m_s.mid(open, m_i - open);
                return;
            }
            if (c == QLatin1Char('\\') && m_i + 1 < m_n) {
                const QChar e = m_s.at(m_i + 1);
                if (e == QLatin1Char('$') || e == QLatin1Char('`') || e == QLatin1Char('"') || e == QLatin1Char('\\')) {
                    m_word += e;
                } else if (e != QLatin1Char('\n')) {
                    m_word += c;
                    m_word += e;
                }
                m_i += 2;
            } else if (c == QLatin1Char('`')) {
                readBacktick();
            } else if (c == QLatin1Char('$')) {
                readDollar(true);
            } else {
                m_word += c;
                ++m_i;
            }
        }
        addProblem(QStringLiteral("has an unterminated quote"), true);
        m_raw += m_s.mid(open);
    }

    void readBacktick() {
        startWord();
        m_wordExpands = true;
        addProblem(QStringLiteral("runs a command substitution (backticks)"), true);
        int j = m_i + 1;
        while (j < m_n && m_s.at(j) != QLatin1Char('`')) {
            j += m_s.at(j) == QLatin1Char('\\') ? 2 : 1;
        }
        m_i = qMin(j + 1, m_n);
    }

    void readDollar(bool inDouble) {
        const QChar next = m_i + 1 < m_n ? m_s.at(m_i + 1) : QChar();
        if (next == QLatin1Char('(')) {
            startWord();
            m_wordExpands = true;
            addProblem(QStringLiteral("runs a command substitution $( … )"), true);
            if (!inDouble) {
                ++m_i;  // the parenthesis splits what follows into parts of their own, also read for deny rules
                return;
            }
            int depth = 0;
            int j = m_i + 1;
            for (; j < m_n; ++j) {
                if (m_s.at(j) == QLatin1Char('(')) {
                    ++depth;
                } else if (m_s.at(j) == QLatin1Char(')') && --depth == 0) {
                    break;
                }
            }
            m_i = qMin(j + 1, m_n);
            return;
        }
        if (next == QLatin1Char('{')) {
            startWord();
            m_wordExpands = true;
            int j = m_i + 2;
            while (j < m_n && m_s.at(j) != QLatin1Char('}')) {
                if (m_s.at(j) == QLatin1Char('`')
                    || (m_s.at(j) == QLatin1Char('$') && j + 1 < m_n && m_s.at(j + 1) == QLatin1Char('('))) {
                    addProblem(QStringLiteral("runs a command substitution inside ${ … }"), true);
                }
                // Subscripts and offsets are arithmetic and @P is a prompt string: both run a command
                // substitution hidden in a variable's value.
                const QChar after = j + 1 < m_n ? m_s.at(j + 1) : QChar();
                if (m_s.at(j) == QLatin1Char('[') || (m_s.at(j) == QLatin1Char('@') && after == QLatin1Char('P'))
                    || (m_s.at(j) == QLatin1Char(':') && !QStringLiteral("-=?+").contains(after))) {
                    addProblem(QStringLiteral("evaluates a variable as arithmetic or a prompt (${ … })"), true);
                }
                ++j;
            }
            // The shell ends ${ … } at the first } outside quotes and nested expansions, and reads on past a
            // newline or a ';' to find it; this scan stops at the first }. Where the two could differ (quotes, a
            // backslash, a nested $ or backtick, a newline, or no } at all) the part is not understood.
            const QString body = m_s.mid(m_i + 2, j - m_i - 2);
            if (j >= m_n) {
                addProblem(QStringLiteral("has an unterminated ${"), true);
            } else if (body.contains(QLatin1Char('"')) || body.contains(QLatin1Char('\''))
                       || body.contains(QLatin1Char('\\')) || body.contains(QLatin1Char('\n'))
                       || body.contains(QLatin1Char('$')) || body.contains(QLatin1Char('{'))) {
                addProblem(QStringLiteral("has quotes or a nested expansion inside ${ … }"), true);
            }
            m_raw += m_s.mid(m_i, j + 1 - m_i);
            m_i = qMin(j + 1, m_n);
            return;
        }
        if (next == QLatin1Char('\'') && !inDouble) {
            // $'…' (ANSI-C quoting): its value is not read here, so it counts as decided at run time.
            startWord();
            m_wordExpands = true;
            int j = m_i + 2;
            while (j < m_n && m_s.at(j) != QLatin1Char('\'')) {
                j += m_s.at(j) == QLatin1Char('\\') ? 2 : 1;
            }
            if (j >= m_n) {
                addProblem(QStringLiteral("has an unterminated quote"), true);
            }
            m_raw += m_s.mid(m_i, j + 1 - m_i);
            m_i = qMin(j + 1, m_n);
            return;
        }
        if (next == QLatin1Char('"') && !inDouble) {
            ++m_i;  // $"…" (locale string): read as "…"
            return;
        }
        if (next.isLetter() || next == QLatin1Char('_')) {
            startWord();
            m_wordExpands = true;
            int j = m_i + 1;
            while (j < m_n && (m_s.at(j).isLetterOrNumber() || m_s.at(j) == QLatin1Char('_'))) {
                ++j;
            }
            m_raw += m_s.mid(m_i, j - m_i);
            m_i = j;
            return;
        }
        if (next.isDigit() || QStringLiteral("@*#?$!-").contains(next)) {
            startWord();
            m_wordExpands = true;
            m_raw += m_s.mid(m_i, 2);
            m_i += 2;
            return;
        }
        startWord();
        m_word += QLatin1Char('$');
        m_raw += QLatin1Char('$');
        ++m_i;
    }

    void readRedirect() {
        // A word of digits right before the operator is its file descriptor ("2>/dev/null"), not an argument.
        static const QRegularExpression digits(QStringLiteral("^[0-9]+$"));
        if (m_inWord && !m_wordQuoted && !m_wordExpands && digits.match(m_word).hasMatch()) {
            m_inWord = false;
        } else {
            endWord();
        }
        const auto at = [this](int offset) { return m_i + offset < m_n ? m_s.at(m_i + offset) : QChar(); };
        if (m_redirect != Redirect::None) {
            addProblem(QStringLiteral("has a redirection without a target"));
        }
        if (m_s.at(m_i) == QLatin1Char('&')) {  // &> and &>>
            m_redirect = Redirect::Out;
            m_i += at(2) == QLatin1Char('>') ? 3 : 2;
            return;
        }
        if (at(1) == QLatin1Char('(')) {
            addProblem(QStringLiteral("uses a process substitution"), true);
            ++m_i;  // the parenthesis is read as a subshell
            return;
        }
        if (m_s.at(m_i) == QLatin1Char('>')) {
            if (at(1) == QLatin1Char('&')) {
                m_redirect = Redirect::OutDup;
                m_i += 2;
            } else {
                m_redirect = Redirect::Out;
                m_i += (at(1) == QLatin1Char('>') || at(1) == QLatin1Char('|')) ? 2 : 1;
            }
            return;
        }
        if (at(1) == QLatin1Char('<')) {
            // Here-documents and here-strings feed text to the command: to a shell, that text is a script.
            addProblem(at(2) == QLatin1Char('<') ? QStringLiteral("uses a here-string (<<<)")
                                                 : QStringLiteral("uses a here-document (<<)"),
                       true);
            m_redirect = Redirect::Here;
            m_i += (at(2) == QLatin1Char('<') || at(2) == QLatin1Char('-')) ? 3 : 2;
            return;
        }
        if (at(1) == QLatin1Char('>')) {
            m_redirect = Redirect::ReadWrite;
            m_i += 2;
            return;
        }
        if (at(1) == QLatin1Char('&')) {
            m_redirect = Redirect::InDup;
            m_i += 2;
            return;
        }
        m_redirect = Redirect::In;
        ++m_i;
    }

    const QString& m_s;
    const int m_n;
    int m_i = 0;
    int m_partStart = 0;
    RawPart m_part;
    QList<RawPart> m_parts;
    QString m_word;
    QString m_raw;
    bool m_inWord = false;
    bool m_wordExpands = false;
    bool m_wordQuoted = false;
    Redirect m_redirect = Redirect::None;
};

bool isOption(const QString& word) {
    return word.size() > 1 && word.startsWith(QLatin1Char('-'));
}

bool isAssignment(const QString& raw) {
    static const QRegularExpression assignment(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]*\\])?\\+?="));
    return assignment.match(raw).hasMatch();
}

// Wrappers that only change how the command runs and that allowing may look through.
// For each: its options that take a separate argument, and how many operands come before the command.
struct WrapperSyntax {
    QStringList argOptions;
    int operands = 0;
};

const QHash<QString, WrapperSyntax>& transparentWrappers() {
    static const QHash<QString, WrapperSyntax> wrappers{
        {QStringLiteral("command"), {{}, 0}},
        {QStringLiteral("exec"), {{QStringLiteral("-a")}, 0}},
        {QStringLiteral("nice"), {{QStringLiteral("-n")}, 0}},
        {QStringLiteral("nohup"), {{}, 0}},
        {QStringLiteral("timeout"), {{QStringLiteral("-s"), QStringLiteral("-k")}, 1}},
        {QStringLiteral("time"), {{}, 0}},
        {QStringLiteral("builtin"), {{}, 0}},
        {QStringLiteral("busybox"), {{}, 0}},
    };
    return wrappers;
}

// Wrappers that change who or what runs the command (or where): never allowed, but deny rules look inside.
const QHash<QString, WrapperSyntax>& opaqueWrappers() {
    static const QHash<QString, WrapperSyntax> wrappers{
        {QStringLiteral("sudo"),
         {{QStringLiteral("-u"), QStringLiteral("-g"), QStringLiteral("-C"), QStringLiteral("-D"), QStringLiteral("-h"),
           QStringLiteral("-p"), QStringLiteral("-r"), QStringLiteral("-t"), QStringLiteral("-T"),
           QStringLiteral("-U")},
          0}},
        {QStringLiteral("doas"), {{QStringLiteral("-u"), QStringLiteral("-C")}, 0}},
        {QStringLiteral("env"), {{QStringLiteral("-u"), QStringLiteral("-C")}, 0}},
        {QStringLiteral("xargs"),
         {{QStringLiteral("-a"), QStringLiteral("-d"), QStringLiteral("-E"), QStringLiteral("-I"), QStringLiteral("-L"),
           QStringLiteral("-n"), QStringLiteral("-P"), QStringLiteral("-s")},
          0}},
        {QStringLiteral("setsid"), {{}, 0}},
        {QStringLiteral("stdbuf"), {{QStringLiteral("-i"), QStringLiteral("-o"), QStringLiteral("-e")}, 0}},
        {QStringLiteral("ionice"), {{QStringLiteral("-c"), QStringLiteral("-n"), QStringLiteral("-p")}, 0}},
        {QStringLiteral("chroot"), {{}, 1}},
        {QStringLiteral("flock"), {{QStringLiteral("-w"), QStringLiteral("-E")}, 1}},
        {QStringLiteral("taskset"), {{}, 1}},
        {QStringLiteral("chrt"), {{}, 1}},
        {QStringLiteral("unshare"), {{}, 0}},
        {QStringLiteral("nsenter"), {{QStringLiteral("-t")}, 0}},
        {QStringLiteral("strace"), {{QStringLiteral("-e"), QStringLiteral("-o"), QStringLiteral("-p")}, 0}},
        {QStringLiteral("ltrace"), {{QStringLiteral("-e"), QStringLiteral("-o"), QStringLiteral("-p")}, 0}},
        {QStringLiteral("fakeroot"), {{}, 0}},
        {QStringLiteral("unbuffer"), {{}, 0}},
        {QStringLiteral("runuser"), {{QStringLiteral("-u"), QStringLiteral("-g")}, 0}},
        {QStringLiteral("su"), {{QStringLiteral("-s"), QStringLiteral("-g")}, 1}},
    };
    return wrappers;
}

// Wrappers whose argument is a shell script string: the option that carries it.
const QHash<QString, QString>& scriptWrappers() {
    static const QHash<QString, QString> wrappers{
        {QStringLiteral("su"), QStringLiteral("-c")},
        {QStringLiteral("runuser"), QStringLiteral("-c")},
        {QStringLiteral("script"), QStringLiteral("-c")},
        {QStringLiteral("env"), QStringLiteral("-S")},
    };
    return wrappers;
}

const QSet<QString>& shells() {
    static const QSet<QString> names{QStringLiteral("sh"),   QStringLiteral("bash"), QStringLiteral("dash"),
                                     QStringLiteral("zsh"),  QStringLiteral("ksh"),  QStringLiteral("ash"),
                                     QStringLiteral("mksh"), QStringLiteral("yash"), QStringLiteral("rbash")};
    return names;
}

const QSet<QString>& keywords() {
    static const QSet<QString> words{
        QStringLiteral("!"),    QStringLiteral("{"),     QStringLiteral("}"),      QStringLiteral("if"),
        QStringLiteral("then"), QStringLiteral("else"),  QStringLiteral("elif"),   QStringLiteral("fi"),
        QStringLiteral("for"),  QStringLiteral("while"), QStringLiteral("until"),  QStringLiteral("do"),
        QStringLiteral("done"), QStringLiteral("case"),  QStringLiteral("esac"),   QStringLiteral("select"),
        QStringLiteral("[["),   QStringLiteral("]]"),    QStringLiteral("coproc"), QStringLiteral("function")};
    return words;
}

const QSet<QString>& codeDefining() {
    static const QSet<QString> names{QStringLiteral("alias"),   QStringLiteral("hash"),    QStringLiteral("trap"),
                                     QStringLiteral("enable"),  QStringLiteral("let"),     QStringLiteral("declare"),
                                     QStringLiteral("typeset"), QStringLiteral("local"),   QStringLiteral("readonly"),
                                     QStringLiteral("shopt"),   QStringLiteral("mapfile"), QStringLiteral("readarray")};
    return names;
}

// Reads one part: keywords, assignments, wrappers; appends it and whatever it runs inside (deeper parts).
void analyse(const RawPart& raw, int depth, QList<CommandPart>& out);

void analyseScript(const QString& script, int depth, CommandPart& parent, QList<CommandPart>& inner) {
    if (depth > CommandAnalyser::kMaxDepth) {
        parent.opaque = true;
        if (parent.problem.isEmpty()) {
            parent.problem = QStringLiteral("nests shells too deep to read");
        }
        return;
    }
    const QList<RawPart> parts = Lexer(script).run();
    for (const RawPart& part : parts) {
        analyse(part, depth, inner);
    }
}

void analyseWords(const RawPart& from, int first, int depth, CommandPart& parent, QList<CommandPart>& inner) {
    if (first >= from.argv.size()) {
        return;
    }
    if (depth > CommandAnalyser::kMaxDepth) {
        analyseScript(QString(), depth, parent, inner);
        return;
    }
    RawPart part;
    part.argv = from.argv.mid(first);
    part.raw = from.raw.mid(first);
    part.expands = from.expands.mid(first);
    part.text = part.raw.join(QLatin1Char(' '));
    analyse(part, depth, inner);
}

void setProblem(CommandPart& part, const QString& problem, bool opaque = false) {
    if (part.problem.isEmpty()) {
        part.problem = problem;
    }
    part.opaque = part.opaque || opaque;
}

// Skips a wrapper's options and operands from argv[at + 1]; returns the index of the wrapped command, or -1 when
// it cannot be told (an option decided at run time). `scriptOption`: the option that carries a script, whose
// argument lands in *script.
int wrappedCommand(const CommandPart& part, int at, const WrapperSyntax& syntax, const QString& scriptOption,
                   QString* script, bool* scriptExpands) {
    const QStringList& argv = part.argv;
    const QString name = CommandAnalyser::commandName(argv.at(at));
    int i = at + 1;
    while (i < argv.size()) {
        if (part.expands.at(i)) {
            return -1;
        }
        const QString& word = argv.at(i);
        if (word == QLatin1String("--")) {
            ++i;
            break;
        }
        if (name == QLatin1String("env") && isAssignment(word)) {
            ++i;
            continue;
        }
        if (!isOption(word)) {
            break;
        }
        const bool takesArgument = syntax.argOptions.contains(word) || word == scriptOption;
        if (!scriptOption.isEmpty() && script
            && (word == scriptOption
                || (word.startsWith(QLatin1String("--split-string")) && name == QLatin1String("env")))) {
            const int valueAt = word.contains(QLatin1Char('=')) ? i : i + 1;
            if (valueAt < argv.size()) {
                *script = valueAt == i ? word.section(QLatin1Char('='), 1) : argv.at(valueAt);
                *scriptExpands = part.expands.at(valueAt);
            }
        }
        i += takesArgument ? 2 : 1;
    }
    for (int operand = 0; operand < syntax.operands && i < argv.size(); ++operand) {
        if (part.expands.at(i)) {
            return -1;
        }
        ++i;
    }
    return i;
}

void analyse(const RawPart& raw, int depth, QList<CommandPart>& out) {
    CommandPart part;
    part.text = raw.text;
    part.argv = raw.argv;
    part.expands = raw.expands;
    part.problem = raw.problem;
    part.opaque = raw.opaque;
    part.depth = depth;
    const int n = int(part.argv.size());
    QList<CommandPart> inner;

    // Shell code kept in a string can run later without appearing as a command: by eval, arithmetic, a prompt
    // string (PS4) or an exported function (BASH_FUNC_…). Whatever may evaluate it, such a string is not read.
    static const QRegularExpression hidden(
        QStringLiteral("\\$\\(|`|BASH_FUNC_|(^|[^A-Za-z0-9_])(PS[0-4]|PROMPT_COMMAND)\\+?="));
    for (const QString& word : part.argv) {
        if (hidden.match(word).hasMatch()) {
            setProblem(part, QStringLiteral("holds shell code in a string (%1)").arg(word.left(40)), true);
            break;
        }
    }
    int i = 0;
    while (i < n && !part.expands.at(i) && keywords().contains(raw.raw.at(i))) {
        // [[ … ]] evaluates arithmetic operands, which can run a command substitution hidden in a variable.
        setProblem(part, QStringLiteral("uses the shell keyword “%1”").arg(part.argv.at(i)),
                   raw.raw.at(i) == QLatin1String("[["));
        ++i;
    }
    while (i < n && isAssignment(raw.raw.at(i))) {
        if (raw.raw.at(i).section(QLatin1Char('='), 0, 0).contains(QLatin1Char('['))) {
            setProblem(part, QStringLiteral("assigns to an array element (its subscript is arithmetic)"), true);
        }
        setProblem(
            part,
            QStringLiteral("sets a variable for the command (%1)").arg(raw.raw.at(i).section(QLatin1Char('='), 0, 0)));
        ++i;
    }
    part.start = i;
    // command / exec / nice / nohup / timeout / time / builtin / busybox: allowing and denying look through them.
    for (int rounds = 0; i < n && !part.expands.at(i) && rounds < 16; ++rounds) {
        const QString name = CommandAnalyser::commandName(part.argv.at(i));
        const auto wrapper = transparentWrappers().constFind(name);
        if (wrapper == transparentWrappers().cend()) {
            break;
        }
        if (name == QLatin1String("command")
            && (part.argv.mid(i + 1).contains(QStringLiteral("-v"))
                || part.argv.mid(i + 1).contains(QStringLiteral("-V")))) {
            break;  // command -v only says where a command is
        }
        const int next = wrappedCommand(part, i, *wrapper, QString(), nullptr, nullptr);
        if (next < 0) {
            setProblem(part, QStringLiteral("passes options to %1 that are decided when it runs").arg(name), true);
            break;
        }
        if (next >= n) {
            break;  // "nice" or "time" alone: they are the command
        }
        i = next;
    }
    part.command = i;

    if (i < n && part.expands.at(i)) {
        setProblem(part, QStringLiteral("has a command name that is decided when it runs (%1)").arg(raw.raw.at(i)),
                   true);
    } else if (i < n) {
        const QString name = CommandAnalyser::commandName(part.argv.at(i));
        if (shells().contains(name)) {
            bool hasScript = false;
            int j = i + 1;
            for (; j < n; ++j) {
                const QString& word = part.argv.at(j);
                if (part.expands.at(j)) {
                    setProblem(part, QStringLiteral("passes options to %1 that are decided when it runs").arg(name),
                               true);
                    break;
                }
                if (word == QLatin1String("--")) {
                    ++j;
                    break;
                }
                if (!isOption(word) && !(word.size() > 1 && word.startsWith(QLatin1Char('+')))) {
                    break;
                }
                if (word.startsWith(QLatin1String("--"))) {
                    if (word == QLatin1String("--rcfile") || word == QLatin1String("--init-file")) {
                        ++j;
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
                setProblem(part, QStringLiteral("runs a shell script (%1 -c)").arg(name));
                if (j < n && part.expands.at(j)) {
                    setProblem(part, QStringLiteral("runs a shell script that is decided when it runs"), true);
                } else if (j < n) {
                    analyseScript(part.argv.at(j), depth + 1, part, inner);
                }
            } else if (j >= n || part.argv.mid(i + 1, j - i - 1).contains(QStringLiteral("-s"))) {
                // "echo 'rm -rf /' | sh": the script comes from its input, which is not read here.
                setProblem(part, QStringLiteral("runs a shell script from its input (%1)").arg(name), true);
            }
        } else if (name == QLatin1String("eval")) {
            setProblem(part, QStringLiteral("runs a string as a command (eval)"));
            if (part.expands.mid(i + 1).contains(true)) {
                setProblem(part, QStringLiteral("runs a string that is decided when it runs (eval)"), true);
            } else {
                analyseScript(part.argv.mid(i + 1).join(QLatin1Char(' ')), depth + 1, part, inner);
            }
        } else if (name == QLatin1String("source") || name == QLatin1String(".")) {
            setProblem(part, QStringLiteral("runs a script file in the shell (%1)").arg(name), true);
        } else if (codeDefining().contains(name)) {
            // Aliases, hashed paths, traps, builtins switched off and arithmetic change or hide what later words run.
            setProblem(part, QStringLiteral("uses %1, which can change or hide what runs").arg(name), true);
        } else if (name == QLatin1String("watch")) {
            setProblem(part, QStringLiteral("runs another command through watch"));
            int j = i + 1;
            while (j < n && isOption(part.argv.at(j))) {
                ++j;
            }
            if (part.expands.mid(i + 1).contains(true)) {
                part.opaque = true;
            } else {
                analyseScript(part.argv.mid(j).join(QLatin1Char(' ')), depth + 1, part, inner);
            }
        } else if (opaqueWrappers().contains(name) || scriptWrappers().contains(name)) {
            setProblem(part, QStringLiteral("runs another command through %1").arg(name));
            QString script;
            bool scriptExpands = false;
            const int next = wrappedCommand(part, i, opaqueWrappers().value(name), scriptWrappers().value(name),
                                            &script, &scriptExpands);
            if (next < 0 || scriptExpands) {
                setProblem(part, QStringLiteral("runs a command through %1 that is decided when it runs").arg(name),
                           true);
            } else {
                if (!script.isEmpty()) {
                    analyseScript(script, depth + 1, part, inner);
                }
                analyseWords(raw, next, depth + 1, part, inner);
            }
        } else if (name == QLatin1String("find")) {
            // find -exec rm {} ; runs rm: deny rules see it (and the read-only list never allows -exec).
            for (int j = i + 1; j < n; ++j) {
                const QString& word = part.argv.at(j);
                if (word == QLatin1String("-exec") || word == QLatin1String("-execdir") || word == QLatin1String("-ok")
                    || word == QLatin1String("-okdir")) {
                    int end = j + 1;
                    while (end < n && part.argv.at(end) != QLatin1String(";")
                           && part.argv.at(end) != QLatin1String("+")) {
                        ++end;
                    }
                    RawPart exec;
                    exec.argv = raw.argv.mid(j + 1, end - j - 1);
                    exec.raw = raw.raw.mid(j + 1, end - j - 1);
                    exec.expands = raw.expands.mid(j + 1, end - j - 1);
                    analyseWords(exec, 0, depth + 1, part, inner);
                    j = end;
                }
            }
        }
    }
    out.append(part);
    out.append(inner);
}

// ---- rules -----------------------------------------------------------------------------------------------

bool inSystemDirectory(const QString& word) {
    static const QStringList dirs{QStringLiteral("/bin/"), QStringLiteral("/usr/bin/"),
                                  QStringLiteral("/usr/local/bin/"), QStringLiteral("/sbin/"),
                                  QStringLiteral("/usr/sbin/")};
    for (const QString& dir : dirs) {
        if (word.startsWith(dir) && !word.mid(dir.size()).contains(QLatin1Char('/'))) {
            return true;
        }
    }
    return false;
}

// The command word names the program a bare rule word means: a bare name (looked up in PATH) or a system
// directory's. "./ls" or "/workspace/tools/ls" is a program the agent may have written.
bool isTrustedCommandWord(const QString& word) {
    return !word.contains(QLatin1Char('/')) || inSystemDirectory(word);
}

enum class Match { No, Maybe, Yes };

// Token-prefix match of an allow (or ask) rule: literal words only.
bool allowMatches(const QStringList& rule, const CommandPart& part) {
    const QStringList words = part.words();
    if (rule.isEmpty() || rule.size() > words.size()) {
        return false;
    }
    const QString& first = words.constFirst();
    if (rule.constFirst().contains(QLatin1Char('/'))) {
        if (first != rule.constFirst()) {
            return false;
        }
    } else if (!isTrustedCommandWord(first) || CommandAnalyser::commandName(first) != rule.constFirst()) {
        return false;
    }
    for (int k = 1; k < rule.size(); ++k) {
        if (part.expands.at(part.command + k) || words.at(k) != rule.at(k)) {
            return false;
        }
    }
    return true;
}

// git's global options before the subcommand, so "git push" is also found in "git -C x push".
QList<int> withoutGitGlobals(const QStringList& words, const QList<int>& index) {
    static const QStringList withArgument{QStringLiteral("-C"),
                                          QStringLiteral("-c"),
                                          QStringLiteral("--git-dir"),
                                          QStringLiteral("--work-tree"),
                                          QStringLiteral("--namespace"),
                                          QStringLiteral("--config-env"),
                                          QStringLiteral("--super-prefix")};
    QList<int> kept{index.constFirst()};
    int k = 1;
    while (k < index.size() && isOption(words.at(index.at(k)))) {
        k += withArgument.contains(words.at(index.at(k))) ? 2 : 1;
    }
    kept.append(index.mid(qMin(k, int(index.size()))));
    return kept;
}

Match denyMatchesView(const QStringList& rule, const CommandPart& part, const QList<int>& view) {
    for (int k = 0; k < rule.size(); ++k) {
        if (k >= view.size()) {
            return Match::No;
        }
        const int at = view.at(k);
        if (part.expands.at(at)) {
            return Match::Maybe;  // a word decided at run time may be the rule's word (or several words)
        }
        const QString& word = part.argv.at(at);
        const bool same = k == 0 ? CommandAnalyser::commandName(word) == CommandAnalyser::commandName(rule.at(0))
                                 : word == rule.at(k);
        if (!same) {
            return Match::No;
        }
    }
    return Match::Yes;
}

Match denyMatches(const QStringList& rule, const CommandPart& part) {
    if (rule.isEmpty()) {
        return Match::No;
    }
    Match best = Match::No;
    for (const int from : {part.start, part.command}) {
        if (from >= part.argv.size()) {
            continue;
        }
        QList<int> view;
        for (int k = from; k < part.argv.size(); ++k) {
            view.append(k);
        }
        QList<QList<int>> views{view};
        if (!part.expands.at(from) && CommandAnalyser::commandName(part.argv.at(from)) == QLatin1String("git")) {
            views.append(withoutGitGlobals(part.argv, view));
        }
        for (const QList<int>& candidate : views) {
            const Match match = denyMatchesView(rule, part, candidate);
            if (match == Match::Yes) {
                return Match::Yes;
            }
            if (match == Match::Maybe) {
                best = Match::Maybe;
            }
        }
    }
    return best;
}

// ---- the built-in read-only list --------------------------------------------------------------------------

// Commands that only read whatever their arguments are (no option writes a file or runs a program).
const QSet<QString>& readOnlyAnyArguments() {
    static const QSet<QString> names{
        QStringLiteral("ls"),       QStringLiteral("cat"),       QStringLiteral("head"),      QStringLiteral("tail"),
        QStringLiteral("wc"),       QStringLiteral("pwd"),       QStringLiteral("echo"),      QStringLiteral("printf"),
        QStringLiteral("which"),    QStringLiteral("true"),      QStringLiteral("false"),     QStringLiteral("whoami"),
        QStringLiteral("id"),       QStringLiteral("uname"),     QStringLiteral("basename"),  QStringLiteral("dirname"),
        QStringLiteral("realpath"), QStringLiteral("readlink"),  QStringLiteral("stat"),      QStringLiteral("du"),
        QStringLiteral("df"),       QStringLiteral("grep"),      QStringLiteral("egrep"),     QStringLiteral("fgrep"),
        QStringLiteral("cmp"),      QStringLiteral("diff"),      QStringLiteral("cut"),       QStringLiteral("tr"),
        QStringLiteral("nl"),       QStringLiteral("od"),        QStringLiteral("hexdump"),   QStringLiteral("md5sum"),
        QStringLiteral("sha1sum"),  QStringLiteral("sha256sum"), QStringLiteral("sha512sum"), QStringLiteral("cksum"),
        QStringLiteral("seq"),      QStringLiteral("printenv"),  QStringLiteral("type"),      QStringLiteral("test"),
        QStringLiteral("["),        QStringLiteral("column"),    QStringLiteral("rev"),       QStringLiteral("tac"),
        QStringLiteral("fold"),     QStringLiteral("comm"),      QStringLiteral("paste"),     QStringLiteral("jq"),
        QStringLiteral("ps"),       QStringLiteral("uptime"),    QStringLiteral("nproc"),     QStringLiteral("cd"),
        QStringLiteral("sleep"),    QStringLiteral(":"),         QStringLiteral("groups"),    QStringLiteral("tty"),
        QStringLiteral("locale"),   QStringLiteral("free")};
    return names;
}

bool refuse(QString* why, const QString& reason) {
    if (why) {
        *why = reason;
    }
    return false;
}

bool isPrintOnlySedScript(const QString& script) {
    static const QRegularExpression command(
        QStringLiteral(R"(^\s*((\d+(~\d+)?|\$|/[^/\\\n]*/)(\s*,\s*(\d+|\$|/[^/\\\n]*/))?)?\s*!?\s*p\s*$)"));
    static const QRegularExpression separators(QStringLiteral("[;\\n]"));
    const QStringList commands = script.split(separators);
    bool any = false;
    for (const QString& each : commands) {
        if (each.trimmed().isEmpty()) {
            continue;
        }
        if (!command.match(each).hasMatch()) {
            return false;
        }
        any = true;
    }
    return any;
}

bool sedIsReadOnly(const QStringList& args, QString* why) {
    bool quiet = false;
    QStringList scripts;
    QStringList operands;
    for (int k = 0; k < args.size(); ++k) {
        const QString& word = args.at(k);
        if (word == QLatin1String("-n") || word == QLatin1String("--quiet") || word == QLatin1String("--silent")) {
            quiet = true;
        } else if (word == QLatin1String("-e") || word == QLatin1String("--expression")) {
            if (k + 1 >= args.size()) {
                return refuse(why, QStringLiteral("sed -e without a script"));
            }
            scripts << args.at(++k);
        } else if (word.startsWith(QLatin1String("--expression="))) {
            scripts << word.section(QLatin1Char('='), 1);
        } else if (word == QLatin1String("-E") || word == QLatin1String("-r") || word == QLatin1String("-s")
                   || word == QLatin1String("-u") || word == QLatin1String("-z")
                   || word == QLatin1String("--regexp-extended") || word == QLatin1String("--separate")) {
            continue;
        } else if (isOption(word) && !word.startsWith(QLatin1String("--"))) {
            // A cluster such as -nE or -ne SCRIPT; -i (in place) and -f (script file) are refused.
            const QString letters = word.mid(1);
            for (int l = 0; l < letters.size(); ++l) {
                const QChar letter = letters.at(l);
                if (letter == QLatin1Char('n')) {
                    quiet = true;
                } else if (letter == QLatin1Char('e') && l == letters.size() - 1 && k + 1 < args.size()) {
                    scripts << args.at(++k);
                } else if (!QStringLiteral("Ersuz").contains(letter)) {
                    return refuse(why, QStringLiteral("sed with option -%1 is not read-only").arg(letter));
                }
            }
        } else if (isOption(word)) {
            return refuse(why, QStringLiteral("sed with option %1 is not read-only").arg(word));
        } else {
            operands << word;
        }
    }
    if (scripts.isEmpty()) {
        if (operands.isEmpty()) {
            return refuse(why, QStringLiteral("sed without a script"));
        }
        scripts << operands.takeFirst();
    }
    if (!quiet) {
        return refuse(why, QStringLiteral("sed without -n is not in the read-only list"));
    }
    for (const QString& script : scripts) {
        if (!isPrintOnlySedScript(script)) {
            return refuse(why, QStringLiteral("sed script “%1” does more than print lines").arg(script));
        }
    }
    return true;
}

bool gitIsReadOnly(const QStringList& args, QString* why) {
    static const QStringList harmlessGlobals{QStringLiteral("--no-pager"), QStringLiteral("-P"),
                                             QStringLiteral("--no-optional-locks")};
    int k = 0;
    while (k < args.size() && isOption(args.at(k))) {
        if (!harmlessGlobals.contains(args.at(k))) {
            return refuse(why, QStringLiteral("git option %1 is not in the read-only list").arg(args.at(k)));
        }
        ++k;
    }
    if (k >= args.size()) {
        return refuse(why, QStringLiteral("git without a subcommand"));
    }
    const QString& sub = args.at(k);
    const QStringList rest = args.mid(k + 1);
    static const QSet<QString> reading{
        QStringLiteral("status"),   QStringLiteral("log"),     QStringLiteral("diff"),
        QStringLiteral("show"),     QStringLiteral("branch"),  QStringLiteral("rev-parse"),
        QStringLiteral("ls-files"), QStringLiteral("blame"),   QStringLiteral("shortlog"),
        QStringLiteral("describe"), QStringLiteral("grep"),    QStringLiteral("remote"),
        QStringLiteral("tag"),      QStringLiteral("ls-tree"), QStringLiteral("rev-list"),
        QStringLiteral("cat-file"), QStringLiteral("reflog"),  QStringLiteral("whatchanged")};
    if (!reading.contains(sub)) {
        return refuse(why, QStringLiteral("git %1 is not in the read-only list").arg(sub));
    }
    for (const QString& word : rest) {
        if (word.startsWith(QLatin1String("--output")) || word == QLatin1String("--ext-diff")
            || word == QLatin1String("--textconv") || word.startsWith(QLatin1String("--filters"))
            || word.startsWith(QLatin1String("--open-files-in-pager")) || word.startsWith(QLatin1String("-O"))
            || word.startsWith(QLatin1String("--exec"))) {
            return refuse(why, QStringLiteral("git %1 with %2 is not read-only").arg(sub, word));
        }
    }
    const auto positional = [&rest] {
        return std::any_of(rest.cbegin(), rest.cend(), [](const QString& w) { return !isOption(w); });
    };
    if (sub == QLatin1String("branch")) {
        static const QSet<QString> changing{QStringLiteral("-d"),
                                            QStringLiteral("-D"),
                                            QStringLiteral("-m"),
                                            QStringLiteral("-M"),
                                            QStringLiteral("-c"),
                                            QStringLiteral("-C"),
                                            QStringLiteral("-f"),
                                            QStringLiteral("-u"),
                                            QStringLiteral("--delete"),
                                            QStringLiteral("--move"),
                                            QStringLiteral("--copy"),
                                            QStringLiteral("--force"),
                                            QStringLiteral("--unset-upstream"),
                                            QStringLiteral("--edit-description"),
                                            QStringLiteral("--no-track"),
                                            QStringLiteral("--create-reflog"),
                                            QStringLiteral("-t")};
        for (const QString& word : rest) {
            if (changing.contains(word) || word.startsWith(QLatin1String("--set-upstream"))
                || word.startsWith(QLatin1String("--track"))) {
                return refuse(why, QStringLiteral("git branch %1 changes branches").arg(word));
            }
        }
        if (positional() && !rest.contains(QStringLiteral("--list")) && !rest.contains(QStringLiteral("-l"))) {
            return refuse(why, QStringLiteral("git branch with a name creates a branch"));
        }
    }
    if (sub == QLatin1String("tag") && !rest.isEmpty() && rest.constFirst() != QLatin1String("-l")
        && rest.constFirst() != QLatin1String("--list")) {
        return refuse(why, QStringLiteral("git tag other than listing is not read-only"));
    }
    if (sub == QLatin1String("remote") && !std::all_of(rest.cbegin(), rest.cend(), [](const QString& w) {
            return w == QLatin1String("-v") || w == QLatin1String("--verbose");
        })) {
        return refuse(why, QStringLiteral("git remote other than listing is not read-only"));
    }
    if (sub == QLatin1String("reflog") && !rest.isEmpty() && rest.constFirst() != QLatin1String("show")
        && !isOption(rest.constFirst())) {
        return refuse(why, QStringLiteral("git reflog %1 is not read-only").arg(rest.constFirst()));
    }
    return true;
}

}  // namespace

QString CommandAnalyser::commandName(const QString& word) {
    const qsizetype slash = word.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? word : word.mid(slash + 1);
}

QList<CommandPart> CommandAnalyser::split(const QString& command) {
    QList<CommandPart> parts;
    const QList<RawPart> raw = Lexer(command).run();
    for (const RawPart& part : raw) {
        analyse(part, 0, parts);
    }
    return parts;
}

QStringList CommandAnalyser::ruleWords(const QString& rule) {
    const QList<RawPart> parts = Lexer(rule).run();
    if (parts.size() != 1 || !parts.constFirst().problem.isEmpty() || parts.constFirst().expands.contains(true)) {
        return {};
    }
    return parts.constFirst().argv;
}

bool CommandAnalyser::isReadOnly(const CommandPart& part, QString* why) {
    if (!part.problem.isEmpty()) {
        return refuse(why, part.problem);
    }
    const QStringList words = part.words();
    if (words.isEmpty()) {
        return refuse(why, QStringLiteral("no command"));
    }
    if (!isTrustedCommandWord(words.constFirst())) {
        return refuse(why, QStringLiteral("%1 is a program by path, not a known command").arg(words.constFirst()));
    }
    const QString name = commandName(words.constFirst());
    if (readOnlyAnyArguments().contains(name)) {
        return true;
    }
    const QStringList args = words.mid(1);
    static const QSet<QString> checked{QStringLiteral("find"),   QStringLiteral("rg"),   QStringLiteral("sed"),
                                       QStringLiteral("git"),    QStringLiteral("sort"), QStringLiteral("uniq"),
                                       QStringLiteral("date"),   QStringLiteral("file"), QStringLiteral("tree"),
                                       QStringLiteral("command")};
    if (!checked.contains(name)) {
        return refuse(why, QStringLiteral("%1 is not in the read-only list").arg(name));
    }
    // Their options matter: an argument decided at run time (a glob can match a file named "-delete") could be one.
    if (part.expands.mid(part.command + 1).contains(true)) {
        return refuse(why, QStringLiteral("%1 has an argument that is decided when it runs").arg(name));
    }
    const auto hasAny = [&args](std::initializer_list<const char*> prefixes) -> QString {
        for (const QString& word : args) {
            for (const char* prefix : prefixes) {
                if (word.startsWith(QLatin1String(prefix))) {
                    return word;
                }
            }
        }
        return {};
    };
    if (name == QLatin1String("find")) {
        for (const QString& word : args) {
            if (word == QLatin1String("-exec") || word == QLatin1String("-execdir") || word == QLatin1String("-ok")
                || word == QLatin1String("-okdir") || word == QLatin1String("-delete")
                || word.startsWith(QLatin1String("-fprint")) || word == QLatin1String("-fls")) {
                return refuse(why, QStringLiteral("find %1 is not read-only").arg(word));
            }
        }
        return true;
    }
    if (name == QLatin1String("rg")) {
        if (const QString word = hasAny({"--pre", "--hostname-bin"}); !word.isEmpty()) {
            return refuse(why, QStringLiteral("rg %1 runs a program").arg(word));
        }
        return true;
    }
    if (name == QLatin1String("sed")) {
        return sedIsReadOnly(args, why);
    }
    if (name == QLatin1String("git")) {
        return gitIsReadOnly(args, why);
    }
    if (name == QLatin1String("sort")) {
        for (const QString& word : args) {
            if (word.startsWith(QLatin1String("--output")) || word.startsWith(QLatin1String("--compress-program"))
                || (isOption(word) && !word.startsWith(QLatin1String("--")) && word.contains(QLatin1Char('o')))) {
                return refuse(why, QStringLiteral("sort %1 writes a file or runs a program").arg(word));
            }
        }
        return true;
    }
    if (name == QLatin1String("uniq")) {
        const auto operands = std::count_if(args.cbegin(), args.cend(), [](const QString& w) { return !isOption(w); });
        return operands <= 1 || refuse(why, QStringLiteral("uniq with two files writes the second"));
    }
    if (name == QLatin1String("date")) {
        if (const QString word = hasAny({"-s", "--set"}); !word.isEmpty()) {
            return refuse(why, QStringLiteral("date %1 sets the clock").arg(word));
        }
        return true;
    }
    if (name == QLatin1String("file")) {
        if (const QString word = hasAny({"-C", "--compile"}); !word.isEmpty()) {
            return refuse(why, QStringLiteral("file %1 writes a file").arg(word));
        }
        return true;
    }
    if (name == QLatin1String("tree")) {
        if (const QString word = hasAny({"-o"}); !word.isEmpty()) {
            return refuse(why, QStringLiteral("tree %1 writes a file").arg(word));
        }
        return true;
    }
    // command -v / -V: where a command is.
    return (args.contains(QStringLiteral("-v")) || args.contains(QStringLiteral("-V")))
           || refuse(why, QStringLiteral("command is not in the read-only list"));
}

QString CommandAnalyser::suggestedPrefix(const CommandPart& part) {
    if (!part.problem.isEmpty()) {
        return {};
    }
    const QStringList words = part.words();
    if (words.isEmpty()) {
        return {};
    }
    static const QRegularExpression subcommand(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9:_-]*$"));
    QStringList prefix{words.constFirst()};
    for (int k = 1; k < words.size() && k < 3; ++k) {
        if (part.expands.at(part.command + k) || !subcommand.match(words.at(k)).hasMatch()) {
            break;
        }
        prefix << words.at(k);
    }
    return prefix.join(QLatin1Char(' '));
}

ApprovalDecision CommandAnalyser::decide(const QString& command, const ApprovalPolicy& policy) {
    ApprovalDecision decision;
    const QList<CommandPart> parts = split(command);
    // Deny beats everything, at every depth.
    QString maybeRule;
    const CommandPart* maybePart = nullptr;
    for (const QString& rule : policy.deny) {
        const QStringList words = ruleWords(rule);
        for (const CommandPart& part : parts) {
            const Match match = denyMatches(words, part);
            if (match == Match::Yes) {
                decision.verdict = ApprovalDecision::Verdict::Deny;
                decision.rule = rule;
                decision.uncovered = part.text;
                decision.reason = QStringLiteral(
                                      "“%1” matches the deny rule “%2” of this folder; do not run it, or ask "
                                      "the user to remove the rule")
                                      .arg(part.text, rule);
                return decision;
            }
            if (match == Match::Maybe && !maybePart) {
                maybeRule = rule;
                maybePart = &part;
            }
        }
    }
    const auto opaque = std::find_if(parts.cbegin(), parts.cend(), [](const CommandPart& p) { return p.opaque; });
    if (maybePart) {
        decision.verdict = ApprovalDecision::Verdict::Ask;
        decision.uncovered = maybePart->text;
        decision.reason = QStringLiteral("“%1” may match the deny rule “%2”: a word of it is decided when it runs")
                              .arg(maybePart->text, maybeRule);
        return decision;
    }
    if (policy.mode == ApprovalMode::Auto) {
        if (!policy.deny.isEmpty() && opaque != parts.cend()) {
            decision.verdict = ApprovalDecision::Verdict::Ask;
            decision.uncovered = opaque->text;
            decision.reason = QStringLiteral("“%1” %2, so the deny rules of this folder cannot be checked")
                                  .arg(opaque->text, opaque->problem);
            return decision;
        }
        decision.verdict = ApprovalDecision::Verdict::Allow;
        decision.reason = QStringLiteral("approval mode auto");
        return decision;
    }

    QList<QStringList> allowRules;
    QList<QStringList> askRules;
    for (const QString& rule : policy.allow) {
        allowRules << ruleWords(rule);
    }
    for (const QString& rule : policy.ask) {
        askRules << ruleWords(rule);
    }
    bool anyPart = false;
    for (const CommandPart& part : parts) {
        if (part.depth > 0) {
            continue;
        }
        anyPart = true;
        QString why;
        bool covered = false;
        if (!part.problem.isEmpty()) {
            why = part.problem;
        } else if (const auto ask = std::find_if(askRules.cbegin(), askRules.cend(),
                                                 [&part](const QStringList& r) { return allowMatches(r, part); });
                   ask != askRules.cend()) {
            why = QStringLiteral("matches the ask rule “%1”").arg(policy.ask.at(int(ask - askRules.cbegin())));
        } else if (const auto allow = std::find_if(allowRules.cbegin(), allowRules.cend(),
                                                   [&part](const QStringList& r) { return allowMatches(r, part); });
                   allow != allowRules.cend()) {
            const QString rule = policy.allow.at(int(allow - allowRules.cbegin()));
            if (!decision.matchedRules.contains(rule)) {
                decision.matchedRules << rule;
            }
            covered = true;
        } else if (policy.mode == ApprovalMode::AskUnsafe && isReadOnly(part, &why)) {
            covered = true;
        } else if (policy.mode == ApprovalMode::AskAll) {
            why = QStringLiteral("no allow rule of this folder covers it");
        }
        if (covered) {
            continue;
        }
        decision.verdict = ApprovalDecision::Verdict::Ask;
        decision.uncovered = part.text;
        decision.suggestedPrefix = suggestedPrefix(part);
        if (!decision.suggestedPrefix.isEmpty()) {
            const QStringList words = part.words();
            for (int k = 1; k <= words.size(); ++k) {
                if (part.expands.at(part.command + k - 1)) {
                    break;
                }
                decision.prefixChoices << words.mid(0, k).join(QLatin1Char(' '));
            }
        }
        decision.why = why;
        decision.reason = QStringLiteral("“%1” needs the user's approval: %2").arg(part.text, why);
        return decision;
    }
    if (!anyPart) {
        decision.verdict = ApprovalDecision::Verdict::Ask;
        decision.reason = QStringLiteral("an empty command needs the user's approval");
        return decision;
    }
    decision.verdict = ApprovalDecision::Verdict::Allow;
    if (decision.matchedRules.size() == 1 && parts.size() == 1) {
        decision.rule = decision.matchedRules.constFirst();
    }
    decision.reason =
        decision.matchedRules.isEmpty()
            ? QStringLiteral("read-only")
            : QStringLiteral("allowed by the rules %1").arg(decision.matchedRules.join(QStringLiteral(", ")));
    return decision;
}

}  // namespace zeus
