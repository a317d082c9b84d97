#include "approval/commandtable.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace zeus::commandtable {

namespace {

QStringList words(std::initializer_list<const char*> items) {
    QStringList out;
    for (const char* item : items) {
        out << QString::fromLatin1(item);
    }
    return out;
}

// ---- wrappers ---------------------------------------------------------------------------------------------

// The wrapper table while it is built, theme by theme.
struct WrapperTable {
    QHash<QString, WrapperSyntax> byName;
    void add(const char* name, const WrapperSyntax& syntax) { byName.insert(QString::fromLatin1(name), syntax); }
    bool contains(const QString& name) const { return byName.contains(name); }
};

// Transparent: they only change how the command runs, so allowing looks through them.
void addTransparent(WrapperTable& t) {
    WrapperSyntax s;
    s.flagShort = QStringLiteral("pvV");
    s.transparent = true;
    t.add("command", s);
    s = {};
    s.argShort = QStringLiteral("a");
    s.flagShort = QStringLiteral("cl");
    s.transparent = true;
    t.add("exec", s);
    s = {};
    s.argShort = QStringLiteral("n");
    s.argLong = words({"--adjustment"});
    s.digits = true;
    s.transparent = true;
    t.add("nice", s);
    s = {};
    s.transparent = true;
    t.add("nohup", s);
    t.add("builtin", s);
    s.flagLong = words({"--list", "--list-full", "--install", "--help", "--long"});
    t.add("busybox", s);
    t.add("toybox", s);
    s = {};
    s.argShort = QStringLiteral("sk");
    s.flagShort = QStringLiteral("v");
    s.argLong = words({"--signal", "--kill-after"});
    s.flagLong = words({"--preserve-status", "--foreground", "--verbose"});
    s.operands = 1;
    s.transparent = true;
    t.add("timeout", s);
    s = {};
    s.argShort = QStringLiteral("of");
    s.flagShort = QStringLiteral("pvaq");
    s.argLong = words({"--output", "--format"});
    s.flagLong = words({"--portability", "--verbose", "--append", "--quiet"});
    s.transparent = true;
    t.add("time", s);
}

// They run the command as another user, or a shell string, or with another environment.
void addIdentityChangers(WrapperTable& t) {
    WrapperSyntax s;
    s.argShort = QStringLiteral("aCcDgpRrTtUu");
    s.optionalShort = QStringLiteral("h");
    s.flagShort = QStringLiteral("ABbEeHiKklNnPSsVv");
    s.argLong = words({"--auth-type", "--chdir", "--close-from", "--group", "--host", "--login-class", "--other-user",
                       "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--user"});
    s.flagLong = words({"--askpass", "--bell", "--background", "--preserve-env", "--edit", "--help", "--set-home",
                        "--login", "--remove-timestamp", "--reset-timestamp", "--list", "--no-update",
                        "--non-interactive", "--preserve-groups", "--stdin", "--shell", "--version", "--validate"});
    t.add("sudo", s);
    s = {};
    s.argShort = QStringLiteral("uC");
    s.flagShort = QStringLiteral("nsL");
    t.add("doas", s);
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
    t.add("env", s);
    s = {};
    s.scriptShort = QStringLiteral("c");
    s.argShort = QStringLiteral("gGsw");
    s.flagShort = QStringLiteral("flmpPhV");
    s.scriptLong = words({"--command", "--session-command"});
    s.argLong = words({"--group", "--supp-group", "--shell", "--whitelist-environment"});
    s.flagLong = words({"--login", "--preserve-environment", "--pty", "--fast", "--help", "--version"});
    s.permute = true;
    s.dash = true;
    t.add("su", s);
    s.argShort += QLatin1Char('u');
    s.argLong << QStringLiteral("--user");
    t.add("runuser", s);
    s = {};
    s.scriptShort = QStringLiteral("c");
    s.argShort = QStringLiteral("EIOBTmo");
    s.optionalShort = QStringLiteral("t");
    s.flagShort = QStringLiteral("aefqhV");
    s.scriptLong = words({"--command"});
    s.argLong =
        words({"--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format", "--output-limit"});
    s.flagLong = words({"--append", "--return", "--flush", "--force", "--quiet", "--timing", "--help", "--version"});
    s.permute = true;
    t.add("script", s);
}

// They run the command once per input (and parallel also reads commands from its input).
void addBatchRunners(WrapperTable& t) {
    WrapperSyntax s;
    s.argShort = QStringLiteral("adEILnPs");
    s.optionalShort = QStringLiteral("eil");
    s.flagShort = QStringLiteral("0oprtx");
    s.argLong = words({"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"});
    s.flagLong = words({"--null", "--open-tty", "--interactive", "--no-run-if-empty", "--verbose", "--exit",
                        "--show-limits", "--max-lines", "--replace", "--eof", "--help", "--version"});
    t.add("xargs", s);
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
    t.add("parallel", s);
    t.add("sem", s);
    t.add("env_parallel", s);
}

// They run the command in another root, namespace, session, lock, scheduling class or buffering.
void addPlaceChangers(WrapperTable& t) {
    WrapperSyntax s;
    s.argLong = words({"--userspec", "--groups"});
    s.flagLong = words({"--skip-chdir"});
    s.operands = 1;
    t.add("chroot", s);
    s = {};
    s.argShort = QStringLiteral("wE");
    s.flagShort = QStringLiteral("sxeunoFhV");
    s.argLong = words({"--timeout", "--conflict-exit-code"});
    s.flagLong = words({"--shared", "--exclusive", "--unlock", "--nonblock", "--close", "--no-fork", "--verbose"});
    s.operands = 1;
    t.add("flock", s);
    s = {};
    s.flagShort = QStringLiteral("cfw");
    s.flagLong = words({"--ctty", "--fork", "--wait"});
    t.add("setsid", s);
    s = {};
    s.argShort = QStringLiteral("ioe");
    s.argLong = words({"--input", "--output", "--error"});
    t.add("stdbuf", s);
    s = {};
    s.flagShort = QStringLiteral("apc");
    s.flagLong = words({"--all-tasks", "--pid", "--cpu-list"});
    s.operands = 1;
    t.add("taskset", s);
    s = {};
    s.argShort = QStringLiteral("cnpPu");
    s.flagShort = QStringLiteral("t");
    s.argLong = words({"--class", "--classdata", "--pid", "--pgid", "--uid"});
    s.flagLong = words({"--ignore"});
    t.add("ionice", s);
    s = {};
    s.argShort = QStringLiteral("TPD");
    s.flagShort = QStringLiteral("abdfimoprRv");
    s.argLong = words({"--sched-runtime", "--sched-period", "--sched-deadline"});
    s.flagLong = words({"--all-tasks", "--batch", "--deadline", "--fifo", "--idle", "--max", "--other", "--pid", "--rr",
                        "--reset-on-fork", "--verbose"});
    s.operands = 1;
    t.add("chrt", s);
    s = {};
    s.argShort = QStringLiteral("SGRwl");
    s.optionalShort = QStringLiteral("muinpUCT");
    s.flagShort = QStringLiteral("frc");
    s.argLong = words({"--setuid", "--setgid", "--root", "--wd", "--propagation", "--setgroups", "--map-user",
                       "--map-group", "--map-users", "--map-groups", "--load-interp", "--monotonic", "--boottime"});
    s.flagLong = words({"--fork", "--map-root-user", "--map-current-user", "--map-auto", "--mount-proc", "--kill-child",
                        "--keep-caps", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time"});
    t.add("unshare", s);
    s = {};
    s.argShort = QStringLiteral("tSG");
    s.optionalShort = QStringLiteral("muinpUCTrw");
    s.flagShort = QStringLiteral("aFZe");
    s.argLong = words({"--target", "--setuid", "--setgid"});
    s.flagLong = words({"--all", "--mount", "--uts", "--ipc", "--net", "--pid", "--user", "--cgroup", "--time",
                        "--root", "--wd", "--no-fork", "--preserve-credentials", "--follow-context"});
    t.add("nsenter", s);
}

// Tracers, fake environments, network and display wrappers.
void addTools(WrapperTable& t) {
    WrapperSyntax s;
    s.argShort = QStringLiteral("abeEIoOpPsSuUX");
    s.flagShort = QStringLiteral("cCdDfFhiknNqrtTvVwxyzZA");
    t.add("strace", s);
    s = {};
    s.argShort = QStringLiteral("aADeFlnopsuwx");
    s.flagShort = QStringLiteral("bcCfhiLrStTV");
    t.add("ltrace", s);
    s = {};
    s.argShort = QStringLiteral("lisb");
    s.flagShort = QStringLiteral("uhv");
    s.argLong = words({"--lib", "--faked"});
    s.flagLong = words({"--unknown-is-real"});
    t.add("fakeroot", s);
    s = {};
    s.flagShort = QStringLiteral("p");
    t.add("unbuffer", s);
    s = {};
    s.flagShort = QStringLiteral("ev");
    t.add("chronic", s);
    s = {};
    s.flagShort = QStringLiteral("n");
    t.add("ifne", s);
    s = {};
    s.argLong = words({"--user"});
    s.flagLong = words({"--disable-internal-agent", "--keep-cwd"});
    t.add("pkexec", s);
    s = {};
    s.argLong = words({"--config-file", "--dbus-daemon"});
    t.add("dbus-run-session", s);
    s = {};
    s.argShort = QStringLiteral("efnpsw");
    s.flagShort = QStringLiteral("al");
    s.argLong = words({"--error-file", "--auth-file", "--server-num", "--xauth-protocol", "--server-args", "--wait"});
    s.flagLong = words({"--auto-servernum", "--listen-tcp"});
    t.add("xvfb-run", s);
    s = {};
    s.flagShort = QStringLiteral("qvh");
    s.longValues = true;
    t.add("valgrind", s);
    s = {};
    s.longValues = true;
    t.add("firejail", s);
    s = {};
    s.argShort = QStringLiteral("f");
    s.flagShort = QStringLiteral("q");
    t.add("proxychains", s);
    t.add("proxychains4", s);
    s = {};
    s.argShort = QStringLiteral("g");
    s.flagLong = words({"--sticky"});
    t.add("cgexec", s);
}

// Without a syntax here: any option makes every word a possible command. watch last: its syntax replaces the
// empty one.
void addUnread(WrapperTable& t) {
    WrapperSyntax s;
    for (const char* name : {"eatmydata",   "nocache",  "catchsegv", "torsocks", "tsocks",  "bwrap",
                             "systemd-run", "capsh",    "setpriv",   "prlimit",  "numactl", "start-stop-daemon",
                             "daemonize",   "faketime", "runcon",    "cpulimit", "trickle", "proot",
                             "ccache",      "distcc",   "doas",      "sudoedit", "sg",      "watch",
                             "rlwrap",      "expect",   "dtach",     "abduco",   "nq",      "tsp"}) {
        if (!t.contains(QString::fromLatin1(name))) {
            t.add(name, s);
        }
    }
    s.argShort = QStringLiteral("nq");
    s.optionalShort = QStringLiteral("d");
    s.flagShort = QStringLiteral("tbegcxpwrhvC");
    s.argLong = words({"--interval", "--equexit"});
    s.flagLong = words({"--differences", "--no-title", "--beep", "--errexit", "--chgexit", "--color", "--exec",
                        "--precise", "--no-wrap", "--no-rerun", "--no-color"});
    t.add("watch", s);
}

// Every wrapper that runs its argument as a command or a shell string. The names match the command word's last
// path component. All but the transparent ones are opaque: they change who runs the command, or where; deny rules
// look inside, allowing does not.
const QHash<QString, WrapperSyntax>& wrappers() {
    static const QHash<QString, WrapperSyntax> table = [] {
        WrapperTable t;
        addTransparent(t);
        addIdentityChangers(t);
        addBatchRunners(t);
        addPlaceChangers(t);
        addTools(t);
        addUnread(t);  // last: it adds only the names not read above
        return t.byName;
    }();
    return table;
}

// ---- names ------------------------------------------------------------------------------------------------

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

// The list besides the read-only one.
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

// The options of a listed command that reads only with some of them: `args` are the words after the command word.
bool optionsAreReadOnly(const QString& name, const QStringList& args, QString* why) {
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

}  // namespace

QString commandName(const QString& word) {
    const qsizetype slash = word.lastIndexOf(QLatin1Char('/'));
    return slash < 0 ? word : word.mid(slash + 1);
}

bool isOption(const QString& word) {
    return word.size() > 1 && word.startsWith(QLatin1Char('-'));
}

bool isTrustedCommandWord(const QString& word) {
    return !word.contains(QLatin1Char('/')) || inSystemDirectory(word);
}

const WrapperSyntax* wrapper(const QString& name) {
    const auto found = wrappers().constFind(name);
    return found == wrappers().cend() ? nullptr : &found.value();
}

bool isShell(const QString& name) {
    return shells().contains(name);
}

bool isKeyword(const QString& raw) {
    return keywords().contains(raw);
}

bool definesCode(const QString& name) {
    return codeDefining().contains(name);
}

bool assigns(const QString& name) {
    return assigning().contains(name);
}

bool isKnownPlain(const QString& name) {
    return knownPlain().contains(name);
}

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

bool isReadOnly(const QStringList& words, bool argumentsExpand, QString* why) {
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
    static const QSet<QString> checked{QStringLiteral("find"),   QStringLiteral("rg"),   QStringLiteral("sed"),
                                       QStringLiteral("git"),    QStringLiteral("sort"), QStringLiteral("uniq"),
                                       QStringLiteral("date"),   QStringLiteral("file"), QStringLiteral("tree"),
                                       QStringLiteral("command")};
    if (!checked.contains(name)) {
        return refuse(why, QStringLiteral("%1 is not in the read-only list").arg(name));
    }
    // Their options matter: an argument decided at run time (a glob can match a file named "-delete") could be one.
    if (argumentsExpand) {
        return refuse(why, QStringLiteral("%1 has an argument that is decided when it runs").arg(name));
    }
    return optionsAreReadOnly(name, words.mid(1), why);
}

}  // namespace zeus::commandtable
