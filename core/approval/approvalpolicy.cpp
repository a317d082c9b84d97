#include "approval/approvalpolicy.h"

#include "support/vocabulary.h"

namespace zeus {

QString approvalModeName(ApprovalMode mode) {
    return wordOf(mode);
}

std::optional<ApprovalMode> approvalModeFromName(const QString& name) {
    return fromWord<ApprovalMode>(name);
}

QStringList approvalModeNames() {
    return wordsOf<ApprovalMode>();
}

QLatin1String approvalRuleKindName(ApprovalRuleKind kind) {
    switch (kind) {
        case ApprovalRuleKind::Allow:
            return QLatin1String("allow");
        case ApprovalRuleKind::Ask:
            return QLatin1String("ask");
        case ApprovalRuleKind::Deny:
            return QLatin1String("deny");
    }
    return QLatin1String("deny");
}

QStringList& ApprovalPolicy::rules(ApprovalRuleKind kind) {
    return kind == ApprovalRuleKind::Allow ? allow : kind == ApprovalRuleKind::Ask ? ask : deny;
}

const QStringList& ApprovalPolicy::rules(ApprovalRuleKind kind) const {
    return kind == ApprovalRuleKind::Allow ? allow : kind == ApprovalRuleKind::Ask ? ask : deny;
}

ApprovalPolicy ApprovalPolicy::mergedWith(const ApprovalPolicy& other) const {
    ApprovalPolicy merged = *this;
    if (other.mode != ApprovalMode::Auto) {
        merged.mode = other.mode;
    }
    const auto add = [](QStringList& into, const QStringList& rules) {
        for (const QString& rule : rules) {
            if (!into.contains(rule)) {
                into.append(rule);
            }
        }
    };
    add(merged.allow, other.allow);
    add(merged.ask, other.ask);
    add(merged.deny, other.deny);
    return merged;
}

}  // namespace zeus
