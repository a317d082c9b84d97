#include "approval/wrappersyntax.h"

#include "approval/shelllexer.h"

#include <QPair>

namespace zeus {

namespace {

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

// One walk over a wrapper's words, as getopt makes it: what it keeps while it goes.
class WrapperWords {
public:
    WrapperWords(const WrapperSyntax& syntax, const QStringList& argv, const QList<bool>& expands, int at)
        : m_syntax(syntax),
          m_argv(argv),
          m_expands(expands),
          m_n(int(argv.size())),
          m_at(at),
          m_name(argv.at(at).section(QLatin1Char('/'), -1)) {}

    WrapperCall read();

private:
    void argumentAt(int index, QString* value, bool* valueExpands);
    void addScript(const QString& script, bool scriptExpands, int end);
    // Each reads the option word at i and returns the index of the word after it (and its argument).
    int readLong(int i);
    int readShort(int i);

    const WrapperSyntax& m_syntax;
    const QStringList& m_argv;
    const QList<bool>& m_expands;
    const int m_n;
    const int m_at;
    const QString m_name;
    WrapperCall m_call;
};

WrapperCall WrapperWords::read() {
    int i = m_at + 1;
    bool optionsEnded = false;
    while (i < m_n) {
        const QString& word = m_argv.at(i);
        if (optionsEnded) {
            m_call.operands << i++;
            continue;
        }
        if (m_expands.at(i)) {
            // It may be an option (or several words): where the command starts cannot be told.
            m_call.uncertain = QStringLiteral("%1 has a word that is decided when it runs").arg(m_name);
            if (!m_syntax.permute) {
                break;
            }
            m_call.operands << i++;
            continue;
        }
        if (word == QLatin1String("--")) {
            ++i;
            if (!m_syntax.permute) {
                break;
            }
            optionsEnded = true;
            continue;
        }
        if ((m_syntax.assignments && ShellLexer::isAssignment(word)) || (m_syntax.dash && word == QLatin1String("-"))) {
            ++i;
            continue;
        }
        if (word.startsWith(QLatin1String("--"))) {
            i = readLong(i);
            continue;
        }
        if (word.size() > 1 && word.startsWith(QLatin1Char('-'))) {
            i = m_syntax.digits && word.at(1).isDigit() ? i + 1 : readShort(i);
            continue;
        }
        if (!m_syntax.permute) {
            break;
        }
        m_call.operands << i++;
    }
    if (m_syntax.permute) {
        m_call.command = m_n;
        return m_call;
    }
    for (int operand = 0; operand < m_syntax.operands && i < m_n; ++operand) {
        if (m_expands.at(i)) {
            m_call.uncertain = QStringLiteral("%1 has a word that is decided when it runs").arg(m_name);
        }
        m_call.operands << i++;
    }
    m_call.command = i;
    return m_call;
}

void WrapperWords::argumentAt(int index, QString* value, bool* valueExpands) {
    if (index < m_n) {
        *value = m_argv.at(index);
        *valueExpands = m_expands.at(index);
    } else {
        m_call.uncertain = QStringLiteral("an option of %1 has no argument").arg(m_name);
    }
}

void WrapperWords::addScript(const QString& script, bool scriptExpands, int end) {
    m_call.scripts << script;
    m_call.scriptExpands << scriptExpands;
    if (m_call.scriptEnd < 0) {
        m_call.scriptEnd = end;
    }
}

int WrapperWords::readLong(int i) {
    const QString& word = m_argv.at(i);
    const bool hasValue = word.contains(QLatin1Char('='));
    QString full;
    const LongKind kind = longKind(m_syntax, word.section(QLatin1Char('='), 0, 0), &full);
    m_call.seen += QLatin1Char(' ') + full;
    QString value = word.section(QLatin1Char('='), 1);
    bool valueExpands = false;
    const int next = hasValue ? i + 1 : i + 2;
    if ((kind == LongKind::Script || kind == LongKind::Argument) && !hasValue) {
        argumentAt(i + 1, &value, &valueExpands);
    }
    if (kind == LongKind::Script) {
        addScript(value, valueExpands, next);
    } else if (kind == LongKind::Argument) {
        m_call.values.insert(full, value);
    } else if (kind == LongKind::Unknown && !(m_syntax.longValues && hasValue)) {
        m_call.uncertain = QStringLiteral("%1 has an option the analyser does not know (%2)").arg(m_name, word);
    }
    return (kind == LongKind::Script || kind == LongKind::Argument) ? next : i + 1;
}

int WrapperWords::readShort(int i) {
    const QString& word = m_argv.at(i);
    int next = i + 1;
    for (int k = 1; k < word.size(); ++k) {
        const QChar c = word.at(k);
        m_call.seen += c;
        const bool script = m_syntax.scriptShort.contains(c);
        if (script || m_syntax.argShort.contains(c)) {
            QString value = word.mid(k + 1);
            bool valueExpands = false;
            if (value.isEmpty()) {
                argumentAt(i + 1, &value, &valueExpands);
                next = i + 2;
            }
            if (script) {
                addScript(value, valueExpands, next);
            } else {
                m_call.values.insert(QString(c), value);
            }
            break;
        }
        if (m_syntax.optionalShort.contains(c)) {
            m_call.values.insert(QString(c), word.mid(k + 1));
            break;
        }
        if (!m_syntax.flagShort.contains(c)) {
            m_call.uncertain = QStringLiteral("%1 has an option the analyser does not know (-%2)").arg(m_name, c);
        }
    }
    return next;
}

}  // namespace

bool WrapperCall::seenOption(const char* shortOptions, const char* longOption) const {
    for (const char* c = shortOptions; *c; ++c) {
        if (seen.contains(QLatin1Char(*c))) {
            return true;
        }
    }
    return longOption && seen.contains(QLatin1String(longOption));
}

WrapperCall WrapperSyntax::read(const QStringList& argv, const QList<bool>& expands, int at) const {
    return WrapperWords(*this, argv, expands, at).read();
}

}  // namespace zeus
