// CommandAnalyser: the conservative shell reading behind command approval (SPEC §11). The table holds the
// bypasses known from other tools (a rule for the first command leaking to the rest of a command line,
// wrappers, substitutions, redirections) and our own; every row states the verdict under one policy.
#include "approval/commandanalyser.h"

#include <QElapsedTimer>
#include <QTest>

using namespace zeus;
using Verdict = ApprovalDecision::Verdict;

Q_DECLARE_METATYPE(zeus::ApprovalPolicy)
Q_DECLARE_METATYPE(zeus::ApprovalDecision::Verdict)

class TestCommandAnalyser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void decide_data();
    void decide();
    void bypass_data();
    void bypass();
    void split_data();
    void split();
    void ruleWords_data();
    void ruleWords();
    void suggestion_data();
    void suggestion();
    void decisionNamesThePartAndTheRule();
    void longCommandIsDecidedInBoundedTime_data();
    void longCommandIsDecidedInBoundedTime();
    void modeNames();
    void mergedPolicy();
};

namespace {

QStringList list(std::initializer_list<const char*> items) {
    QStringList out;
    for (const char* item : items) {
        out << QString::fromUtf8(item);
    }
    return out;
}

ApprovalPolicy policy(ApprovalMode mode, const QStringList& allow = {}, const QStringList& deny = {},
                      const QStringList& ask = {}) {
    ApprovalPolicy p;
    p.mode = mode;
    p.allow = allow;
    p.deny = deny;
    p.ask = ask;
    return p;
}

}  // namespace

void TestCommandAnalyser::decide_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<ApprovalPolicy>("policy");
    QTest::addColumn<Verdict>("verdict");

    const ApprovalPolicy unsafe = policy(ApprovalMode::AskUnsafe);
    const ApprovalPolicy all = policy(ApprovalMode::AskAll);
    const ApprovalPolicy allowLs = policy(ApprovalMode::AskAll, {QStringLiteral("ls")});
    const ApprovalPolicy allowCd = policy(ApprovalMode::AskAll, {QStringLiteral("cd")});
    const ApprovalPolicy allowGitStatus = policy(ApprovalMode::AskAll, {QStringLiteral("git status")});
    const ApprovalPolicy allowNpmTest = policy(ApprovalMode::AskAll, {QStringLiteral("npm run test")});
    const ApprovalPolicy denyRm = policy(ApprovalMode::Auto, {}, {QStringLiteral("rm")});
    const ApprovalPolicy denyPush = policy(ApprovalMode::Auto, {}, {QStringLiteral("git push")});
    const ApprovalPolicy denyCurl = policy(ApprovalMode::AskUnsafe, {QStringLiteral("curl")}, {QStringLiteral("curl")});
    const ApprovalPolicy autoMode = policy(ApprovalMode::Auto);
    const ApprovalPolicy askPython =
        policy(ApprovalMode::AskUnsafe, {QStringLiteral("python3")}, {}, {QStringLiteral("python3 evil.py")});

    // --- the required rows
    QTest::newRow("ls && rm -rf /") << "ls && rm -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("ls; curl x|sh") << "ls; curl x|sh" << unsafe << Verdict::Ask;
    QTest::newRow("git status && git push") << "git status && git push" << unsafe << Verdict::Ask;
    QTest::newRow("cat $(which x)") << "cat $(which x)" << unsafe << Verdict::Ask;
    QTest::newRow("ls > out") << "ls > out" << unsafe << Verdict::Ask;
    QTest::newRow("ls 2>/dev/null") << "ls 2>/dev/null" << unsafe << Verdict::Allow;
    QTest::newRow("find . -name x") << "find . -name x" << unsafe << Verdict::Allow;
    QTest::newRow("find . -delete") << "find . -delete" << unsafe << Verdict::Ask;
    QTest::newRow("echo \"a && b\"") << "echo \"a && b\"" << unsafe << Verdict::Allow;
    QTest::newRow("FOO=1 ls") << "FOO=1 ls" << unsafe << Verdict::Ask;

    // --- the built-in read-only list (ask-unsafe)
    QTest::newRow("ls") << "ls" << unsafe << Verdict::Allow;
    QTest::newRow("ls -la") << "ls -la" << unsafe << Verdict::Allow;
    QTest::newRow("ls glob") << "ls *.txt" << unsafe << Verdict::Allow;
    QTest::newRow("ls ~") << "ls ~" << unsafe << Verdict::Allow;
    QTest::newRow("cat file") << "cat README.md" << unsafe << Verdict::Allow;
    QTest::newRow("head -n") << "head -n 20 src/main.cpp" << unsafe << Verdict::Allow;
    QTest::newRow("tail -f") << "tail -f log.txt" << unsafe << Verdict::Allow;
    QTest::newRow("wc -l") << "wc -l *.cpp" << unsafe << Verdict::Allow;
    QTest::newRow("grep -rn") << "grep -rn TODO src" << unsafe << Verdict::Allow;
    QTest::newRow("pwd") << "pwd" << unsafe << Verdict::Allow;
    QTest::newRow("echo var") << "echo $HOME" << unsafe << Verdict::Allow;
    QTest::newRow("which") << "which python3" << unsafe << Verdict::Allow;
    QTest::newRow("pipe of readers") << "cat a.txt | grep x | wc -l" << unsafe << Verdict::Allow;
    QTest::newRow("cd && ls") << "cd src && ls" << unsafe << Verdict::Allow;
    QTest::newRow("/bin/ls") << "/bin/ls -l" << unsafe << Verdict::Allow;
    QTest::newRow("/usr/bin/cat") << "/usr/bin/cat x" << unsafe << Verdict::Allow;
    QTest::newRow("./ls is not ls") << "./ls" << unsafe << Verdict::Ask;
    QTest::newRow("workspace ls is not ls") << "/workspace/bin/ls" << unsafe << Verdict::Ask;
    QTest::newRow("2>&1") << "ls 2>&1" << unsafe << Verdict::Allow;
    QTest::newRow(">/dev/null 2>&1") << "grep x y >/dev/null 2>&1" << unsafe << Verdict::Allow;
    QTest::newRow("&>/dev/null") << "ls &>/dev/null" << unsafe << Verdict::Allow;
    QTest::newRow(">&2") << "echo oops >&2" << unsafe << Verdict::Allow;
    QTest::newRow("input redirection") << "wc -l < file.txt" << unsafe << Verdict::Allow;
    QTest::newRow(">> file") << "echo x >> file" << unsafe << Verdict::Ask;
    QTest::newRow(">| file") << "echo x >| file" << unsafe << Verdict::Ask;
    QTest::newRow("&> file") << "ls &> out.txt" << unsafe << Verdict::Ask;
    QTest::newRow(">&file") << "ls >&out.txt" << unsafe << Verdict::Ask;
    QTest::newRow("2> file") << "ls 2> err.txt" << unsafe << Verdict::Ask;
    QTest::newRow("> $VAR") << "ls > $OUT" << unsafe << Verdict::Ask;
    QTest::newRow("> /dev/null quoted") << "ls > '/dev/null'" << unsafe << Verdict::Allow;
    QTest::newRow("<> opens for writing") << "cat <> newfile" << unsafe << Verdict::Ask;
    QTest::newRow("redirection without target") << "ls >" << unsafe << Verdict::Ask;
    QTest::newRow("redirection over redirection") << "ls > < /dev/null" << unsafe << Verdict::Ask;
    QTest::newRow("redirection to /dev/null/..") << "ls > /dev/null/../x" << unsafe << Verdict::Ask;
    QTest::newRow("find -exec") << "find . -exec rm {} \\;" << unsafe << Verdict::Ask;
    QTest::newRow("find -execdir") << "find . -execdir sh -c x \\;" << unsafe << Verdict::Ask;
    QTest::newRow("find -ok") << "find . -ok rm {} \\;" << unsafe << Verdict::Ask;
    QTest::newRow("find -fprint") << "find . -fprint out" << unsafe << Verdict::Ask;
    QTest::newRow("find -fprintf") << "find . -fprintf out %p" << unsafe << Verdict::Ask;
    QTest::newRow("find -fls") << "find . -fls out" << unsafe << Verdict::Ask;
    QTest::newRow("find glob arg") << "find * -name x" << unsafe << Verdict::Ask;
    QTest::newRow("find quoted glob") << "find . -name '*.cpp'" << unsafe << Verdict::Allow;
    QTest::newRow("find -type f") << "find src -type f -newer x" << unsafe << Verdict::Allow;
    QTest::newRow("rg") << "rg -n foo src" << unsafe << Verdict::Allow;
    QTest::newRow("rg --pre") << "rg --pre ./evil foo" << unsafe << Verdict::Ask;
    QTest::newRow("rg --pre=") << "rg --pre=./evil foo" << unsafe << Verdict::Ask;
    QTest::newRow("rg --hostname-bin") << "rg --hostname-bin=./evil foo" << unsafe << Verdict::Ask;
    QTest::newRow("sed -n p") << "sed -n '1,20p' file" << unsafe << Verdict::Allow;
    QTest::newRow("sed -n 5p") << "sed -n 5p file" << unsafe << Verdict::Allow;
    QTest::newRow("sed -n regex p") << "sed -n '/TODO/p' file" << unsafe << Verdict::Allow;
    QTest::newRow("sed -n $p") << "sed -n '$p' file" << unsafe << Verdict::Allow;
    QTest::newRow("sed -ne") << "sed -ne '3p' file" << unsafe << Verdict::Allow;
    QTest::newRow("sed -n two p") << "sed -n '1p;5p' file" << unsafe << Verdict::Allow;
    QTest::newRow("sed without -n") << "sed 's/a/b/' file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -n w") << "sed -n '1w out' file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -n e") << "sed -n '1e id' file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -n s///e") << "sed -n 's/x/id/ep' file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -i") << "sed -n -i 1p file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -ni") << "sed -ni 1p file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -f") << "sed -n -f script file" << unsafe << Verdict::Ask;
    QTest::newRow("sed -n p;w") << "sed -n '1p;w x' file" << unsafe << Verdict::Ask;
    QTest::newRow("git status") << "git status" << unsafe << Verdict::Allow;
    QTest::newRow("git log") << "git log --oneline -5" << unsafe << Verdict::Allow;
    QTest::newRow("git diff") << "git diff HEAD~1" << unsafe << Verdict::Allow;
    QTest::newRow("git show") << "git show HEAD:README.md" << unsafe << Verdict::Allow;
    QTest::newRow("git branch") << "git branch -a" << unsafe << Verdict::Allow;
    QTest::newRow("git --no-pager log") << "git --no-pager log" << unsafe << Verdict::Allow;
    QTest::newRow("git push") << "git push" << unsafe << Verdict::Ask;
    QTest::newRow("git commit") << "git commit -m x" << unsafe << Verdict::Ask;
    QTest::newRow("git -c") << "git -c core.pager=evil log" << unsafe << Verdict::Ask;
    QTest::newRow("git --exec-path") << "git --exec-path=. status" << unsafe << Verdict::Ask;
    QTest::newRow("git -C") << "git -C /tmp/evil status" << unsafe << Verdict::Ask;
    QTest::newRow("git --git-dir") << "git --git-dir=evil status" << unsafe << Verdict::Ask;
    QTest::newRow("git diff --output") << "git diff --output=x" << unsafe << Verdict::Ask;
    QTest::newRow("git diff --ext-diff") << "git diff --ext-diff" << unsafe << Verdict::Ask;
    QTest::newRow("git grep -O") << "git grep -Oevil x" << unsafe << Verdict::Ask;
    QTest::newRow("git branch new") << "git branch newname" << unsafe << Verdict::Ask;
    QTest::newRow("git branch -D") << "git branch -D main" << unsafe << Verdict::Ask;
    QTest::newRow("git tag new") << "git tag v1" << unsafe << Verdict::Ask;
    QTest::newRow("git tag -l") << "git tag -l" << unsafe << Verdict::Allow;
    QTest::newRow("git remote add") << "git remote add x y" << unsafe << Verdict::Ask;
    QTest::newRow("git remote -v") << "git remote -v" << unsafe << Verdict::Allow;
    QTest::newRow("git reflog expire") << "git reflog expire --all" << unsafe << Verdict::Ask;
    QTest::newRow("git log $X") << "git log $X" << unsafe << Verdict::Ask;
    QTest::newRow("sort -o") << "sort -o out in" << unsafe << Verdict::Ask;
    QTest::newRow("sort -uo") << "sort -uo out in" << unsafe << Verdict::Ask;
    QTest::newRow("sort --compress-program") << "sort --compress-program=sh in" << unsafe << Verdict::Ask;
    QTest::newRow("sort") << "sort -u in" << unsafe << Verdict::Allow;
    QTest::newRow("uniq two files") << "uniq in out" << unsafe << Verdict::Ask;
    QTest::newRow("uniq one file") << "uniq -c in" << unsafe << Verdict::Allow;
    QTest::newRow("date -s") << "date -s 2020-01-01" << unsafe << Verdict::Ask;
    QTest::newRow("date") << "date +%s" << unsafe << Verdict::Allow;
    QTest::newRow("tree -o") << "tree -o out" << unsafe << Verdict::Ask;
    QTest::newRow("command -v") << "command -v git" << unsafe << Verdict::Allow;
    QTest::newRow("command ls") << "command ls" << unsafe << Verdict::Allow;
    QTest::newRow("nice ls") << "nice -n 5 ls" << unsafe << Verdict::Allow;
    QTest::newRow("timeout ls") << "timeout -s KILL 5 ls" << unsafe << Verdict::Allow;
    QTest::newRow("timeout rm") << "timeout 5 rm -rf x" << unsafe << Verdict::Ask;
    QTest::newRow("exec ls") << "exec ls" << unsafe << Verdict::Allow;
    QTest::newRow("time ls") << "time ls" << unsafe << Verdict::Allow;
    QTest::newRow("rm") << "rm -rf build" << unsafe << Verdict::Ask;
    QTest::newRow("touch") << "touch x" << unsafe << Verdict::Ask;
    QTest::newRow("python") << "python3 evil.py" << unsafe << Verdict::Ask;
    QTest::newRow("awk") << "awk '{system(\"id\")}'" << unsafe << Verdict::Ask;
    QTest::newRow("tee") << "echo x | tee out" << unsafe << Verdict::Ask;
    QTest::newRow("curl") << "curl https://x" << unsafe << Verdict::Ask;
    QTest::newRow("unicode arg") << "echo héllo wörld ✓" << unsafe << Verdict::Allow;
    QTest::newRow("unicode command") << "ｌｓ" << unsafe << Verdict::Ask;
    QTest::newRow("cyrillic lookalike") << "lѕ" << unsafe << Verdict::Ask;
    QTest::newRow("comment") << "ls # && rm -rf /" << unsafe << Verdict::Allow;
    QTest::newRow("hash inside word") << "echo a#b" << unsafe << Verdict::Allow;
    QTest::newRow("trailing &") << "ls &" << unsafe << Verdict::Allow;
    QTest::newRow("background then rm") << "ls & rm -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("newline") << "ls\nrm -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("CR is not a separator") << "ls\rrm" << unsafe << Verdict::Ask;
    QTest::newRow("line continuation") << "ls \\\n -la" << unsafe << Verdict::Allow;
    QTest::newRow("||") << "ls || rm x" << unsafe << Verdict::Ask;
    QTest::newRow("|&") << "ls |& rm x" << unsafe << Verdict::Ask;
    QTest::newRow(";;") << "ls;;rm x" << unsafe << Verdict::Ask;
    QTest::newRow("empty") << "" << unsafe << Verdict::Ask;
    QTest::newRow("only spaces") << "   " << unsafe << Verdict::Ask;
    QTest::newRow("only a comment") << "# nothing" << unsafe << Verdict::Ask;

    // --- quotes and escapes
    QTest::newRow("single-quoted &&") << "echo 'a && rm -rf /'" << unsafe << Verdict::Allow;
    QTest::newRow("double-quoted ;") << "echo \"a; rm -rf /\"" << unsafe << Verdict::Allow;
    QTest::newRow("escaped ;") << "echo a\\; rm -rf /" << unsafe << Verdict::Allow;
    QTest::newRow("escaped &&") << "echo a \\&\\& rm" << unsafe << Verdict::Allow;
    QTest::newRow("quote then &&") << "echo 'a' && rm x" << unsafe << Verdict::Ask;
    QTest::newRow("unterminated single") << "echo 'abc" << unsafe << Verdict::Ask;
    QTest::newRow("unterminated double") << "echo \"abc" << unsafe << Verdict::Ask;
    QTest::newRow("quoted command name") << "'ls' -la" << unsafe << Verdict::Allow;
    QTest::newRow("escaped command name") << "\\rm x" << unsafe << Verdict::Ask;
    QTest::newRow("dq with escaped quote") << "echo \"a\\\" && rm x\"" << unsafe << Verdict::Allow;
    QTest::newRow("quoted assignment is a command") << "'FOO=1' ls" << unsafe << Verdict::Ask;

    // --- substitutions, variables, globs
    QTest::newRow("$( ) in argument") << "ls $(rm -rf /)" << unsafe << Verdict::Ask;
    QTest::newRow("backticks") << "ls `rm -rf /`" << unsafe << Verdict::Ask;
    QTest::newRow("$( ) in double quotes") << "echo \"$(id)\"" << unsafe << Verdict::Ask;
    QTest::newRow("backticks in double quotes") << "echo \"`id`\"" << unsafe << Verdict::Ask;
    QTest::newRow("${x:-$(id)}") << "echo ${x:-$(id)}" << unsafe << Verdict::Ask;
    QTest::newRow("escaped $( )") << "echo \\$(id)" << unsafe << Verdict::Ask;
    // ${ … } where the shell and a first-} scan could disagree: the rest of the line (and a '; rm x' on the next)
    // would otherwise be swallowed into one allowed ls (found by the fuzz target).
    QTest::newRow("unterminated ${ then ; rm") << "ls -la ${\"$d0\n; rm x" << unsafe << Verdict::Ask;
    QTest::newRow("unterminated ${ (allow ls)") << "ls ${x\n; rm x" << allowLs << Verdict::Ask;
    QTest::newRow("quoted } in ${ }") << "ls ${x:-\"}\"}; rm x" << allowLs << Verdict::Ask;
    QTest::newRow("nested ${ ${ } }") << "ls ${x:-${y}}" << allowLs << Verdict::Ask;
    QTest::newRow("newline in ${ }") << "ls ${x\n}" << allowLs << Verdict::Ask;
    QTest::newRow("unterminated $'") << "ls $'abc\n; rm x" << allowLs << Verdict::Ask;
    QTest::newRow("plain ${HOME} still reads") << "ls ${HOME}" << unsafe << Verdict::Allow;  // the ( is then a subshell
    // Literal shell code in a string is not allowed either: something later may evaluate it.
    QTest::newRow("single-quoted $( )") << "echo '$(id)'" << unsafe << Verdict::Ask;
    QTest::newRow("variable as command") << "$CMD -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("${} as command") << "${CMD} x" << unsafe << Verdict::Ask;
    QTest::newRow("glob as command") << "/bin/r? -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("ANSI-C command") << "$'\\x72m' -rf /" << unsafe << Verdict::Ask;
    QTest::newRow("arithmetic") << "echo $((1+2))" << unsafe << Verdict::Ask;
    QTest::newRow("process substitution") << "cat <(id)" << unsafe << Verdict::Ask;
    QTest::newRow("output process substitution") << "ls >(cat)" << unsafe << Verdict::Ask;
    QTest::newRow("here-doc") << "cat <<EOF\nhello\nEOF" << unsafe << Verdict::Ask;
    QTest::newRow("here-string") << "bash <<< 'rm -rf /'" << unsafe << Verdict::Ask;
    QTest::newRow("brace expansion as command") << "{ls,-la}" << unsafe << Verdict::Ask;

    // --- shell syntax the analyser does not follow
    QTest::newRow("subshell") << "(ls)" << unsafe << Verdict::Ask;
    QTest::newRow("group") << "{ ls; }" << unsafe << Verdict::Ask;
    QTest::newRow("function") << "f() { ls; }; f" << unsafe << Verdict::Ask;
    QTest::newRow("function keyword") << "function f { ls; }" << unsafe << Verdict::Ask;
    QTest::newRow("if") << "if true; then ls; fi" << unsafe << Verdict::Ask;
    QTest::newRow("for") << "for f in *; do cat $f; done" << unsafe << Verdict::Ask;
    QTest::newRow("while") << "while true; do ls; done" << unsafe << Verdict::Ask;
    QTest::newRow("negation") << "! ls" << unsafe << Verdict::Ask;
    QTest::newRow("[[ ]]") << "[[ -f x ]]" << unsafe << Verdict::Ask;
    QTest::newRow("eval") << "eval ls" << unsafe << Verdict::Ask;
    QTest::newRow("source") << "source ./env.sh" << unsafe << Verdict::Ask;
    QTest::newRow("dot") << ". ./env.sh" << unsafe << Verdict::Ask;
    QTest::newRow("export then ls") << "export PATH=.; ls" << unsafe << Verdict::Ask;
    QTest::newRow("PATH=. ls") << "PATH=. ls" << unsafe << Verdict::Ask;
    QTest::newRow("LD_PRELOAD ls") << "LD_PRELOAD=./x.so ls" << unsafe << Verdict::Ask;
    QTest::newRow("array assignment") << "a[0]=1 ls" << unsafe << Verdict::Ask;
    QTest::newRow("env ls") << "env ls" << unsafe << Verdict::Ask;
    QTest::newRow("env VAR ls") << "env FOO=1 ls" << unsafe << Verdict::Ask;
    QTest::newRow("xargs") << "ls | xargs rm" << unsafe << Verdict::Ask;
    QTest::newRow("sh -c") << "sh -c 'ls'" << unsafe << Verdict::Ask;
    QTest::newRow("bash -lc") << "bash -lc ls" << unsafe << Verdict::Ask;
    QTest::newRow("sudo ls") << "sudo ls" << unsafe << Verdict::Ask;
    QTest::newRow("busybox ls") << "busybox ls" << unsafe << Verdict::Allow;
    QTest::newRow("busybox rm") << "busybox rm x" << unsafe << Verdict::Ask;
    QTest::newRow("nice $X") << "nice $X ls" << unsafe << Verdict::Ask;
    QTest::newRow("watch") << "watch ls" << unsafe << Verdict::Ask;

    // --- allow rules are token prefixes that never leak
    QTest::newRow("allow ls: ls -la") << "ls -la" << allowLs << Verdict::Allow;
    QTest::newRow("allow ls: ls && id") << "ls && id" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ls; id") << "ls; id" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ls | sh") << "ls | sh" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: lsof") << "lsof" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ls$(id)") << "ls$(id)" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ls > f") << "ls > f" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: /bin/ls") << "/bin/ls" << allowLs << Verdict::Allow;
    QTest::newRow("allow ls: ./ls") << "./ls" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: sh -c ls") << "sh -c ls" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: FOO=1 ls") << "FOO=1 ls" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ls $X") << "ls $X" << allowLs << Verdict::Allow;
    QTest::newRow("allow ls: ls `id`") << "ls `id`" << allowLs << Verdict::Ask;
    QTest::newRow("allow ls: ask-all cat") << "cat x" << allowLs << Verdict::Ask;
    QTest::newRow("ask-all: ls") << "ls" << all << Verdict::Ask;
    QTest::newRow("ask-all: git status") << "git status" << all << Verdict::Ask;
    QTest::newRow("allow cd: cd x && python3 evil.py") << "cd x && python3 evil.py" << allowCd << Verdict::Ask;
    QTest::newRow("allow cd: cd x") << "cd x" << allowCd << Verdict::Allow;
    QTest::newRow("allow git status") << "git status -s" << allowGitStatus << Verdict::Allow;
    QTest::newRow("allow git status: git status && git push")
        << "git status && git push" << allowGitStatus << Verdict::Ask;
    QTest::newRow("allow git status: git -c x status")
        << "git -c core.fsmonitor=x status" << allowGitStatus << Verdict::Ask;
    QTest::newRow("allow git status: git stash") << "git stash" << allowGitStatus << Verdict::Ask;
    QTest::newRow("allow git status: git $S") << "git $S" << allowGitStatus << Verdict::Ask;
    QTest::newRow("allow npm run test") << "npm run test -- --watch" << allowNpmTest << Verdict::Allow;
    QTest::newRow("allow npm run test: npm run build") << "npm run build" << allowNpmTest << Verdict::Ask;
    QTest::newRow("allow npm run test: npm run test:evil") << "npm run test:evil" << allowNpmTest << Verdict::Ask;
    QTest::newRow("allow npm run test: npm run") << "npm run" << allowNpmTest << Verdict::Ask;
    QTest::newRow("allow npm run test: npm run test; npm publish")
        << "npm run test; npm publish" << allowNpmTest << Verdict::Ask;
    QTest::newRow("ask rule beats allow rule") << "python3 evil.py" << askPython << Verdict::Ask;
    QTest::newRow("allow rule beside ask rule") << "python3 ok.py" << askPython << Verdict::Allow;

    // --- deny rules: every mode, every part, through wrappers
    QTest::newRow("deny rm: rm") << "rm -rf /" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: ls") << "ls" << denyRm << Verdict::Allow;
    QTest::newRow("deny rm: ls && rm") << "ls && rm -rf /" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: /bin/rm") << "/bin/rm -rf /" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: ./rm") << "./rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: quoted") << "'r'm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: escaped") << "r\\m x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: sudo rm") << "sudo -u root rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: env rm") << "env -i FOO=1 rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: command rm") << "command rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: exec rm") << "exec rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: nice rm") << "nice -n 10 rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: nohup rm") << "nohup rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: timeout rm") << "timeout 5 rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: timeout -k rm") << "timeout -k 1 5 rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: busybox rm") << "busybox rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: FOO=1 rm") << "FOO=1 rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: sh -c") << "sh -c 'rm -rf /'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: bash -c nested") << "bash -c \"sh -c 'ls; rm x'\"" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: bash -e -c") << "bash -e -c 'rm x'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: bash -o pipefail -c") << "bash -o pipefail -c 'rm x'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: eval") << "eval rm -rf /" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: eval quoted") << "eval 'ls; rm x'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: xargs") << "ls | xargs -n1 rm" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: find -exec") << "find . -exec rm {} +" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: env -S") << "env -S 'rm x'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: su -c") << "su -c 'rm x' root" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: watch") << "watch 'rm x'" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: subshell") << "(rm x)" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: group") << "{ rm x; }" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: if then") << "if true; then rm x; fi" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: loop body") << "for f in a; do rm $f; done" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: time") << "time rm x" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: $(rm)") << "echo $(rm x)" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: \"$(rm)\" unreadable") << "echo \"$(rm x)\"" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: variable command") << "$X -rf /" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: glob command") << "/bin/r? x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: sh -c $S") << "sh -c \"$S\"" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: eval $S") << "eval $S" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: backticks") << "`echo rm` x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: ANSI-C") << "$'rm' x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: here-doc to sh") << "sh <<EOF\nrm x\nEOF" << denyRm << Verdict::Deny;
    QTest::newRow("deny rm: here-string") << "sh <<< 'ls'" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: piped into sh") << "echo 'rm -rf /' | sh" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: bash -s") << "bash -s < script" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: alias") << "shopt -s expand_aliases\nalias ls=rm\nls x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: hash -p") << "hash -p /bin/rm ls; ls x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: trap") << "trap 'rm x' EXIT" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: PS4") << "PS4='$(rm x)' set -x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: exported function")
        << "env 'BASH_FUNC_ls%%=() { rm x; }' bash -c ls" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: arithmetic") << "x='a[$(rm x)]'; (( x ))" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: printf -v then (( ))") << "printf -v x '\\x24(rm)'; (( x ))" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: [[ -eq ]]") << "[[ $x -eq 1 ]]" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: let") << "let x" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: ${s:x}") << "echo ${s:x}" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: ${x@P}") << "echo ${x@P}" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: a[x]=1") << "a[x]=1" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: source") << "source ./x.sh" << denyRm << Verdict::Ask;
    QTest::newRow("deny rm: ${x:-y} is plain") << "echo ${x:-y}" << denyRm << Verdict::Allow;
    QTest::newRow("deny rm: NUL") << QStringLiteral("ls") + QChar(0) + QStringLiteral("; rm x") << denyRm
                                  << Verdict::Deny;
    QTest::newRow("deny rm: NUL alone") << QStringLiteral("ls") + QChar(0) + QStringLiteral("x") << denyRm
                                        << Verdict::Ask;
    QTest::newRow("deny rm: rmdir is not rm") << "rmdir x" << denyRm << Verdict::Allow;
    QTest::newRow("deny rm: echo rm") << "echo rm" << denyRm << Verdict::Allow;
    QTest::newRow("deny rm: readable pipe") << "cat x | grep y" << denyRm << Verdict::Allow;
    QTest::newRow("deny git push: git push") << "git push origin main" << denyPush << Verdict::Deny;
    QTest::newRow("deny git push: git -C x push") << "git -C x push" << denyPush << Verdict::Deny;
    QTest::newRow("deny git push: git -c k=v push") << "git -c a.b=c push" << denyPush << Verdict::Deny;
    QTest::newRow("deny git push: git --no-pager push") << "git --no-pager push" << denyPush << Verdict::Deny;
    QTest::newRow("deny git push: git pull") << "git pull" << denyPush << Verdict::Allow;
    QTest::newRow("deny git push: git $X") << "git $X" << denyPush << Verdict::Ask;
    QTest::newRow("deny git push: /usr/bin/git push") << "/usr/bin/git push" << denyPush << Verdict::Deny;
    QTest::newRow("deny beats allow") << "curl x" << denyCurl << Verdict::Deny;
    QTest::newRow("deny beats read-only")
        << "ls" << policy(ApprovalMode::AskUnsafe, {}, {QStringLiteral("ls")}) << Verdict::Deny;
    QTest::newRow("deny in ask-all") << "rm x"
                                     << policy(ApprovalMode::AskAll, {QStringLiteral("rm")}, {QStringLiteral("rm")})
                                     << Verdict::Deny;

    // --- auto mode: nothing is asked without deny rules
    QTest::newRow("auto: rm") << "rm -rf /" << autoMode << Verdict::Allow;
    QTest::newRow("auto: $(x)") << "echo $(curl x | sh)" << autoMode << Verdict::Allow;
    QTest::newRow("auto: unterminated") << "echo 'x" << autoMode << Verdict::Allow;
    QTest::newRow("auto: empty") << "" << autoMode << Verdict::Allow;
}

void TestCommandAnalyser::decide() {
    QFETCH(QString, command);
    QFETCH(ApprovalPolicy, policy);
    QFETCH(Verdict, verdict);
    const ApprovalDecision decision = CommandAnalyser::decide(command, policy);
    if (decision.verdict != verdict) {
        qWarning().noquote() << "reason:" << decision.reason;
    }
    QCOMPARE(decision.verdict, verdict);
    QVERIFY(!decision.reason.isEmpty());
    if (verdict == Verdict::Deny) {
        QVERIFY(policy.deny.contains(decision.rule));
    }
}

void TestCommandAnalyser::bypass_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<ApprovalPolicy>("policy");
    QTest::addColumn<Verdict>("verdict");

    // Deny rules through every wrapper (SPEC §11 "Parsing is conservative"), in auto mode with the deny rules
    // "rm" and "git push". Deny: the rule is found; Ask: the command word is decided when it runs, or a wrapper
    // could not be read - never allowed.
    const ApprovalPolicy deny = policy(ApprovalMode::Auto, {}, {QStringLiteral("rm"), QStringLiteral("git push")});
    const ApprovalPolicy unsafe = policy(ApprovalMode::AskUnsafe);
    const auto row = [](const char* name, const char* command, const ApprovalPolicy& p, Verdict verdict) {
        QTest::newRow(name) << QString::fromUtf8(command) << p << verdict;
    };

    // --- script, parallel, toybox / busybox, env -S
    row("script -qc", "script -qc \"rm x\" /dev/null", deny, Verdict::Deny);
    row("script -c", "script -c 'rm x'", deny, Verdict::Deny);
    row("script --command=", "script --command='rm x' /dev/null", deny, Verdict::Deny);
    row("script --command", "script --command 'rm x' log", deny, Verdict::Deny);
    row("script file then -c", "script -q /dev/null -c 'rm x'", deny, Verdict::Deny);
    row("script --comm (abbreviated)", "script --comm 'rm x' log", deny, Verdict::Deny);
    row("script -aefq -c", "script -a -e -f -q -c 'rm x' log", deny, Verdict::Deny);
    row("script -c nested sh -c", "script -qc \"sh -c 'rm x'\" /dev/null", deny, Verdict::Deny);
    row("script without -c reads its input", "echo 'rm x' | script -q /dev/null", deny, Verdict::Ask);
    row("parallel rm :::", "parallel rm ::: x", deny, Verdict::Deny);
    row("parallel -j2 rm", "parallel -j2 rm ::: x y", deny, Verdict::Deny);
    row("parallel ::: command", "parallel ::: 'rm x'", deny, Verdict::Deny);
    row("parallel 'rm {}'", "parallel 'rm {}' ::: x", deny, Verdict::Deny);
    row("parallel from input", "ls | parallel rm", deny, Verdict::Deny);
    row("parallel commands from input", "echo 'rm x' | parallel", deny, Verdict::Ask);
    row("parallel {} as command", "parallel {} x ::: rm", deny, Verdict::Deny);
    row("parallel git push", "parallel git push ::: origin", deny, Verdict::Deny);
    row("toybox rm", "toybox rm x", deny, Verdict::Deny);
    row("toybox sh -c", "toybox sh -c 'rm x'", deny, Verdict::Deny);
    row("busybox sh -c", "busybox sh -c 'rm x'", deny, Verdict::Deny);
    row("busybox ash -c", "busybox ash -c 'rm x'", deny, Verdict::Deny);
    row("busybox xargs rm", "ls | busybox xargs rm", deny, Verdict::Deny);
    row("busybox env rm", "busybox env -i rm x", deny, Verdict::Deny);
    row("/bin/busybox timeout rm", "/bin/busybox timeout 5 rm x", deny, Verdict::Deny);
    row("env -S\"rm x\"", "env -S\"rm x\"", deny, Verdict::Deny);
    row("env -S 'rm x'", "env -S 'rm x'", deny, Verdict::Deny);
    row("env -iS", "env -iS'rm x'", deny, Verdict::Deny);
    row("env --split-string=", "env --split-string='rm x'", deny, Verdict::Deny);
    row("env --split-string", "env --split-string 'rm x'", deny, Verdict::Deny);
    row("env -S with env options", "env -S'-i A=1 rm' x", deny, Verdict::Deny);
    row("env -S git push", "env -S'git push' origin", deny, Verdict::Deny);
    row("env -u", "env -u HOME rm x", deny, Verdict::Deny);
    row("env -C", "env -C /tmp rm x", deny, Verdict::Deny);
    row("env --chdir=", "env --chdir=/tmp rm x", deny, Verdict::Deny);
    row("env -", "env - rm x", deny, Verdict::Deny);
    row("env --", "env -- rm x", deny, Verdict::Deny);
    row("env -0v", "env -0v rm x", deny, Verdict::Deny);
    row("env --ignore-environment", "env --ignore-environment PATH=/bin rm x", deny, Verdict::Deny);
    row("env unknown option", "env --frobnicate rm x", deny, Verdict::Deny);

    // --- sudo, doas, su, runuser, sg, chroot and friends
    row("sudo -iu root", "sudo -iu root rm x", deny, Verdict::Deny);
    row("sudo -uroot", "sudo -uroot rm x", deny, Verdict::Deny);
    row("sudo --user=", "sudo --user=root rm x", deny, Verdict::Deny);
    row("sudo --user", "sudo --user root rm x", deny, Verdict::Deny);
    row("sudo -nEu", "sudo -nEu root rm x", deny, Verdict::Deny);
    row("sudo -u --", "sudo -u root -- rm x", deny, Verdict::Deny);
    row("sudo -g", "sudo -g wheel rm x", deny, Verdict::Deny);
    row("sudo -D", "sudo -D /tmp rm x", deny, Verdict::Deny);
    row("sudo -T", "sudo -T 10 rm x", deny, Verdict::Deny);
    row("sudo --preserve-env=", "sudo --preserve-env=PATH rm x", deny, Verdict::Deny);
    row("sudo -s", "sudo -s rm x", deny, Verdict::Deny);
    row("sudo sudo", "sudo sudo -u a rm x", deny, Verdict::Deny);
    row("sudo unknown option", "sudo -Q rm x", deny, Verdict::Deny);
    row("sudo unknown long option", "sudo --bogus root rm x", deny, Verdict::Deny);
    row("sudo -s reads its input", "echo 'rm x' | sudo -s", deny, Verdict::Ask);
    row("sudo git push", "sudo -Hu bob git push", deny, Verdict::Deny);
    row("doas -u", "doas -u root rm x", deny, Verdict::Deny);
    row("doas -nu", "doas -nu root rm x", deny, Verdict::Deny);
    row("su root -c", "su root -c 'rm x'", deny, Verdict::Deny);
    row("su - root -c", "su - root -c 'rm x'", deny, Verdict::Deny);
    row("su -lc", "su -lc 'rm x' root", deny, Verdict::Deny);
    row("su --command=", "su --command='rm x'", deny, Verdict::Deny);
    row("su --session-command", "su --session-command 'rm x' root", deny, Verdict::Deny);
    row("su root -- -c", "su root -- -c 'rm x'", deny, Verdict::Deny);
    row("su reads its input", "echo 'rm x' | su root", deny, Verdict::Ask);
    row("runuser -u --", "runuser -u nobody -- rm x", deny, Verdict::Deny);
    row("runuser -l -c", "runuser -l nobody -c 'rm x'", deny, Verdict::Deny);
    row("sg -c", "sg wheel -c 'rm x'", deny, Verdict::Deny);
    row("sg string", "sg wheel 'rm x'", deny, Verdict::Deny);
    row("chroot", "chroot / rm x", deny, Verdict::Deny);
    row("chroot --userspec", "chroot --userspec=1:1 / rm x", deny, Verdict::Deny);
    row("pkexec", "pkexec --user root rm x", deny, Verdict::Deny);
    row("fakeroot", "fakeroot -- rm x", deny, Verdict::Deny);
    row("unshare -r", "unshare -r rm x", deny, Verdict::Deny);
    row("unshare --mount-proc -f", "unshare --fork --pid --mount-proc rm x", deny, Verdict::Deny);
    row("nsenter -t", "nsenter -t 1 -m rm x", deny, Verdict::Deny);

    // --- flock, setsid, stdbuf, taskset, ionice, chrt, watch, strace, time, nice, nohup, timeout
    row("flock file cmd", "flock /tmp/l rm x", deny, Verdict::Deny);
    row("flock -c", "flock -n /tmp/l -c 'rm x'", deny, Verdict::Deny);
    row("flock -w", "flock -w 5 /tmp/l rm x", deny, Verdict::Deny);
    row("flock -xn", "flock -xn /tmp/l rm x", deny, Verdict::Deny);
    row("setsid", "setsid rm x", deny, Verdict::Deny);
    row("setsid -fw", "setsid -fw rm x", deny, Verdict::Deny);
    row("stdbuf -oL", "stdbuf -oL rm x", deny, Verdict::Deny);
    row("stdbuf -o L", "stdbuf -o L -e 0 rm x", deny, Verdict::Deny);
    row("stdbuf --output=", "stdbuf --output=L rm x", deny, Verdict::Deny);
    row("taskset mask", "taskset 1 rm x", deny, Verdict::Deny);
    row("taskset -c", "taskset -c 0 rm x", deny, Verdict::Deny);
    row("ionice -c3", "ionice -c3 rm x", deny, Verdict::Deny);
    row("ionice -c 2 -n 7", "ionice -c 2 -n 7 rm x", deny, Verdict::Deny);
    row("chrt -f", "chrt -f 1 rm x", deny, Verdict::Deny);
    row("watch -n1", "watch -n1 rm x", deny, Verdict::Deny);
    row("watch -n 1 string", "watch -n 1 'rm x'", deny, Verdict::Deny);
    row("watch -x", "watch -x rm x", deny, Verdict::Deny);
    row("watch git push", "watch -n 5 git push", deny, Verdict::Deny);
    row("strace -f", "strace -f rm x", deny, Verdict::Deny);
    row("strace -o -e", "strace -o /dev/null -e trace=all rm x", deny, Verdict::Deny);
    row("strace -fo", "strace -fo log rm x", deny, Verdict::Deny);
    row("ltrace", "ltrace -f rm x", deny, Verdict::Deny);
    row("time -p", "time -p rm x", deny, Verdict::Deny);
    row("/usr/bin/time -o", "/usr/bin/time -o out rm x", deny, Verdict::Deny);
    row("/usr/bin/time -f", "/usr/bin/time -f %e rm x", deny, Verdict::Deny);
    row("time --output=", "command time --output=t rm x", deny, Verdict::Deny);
    row("nice -n5", "nice -n5 rm x", deny, Verdict::Deny);
    row("nice -5", "nice -5 rm x", deny, Verdict::Deny);
    row("nice --adjustment=", "nice --adjustment=5 rm x", deny, Verdict::Deny);
    row("nice unknown option", "nice -Q rm x", deny, Verdict::Deny);
    row("nohup nice timeout", "nohup nice -n1 timeout 1 rm x", deny, Verdict::Deny);
    row("twenty nice",
        "nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice nice rm x",
        deny, Verdict::Deny);
    row("six sudo", "sudo sudo sudo sudo sudo sudo rm x", deny, Verdict::Ask);
    row("timeout -s KILL", "timeout -s KILL 5 rm", deny, Verdict::Deny);
    row("timeout -sKILL", "timeout -sKILL 5 rm x", deny, Verdict::Deny);
    row("timeout --signal", "timeout --signal KILL 5 rm x", deny, Verdict::Deny);
    row("timeout -k1", "timeout -k1 5 rm x", deny, Verdict::Deny);
    row("timeout -vk 1", "timeout -vk 1 5 rm x", deny, Verdict::Deny);
    row("timeout --preserve-status", "timeout -v --preserve-status 5 rm x", deny, Verdict::Deny);
    row("timeout unknown option", "timeout --frobnicate 5 rm x", deny, Verdict::Deny);
    row("valgrind", "valgrind --tool=none rm x", deny, Verdict::Deny);
    row("eatmydata", "eatmydata rm x", deny, Verdict::Deny);
    row("unbuffer", "unbuffer -p rm x", deny, Verdict::Deny);
    row("dbus-run-session", "dbus-run-session -- rm x", deny, Verdict::Deny);
    row("xvfb-run -a", "xvfb-run -a rm x", deny, Verdict::Deny);

    // --- xargs and find
    row("xargs -I{}", "ls | xargs -I{} rm {}", deny, Verdict::Deny);
    row("xargs -I {}", "ls | xargs -I {} rm {}", deny, Verdict::Deny);
    row("xargs -0 -n1", "ls | xargs -0 -n1 rm", deny, Verdict::Deny);
    row("xargs -a", "xargs -a list rm", deny, Verdict::Deny);
    row("xargs -P4n1", "ls | xargs -P4 -n1 rm", deny, Verdict::Deny);
    row("xargs --max-args=", "ls | xargs --max-args=1 rm", deny, Verdict::Deny);
    row("xargs -i", "ls | xargs -i rm {}", deny, Verdict::Deny);
    row("xargs -r --", "ls | xargs -r -- rm", deny, Verdict::Deny);
    row("xargs sh -c", "ls | xargs sh -c 'rm \"$@\"' _", deny, Verdict::Deny);
    row("xargs placeholder as command", "echo rm | xargs -I{} {} x", deny, Verdict::Ask);
    row("xargs placeholder in sh -c", "echo rm | xargs -I% sh -c '% x'", deny, Verdict::Ask);
    row("find -execdir", "find . -execdir rm {} \\;", deny, Verdict::Deny);
    row("find -okdir", "find . -okdir rm {} \\;", deny, Verdict::Deny);
    row("find -exec sudo", "find . -name x -exec sudo rm {} \\;", deny, Verdict::Deny);
    row("find -exec sh -c", "find . -exec sh -c 'rm \"$1\"' _ {} \\;", deny, Verdict::Deny);
    row("find -exec {}", "find . -name rm -exec {} x \\;", deny, Verdict::Ask);
    row("find -exec git push", "find . -maxdepth 0 -exec git push \\;", deny, Verdict::Deny);

    // --- command, exec, builtin
    row("command -p", "command -p rm x", deny, Verdict::Deny);
    row("command rm -v", "command rm -v x", deny, Verdict::Deny);
    row("command --", "command -- rm x", deny, Verdict::Deny);
    row("exec -a", "exec -a x rm y", deny, Verdict::Deny);
    row("exec -cl", "exec -cl rm x", deny, Verdict::Deny);
    row("exec -la name", "exec -la name rm x", deny, Verdict::Deny);
    row("builtin command", "builtin command rm x", deny, Verdict::Deny);
    row("builtin eval", "builtin eval 'rm x'", deny, Verdict::Deny);
    row("exec nice", "exec nice rm x", deny, Verdict::Deny);
    row("command nohup", "command nohup rm x", deny, Verdict::Deny);

    // --- quoting, escapes, expansions
    row("r''m", "r''m x", deny, Verdict::Deny);
    row("\\rm", "\\rm x", deny, Verdict::Deny);
    row("\"rm\"", "\"rm\" x", deny, Verdict::Deny);
    row("'r'\"m\"", "'r'\"m\" x", deny, Verdict::Deny);
    row("backslash-newline", "r\\\nm x", deny, Verdict::Deny);
    row("$'\\x72m'", "$'\\x72m' x", deny, Verdict::Ask);
    row("/bin/r?", "/bin/r? x", deny, Verdict::Ask);
    row("{rm,x}", "{rm,x}", deny, Verdict::Ask);
    row("r[m]", "r[m] x", deny, Verdict::Ask);
    row("A=1 rm", "A=1 rm x", deny, Verdict::Deny);
    row("A=1 B=2 sudo rm", "A=1 B=2 sudo rm x", deny, Verdict::Deny);
    row("sh -c $0", "sh -c 'exec \"$0\" x' rm", deny, Verdict::Ask);
    row("bash -c $@", "bash -c '\"$@\"' _ rm x", deny, Verdict::Ask);

    // --- shells
    row("dash -c", "dash -c 'rm x'", deny, Verdict::Deny);
    row("zsh -c", "zsh -c 'rm x'", deny, Verdict::Deny);
    row("fish -c", "fish -c 'rm x'", deny, Verdict::Deny);
    row("bash -xec", "bash -xec 'rm x'", deny, Verdict::Deny);
    row("bash --norc -c", "bash --norc -c 'rm x'", deny, Verdict::Deny);
    row("sh -c --", "sh -c -- 'rm x'", deny, Verdict::Deny);
    row("nice bash -c", "nice bash -c 'rm x'", deny, Verdict::Deny);
    row("bash -c sudo -iu", "bash -c \"sudo -iu root rm x\"", deny, Verdict::Deny);
    row("eval sudo", "eval \"sudo -iu root rm x\"", deny, Verdict::Deny);
    row("sudo env -S", "sudo -u root env -S'rm x'", deny, Verdict::Deny);
    row("after ls: script", "ls; script -qc 'rm x' /dev/null", deny, Verdict::Deny);
    row("after true: parallel", "true && parallel rm ::: x", deny, Verdict::Deny);

    // --- programs the analyser does not know: never silently allowed
    row("unknown program with rm", "frobnicate rm x", deny, Verdict::Ask);
    row("unknown program with git push", "frobnicate --quiet git push", deny, Verdict::Ask);
    row("unknown program with a rm string", "tmux new-session -d 'rm x'", deny, Verdict::Ask);
    row("known program with rm", "echo rm x", deny, Verdict::Allow);
    row("grep for git push", "grep -rn 'git push' docs", deny, Verdict::Allow);

    // --- git: every spelling of a denied subcommand
    row("git -c alias", "git -c alias.p=push p", deny, Verdict::Deny);
    row("git -c alias with args", "git -c 'alias.p=push --force' p origin", deny, Verdict::Deny);
    row("git -c alias upper case", "git -c alias.P=push p", deny, Verdict::Deny);
    row("git -c alias chain", "git -c alias.p=push -c alias.q=p q", deny, Verdict::Deny);
    row("git -c shell alias", "git -c 'alias.p=!git push' p", deny, Verdict::Deny);
    row("git -c shell alias rm", "git -c 'alias.p=!rm x' p", deny, Verdict::Deny);
    row("git -c shell alias function", "git -c 'alias.p=!f() { git push; }; f' p", deny, Verdict::Deny);
    row("git --config-env=alias", "git --config-env=alias.p=X p", deny, Verdict::Ask);
    row("git --config-env alias", "git --config-env alias.p=X p", deny, Verdict::Ask);
    row("git alias from the environment", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p",
        deny, Verdict::Ask);
    row("git unknown subcommand", "git p origin", deny, Verdict::Ask);
    row("git-push", "git-push origin", deny, Verdict::Deny);
    row("/usr/lib/git-core/git-push", "/usr/lib/git-core/git-push", deny, Verdict::Deny);
    row("/usr/libexec/git-core/git-push", "/usr/libexec/git-core/git-push origin main", deny, Verdict::Deny);
    row("git send-pack", "git send-pack origin main", deny, Verdict::Deny);
    row("git-send-pack", "git-send-pack ../x main", deny, Verdict::Deny);
    row("git http-push", "git http-push https://x main", deny, Verdict::Deny);
    row("git remote-https", "git remote-https origin https://x", deny, Verdict::Deny);
    row("git subtree push", "git subtree push --prefix=x origin main", deny, Verdict::Deny);
    row("git --git-dir=", "git --git-dir=.git push", deny, Verdict::Deny);
    row("git --git-dir x", "git --git-dir .git push", deny, Verdict::Deny);
    row("git --work-tree=", "git --work-tree=. push", deny, Verdict::Deny);
    row("git several globals", "git --no-pager -c a.b=c -C x push", deny, Verdict::Deny);
    row("git -p", "git -p push", deny, Verdict::Deny);
    row("git --paginate", "git --paginate push", deny, Verdict::Deny);
    row("git --bare", "git --bare push", deny, Verdict::Deny);
    row("git --namespace=", "git --namespace=x push", deny, Verdict::Deny);
    row("git --exec-path=", "git --exec-path=/usr/lib/git-core push", deny, Verdict::Deny);
    row("git --attr-source x", "git --attr-source HEAD push", deny, Verdict::Deny);
    row("git --literal-pathspecs", "git --literal-pathspecs --no-replace-objects push", deny, Verdict::Deny);
    row("git unknown global option", "git --frobnicate x push", deny, Verdict::Deny);
    row("git quoted", "\"git\" 'pu'sh", deny, Verdict::Deny);
    row("git escaped", "g\\it pu\\sh", deny, Verdict::Deny);
    row("git $'push'", "git $'push'", deny, Verdict::Ask);
    row("git pu*", "git pu*", deny, Verdict::Ask);
    row("git-$X", "git-$X origin", deny, Verdict::Ask);
    row("nice git push", "nice -n5 git push", deny, Verdict::Deny);
    row("timeout git push", "timeout -s KILL 5 git push", deny, Verdict::Deny);
    row("xargs git push", "echo origin | xargs git push", deny, Verdict::Deny);
    row("sh -c git push", "sh -c 'git push'", deny, Verdict::Deny);
    row("git submodule foreach", "git submodule foreach git push", deny, Verdict::Deny);
    row("git submodule foreach string", "git submodule foreach --recursive 'git push'", deny, Verdict::Deny);
    row("git rebase -x", "git rebase -x 'git push' main", deny, Verdict::Deny);
    row("git rebase --exec=", "git rebase --exec='rm x' main", deny, Verdict::Deny);
    row("git bisect run", "git bisect run git push", deny, Verdict::Deny);
    row("git config alias", "git config alias.p push", deny, Verdict::Deny);
    row("git config --global alias", "git config --global alias.p '!git push'", deny, Verdict::Deny);
    row("git -c core.pager", "git -c core.pager='rm x' log", deny, Verdict::Deny);
    row("git -c core.sshCommand", "git -c core.sshCommand='git push' fetch", deny, Verdict::Deny);
    row("git -c credential.helper", "git -c 'credential.helper=!rm x' fetch", deny, Verdict::Deny);
    row("GIT_SSH_COMMAND=", "GIT_SSH_COMMAND='rm x' git fetch", deny, Verdict::Deny);
    row("env PAGER=", "env PAGER='rm x' git log", deny, Verdict::Deny);
    row("git stash push is not a push", "git stash push -m x", deny, Verdict::Allow);
    row("git commit -m push", "git commit -m push", deny, Verdict::Allow);
    row("git log --grep=push", "git -C x log --grep=push", deny, Verdict::Allow);
    row("git help push", "git help push", deny, Verdict::Allow);
    row("git alias to status", "git -c alias.p=status p", deny, Verdict::Allow);

    // --- builtins that assign variables are never read-only; unknown words never are
    row("printf -v PATH; ls", "printf -v PATH /tmp/evil; ls", unsafe, Verdict::Ask);
    row("printf -vPATH", "printf -vPATH x", unsafe, Verdict::Ask);
    row("builtin printf -v", "builtin printf -v x y", unsafe, Verdict::Ask);
    row("command printf -v", "command printf -v x y", unsafe, Verdict::Ask);
    row("printf still read-only", "printf '%s\\n' x", unsafe, Verdict::Allow);
    row("read", "read -r x", unsafe, Verdict::Ask);
    row("declare", "declare x=1", unsafe, Verdict::Ask);
    row("typeset", "typeset -i x", unsafe, Verdict::Ask);
    row("export", "export X=1", unsafe, Verdict::Ask);
    row("local", "local x=1", unsafe, Verdict::Ask);
    row("readonly", "readonly x=1", unsafe, Verdict::Ask);
    row("mapfile", "mapfile -t x < file", unsafe, Verdict::Ask);
    row("readarray", "readarray x < file", unsafe, Verdict::Ask);
    row("let", "let x=1", unsafe, Verdict::Ask);
    row("getopts", "getopts ab opt", unsafe, Verdict::Ask);
    row("unset", "unset PATH", unsafe, Verdict::Ask);
    row("unknown word", "frobnicate", unsafe, Verdict::Ask);
    row("unknown word like ls", "ls2 -la", unsafe, Verdict::Ask);
    row("upper-case LS", "LS", unsafe, Verdict::Ask);
    row("busybox unknown applet", "busybox frobnicate", unsafe, Verdict::Ask);
    row("time -o writes a file", "command time -o out ls", unsafe, Verdict::Ask);
}

void TestCommandAnalyser::bypass() {
    QFETCH(QString, command);
    QFETCH(ApprovalPolicy, policy);
    QFETCH(Verdict, verdict);
    const ApprovalDecision decision = CommandAnalyser::decide(command, policy);
    if (decision.verdict != verdict) {
        qWarning().noquote() << "reason:" << decision.reason;
    }
    QCOMPARE(decision.verdict, verdict);
    if (verdict == Verdict::Deny) {
        QVERIFY(policy.deny.contains(decision.rule));
    }
}

void TestCommandAnalyser::split_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("commands");  // each depth-0 part's words, joined by one space

    QTest::newRow("and") << "ls -la && id" << list({"ls -la", "id"});
    QTest::newRow("all separators") << "a;b&&c||d|e&f\ng" << list({"a", "b", "c", "d", "e", "f", "g"});
    QTest::newRow("quoted separators") << "echo 'a;b' \"c&&d\" e\\|f" << list({"echo a;b c&&d e|f"});
    QTest::newRow("adjacent quotes") << "ec'h'\"o\" x" << list({"echo x"});
    QTest::newRow("fd redirections") << "ls 2>/dev/null 1>&2 x" << list({"ls x"});
    QTest::newRow("digits then space are an argument") << "echo 2 >/dev/null" << list({"echo 2"});
    QTest::newRow("quoted digits are an argument") << "echo '2'>/dev/null" << list({"echo 2"});
    QTest::newRow("wrappers stripped") << "command nice -n 3 timeout 5 ls" << list({"ls"});
    QTest::newRow("unicode") << "echo 你好 && cat ☃.txt" << list({"echo 你好", "cat ☃.txt"});
    QTest::newRow("tabs") << "ls\t-l\t\tx" << list({"ls -l x"});
    QTest::newRow("double-quote escapes") << "echo \"a\\$b\\\\c\\d\"" << list({"echo a$b\\c\\d"});
    QTest::newRow("comment to end of line") << "ls # x; rm\npwd" << list({"ls", "pwd"});
}

void TestCommandAnalyser::split() {
    QFETCH(QString, command);
    QFETCH(QStringList, commands);
    QStringList got;
    for (const CommandPart& part : CommandAnalyser::split(command)) {
        if (part.depth == 0) {
            got << part.words().join(QLatin1Char(' '));
        }
    }
    QCOMPARE(got, commands);
}

void TestCommandAnalyser::ruleWords_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QStringList>("words");
    QTest::newRow("one") << "ls" << list({"ls"});
    QTest::newRow("two") << "  git   status " << list({"git", "status"});
    QTest::newRow("quoted") << "grep 'a b'" << list({"grep", "a b"});
    QTest::newRow("two commands") << "ls && id" << QStringList();
    QTest::newRow("glob") << "npm run test:*" << QStringList();
    QTest::newRow("variable") << "$X" << QStringList();
    QTest::newRow("empty") << "" << QStringList();
}

void TestCommandAnalyser::ruleWords() {
    QFETCH(QString, rule);
    QFETCH(QStringList, words);
    QCOMPARE(CommandAnalyser::ruleWords(rule), words);
}

void TestCommandAnalyser::suggestion_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QStringList>("choices");
    QTest::newRow("npm") << "npm run test:unit --watch"
                         << "npm run test:unit"
                         << list({"npm", "npm run", "npm run test:unit", "npm run test:unit --watch"});
    QTest::newRow("python file") << "python3 evil.py"
                                 << "python3" << list({"python3", "python3 evil.py"});
    QTest::newRow("rm") << "rm -rf /"
                        << "rm" << list({"rm", "rm -rf", "rm -rf /"});
    QTest::newRow("the uncovered part") << "ls && make build"
                                        << "make build" << list({"make", "make build"});
    QTest::newRow("variable stops the choices") << "make $T x"
                                                << "make" << list({"make"});
    QTest::newRow("nothing for a substitution") << "make $(id)"
                                                << "" << QStringList();
}

void TestCommandAnalyser::suggestion() {
    QFETCH(QString, command);
    QFETCH(QString, prefix);
    QFETCH(QStringList, choices);
    const ApprovalDecision decision = CommandAnalyser::decide(command, policy(ApprovalMode::AskUnsafe));
    QCOMPARE(decision.verdict, Verdict::Ask);
    QCOMPARE(decision.suggestedPrefix, prefix);
    QCOMPARE(decision.prefixChoices, choices);
    // The suggested rule, once added, covers the part.
    if (!prefix.isEmpty()) {
        const ApprovalDecision again =
            CommandAnalyser::decide(decision.uncovered, policy(ApprovalMode::AskAll, {prefix}));
        QCOMPARE(again.verdict, Verdict::Allow);
        QCOMPARE(again.matchedRules, QStringList{prefix});
    }
}

void TestCommandAnalyser::decisionNamesThePartAndTheRule() {
    const ApprovalDecision deny = CommandAnalyser::decide(QStringLiteral("ls && sudo rm -rf /"),
                                                          policy(ApprovalMode::AskUnsafe, {}, {QStringLiteral("rm")}));
    QCOMPARE(deny.verdict, Verdict::Deny);
    QCOMPARE(deny.rule, QStringLiteral("rm"));
    QCOMPARE(deny.uncovered, QStringLiteral("rm -rf /"));
    QVERIFY2(deny.reason.contains(QStringLiteral("deny rule")), qPrintable(deny.reason));

    const ApprovalDecision ask =
        CommandAnalyser::decide(QStringLiteral("ls -la; make install > log"), policy(ApprovalMode::AskUnsafe));
    QCOMPARE(ask.verdict, Verdict::Ask);
    QCOMPARE(ask.uncovered, QStringLiteral("make install > log"));
    QCOMPARE(ask.why, QStringLiteral("redirects output to a file (log)"));
    QVERIFY2(ask.reason.contains(QStringLiteral("redirects output")), qPrintable(ask.reason));
    QVERIFY(ask.suggestedPrefix.isEmpty());  // no rule can allow a redirection to a file

    const ApprovalDecision allow =
        CommandAnalyser::decide(QStringLiteral("git status && ls"),
                                policy(ApprovalMode::AskAll, {QStringLiteral("ls"), QStringLiteral("git status")}));
    QCOMPARE(allow.verdict, Verdict::Allow);
    QCOMPARE(allow.matchedRules, (QStringList{QStringLiteral("git status"), QStringLiteral("ls")}));
}

void TestCommandAnalyser::longCommandIsDecidedInBoundedTime_data() {
    QTest::addColumn<QString>("command");
    QTest::addColumn<Verdict>("verdict");
    QTest::newRow("100 KB of ls &&") << QStringLiteral("ls && ").repeated(100 * 1024 / 6) + QStringLiteral("ls")
                                     << Verdict::Allow;
    QTest::newRow("100 KB argument") << QStringLiteral("echo ") + QString(100 * 1024, QLatin1Char('a'))
                                     << Verdict::Allow;
    QTest::newRow("100 KB of quotes") << QStringLiteral("echo '") + QString(100 * 1024, QLatin1Char('"'))
                                      << Verdict::Ask;
    QTest::newRow("100 KB of parentheses") << QString(100 * 1024, QLatin1Char('(')) << Verdict::Ask;
    QTest::newRow("100 KB of $(") << QStringLiteral("$(").repeated(50 * 1024) << Verdict::Ask;
    QTest::newRow("nested sh -c") << QStringLiteral("sh -c ").repeated(10000) + QStringLiteral("ls") << Verdict::Ask;
    QTest::newRow("100 KB of backslashes") << QString(100 * 1024, QLatin1Char('\\')) << Verdict::Ask;
    QTest::newRow("100 KB of nice") << QStringLiteral("nice ").repeated(20000) + QStringLiteral("rm x")
                                    << Verdict::Deny;
    QTest::newRow("100 KB of find -exec")
        << QStringLiteral("find . ") + QStringLiteral("-exec rm {} + ").repeated(7000) << Verdict::Deny;
    QTest::newRow("100 KB of strings to an unknown program")
        << QStringLiteral("frobnicate ") + QStringLiteral("'a b' ").repeated(16000) << Verdict::Ask;
    QTest::newRow("100 KB of git aliases")
        << QStringLiteral("git ") + QStringLiteral("-c alias.a=b ").repeated(7000) + QStringLiteral("a")
        << Verdict::Ask;
    QTest::newRow("100 KB to a wrapper it cannot read")
        << QStringLiteral("sudo --bogus ") + QStringLiteral("git ").repeated(25000) + QStringLiteral("push")
        << Verdict::Deny;
    QTest::newRow("100 KB of redirections")
        << QStringLiteral("ls ") + QStringLiteral(">/dev/null ").repeated(9000) << Verdict::Allow;
}

void TestCommandAnalyser::longCommandIsDecidedInBoundedTime() {
    QFETCH(QString, command);
    QFETCH(Verdict, verdict);
    ApprovalPolicy p = policy(ApprovalMode::AskUnsafe, {}, {QStringLiteral("rm"), QStringLiteral("git push")});
    for (int i = 0; i < 50; ++i) {
        p.allow << QStringLiteral("tool%1 sub").arg(i);
    }
    QElapsedTimer timer;
    timer.start();
    const ApprovalDecision decision = CommandAnalyser::decide(command, p);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(decision.verdict, verdict);
}

void TestCommandAnalyser::modeNames() {
    for (const ApprovalMode mode : {ApprovalMode::Auto, ApprovalMode::AskUnsafe, ApprovalMode::AskAll}) {
        QCOMPARE(approvalModeFromName(approvalModeName(mode)), mode);
    }
    QCOMPARE(approvalModeNames(), (list({"auto", "ask-unsafe", "ask-all"})));
    QVERIFY(!approvalModeFromName(QStringLiteral("never")));
}

void TestCommandAnalyser::mergedPolicy() {
    const ApprovalPolicy settings = policy(ApprovalMode::AskUnsafe, {QStringLiteral("ls")}, {QStringLiteral("rm")});
    const ApprovalPolicy cli = policy(ApprovalMode::Auto, {QStringLiteral("make")}, {QStringLiteral("rm")});
    const ApprovalPolicy merged = settings.mergedWith(cli);
    QCOMPARE(merged.mode, ApprovalMode::AskUnsafe);  // the command line's auto leaves the folder's mode
    QCOMPARE(merged.allow, (QStringList{QStringLiteral("ls"), QStringLiteral("make")}));
    QCOMPARE(merged.deny, QStringList{QStringLiteral("rm")});
    QCOMPARE(settings.mergedWith(policy(ApprovalMode::AskAll)).mode, ApprovalMode::AskAll);
}

QTEST_GUILESS_MAIN(TestCommandAnalyser)
#include "tst_commandanalyser.moc"
