#include "approval/shelllexer.h"

#include <QRegularExpression>
#include <QSet>

namespace zeus {

QList<ShellLexer::Part> ShellLexer::run() {
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

// "{}" as find -exec writes it is literal in bash, not a brace expansion.
bool ShellLexer::isEmptyBraces() const {
    if (m_s.at(m_i) == QLatin1Char('{')) {
        return m_i + 1 < m_n && m_s.at(m_i + 1) == QLatin1Char('}');
    }
    return m_i > 0 && m_s.at(m_i - 1) == QLatin1Char('{');
}

void ShellLexer::addProblem(const QString& problem, bool opaque) {
    if (m_part.problem.isEmpty()) {
        m_part.problem = problem;
    }
    m_part.opaque = m_part.opaque || opaque;
}

void ShellLexer::startWord() {
    if (!m_inWord) {
        m_inWord = true;
        m_word.clear();
        m_raw.clear();
        m_wordExpands = false;
        m_wordQuoted = false;
    }
}

void ShellLexer::endWord() {
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

void ShellLexer::redirectTarget() {
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

void ShellLexer::endPart() {
    endWord();
    if (m_redirect != Redirect::None) {
        addProblem(QStringLiteral("has a redirection without a target"));
        m_redirect = Redirect::None;
    }
    if (!m_part.argv.isEmpty() || !m_part.problem.isEmpty()) {
        m_part.text = m_s.mid(m_partStart, m_i - m_partStart).trimmed();
        m_parts.append(m_part);
    }
    m_part = Part();
}

void ShellLexer::separator(int length) {
    endPart();
    m_i += length;
    m_partStart = m_i;
}

void ShellLexer::readEscape() {
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

void ShellLexer::readSingle() {
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

void ShellLexer::readDouble() {
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

void ShellLexer::readBacktick() {
    startWord();
    m_wordExpands = true;
    addProblem(QStringLiteral("runs a command substitution (backticks)"), true);
    int j = m_i + 1;
    while (j < m_n && m_s.at(j) != QLatin1Char('`')) {
        j += m_s.at(j) == QLatin1Char('\\') ? 2 : 1;
    }
    m_i = qMin(j + 1, m_n);
}

void ShellLexer::readDollar(bool inDouble) {
    const QChar next = m_i + 1 < m_n ? m_s.at(m_i + 1) : QChar();
    if (next == QLatin1Char('(')) {
        readCommandSubstitution(inDouble);
        return;
    }
    if (next == QLatin1Char('{')) {
        readBracedParameter();
        return;
    }
    if (next == QLatin1Char('\'') && !inDouble) {
        readAnsiCQuote();
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

// $( … ): inside double quotes it is skipped to its closing parenthesis, the whole of it one word.
void ShellLexer::readCommandSubstitution(bool inDouble) {
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
}

void ShellLexer::readBracedParameter() {
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
    } else if (body.contains(QLatin1Char('"')) || body.contains(QLatin1Char('\'')) || body.contains(QLatin1Char('\\'))
               || body.contains(QLatin1Char('\n')) || body.contains(QLatin1Char('$'))
               || body.contains(QLatin1Char('{'))) {
        addProblem(QStringLiteral("has quotes or a nested expansion inside ${ … }"), true);
    }
    m_raw += m_s.mid(m_i, j + 1 - m_i);
    m_i = qMin(j + 1, m_n);
}

// $'…' (ANSI-C quoting): its value is not read here, so it counts as decided at run time.
void ShellLexer::readAnsiCQuote() {
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
}

void ShellLexer::readRedirect() {
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

ShellLexer::Part ShellLexer::splitWords(const QString& text, bool* unclear) {
    Part out;
    const QList<Part> parts = ShellLexer(text).run();
    *unclear = parts.size() > 1;
    for (const Part& part : parts) {
        out.argv << part.argv;
        out.raw << part.raw;
        out.expands << part.expands;
        *unclear = *unclear || !part.problem.isEmpty() || part.expands.contains(true);
    }
    return out;
}

bool ShellLexer::isAssignment(const QString& raw) {
    static const QRegularExpression assignment(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\[[^\\]]*\\])?\\+?="));
    return assignment.match(raw).hasMatch();
}

}  // namespace zeus
