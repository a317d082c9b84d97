// libFuzzer target for CommandAnalyser, which reads command lines an untrusted agent writes. Any text must be
// decided without a crash, a sanitizer report or a hang, and the decision must keep the analyser's promises: a
// deny rule that names a part's command word always denies; ask-all never allows a command no allow rule covers
// part by part; a command is never allowed in an ask mode when some part of it could not be read; and appending
// "; rm x" (a part no policy here allows) to anything never makes it allowed.
//
// The same bytes also build a command line that runs a denied command (rm, git push) in one of its spellings
// behind a chain of known wrappers (sudo -iu, env -S, xargs -I{}, script -qc '…', sh -c '…', find -exec, git
// aliases, …): it must never be allowed while the deny rule is there (SPEC §11 "Parsing is conservative").
#include "approval/commandanalyser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace zeus;

namespace {

class Bytes {
public:
    Bytes(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}
    int next(int choices) { return m_at < m_size ? m_data[m_at++] % choices : 0; }
    QString rest() const {
        return QString::fromUtf8(reinterpret_cast<const char*>(m_data + m_at), qsizetype(m_size - m_at));
    }

private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_at = 0;
};

QString quoted(const QString& text) {
    QString out = text;
    out.replace(QLatin1String("'"), QLatin1String("'\\''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

template <size_t N>
QString pick(Bytes& bytes, const char* const (&choices)[N]) {
    return QString::fromUtf8(choices[bytes.next(int(N))]);
}

// A line whose command, once the wrappers are looked through, is a denied command.
QString deniedLine(Bytes& bytes) {
    static const char* const rm[] = {"rm",   "/bin/rm", "/usr/bin/rm", "r''m", "\\rm",  "\"rm\"",
                                     "'rm'", "r\\m",    "r\"\"m",      "./rm", "r\\\nm"};
    static const char* const push[] = {"git push",
                                       "git-push",
                                       "/usr/lib/git-core/git-push",
                                       "git -C x push",
                                       "git -c a.b=c push",
                                       "git --no-pager -p push",
                                       "git --git-dir=.git --work-tree . push",
                                       "git -c alias.p=push p",
                                       "git -c alias.P='push --force' p",
                                       "git send-pack",
                                       "git-send-pack",
                                       "git http-push",
                                       "git remote-https",
                                       "git subtree push",
                                       "git -c 'alias.q=!git push' q",
                                       "\"git\" pu''sh"};
    static const char* const args[] = {"x", "-rf", "-f", "origin", "main", "a.txt", "--force", "-v", "--", "-x"};
    QString line = bytes.next(2) == 0 ? pick(bytes, rm) : pick(bytes, push);
    for (int k = bytes.next(4); k > 0; --k) {
        line += QLatin1Char(' ') + pick(bytes, args);
    }
    // Wrappers that run their arguments as a command: {prefix, suffix}.
    static const char* const argv[][2] = {{"command ", ""},
                                          {"command -p ", ""},
                                          {"exec ", ""},
                                          {"exec -a n ", ""},
                                          {"exec -cl ", ""},
                                          {"nice ", ""},
                                          {"nice -n5 ", ""},
                                          {"nice -5 ", ""},
                                          {"nohup ", ""},
                                          {"timeout 5 ", ""},
                                          {"timeout -s KILL 5 ", ""},
                                          {"timeout -vk1 5 ", ""},
                                          {"time ", ""},
                                          {"time -p ", ""},
                                          {"/usr/bin/time -o t ", ""},
                                          {"builtin ", ""},
                                          {"busybox ", ""},
                                          {"toybox ", ""},
                                          {"sudo ", ""},
                                          {"sudo -iu root ", ""},
                                          {"sudo -u root -- ", ""},
                                          {"sudo -nEH ", ""},
                                          {"sudo --user=root ", ""},
                                          {"doas -nu root ", ""},
                                          {"env ", ""},
                                          {"env -i A=1 ", ""},
                                          {"env -uHOME ", ""},
                                          {"env -- ", ""},
                                          {"env - ", ""},
                                          {"env A=1 ", ""},
                                          {"xargs ", ""},
                                          {"xargs -0 -n1 ", ""},
                                          {"xargs -I{} ", ""},
                                          {"xargs -P4 -r -- ", ""},
                                          {"setsid -f ", ""},
                                          {"stdbuf -oL ", ""},
                                          {"ionice -c3 ", ""},
                                          {"chrt -f 1 ", ""},
                                          {"taskset -c 0 ", ""},
                                          {"chroot / ", ""},
                                          {"flock /tmp/l ", ""},
                                          {"flock -xn /tmp/l ", ""},
                                          {"strace -f ", ""},
                                          {"strace -fo log ", ""},
                                          {"ltrace -f ", ""},
                                          {"unshare -r ", ""},
                                          {"nsenter -t 1 -m ", ""},
                                          {"fakeroot -- ", ""},
                                          {"eatmydata ", ""},
                                          {"watch -n1 ", ""},
                                          {"watch -x ", ""},
                                          {"parallel ", ""},
                                          {"parallel -j2 ", " ::: x"},
                                          {"runuser -u x -- ", ""},
                                          {"pkexec ", ""},
                                          {"valgrind --tool=none ", ""},
                                          {"find . -exec ", " \\;"},
                                          {"find . -execdir ", " +"},
                                          {"sudo -Q ", ""},
                                          {"nice --bogus ", ""}};
    // Wrappers that run a shell string: {prefix, suffix}; the string is quoted between them.
    static const char* const strings[][2] = {{"sh -c ", ""},
                                             {"bash -c ", ""},
                                             {"bash -xec ", " _"},
                                             {"dash -c ", ""},
                                             {"zsh -c ", ""},
                                             {"busybox sh -c ", ""},
                                             {"script -qc ", " /dev/null"},
                                             {"script -q /dev/null -c ", ""},
                                             {"su -c ", ""},
                                             {"su - root -c ", ""},
                                             {"su root -- -c ", ""},
                                             {"env -S", ""},
                                             {"env --split-string=", " x"},
                                             {"eval ", ""},
                                             {"watch ", ""},
                                             {"flock /tmp/l -c ", ""},
                                             {"parallel ::: ", ""},
                                             {"sg wheel -c ", ""},
                                             {"git submodule foreach ", ""},
                                             {"git rebase -x ", " main"}};
    for (int k = bytes.next(5); k > 0; --k) {
        if (bytes.next(3) == 0) {
            const auto& wrapper = strings[bytes.next(int(std::size(strings)))];
            line = QString::fromUtf8(wrapper[0]) + quoted(line) + QString::fromUtf8(wrapper[1]);
        } else if (bytes.next(8) == 0) {
            line = QStringLiteral("git -c ") + quoted(QStringLiteral("alias.z=!") + line) + QStringLiteral(" z");
        } else {
            const auto& wrapper = argv[bytes.next(int(std::size(argv)))];
            line = QString::fromUtf8(wrapper[0]) + line + QString::fromUtf8(wrapper[1]);
        }
    }
    // Assignments go only before the outermost command word (elsewhere "A=1" would be the program's name).
    static const char* const before[] = {"", "ls && ", "true; ", "cd x || ", "echo hi | ", "ls &\n", "A=1 B=2 "};
    return pick(bytes, before) + line;
}

void checkDeniedLine(const QString& line) {
    const QStringList rules{QStringLiteral("rm"), QStringLiteral("git push")};
    for (const ApprovalMode mode : {ApprovalMode::Auto, ApprovalMode::AskAll}) {
        ApprovalPolicy policy;
        policy.mode = mode;
        policy.deny = rules;
        policy.allow = rules;  // deny beats allow
        if (CommandAnalyser::decide(line, policy).verdict == ApprovalDecision::Verdict::Allow) {
            std::fprintf(stderr, "allowed past a deny rule: %s\n", line.toUtf8().constData());
            std::abort();  // a denied command behind known wrappers was allowed
        }
    }
}

}  // namespace

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
        if (part.argv.size() != part.expands.size() || part.start > part.command || part.command > part.argv.size()
            || part.scanFrom > part.argv.size()) {
            std::abort();
        }
        if (part.hint) {
            continue;  // read from a string of an unknown program: a match there only asks
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

    // The denied command behind wrappers, then (after a newline) whatever text is left.
    Bytes bytes(data + 1, size - 1);
    const QString line = deniedLine(bytes);
    checkDeniedLine(line);
    checkDeniedLine(line + QLatin1Char('\n') + bytes.rest());
    return 0;
}
