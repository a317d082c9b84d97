#pragma once

#include <QLatin1String>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// The enum's own namespace holds its word table (support/vocabulary.h); zeus uses it by its name.
namespace approvalwords {
Q_NAMESPACE

// How much the user wants to see before a command runs in one folder (SPEC §11); the wire and settings words
// (and --approval's): auto, ask-unsafe, ask-all.
//   Auto      - the sandbox is the boundary: nothing is asked; deny rules still refuse;
//   AskUnsafe - commands that are not plainly read-only (the built-in list) or allowed by a rule are asked;
//   AskAll    - every command not allowed by a rule is asked.
enum class ApprovalMode { Auto, AskUnsafe, AskAll };
Q_ENUM_NS(ApprovalMode)

}  // namespace approvalwords

using approvalwords::ApprovalMode;

// The words, exactly as written (no case folding).
QString approvalModeName(ApprovalMode mode);
std::optional<ApprovalMode> approvalModeFromName(const QString& name);
QStringList approvalModeNames();

// The three lists of rules a folder can have.
enum class ApprovalRuleKind { Allow, Ask, Deny };
QLatin1String approvalRuleKindName(ApprovalRuleKind kind);  // "allow", "ask", "deny"

// What CommandAnalyser decides with for one folder: the mode and the rules, each a token prefix
// ("git status", "npm run test"). Deny beats ask beats allow. Plain data.
struct ApprovalPolicy {
    ApprovalMode mode = ApprovalMode::Auto;
    QStringList allow;
    QStringList ask;
    QStringList deny;

    // This policy with `other`'s rules added and `other`'s mode when it is not Auto (the command line over the
    // settings: it can make a folder stricter and add rules, never remove one).
    ApprovalPolicy mergedWith(const ApprovalPolicy& other) const;
    QStringList& rules(ApprovalRuleKind kind);
    const QStringList& rules(ApprovalRuleKind kind) const;
    bool operator==(const ApprovalPolicy& o) const {
        return mode == o.mode && allow == o.allow && ask == o.ask && deny == o.deny;
    }
};

}  // namespace zeus
