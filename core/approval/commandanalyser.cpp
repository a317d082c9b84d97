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

const QSet<QString>& readOnlyAnyArguments();

QStringList words(std::initializer_list<const char*> items) {
    QStringList out;
    for (const char* item : items) {
        out << QString::fromLatin1(item);
    }
    return out;
}

// How a wrapper reads its arguments, as getopt does: short options cluster ("-iu root", "-uroot"), an option's
// argument is attached or the next word, long options may be abbreviated ("--comm" is "--command") and take
// "=value" or the next word.
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
};

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
};

enum class LongKind { Unknown, Flag, Argument, Script };

LongKind longKind(const WrapperSyntax& syntax, const QString& name, QString* full) {
    // An exact name first; else getopt's abbreviations: a prefix of a known option. Where a prefix could be several,
    // the most dangerous reading wins (a script, then an argument).
    const QList<QPair<const QStringList*, LongKind>> lists{{&syntax.scriptLong, LongKind::Script},
                                                           {&syntax.argLong, LongKind::Argument},
                                                           {&syntax.flagLong, LongKind::Flag}};
    for (const auto& [list, kind] : lists) {
        if (list->contains(name)) {
            *full = name;
            return kind;
        }
    }
    for (const auto& [list, kind] : lists) {
        for (const QString& option : *list) {
            if (name.size() > 2 && option.startsWith(name)) {
                *full = option;
                return kind;
            }
        }
    }
    return LongKind::Unknown;
}

WrapperCall readWrapper(const QStringList& argv, const QList<bool>& expands, int at, const WrapperSyntax& syntax) {
    WrapperCall call;
    const int n = int(argv.size());
    const QString name = argv.at(at).section(QLatin1Char('/'), -1);
    const auto argumentAt = [&](int index, QString* value, bool* valueExpands) {
        if (index < n) {
            *value = argv.at(index);
            *valueExpands = expands.at(index);
        } else {
            call.uncertain = QStringLiteral("an option of %1 has no argument").arg(name);
        }
    };
    const auto addScript = [&](const QString& script, bool scriptExpands, int end) {
        call.scripts << script;
        call.scriptExpands << scriptExpands;
        if (call.scriptEnd < 0) {
            call.scriptEnd = end;
        }
    };
    int i = at + 1;
    bool optionsEnded = false;
    while (i < n) {
        const QString& word = argv.at(i);
        if (optionsEnded) {
            call.operands << i++;
            continue;
        }
        if (expands.at(i)) {
            // It may be an option (or several words): where the command starts cannot be told.
            call.uncertain = QStringLiteral("%1 has a word that is decided when it runs").arg(name);
            if (!syntax.permute) {
                break;
            }
            call.operands << i++;
            continue;
        }
        if (word == QLatin1String("--")) {
            ++i;
            if (!syntax.permute) {
                break;
            }
            optionsEnded = true;
            continue;
        }
        if ((syntax.assignments && isAssignment(word)) || (syntax.dash && word == QLatin1String("-"))) {
            ++i;
            continue;
        }
        if (word.startsWith(QLatin1String("--"))) {
            const bool hasValue = word.contains(QLatin1Char('='));
            QString full;
            const LongKind kind = longKind(syntax, word.section(QLatin1Char('='), 0, 0), &full);
            call.seen += QLatin1Char(' ') + full;
            QString value = word.section(QLatin1Char('='), 1);
            bool valueExpands = false;
            const int next = hasValue ? i + 1 : i + 2;
            if ((kind == LongKind::Script || kind == LongKind::Argument) && !hasValue) {
                argumentAt(i + 1, &value, &valueExpands);
            }
            if (kind == LongKind::Script) {
                addScript(value, valueExpands, next);
            } else if (kind == LongKind::Argument) {
                call.values.insert(full, value);
            } else if (kind == LongKind::Unknown && !(syntax.longValues && hasValue)) {
                call.uncertain = QStringLiteral("%1 has an option the analyser does not know (%2)").arg(name, word);
            }
            i = (kind == LongKind::Script || kind == LongKind::Argument) ? next : i + 1;
            continue;
        }
        if (word.size() > 1 && word.startsWith(QLatin1Char('-'))) {
            if (syntax.digits && word.at(1).isDigit()) {
                ++i;
                continue;
            }
            int next = i + 1;
            for (int k = 1; k < word.size(); ++k) {
                const QChar c = word.at(k);
                call.seen += c;
                const bool script = syntax.scriptShort.contains(c);
                if (script || syntax.argShort.contains(c)) {
                    QString value = word.mid(k + 1);
                    bool valueExpands = false;
                    if (value.isEmpty()) {
                        argumentAt(i + 1, &value, &valueExpands);
                        next = i + 2;
                    }
                    if (script) {
                        addScript(value, valueExpands, next);
                    } else {
                        call.values.insert(QString(c), value);
                    }
                    break;
                }
                if (syntax.optionalShort.contains(c)) {
                    call.values.insert(QString(c), word.mid(k + 1));
                    break;
                }
                if (!syntax.flagShort.contains(c)) {
                    call.uncertain = QStringLiteral("%1 has an option the analyser does not know (-%2)").arg(name, c);
                }
            }
            i = next;
            continue;
        }
        if (!syntax.permute) {
            break;
        }
        call.operands << i++;
    }
    if (syntax.permute) {
        call.command = n;
        return call;
    }
    for (int operand = 0; operand < syntax.operands && i < n; ++operand) {
        if (expands.at(i)) {
            call.uncertain = QStringLiteral("%1 has a word that is decided when it runs").arg(name);
        }
        call.operands << i++;
    }
    call.command = i;
    return call;
}

bool seenOption(const WrapperCall& call, const char* shortOptions, const char* longOption = nullptr) {
    for (const char* c = shortOptions; *c; ++c) {
        if (call.seen.contains(QLatin1Char(*c))) {
            return true;
        }
    }
    return longOption && call.seen.contains(QLatin1String(longOption));
}

// Every wrapper that runs its argument as a command or a shell string. The names match the command word's last
// path component.
const QHash<QString, WrapperSyntax>& wrappers() {
    static const QHash<QString, WrapperSyntax> table = [] {
        QHash<QString, WrapperSyntax> t;
        const auto add = [&t](const char* name, const WrapperSyntax& syntax) {
            t.insert(QString::fromLatin1(name), syntax);
        };
        WrapperSyntax s;
        // Transparent: allowing looks through them.
        s = {};
        s.flagShort = QStringLiteral("pvV");
        s.transparent = true;
        add("command", s);
        s = {};
        s.argShort = QStringLiteral("a");
        s.flagShort = QStringLiteral("cl");
        s.transparent = true;
        add("exec", s);
        s = {};
        s.argShort = QStringLiteral("n");
        s.argLong = words({"--adjustment"});
        s.digits = true;
        s.transparent = true;
        add("nice", s);
        s = {};
        s.transparent = true;
        add("nohup", s);
        add("builtin", s);
        s.flagLong = words({"--list", "--list-full", "--install", "--help", "--long"});
        add("busybox", s);
        add("toybox", s);
        s = {};
        s.argShort = QStringLiteral("sk");
        s.flagShort = QStringLiteral("v");
        s.argLong = words({"--signal", "--kill-after"});
        s.flagLong = words({"--preserve-status", "--foreground", "--verbose"});
        s.operands = 1;
        s.transparent = true;
        add("timeout", s);
        s = {};
        s.argShort = QStringLiteral("of");
        s.flagShort = QStringLiteral("pvaq");
        s.argLong = words({"--output", "--format"});
        s.flagLong = words({"--portability", "--verbose", "--append", "--quiet"});
        s.transparent = true;
        add("time", s);

        // Opaque: they change who runs the command, or where; deny rules look inside, allowing does not.
        s = {};
        s.argShort = QStringLiteral("aCcDgpRrTtUu");
        s.optionalShort = QStringLiteral("h");
        s.flagShort = QStringLiteral("ABbEeHiKklNnPSsVv");
        s.argLong = words({"--auth-type", "--chdir", "--close-from", "--group", "--host", "--login-class",
                           "--other-user", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--user"});
        s.flagLong = words({"--askpass", "--bell", "--background", "--preserve-env", "--edit", "--help", "--set-home",
                            "--login", "--remove-timestamp", "--reset-timestamp", "--list", "--no-update",
                            "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--version", "--validate"});
        add("sudo", s);
        s = {};
        s.argShort = QStringLiteral("uC");
        s.flagShort = QStringLiteral("nsL");
        add("doas", s);
        s = {};
        s.argShort = QStringLiteral("uC");
        s.scriptShort = QStringLiteral("S");
        s.flagShort = QStringLiteral("i0v");
        s.argLong = words({"--unset", "--chdir"});
        s.scriptLong = words({"--split-string"});
        s.flagLong = words({"--ignore-environment", "--null", "--debug", "--ignore-signal", "--default-signal",
                            "--block-signal", "--list-signal-handling"});
        s.assignments = true;
        s.dash = true;
        add("env", s);
        s = {};
        s.scriptShort = QStringLiteral("c");
        s.argShort = QStringLiteral("gGsw");
        s.flagShort = QStringLiteral("flmpPhV");
        s.scriptLong = words({"--command", "--session-command"});
        s.argLong = words({"--group", "--supp-group", "--shell", "--whitelist-environment"});
        s.flagLong = words({"--login", "--preserve-environment", "--pty", "--fast", "--help", "--version"});
        s.permute = true;
        s.dash = true;
        add("su", s);
        s.argShort += QLatin1Char('u');
        s.argLong << QStringLiteral("--user");
        add("runuser", s);
        s = {};
        s.scriptShort = QStringLiteral("c");
        s.argShort = QStringLiteral("EIOBTmo");
        s.optionalShort = QStringLiteral("t");
        s.flagShort = QStringLiteral("aefqhV");
        s.scriptLong = words({"--command"});
        s.argLong = words(
            {"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"});
        s.flagLong =
            words({"--append", "--return", "--flush", "--force", "--quiet", "--timing", "--help", "--version"});
        s.permute = true;
        add("script", s);
        s = {};
        s.argShort = QStringLiteral("adEILnPs");
        s.optionalShort = QStringLiteral("eil");
        s.flagShort = QStringLiteral("0oprtx");
        s.argLong =
            words({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"});
        s.flagLong = words({"--null", "--open-tty", "--interactive", "--no-run-if-empty", "--verbose", "--exit",
                            "--show-limits", "--max-lines", "--replace", "--eof", "--help", "--version"});
        add("xargs", s);
        s = {};
        s.argShort = QStringLiteral("aCdEIjLNnPSs");
        s.optionalShort = QStringLiteral("i");
        s.flagShort = QStringLiteral("0kmqrtuvXx");
        s.argLong = words({"--jobs",
                           "--arg-file",
                           "--colsep",
                           "--delimiter",
                           "--eof",
                           "--max-args",
                           "--max-replace-args",
                           "--max-lines",
                           "--max-procs",
                           "--sshlogin",
                           "--max-chars",
                           "--results",
                           "--joblog",
                           "--workdir",
                           "--tmpdir",
                           "--timeout",
                           "--retries",
                           "--delay",
                           "--env",
                           "--basefile",
                           "--return",
                           "--halt",
                           "--memfree",
                           "--load",
                           "--block",
                           "--tagstring",
                           "--sshloginfile"});
        s.flagLong = words({"--pipe", "--keep-order", "--ungroup", "--line-buffer", "--dry-run", "--tag", "--null",
                            "--verbose", "--quote", "--no-run-if-empty", "--xargs", "--progress", "--bar", "--eta",
                            "--group", "--plus", "--will-cite", "--shuf", "--semaphore"});
        add("parallel", s);
        add("sem", s);
        add("env_parallel", s);
        s = {};
        s.argLong = words({"--userspec", "--groups"});
        s.flagLong = words({"--skip-chdir"});
        s.operands = 1;
        add("chroot", s);
        s = {};
        s.argShort = QStringLiteral("wE");
        s.flagShort = QStringLiteral("sxeunoFhV");
        s.argLong = words({"--timeout", "--conflict-exit-code"});
        s.flagLong = words({"--shared", "--exclusive", "--unlock", "--nonblock", "--close", "--no-fork", "--verbose"});
        s.operands = 1;
        add("flock", s);
        s = {};
        s.flagShort = QStringLiteral("cfw");
        s.flagLong = words({"--ctty", "--fork", "--wait"});
        add("setsid", s);
        s = {};
        s.argShort = QStringLiteral("ioe");
        s.argLong = words({"--input", "--output", "--error"});
        add("stdbuf", s);
        s = {};
        s.flagShort = QStringLiteral("apc");
        s.flagLong = words({"--all-tasks", "--pid", "--cpu-list"});
        s.operands = 1;
        add("taskset", s);
        s = {};
        s.argShort = QStringLiteral("cnpPu");
        s.flagShort = QStringLiteral("t");
        s.argLong = words({"--class", "--classdata", "--pid", "--pgid", "--uid"});
        s.flagLong = words({"--ignore"});
        add("ionice", s);
        s = {};
        s.argShort = QStringLiteral("TPD");
        s.flagShort = QStringLiteral("abdfimoprRv");
        s.argLong = words({"--sched-runtime", "--sched-period", "--sched-deadline"});
        s.flagLong = words({"--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--max", "--other", "--pid",
                            "--rr", "--reset-on-fork", "--verbose"});
        s.operands = 1;
        add("chrt", s);
        s = {};
        s.argShort = QStringLiteral("SGRwl");
        s.optionalShort = QStringLiteral("muinpUCT");
        s.flagShort = QStringLiteral("frc");
        s.argLong = words({"--setuid", "--setgid", "--root", "--wd", "--propagation", "--setgroups", "--map-user",
                           "--map-group", "--map-users", "--map-groups", "--load-interp", "--monotonic", "--boottime"});
        s.flagLong =
            words({"--fork", "--map-root-user", "--map-current-user", "--map-auto", "--mount-proc", "--kill-child",
                   "--keep-caps", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time"});
        add("unshare", s);
        s = {};
        s.argShort = QStringLiteral("tSG");
        s.optionalShort = QStringLiteral("muinpUCTrw");
        s.flagShort = QStringLiteral("aFZe");
        s.argLong = words({"--target", "--setuid", "--setgid"});
        s.flagLong = words({"--all", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time",
                            "--root", "--wd", "--no-fork", "--preserve-credentials", "--follow-context"});
        add("nsenter", s);
        s = {};
        s.argShort = QStringLiteral("abeEIoOpPsSuUX");
        s.flagShort = QStringLiteral("cCdDfFhiknNqrtTvVwxyzZA");
        add("strace", s);
        s = {};
        s.argShort = QStringLiteral("aADeFlnopsuwx");
        s.flagShort = QStringLiteral("bcCfhiLrStTV");
        add("ltrace", s);
        s = {};
        s.argShort = QStringLiteral("lisb");
        s.flagShort = QStringLiteral("uhv");
        s.argLong = words({"--lib", "--faked"});
        s.flagLong = words({"--unknown-is-real"});
        add("fakeroot", s);
        s = {};
        s.flagShort = QStringLiteral("p");
        add("unbuffer", s);
        s = {};
        s.flagShort = QStringLiteral("ev");
        add("chronic", s);
        s = {};
        s.flagShort = QStringLiteral("n");
        add("ifne", s);
        s = {};
        s.argLong = words({"--user"});
        s.flagLong = words({"--disable-internal-agent", "--keep-cwd"});
        add("pkexec", s);
        s = {};
        s.argLong = words({"--config-file", "--dbus-daemon"});
        add("dbus-run-session", s);
        s = {};
        s.argShort = QStringLiteral("efnpsw");
        s.flagShort = QStringLiteral("al");
        s.argLong =
            words({"--error-file", "--auth-file", "--server-num", "--xauth-protocol", "--server-args", "--wait"});
        s.flagLong = words({"--auto-servernum", "--listen-tcp"});
        add("xvfb-run", s);
        s = {};
        s.flagShort = QStringLiteral("qvh");
        s.longValues = true;
        add("valgrind", s);
        s = {};
        s.longValues = true;
        add("firejail", s);
        s = {};
        s.argShort = QStringLiteral("f");
        s.flagShort = QStringLiteral("q");
        add("proxychains", s);
        add("proxychains4", s);
        s = {};
        s.argShort = QStringLiteral("g");
        s.flagLong = words({"--sticky"});
        add("cgexec", s);
        // Without a syntax here: any option makes every word a possible command.
        s = {};
        for (const char* name : {"eatmydata",   "nocache",  "catchsegv", "torsocks", "tsocks",  "bwrap",
                                 "systemd-run", "capsh",    "setpriv",   "prlimit",  "numactl", "start-stop-daemon",
                                 "daemonize",   "faketime", "runcon",    "cpulimit", "trickle", "proot",
                                 "ccache",      "distcc",   "doas",      "sudoedit", "sg",      "watch",
                                 "rlwrap",      "expect",   "dtach",     "abduco",   "nq",      "tsp"}) {
            if (!t.contains(QString::fromLatin1(name))) {
                add(name, s);
            }
        }
        s.argShort = QStringLiteral("nq");
        s.optionalShort = QStringLiteral("d");
        s.flagShort = QStringLiteral("tbegcxpwrhvC");
        s.argLong = words({"--interval", "--equexit"});
        s.flagLong = words({"--differences", "--no-title", "--beep", "--errexit", "--chgexit", "--color", "--exec",
                            "--precise", "--no-wrap", "--no-rerun", "--no-color"});
        add("watch", s);
        return t;
    }();
    return table;
}

const QSet<QString>& shells() {
    static const QSet<QString> names{QStringLiteral("sh"),   QStringLiteral("bash"),  QStringLiteral("dash"),
                                     QStringLiteral("zsh"),  QStringLiteral("ksh"),   QStringLiteral("ash"),
                                     QStringLiteral("mksh"), QStringLiteral("yash"),  QStringLiteral("rbash"),
                                     QStringLiteral("hush"), QStringLiteral("fish"),  QStringLiteral("csh"),
                                     QStringLiteral("tcsh"), QStringLiteral("lksh"),  QStringLiteral("oksh"),
                                     QStringLiteral("posh"), QStringLiteral("ksh93"), QStringLiteral("pdksh")};
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

// Builtins that assign (or remove) variables: never read-only.
const QSet<QString>& assigning() {
    static const QSet<QString> names{QStringLiteral("export"), QStringLiteral("read"), QStringLiteral("getopts"),
                                     QStringLiteral("unset")};
    return names;
}

// Programs known not to run their arguments as commands (besides the read-only list): a denied command among
// their words is an argument. Any other program may be a wrapper the analyser does not know.
const QSet<QString>& knownPlain() {
    static const QSet<QString> names = [] {
        QSet<QString> set = readOnlyAnyArguments();
        for (const char* name :
             {"find",     "rg",       "sed",     "sort",    "uniq",       "date",    "file",     "tree",     "git",
              "mkdir",    "rm",       "rmdir",   "touch",   "cp",         "mv",      "ln",       "chmod",    "chown",
              "chgrp",    "tee",      "install", "man",     "less",       "more",    "kill",     "unlink",   "truncate",
              "shred",    "gzip",     "gunzip",  "tar",     "zip",        "unzip",   "awk",      "gawk",     "mawk",
              "curl",     "wget",     "npm",     "yarn",    "pnpm",       "pip",     "pip3",     "cargo",    "go",
              "make",     "cmake",    "ninja",   "python",  "python3",    "node",    "apt",      "apt-get",  "dpkg",
              "help",     "info",     "whatis",  "apropos", "whereis",    "export",  "read",     "getopts",  "unset",
              "set",      "umask",    "ulimit",  "wait",    "shift",      "return",  "exit",     "break",    "continue",
              "pushd",    "popd",     "dirs",    "jobs",    "fg",         "bg",      "disown",   "times",    "history",
              "fc",       "complete", "compgen", "compopt", "bind",       "logout",  "suspend",  "caller",   "ln",
              "basename", "xxd",      "base64",  "gpg",     "ssh-keygen", "openssl", "diff3",    "patch",    "sdiff",
              "vimdiff",  "strings",  "objdump", "nm",      "readelf",    "ldd",     "envsubst", "iconv",    "expand",
              "unexpand", "fmt",      "pr",      "split",   "csplit",     "join",    "shuf",     "tsort",    "factor",
              "expr",     "bc",       "dc",      "numfmt",  "yes",        "mktemp",  "sync",     "hostname", "lsof",
              "top",      "htop",     "pgrep",   "pkill",   "killall",    "lscpu",   "lsblk",    "mount",    "umount",
              "ip",       "ss",       "netstat", "ping",    "dig",        "host",    "nslookup"}) {
            set.insert(QString::fromLatin1(name));
        }
        return set;
    }();
    return names;
}

// ---- git --------------------------------------------------------------------------------------------------

// git's own commands (built in, or shipped with it). Any other subcommand is an alias or a git-NAME program.
const QSet<QString>& gitCommands() {
    static const QSet<QString> names = [] {
        QSet<QString> set;
        for (const char* name : {"add",
                                 "am",
                                 "annotate",
                                 "apply",
                                 "archimport",
                                 "archive",
                                 "bisect",
                                 "blame",
                                 "branch",
                                 "bugreport",
                                 "bundle",
                                 "cat-file",
                                 "check-attr",
                                 "check-ignore",
                                 "check-mailmap",
                                 "check-ref-format",
                                 "checkout",
                                 "checkout-index",
                                 "cherry",
                                 "cherry-pick",
                                 "citool",
                                 "clean",
                                 "clone",
                                 "column",
                                 "commit",
                                 "commit-graph",
                                 "commit-tree",
                                 "config",
                                 "count-objects",
                                 "credential",
                                 "credential-cache",
                                 "credential-store",
                                 "cvsexportcommit",
                                 "cvsimport",
                                 "cvsserver",
                                 "daemon",
                                 "describe",
                                 "diagnose",
                                 "diff",
                                 "diff-files",
                                 "diff-index",
                                 "diff-tree",
                                 "difftool",
                                 "fast-export",
                                 "fast-import",
                                 "fetch",
                                 "fetch-pack",
                                 "filter-branch",
                                 "fmt-merge-msg",
                                 "for-each-ref",
                                 "for-each-repo",
                                 "format-patch",
                                 "fsck",
                                 "fsck-objects",
                                 "fsmonitor--daemon",
                                 "gc",
                                 "get-tar-commit-id",
                                 "grep",
                                 "gui",
                                 "hash-object",
                                 "help",
                                 "hook",
                                 "http-backend",
                                 "http-fetch",
                                 "http-push",
                                 "imap-send",
                                 "index-pack",
                                 "init",
                                 "init-db",
                                 "instaweb",
                                 "interpret-trailers",
                                 "log",
                                 "ls-files",
                                 "ls-remote",
                                 "ls-tree",
                                 "mailinfo",
                                 "mailsplit",
                                 "maintenance",
                                 "merge",
                                 "merge-base",
                                 "merge-file",
                                 "merge-index",
                                 "merge-octopus",
                                 "merge-one-file",
                                 "merge-ours",
                                 "merge-recursive",
                                 "merge-recursive-ours",
                                 "merge-recursive-theirs",
                                 "merge-resolve",
                                 "merge-subtree",
                                 "merge-tree",
                                 "mergetool",
                                 "mktag",
                                 "mktree",
                                 "multi-pack-index",
                                 "mv",
                                 "name-rev",
                                 "notes",
                                 "p4",
                                 "pack-objects",
                                 "pack-redundant",
                                 "pack-refs",
                                 "patch-id",
                                 "prune",
                                 "prune-packed",
                                 "pull",
                                 "push",
                                 "quiltimport",
                                 "range-diff",
                                 "read-tree",
                                 "rebase",
                                 "receive-pack",
                                 "reflog",
                                 "refs",
                                 "remote",
                                 "repack",
                                 "replace",
                                 "replay",
                                 "request-pull",
                                 "rerere",
                                 "reset",
                                 "restore",
                                 "rev-list",
                                 "rev-parse",
                                 "revert",
                                 "rm",
                                 "scalar",
                                 "send-email",
                                 "send-pack",
                                 "shell",
                                 "shortlog",
                                 "show",
                                 "show-branch",
                                 "show-index",
                                 "show-ref",
                                 "sparse-checkout",
                                 "stage",
                                 "stash",
                                 "status",
                                 "stripspace",
                                 "submodule",
                                 "subtree",
                                 "svn",
                                 "switch",
                                 "symbolic-ref",
                                 "tag",
                                 "unpack-file",
                                 "unpack-objects",
                                 "update-index",
                                 "update-ref",
                                 "update-server-info",
                                 "upload-archive",
                                 "upload-pack",
                                 "var",
                                 "verify-commit",
                                 "verify-pack",
                                 "verify-tag",
                                 "version",
                                 "whatchanged",
                                 "worktree",
                                 "write-tree",
                                 "lfs"}) {
            set.insert(QString::fromLatin1(name));
        }
        return set;
    }();
    return names;
}

bool isGitCommand(const QString& word) {
    return gitCommands().contains(word) || (word.startsWith(QLatin1String("remote-")) && word.size() > 7);
}

// Other spellings of a porcelain command: its synonyms and the plumbing that does the same. A part using one is
// also read as the porcelain (with the rest of its words), so a deny rule on the porcelain applies.
struct GitSpelling {
    const char* porcelain;
    QStringList spelling;  // the subcommand words; "remote-*" is any remote helper
};

const QList<GitSpelling>& gitSpellings() {
    static const QList<GitSpelling> table{
        {"push", words({"send-pack"})},
        {"push", words({"http-push"})},
        {"push", words({"remote-*"})},
        {"push", words({"subtree", "push"})},
        {"push", words({"lfs", "push"})},
        {"fetch", words({"fetch-pack"})},
        {"fetch", words({"http-fetch"})},
        {"fetch", words({"remote-*"})},
        {"pull", words({"fetch-pack"})},
        {"pull", words({"remote-*"})},
        {"pull", words({"subtree", "pull"})},
        {"add", words({"stage"})},
        {"add", words({"update-index"})},
        {"rm", words({"update-index"})},
        {"commit", words({"commit-tree"})},
        {"merge", words({"merge-recursive"})},
        {"merge", words({"merge-ort"})},
        {"merge", words({"merge-resolve"})},
        {"merge", words({"merge-octopus"})},
        {"merge", words({"merge-subtree"})},
        {"merge", words({"merge-index"})},
        {"merge", words({"merge-one-file"})},
        {"merge", words({"merge-file"})},
        {"checkout", words({"switch"})},
        {"checkout", words({"restore"})},
        {"checkout", words({"checkout-index"})},
        {"checkout", words({"read-tree"})},
        {"switch", words({"checkout"})},
        {"restore", words({"checkout"})},
        {"restore", words({"checkout-index"})},
        {"reset", words({"read-tree"})},
        {"reset", words({"update-ref"})},
        {"branch", words({"update-ref"})},
        {"tag", words({"mktag"})},
        {"gc", words({"prune"})},
        {"gc", words({"repack"})},
        {"gc", words({"prune-packed"})},
        {"gc", words({"pack-refs"})},
        {"gc", words({"maintenance"})},
        {"init", words({"init-db"})},
        {"fsck", words({"fsck-objects"})},
        {"blame", words({"annotate"})},
    };
    return table;
}

// ---- reading a part ---------------------------------------------------------------------------------------

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

void setProblem(CommandPart& part, const QString& problem, bool opaque = false) {
    if (part.problem.isEmpty()) {
        part.problem = problem;
    }
    part.opaque = part.opaque || opaque;
}

// Reads one part: keywords, assignments, wrappers; appends it and whatever it runs inside (deeper parts).
void analyse(const RawPart& raw, const Context& context, QList<CommandPart>& out);

void analyseScript(const QString& script, const Context& context, CommandPart& parent, QList<CommandPart>& inner) {
    if (context.depth > CommandAnalyser::kMaxDepth) {
        if (!context.hint) {
            setProblem(parent, QStringLiteral("nests shells too deep to read"), true);
        }
        return;
    }
    const QList<RawPart> parts = Lexer(script).run();
    for (const RawPart& part : parts) {
        analyse(part, context, inner);
    }
}

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

void analyseRaw(const RawPart& part, const Context& context, CommandPart& parent, QList<CommandPart>& inner) {
    if (part.argv.isEmpty() && part.problem.isEmpty()) {
        return;
    }
    if (context.depth > CommandAnalyser::kMaxDepth) {
        analyseScript(QString(), context, parent, inner);
        return;
    }
    analyse(part, context, inner);
}

void analyseWords(const RawPart& from, int first, const Context& context, CommandPart& parent,
                  QList<CommandPart>& inner) {
    if (first < from.argv.size()) {
        analyseRaw(wordsFrom(from, first), context, parent, inner);
    }
}

// The words of a string as a program would split it (env -S, a git alias): the shell's quoting, separators kept
// as words' ends. Empty, with *unclear set, when it holds anything else.
RawPart splitString(const QString& text, bool* unclear) {
    RawPart out;
    const QList<RawPart> parts = Lexer(text).run();
    *unclear = parts.size() > 1;
    for (const RawPart& part : parts) {
        out.argv << part.argv;
        out.raw << part.raw;
        out.expands << part.expands;
        *unclear = *unclear || !part.problem.isEmpty() || part.expands.contains(true);
    }
    return out;
}

void addReading(CommandPart& part, const QStringList& words, const QList<bool>& expands, bool open = false) {
    part.readings.append(CommandReading{words, expands, open});
}

// git configuration keys whose value is a program git runs with the shell ("-c core.pager='rm x'").
bool runsProgram(const QString& key) {
    static const QSet<QString> keys{QStringLiteral("core.pager"),        QStringLiteral("core.editor"),
                                    QStringLiteral("core.sshcommand"),   QStringLiteral("core.askpass"),
                                    QStringLiteral("core.fsmonitor"),    QStringLiteral("sequence.editor"),
                                    QStringLiteral("diff.external"),     QStringLiteral("gpg.program"),
                                    QStringLiteral("credential.helper"), QStringLiteral("core.hookspath")};
    const QString lower = key.toLower();
    static const QRegularExpression configured(
        QStringLiteral("^(pager\\..+|.+\\.(command|cmd|clean|smudge|process|textconv|helper|program))$"));
    return keys.contains(lower) || configured.match(lower).hasMatch();
}

// Environment variables whose value is a program the command may run with the shell (PAGER='rm x' git log).
bool runsProgramVariable(const QString& name) {
    static const QSet<QString> names{QStringLiteral("GIT_SSH_COMMAND"),
                                     QStringLiteral("GIT_SSH"),
                                     QStringLiteral("GIT_PAGER"),
                                     QStringLiteral("PAGER"),
                                     QStringLiteral("EDITOR"),
                                     QStringLiteral("VISUAL"),
                                     QStringLiteral("GIT_EDITOR"),
                                     QStringLiteral("GIT_SEQUENCE_EDITOR"),
                                     QStringLiteral("GIT_EXTERNAL_DIFF"),
                                     QStringLiteral("GIT_ASKPASS"),
                                     QStringLiteral("SSH_ASKPASS"),
                                     QStringLiteral("LESSOPEN"),
                                     QStringLiteral("LESSCLOSE"),
                                     QStringLiteral("MANPAGER"),
                                     QStringLiteral("BROWSER"),
                                     QStringLiteral("GIT_PROXY_COMMAND"),
                                     QStringLiteral("SHELL")};
    return names.contains(name);
}

// The spellings git accepts for one command: "git [globals] SUB …", "git-SUB …" (or a path to it), aliases from
// -c / --config-env, plumbing for porcelain. Adds what they stand for to part.readings, and the shell commands they
// run (aliases starting with "!", submodule foreach, rebase --exec, bisect run, filter-branch filters) as parts.
void readGit(const RawPart& raw, int at, const Context& context, CommandPart& part, QList<CommandPart>& inner) {
    const QStringList& argv = raw.argv;
    const QList<bool>& expands = raw.expands;
    const int n = int(argv.size());
    const QString name = CommandAnalyser::commandName(argv.at(at));
    QHash<QString, QString> aliases;  // lower-case name -> value
    QSet<QString> unknownAliases;
    bool aliasesUnknown = false;  // a -c whose value is decided when it runs
    int i = at + 1;
    int sub = -1;
    QStringList subWords;  // for git-SUB: the subcommand from the command word
    bool uncertain = false;
    const auto config = [&](const QString& setting, bool settingExpands, bool fromEnvironment) {
        if (settingExpands) {
            aliasesUnknown = true;
            return;
        }
        const QString key = setting.section(QLatin1Char('='), 0, 0);
        if (!fromEnvironment && runsProgram(key)) {
            QString program = setting.section(QLatin1Char('='), 1);
            analyseScript(program.startsWith(QLatin1Char('!')) ? program.mid(1) : program, context.deeper(), part,
                          inner);
        }
        if (!key.startsWith(QLatin1String("alias."), Qt::CaseInsensitive)) {
            return;
        }
        const QString aliasName = key.mid(6).toLower();
        if (fromEnvironment) {
            unknownAliases.insert(aliasName);
        } else {
            aliases.insert(aliasName, setting.section(QLatin1Char('='), 1));
        }
    };
    if (name != QLatin1String("git")) {
        subWords << name.mid(4);
    } else {
        static const QStringList withArgument{QStringLiteral("-C"),           QStringLiteral("-c"),
                                              QStringLiteral("--git-dir"),    QStringLiteral("--work-tree"),
                                              QStringLiteral("--namespace"),  QStringLiteral("--super-prefix"),
                                              QStringLiteral("--config-env"), QStringLiteral("--attr-source")};
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
        while (i < n) {
            const QString& word = argv.at(i);
            if (expands.at(i)) {
                break;  // the subcommand (or an option) is decided when it runs: the part's own words say Maybe
            }
            if (withArgument.contains(word)) {
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
                && (withArgument.contains(option) || option == QLatin1String("--exec-path")
                    || option == QLatin1String("--list-cmds"))) {
                if (option == QLatin1String("--config-env")) {
                    config(word.section(QLatin1Char('='), 1), false, true);
                }
                ++i;
                continue;
            }
            if (flags.contains(word)) {
                ++i;
                continue;
            }
            if (isOption(word)) {
                uncertain = true;  // an option git may read with an argument: the subcommand is one of the next words
                ++i;
                continue;
            }
            break;
        }
        if (i >= n || expands.at(i)) {
            if (uncertain) {
                setProblem(part, QStringLiteral("passes git an option the analyser does not know"), true);
            }
            return;
        }
        sub = i;
    }

    // Each candidate: the words from the subcommand on (the subcommand first).
    QList<QPair<QStringList, QList<bool>>> candidates;
    if (sub < 0) {
        QList<bool> ex{false};
        QStringList w = subWords;
        w << argv.mid(at + 1);
        ex << expands.mid(at + 1);
        candidates.append({w, ex});
    } else {
        const int last = uncertain ? qMin(n, sub + 8) : sub + 1;
        for (int k = sub; k < last; ++k) {
            candidates.append({argv.mid(k), expands.mid(k)});
        }
        if (uncertain) {
            setProblem(part, QStringLiteral("passes git an option the analyser does not know"), true);
        }
    }
    const QStringList gitWord{QStringLiteral("git")};
    const QList<bool> gitExpands{false};
    for (const auto& candidate : candidates) {
        QStringList w = candidate.first;
        QList<bool> ex = candidate.second;
        bool resolved = true;
        for (int rounds = 0; rounds < 10 && !w.isEmpty() && !ex.constFirst(); ++rounds) {
            const QString lower = w.constFirst().toLower();
            if (isGitCommand(w.constFirst())) {
                break;  // git never lets an alias hide its own commands
            }
            if (unknownAliases.contains(lower) || (aliasesUnknown && !aliases.contains(lower))) {
                resolved = false;
                break;
            }
            if (!aliases.contains(lower)) {
                break;
            }
            const QString value = aliases.value(lower);
            if (value.startsWith(QLatin1Char('!'))) {
                // A shell alias: git runs it with sh -c, the rest of the words appended.
                QStringList script{value.mid(1)};
                for (int k = 1; k < w.size(); ++k) {
                    script << (ex.at(k) ? QStringLiteral("\"$x\"") : w.at(k));
                }
                analyseScript(script.join(QLatin1Char(' ')), context.deeper(), part, inner);
                w.clear();
                break;
            }
            bool unclear = false;
            const RawPart expansion = splitString(value, &unclear);
            if (unclear || expansion.argv.isEmpty()) {
                resolved = false;
                break;
            }
            w = expansion.argv + w.mid(1);
            ex = expansion.expands + ex.mid(1);
        }
        if (w.isEmpty()) {
            continue;
        }
        if (!resolved || (!ex.constFirst() && !isGitCommand(w.constFirst()))) {
            // An alias whose value is not known here, or a git-NAME program: it may be any git command.
            addReading(part, gitWord, gitExpands, true);
            continue;
        }
        addReading(part, gitWord + w, gitExpands + ex);
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
                addReading(part, gitWord + QStringList{QString::fromLatin1(spelling.porcelain)}, {false, false}, true);
            } else {
                addReading(part, gitWord + QStringList{QString::fromLatin1(spelling.porcelain)} + w.mid(s.size()),
                           QList<bool>{false, false} + ex.mid(s.size()));
            }
        }
        // Subcommands that run shell commands of their own.
        const QString& subcommand = w.constFirst();
        const auto literalRest = [&](int from) {
            QStringList rest;
            for (int k = from; k < w.size(); ++k) {
                if (ex.at(k)) {
                    setProblem(part, QStringLiteral("runs a git command string that is decided when it runs"), true);
                    return QString();
                }
                rest << w.at(k);
            }
            return rest.join(QLatin1Char(' '));
        };
        if (subcommand == QLatin1String("submodule")) {
            const int foreach = int(w.indexOf(QStringLiteral("foreach")));
            if (foreach > 0) {
                int k = foreach + 1;
                while (k < w.size() && isOption(w.at(k))) {
                    ++k;
                }
                analyseScript(literalRest(k), context.deeper(), part, inner);
            }
        } else if (subcommand == QLatin1String("bisect") && w.size() > 1 && w.at(1) == QLatin1String("run")) {
            RawPart run;
            run.argv = w.mid(2);
            run.raw = w.mid(2);
            run.expands = ex.mid(2);
            run.text = run.raw.join(QLatin1Char(' '));
            analyseRaw(run, context.deeper(), part, inner);
        } else if (subcommand == QLatin1String("rebase") || subcommand == QLatin1String("filter-branch")
                   || subcommand == QLatin1String("config")) {
            for (int k = 1; k < w.size(); ++k) {
                const QString& word = w.at(k);
                const QString option = word.section(QLatin1Char('='), 0, 0);
                const bool takes =
                    subcommand == QLatin1String("rebase")
                        ? (option == QLatin1String("--exec") || option == QLatin1String("-x")
                           || (word.startsWith(QLatin1String("-x")) && word.size() > 2))
                        : subcommand == QLatin1String("filter-branch") && option.endsWith(QLatin1String("-filter"));
                if (subcommand == QLatin1String("config")
                    && word.startsWith(QLatin1String("alias."), Qt::CaseInsensitive) && !ex.at(k)) {
                    // git config [set] alias.NAME VALUE: a spelling kept for later commands.
                    const QString value = word.contains(QLatin1Char('=')) ? word.section(QLatin1Char('='), 1)
                                          : k + 1 < w.size()              ? w.at(k + 1)
                                                                          : QString();
                    if (k + 1 < w.size() && ex.at(k + 1)) {
                        addReading(part, gitWord, gitExpands, true);
                    } else if (value.startsWith(QLatin1Char('!'))) {
                        analyseScript(value.mid(1), context.deeper(), part, inner);
                    } else if (!value.isEmpty()) {
                        bool unclear = false;
                        const RawPart expansion = splitString(value, &unclear);
                        addReading(part, gitWord + expansion.argv, gitExpands + expansion.expands, unclear);
                    }
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
                        setProblem(part, QStringLiteral("runs a git command string that is decided when it runs"),
                                   true);
                        continue;
                    }
                    script = w.at(k);
                }
                analyseScript(script, context.deeper(), part, inner);
            }
        }
    }
}

bool isGitWord(const QString& word) {
    const QString name = CommandAnalyser::commandName(word);
    return name == QLatin1String("git") || (name.startsWith(QLatin1String("git-")) && name.size() > 4);
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
        if (denies && isGitWord(word) && gits++ < 8) {
            readGit(raw, k, context, part, inner);
        }
        if (script.match(word).hasMatch()) {
            analyseScript(word.startsWith(QLatin1String("--")) && word.contains(QLatin1Char('='))
                              ? word.section(QLatin1Char('='), 1)
                              : word,
                          strings, part, inner);
        }
    }
}

// The wrapper at argv[i] of a part (after the transparent ones): reads what it runs.
void analyseWrapper(const RawPart& raw, int i, const WrapperSyntax& syntax, const Context& context, CommandPart& part,
                    QList<CommandPart>& inner) {
    const QStringList& argv = part.argv;
    const int n = int(argv.size());
    const QString name = CommandAnalyser::commandName(argv.at(i));
    setProblem(part, QStringLiteral("runs another command through %1").arg(name));
    const Context deeper = context.deeper();
    if (name == QLatin1String("sg")) {
        // sg [-] GROUP [-c] COMMAND-STRING
        int k = i + 1;
        if (k < n && argv.at(k) == QLatin1String("-")) {
            ++k;
        }
        ++k;
        if (k < n && argv.at(k) == QLatin1String("-c")) {
            ++k;
        }
        if (k >= n) {
            setProblem(part, QStringLiteral("runs a shell that reads its input (sg)"), true);
        } else if (raw.expands.mid(k).contains(true)) {
            setProblem(part, QStringLiteral("runs a command through sg that is decided when it runs"), true);
        } else {
            analyseScript(argv.mid(k).join(QLatin1Char(' ')), deeper, part, inner);
        }
        scanWords(raw, i + 1, true, context, part, inner);
        return;
    }
    const WrapperCall call = readWrapper(argv, part.expands, i, syntax);
    if (!call.uncertain.isEmpty()) {
        setProblem(part, call.uncertain, true);
        scanWords(raw, i + 1, true, context, part, inner);
    }
    for (int k = 0; k < call.scripts.size(); ++k) {
        if (call.scriptExpands.at(k)) {
            setProblem(part, QStringLiteral("runs a command through %1 that is decided when it runs").arg(name), true);
        } else {
            analyseScript(call.scripts.at(k), deeper, part, inner);
        }
    }
    const int command = call.command;
    for (int k = i + 1; name == QLatin1String("env") && k < command && k < n; ++k) {
        if (!part.expands.at(k) && isAssignment(argv.at(k))
            && runsProgramVariable(argv.at(k).section(QLatin1Char('='), 0, 0))) {
            analyseScript(argv.at(k).section(QLatin1Char('='), 1), deeper, part, inner);
        }
    }
    if (name == QLatin1String("env") && call.scriptEnd >= 0 && !call.scriptExpands.constFirst()) {
        // env -S STRING: the string's words take its place, and env reads on (options, assignments, the command).
        bool unclear = false;
        RawPart spliced = splitString(call.scripts.constFirst(), &unclear);
        spliced.argv.prepend(argv.at(i));
        spliced.raw.prepend(raw.raw.at(i));
        spliced.expands.prepend(false);
        const RawPart rest = wordsFrom(raw, call.scriptEnd);
        spliced.argv << rest.argv;
        spliced.raw << rest.raw;
        spliced.expands << rest.expands;
        spliced.text = spliced.raw.join(QLatin1Char(' '));
        analyseRaw(spliced, deeper, part, inner);
        return;
    }
    if (name == QLatin1String("su") || (name == QLatin1String("runuser") && !seenOption(call, "u", "--user"))) {
        // su [options] [-] [USER [ARGUMENT…]]: the arguments go to the user's shell ("su root -- -c 'rm x'").
        if (call.operands.size() > 1) {
            RawPart shell = pick(raw, call.operands.mid(1));
            shell.argv.prepend(QStringLiteral("sh"));
            shell.raw.prepend(QStringLiteral("sh"));
            shell.expands.prepend(false);
            analyseRaw(shell, deeper, part, inner);
        } else if (call.scripts.isEmpty()) {
            setProblem(part, QStringLiteral("runs a shell that reads its input (%1)").arg(name), true);
        }
        return;
    }
    if (name == QLatin1String("runuser")) {
        analyseRaw(pick(raw, call.operands), deeper, part, inner);
        return;
    }
    if (name == QLatin1String("script")) {
        if (call.operands.size() > 1) {
            analyseRaw(pick(raw, call.operands.mid(1)), deeper, part, inner);  // BSD: script FILE COMMAND…
        } else if (call.scripts.isEmpty()) {
            setProblem(part, QStringLiteral("runs a shell that reads its input (script)"), true);
        }
        return;
    }
    if (command >= n) {
        static const QSet<QString> shellWithoutCommand{QStringLiteral("chroot"), QStringLiteral("unshare"),
                                                       QStringLiteral("nsenter")};
        if (shellWithoutCommand.contains(name)
            || ((name == QLatin1String("sudo") || name == QLatin1String("doas")) && seenOption(call, "is", "--shell"))
            || ((name == QLatin1String("sudo")) && seenOption(call, "", "--login"))) {
            setProblem(part, QStringLiteral("runs a shell that reads its input (%1)").arg(name), true);
        }
        if (name == QLatin1String("parallel") || name == QLatin1String("sem")
            || name == QLatin1String("env_parallel")) {
            setProblem(part, QStringLiteral("runs commands it reads from its input (%1)").arg(name), true);
        }
        return;
    }
    if (name == QLatin1String("flock")
        && (argv.at(command) == QLatin1String("-c") || argv.at(command).startsWith(QLatin1String("--command")))) {
        const bool attached = argv.at(command).contains(QLatin1Char('='));
        const int at = attached ? command : command + 1;
        if (at >= n || part.expands.at(at)) {
            setProblem(part, QStringLiteral("runs a command through flock that is decided when it runs"), true);
        } else {
            analyseScript(attached ? argv.at(at).section(QLatin1Char('='), 1) : argv.at(at), deeper, part, inner);
        }
        return;
    }
    if (name == QLatin1String("parallel") || name == QLatin1String("sem") || name == QLatin1String("env_parallel")) {
        // parallel [options] [COMMAND…] [::: ARGUMENTS…]: the command is joined into a shell string ({} and friends
        // are replaced); without one, each argument is a command. Every word could become a command.
        static const QRegularExpression separator(QStringLiteral("^::::?\\+?$"));
        int end = command;
        while (end < n && !separator.match(argv.at(end)).hasMatch()) {
            ++end;
        }
        Context each = deeper;
        each.placeholder = QStringLiteral("{");
        if (end > command) {
            if (part.expands.mid(command, end - command).contains(true)) {
                setProblem(part, QStringLiteral("runs a command through %1 that is decided when it runs").arg(name),
                           true);
            } else {
                analyseScript(argv.mid(command, end - command).join(QLatin1Char(' ')), each, part, inner);
            }
        } else if (end >= n) {
            setProblem(part, QStringLiteral("runs commands it reads from its input (%1)").arg(name), true);
        } else {
            for (int k = end + 1; k < n; ++k) {
                if (part.expands.at(k)) {
                    setProblem(part, QStringLiteral("runs a command through %1 that is decided when it runs").arg(name),
                               true);
                } else if (!separator.match(argv.at(k)).hasMatch()) {
                    analyseScript(argv.at(k), each, part, inner);
                }
            }
        }
        scanWords(raw, i + 1, true, context, part, inner);
        return;
    }
    if (name == QLatin1String("watch")) {
        // watch runs its words joined as a shell string (with -x, as a command).
        if (part.expands.mid(command).contains(true)) {
            setProblem(part, QStringLiteral("runs a command through watch that is decided when it runs"), true);
        } else {
            analyseScript(argv.mid(command).join(QLatin1Char(' ')), deeper, part, inner);
        }
    }
    Context next = deeper;
    if (name == QLatin1String("xargs")) {
        // xargs -I STRING / -i[STRING] / --replace[=STRING]: words holding it are replaced by its input.
        if (call.values.contains(QStringLiteral("I"))) {
            next.placeholder = call.values.value(QStringLiteral("I"));
        } else if (call.values.contains(QStringLiteral("i")) || seenOption(call, "", "--replace")) {
            next.placeholder = call.values.value(QStringLiteral("i"));
            if (next.placeholder.isEmpty()) {
                next.placeholder = QStringLiteral("{}");
            }
        }
    }
    analyseWords(raw, command, next, part, inner);
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
        if (runsProgramVariable(raw.raw.at(i).section(QLatin1Char('='), 0, 0)) && !part.expands.at(i)) {
            analyseScript(part.argv.at(i).section(QLatin1Char('='), 1), context.deeper(), part, inner);
        }
        if (raw.raw.at(i).section(QLatin1Char('='), 0, 0).contains(QLatin1Char('['))) {
            setProblem(part, QStringLiteral("assigns to an array element (its subscript is arithmetic)"), true);
        }
        setProblem(
            part,
            QStringLiteral("sets a variable for the command (%1)").arg(raw.raw.at(i).section(QLatin1Char('='), 0, 0)));
        ++i;
    }
    part.start = i;
    // command / exec / nice / nohup / timeout / time / builtin / busybox / toybox: allowing and denying look through.
    for (int rounds = 0; i < n && !part.expands.at(i); ++rounds) {
        const QString name = CommandAnalyser::commandName(part.argv.at(i));
        const auto wrapper = wrappers().constFind(name);
        if (wrapper == wrappers().cend() || !wrapper->transparent) {
            break;
        }
        if (rounds == 16) {
            setProblem(part, QStringLiteral("nests wrappers too deep to read"), true);
            scanWords(raw, i + 1, true, context, part, inner);
            break;
        }
        const WrapperCall call = readWrapper(part.argv, part.expands, i, *wrapper);
        if (!call.uncertain.isEmpty()) {
            setProblem(part, call.uncertain, true);
            scanWords(raw, i + 1, true, context, part, inner);
            break;
        }
        if (name == QLatin1String("command") && seenOption(call, "vV")) {
            break;  // command -v only says where a command is
        }
        if (name == QLatin1String("time") && seenOption(call, "o", "--output")) {
            setProblem(part, QStringLiteral("writes a file (time -o)"));
        }
        if (call.command >= n) {
            break;  // "nice" or "time" alone: they are the command
        }
        i = call.command;
    }
    part.command = i;

    const bool decidedWhenRun =
        i < n
        && (part.expands.at(i) || (!context.placeholder.isEmpty() && part.argv.at(i).contains(context.placeholder)));
    if (decidedWhenRun) {
        setProblem(part, QStringLiteral("has a command name that is decided when it runs (%1)").arg(raw.raw.at(i)),
                   true);
    } else if (i < n) {
        const QString name = CommandAnalyser::commandName(part.argv.at(i));
        const auto wrapper = wrappers().constFind(name);
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
                setProblem(part, QStringLiteral("runs a shell script (%1 -c)").arg(name));
                if (j < n && part.expands.at(j)) {
                    setProblem(part, QStringLiteral("runs a shell script that is decided when it runs"), true);
                } else if (j < n) {
                    analyseScript(part.argv.at(j), context.deeper(), part, inner);
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
                analyseScript(part.argv.mid(i + 1).join(QLatin1Char(' ')), context.deeper(), part, inner);
            }
        } else if (name == QLatin1String("source") || name == QLatin1String(".")) {
            setProblem(part, QStringLiteral("runs a script file in the shell (%1)").arg(name), true);
        } else if (codeDefining().contains(name)) {
            // Aliases, hashed paths, traps, builtins switched off and arithmetic change or hide what later words run.
            setProblem(part, QStringLiteral("uses %1, which can change or hide what runs").arg(name), true);
        } else if (assigning().contains(name)
                   || (name == QLatin1String("printf")
                       && std::any_of(part.argv.cbegin() + i + 1, part.argv.cend(),
                                      [](const QString& w) { return w.startsWith(QLatin1String("-v")); }))) {
            // An array subscript in a variable name is arithmetic, which runs a substitution hidden in a value.
            const bool subscript = std::any_of(part.argv.cbegin() + i + 1, part.argv.cend(),
                                               [](const QString& w) { return w.contains(QLatin1Char('[')); });
            setProblem(part, QStringLiteral("assigns variables (%1)").arg(name), subscript);
        } else if (isGitWord(part.argv.at(i))) {
            readGit(raw, i, context, part, inner);
        } else if (wrapper != wrappers().cend()) {
            if (!wrapper->transparent) {  // a transparent one here is the command itself ("command -v", "nice")
                analyseWrapper(raw, i, *wrapper, context, part, inner);
            }
        } else if (name == QLatin1String("find")) {
            // find -exec rm {} ; runs rm: deny rules see it (and the read-only list never allows -exec).
            Context exec = context.deeper();
            exec.placeholder = QStringLiteral("{}");
            for (int j = i + 1; j < n; ++j) {
                const QString& word = part.argv.at(j);
                if (word == QLatin1String("-exec") || word == QLatin1String("-execdir") || word == QLatin1String("-ok")
                    || word == QLatin1String("-okdir")) {
                    int end = j + 1;
                    while (end < n && part.argv.at(end) != QLatin1String(";")
                           && part.argv.at(end) != QLatin1String("+")) {
                        ++end;
                    }
                    QList<int> indexes;
                    for (int k = j + 1; k < end; ++k) {
                        indexes << k;
                    }
                    analyseRaw(pick(raw, indexes), exec, part, inner);
                    j = end;
                }
            }
        } else if (!knownPlain().contains(name) && !(context.depth > 0 && context.hint)) {
            // A program the analyser does not know may be a wrapper: a denied command among its words is asked.
            scanWords(raw, i + 1, false, context, part, inner);
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

// Token-prefix match of a deny rule against words[from…]: Maybe where a word decided at run time may be the rule's
// word (or several words), or where the words may go on (`open`) past what is known.
Match matchWords(const QStringList& rule, const QStringList& words, const QList<bool>& expands, int from, bool open) {
    for (int k = 0; k < rule.size(); ++k) {
        const int at = from + k;
        if (at >= words.size()) {
            return open ? Match::Maybe : Match::No;
        }
        if (expands.at(at)) {
            return Match::Maybe;
        }
        const QString& word = words.at(at);
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
    const auto take = [&best](Match match) {
        if (match == Match::Yes || (match == Match::Maybe && best == Match::No)) {
            best = match;
        }
    };
    for (const int from : {part.start, part.command}) {
        if (from < part.argv.size()) {
            take(matchWords(rule, part.argv, part.expands, from, false));
        }
    }
    for (const CommandReading& reading : part.readings) {
        take(matchWords(rule, reading.words, reading.expands, 0, reading.open));
    }
    if (part.scanFrom >= 0 && best != Match::Yes) {
        // Every word as a possible command word: only a literal match counts (a variable could be anything).
        const QString first = CommandAnalyser::commandName(rule.constFirst());
        for (int k = part.scanFrom; k < part.argv.size(); ++k) {
            if (!part.expands.at(k) && CommandAnalyser::commandName(part.argv.at(k)) == first
                && matchWords(rule, part.argv, part.expands, k, false) == Match::Yes) {
                take(part.scanDenies ? Match::Yes : Match::Maybe);
                break;
            }
        }
    }
    if (part.hint) {
        return best == Match::Yes ? Match::Maybe : Match::No;
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
        analyse(part, Context{}, parts);
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
    const auto opaque =
        std::find_if(parts.cbegin(), parts.cend(), [](const CommandPart& p) { return p.opaque && !p.hint; });
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
            // At most 16 choices: a dialog cannot offer more, and joining every prefix of a long part is quadratic.
            for (int k = 1; k <= words.size() && k <= 16; ++k) {
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
