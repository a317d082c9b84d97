#include "approval/commandanalyser.h"

#include "approval/commandtable.h"
#include "approval/shelllexer.h"

#include <QRegularExpression>

#include <algorithm>

namespace zeus {

namespace {

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
    } else if (!commandtable::isTrustedCommandWord(first) || CommandAnalyser::commandName(first) != rule.constFirst()) {
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

// Deny beats everything, at every depth. True when a deny rule decided: it matches (Deny), or may match (Ask).
bool decidedByDenyRules(const QList<CommandPart>& parts, const ApprovalPolicy& policy, ApprovalDecision& decision) {
    QString maybeRule;
    const CommandPart* maybePart = nullptr;
    for (const QString& rule : policy.deny) {
        const QStringList words = CommandAnalyser::ruleWords(rule);
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
                return true;
            }
            if (match == Match::Maybe && !maybePart) {
                maybeRule = rule;
                maybePart = &part;
            }
        }
    }
    if (maybePart) {
        decision.verdict = ApprovalDecision::Verdict::Ask;
        decision.uncovered = maybePart->text;
        decision.reason = QStringLiteral("“%1” may match the deny rule “%2”: a word of it is decided when it runs")
                              .arg(maybePart->text, maybeRule);
        return true;
    }
    return false;
}

// Auto mode allows what no deny rule matches, unless a part hides what it runs from the deny rules there are.
ApprovalDecision decideAuto(const QList<CommandPart>& parts, const ApprovalPolicy& policy, ApprovalDecision decision) {
    const auto opaque =
        std::find_if(parts.cbegin(), parts.cend(), [](const CommandPart& p) { return p.opaque && !p.hint; });
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

// The rules of one kind, each as its words.
QList<QStringList> rulesWords(const QStringList& rules) {
    QList<QStringList> out;
    for (const QString& rule : rules) {
        out << CommandAnalyser::ruleWords(rule);
    }
    return out;
}

// Whether an allow rule or (in ask-unsafe) the read-only list covers a part of the command line itself; `why`
// gets the reason it is not. An allow rule that covers it is added to `matchedRules`.
bool isCovered(const CommandPart& part, const ApprovalPolicy& policy, const QList<QStringList>& allowRules,
               const QList<QStringList>& askRules, QStringList& matchedRules, QString* why) {
    if (!part.problem.isEmpty()) {
        *why = part.problem;
        return false;
    }
    const auto matches = [&part](const QStringList& rule) { return allowMatches(rule, part); };
    if (const auto ask = std::find_if(askRules.cbegin(), askRules.cend(), matches); ask != askRules.cend()) {
        *why = QStringLiteral("matches the ask rule “%1”").arg(policy.ask.at(int(ask - askRules.cbegin())));
        return false;
    }
    if (const auto allow = std::find_if(allowRules.cbegin(), allowRules.cend(), matches); allow != allowRules.cend()) {
        const QString rule = policy.allow.at(int(allow - allowRules.cbegin()));
        if (!matchedRules.contains(rule)) {
            matchedRules << rule;
        }
        return true;
    }
    if (policy.mode == ApprovalMode::AskUnsafe && CommandAnalyser::isReadOnly(part, why)) {
        return true;
    }
    if (policy.mode == ApprovalMode::AskAll) {
        *why = QStringLiteral("no allow rule of this folder covers it");
    }
    return false;
}

// The question for the first part nothing covers, with the prefixes an "Always allow" rule could start from.
void askAbout(const CommandPart& part, const QString& why, ApprovalDecision& decision) {
    decision.verdict = ApprovalDecision::Verdict::Ask;
    decision.uncovered = part.text;
    decision.suggestedPrefix = CommandAnalyser::suggestedPrefix(part);
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
}

}  // namespace

QString CommandAnalyser::commandName(const QString& word) {
    return commandtable::commandName(word);
}

QList<CommandPart> CommandAnalyser::split(const QString& command) {
    return CommandReader::read(command);
}

QStringList CommandAnalyser::ruleWords(const QString& rule) {
    const QList<ShellLexer::Part> parts = ShellLexer(rule).run();
    if (parts.size() != 1 || !parts.constFirst().problem.isEmpty() || parts.constFirst().expands.contains(true)) {
        return {};
    }
    return parts.constFirst().argv;
}

bool CommandAnalyser::isReadOnly(const CommandPart& part, QString* why) {
    if (!part.problem.isEmpty()) {
        if (why) {
            *why = part.problem;
        }
        return false;
    }
    return commandtable::isReadOnly(part.words(), part.expands.mid(part.command + 1).contains(true), why);
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
    if (decidedByDenyRules(parts, policy, decision)) {
        return decision;
    }
    if (policy.mode == ApprovalMode::Auto) {
        return decideAuto(parts, policy, decision);
    }
    const QList<QStringList> allowRules = rulesWords(policy.allow);
    const QList<QStringList> askRules = rulesWords(policy.ask);
    bool anyPart = false;
    for (const CommandPart& part : parts) {
        if (part.depth > 0) {
            continue;
        }
        anyPart = true;
        QString why;
        if (!isCovered(part, policy, allowRules, askRules, decision.matchedRules, &why)) {
            askAbout(part, why, decision);
            return decision;
        }
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
