// libFuzzer target for CommandAnalyser, which reads command lines an untrusted agent writes. Any text must be
// decided without a crash, a sanitizer report or a hang, and the decision must keep the analyser's promises: a
// deny rule that names a part's command word always denies; ask-all never allows a command no allow rule covers
// part by part; a command is never allowed in an ask mode when some part of it could not be read; and appending
// "; rm x" (a part no policy here allows) to anything never makes it allowed.
#include "approval/commandanalyser.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) {
        return 0;
    }
    const QString command = QString::fromUtf8(reinterpret_cast<const char*>(data + 1), qsizetype(size - 1));
    ApprovalPolicy policy;
    policy.mode = ApprovalMode(data[0] % 3);
    policy.allow = {QStringLiteral("ls"), QStringLiteral("git status"), QStringLiteral("echo")};
    policy.deny = {QStringLiteral("rm")};

    const ApprovalDecision decision = CommandAnalyser::decide(command, policy);
    const QList<CommandPart> parts = CommandAnalyser::split(command);
    for (const CommandPart& part : parts) {
        if (part.argv.size() != part.expands.size() || part.start > part.command || part.command > part.argv.size()) {
            std::abort();
        }
        const QStringList words = part.words();
        const bool literal = !words.isEmpty() && !part.expands.at(part.command);
        if (literal && CommandAnalyser::commandName(words.constFirst()) == QLatin1String("rm")
            && decision.verdict != ApprovalDecision::Verdict::Deny) {
            std::abort();  // a readable rm slipped past the deny rule
        }
        if (part.opaque && decision.verdict == ApprovalDecision::Verdict::Allow) {
            std::abort();  // deny rules exist: an unreadable part must be asked
        }
        if (part.depth == 0 && !part.problem.isEmpty() && policy.mode != ApprovalMode::Auto
            && decision.verdict == ApprovalDecision::Verdict::Allow) {
            std::abort();
        }
    }
    if (policy.mode != ApprovalMode::Auto) {
        const ApprovalDecision longer = CommandAnalyser::decide(command + QStringLiteral("\n; rm x"), policy);
        if (longer.verdict == ApprovalDecision::Verdict::Allow) {
            std::abort();
        }
    }
    return 0;
}
