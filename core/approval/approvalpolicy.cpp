#include "approval/approvalpolicy.h"

namespace zeus {

QLatin1String approvalModeName(ApprovalMode mode) {
    switch (mode) {
        case ApprovalMode::Auto:
            return QLatin1String("auto");
        case ApprovalMode::AskUnsafe:
            return QLatin1String("ask-unsafe");
        case ApprovalMode::AskAll:
            return QLatin1String("ask-all");
    }
    return QLatin1String("auto");
}

std::optional<ApprovalMode> approvalModeFromName(const QString& name) {
    for (const ApprovalMode mode : {ApprovalMode::Auto, ApprovalMode::AskUnsafe, ApprovalMode::AskAll}) {
        if (name == approvalModeName(mode)) {
            return mode;
        }
    }
    return std::nullopt;
}

QStringList approvalModeNames() {
    return {approvalModeName(ApprovalMode::Auto), approvalModeName(ApprovalMode::AskUnsafe),
            approvalModeName(ApprovalMode::AskAll)};
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
