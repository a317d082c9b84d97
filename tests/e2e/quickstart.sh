#!/bin/bash
# The README's run command (app/run.sh) tried as a new user would: no display, and as root with HOME=/root (the
# workspace is a folder under /root, which is a system tree for everyone else). It uses the binaries of this
# build (ZEUS_PREBUILT) and the test image (ZEUS_IMAGE), so it compiles and downloads nothing.
#   quickstart.sh SOURCE_DIR BUILD_DIR
# Checks:
#   1. a typed `ls /workspace` runs in the sandbox and its output is printed; Ctrl-D ends everything, exit 0;
#      the session's first line says its commands run through the sandbox agent, and `true` takes < 50 ms end to
#      end as the console prints it (round_trip_ms; the agent path, where a plain exec takes 100 ms and more);
#      the standard profile's allowlist is in force: a local HTTP fixture allowed with --allow-host/--resolve (run.sh's
#      `--` arguments) answers through the agent's proxy, and a host no rule allows gets the 403 line;
#   2. when the app cannot start, run.sh says so with the end of its log and exits non-zero, never leaving a
#      console that sends lines to nobody;
#   3. while another quick start holds the state folder (its lock), a second one says so and exits 1 at once,
#      touching nothing (the two would share the private dockerd, the backend's port and its token);
#   4. after any of these, no process run.sh started is left.
set -u
source_dir=$1
build_dir=$2
image=${ZEUS_TEST_IMAGE:-zeus-desktop-sandbox:test}
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v docker >/dev/null && docker info >/dev/null 2>&1 || {
    if [ "${CI:-}" = true ]; then fail "no Docker engine answers (DOCKER_HOST=${DOCKER_HOST:-unset})"; fi
    echo "SKIP: no Docker engine answers"; exit 0
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/zeus-quickstart.XXXXXX")
if [ "$(id -u)" = 0 ] && [ -d /root ]; then
    home=/root
    workspace=$(mktemp -d /root/zeus-quickstart-workspace.XXXXXX)
else
    home=$scratch/home
    mkdir -p "$home"
    workspace=$home/ZeusWorkspace
    mkdir -p "$workspace"
fi
trap 'rm -rf "$scratch"; [ "$home" = /root ] && rm -rf "$workspace"' EXIT
marker="quickstart-marker-$$.txt"
echo hello >"$workspace/$marker"
port=$((20000 + RANDOM % 20000))

# The HTTP fixture on this computer's loopback, reached only through the app's egress proxy.
fixture_dir=$scratch/fixture
mkdir -p "$fixture_dir"
echo "fixture-answer-$$" >"$fixture_dir/fixture.txt"
fixture_port=""
fixture_pid=""
for _ in 1 2 3 4 5; do
    candidate=$((20000 + RANDOM % 20000))
    [ "$candidate" = "$port" ] && continue
    python3 -m http.server --bind 127.0.0.1 --directory "$fixture_dir" "$candidate" >"$scratch/fixture.log" 2>&1 &
    fixture_pid=$!
    for _ in $(seq 1 50); do
        grep -q "Serving HTTP" "$scratch/fixture.log" 2>/dev/null && break
        kill -0 "$fixture_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$fixture_pid" 2>/dev/null; then
        fixture_port=$candidate
        break
    fi
done
[ -n "$fixture_port" ] || fail "the HTTP fixture did not start: $(cat "$scratch/fixture.log")"
trap 'kill "$fixture_pid" 2>/dev/null; rm -rf "$scratch"; [ "$home" = /root ] && rm -rf "$workspace"' EXIT

run_quickstart() {  # run_quickstart OUTFILE INPUT-SCRIPT [-- app args]
    local out=$1 input=$2
    shift 2
    # HOME as root has it, no display; the state (logs, the backend's token) in the scratch folder.
    timeout -s KILL 240 bash -c "$input" |
        env -u DISPLAY -u WAYLAND_DISPLAY HOME="$home" XDG_STATE_HOME="$scratch/state" \
            XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" XDG_CACHE_HOME="$scratch/cache" \
            XDG_RUNTIME_DIR="$scratch" ZEUS_PREBUILT="$build_dir" ZEUS_IMAGE="$image" ZEUS_WORKSPACE="$workspace" \
            ZEUS_TESTBACKEND_PORT="$port" timeout -s TERM 250 bash "$source_dir/app/run.sh" "$@" >"$out" 2>&1
    return "${PIPESTATUS[1]}"
}

# 1. Typed commands run. The input waits until the app has said hello (the console prints it), then types each line
#    once the one before has its result.
out1=$scratch/out1
fixture_url="http://fixture.test:$fixture_port/fixture.txt"
run_quickstart "$out1" "
    for _ in \$(seq 1 600); do grep -q '^hello ' '$out1' 2>/dev/null && break; sleep 0.2; done
    n=0
    for line in 'ls /workspace' true true true 'wget -qO- $fixture_url' 'wget -qO- http://denied.test/'; do
        echo \"\$line\"
        n=\$((n + 1))
        for _ in \$(seq 1 600); do [ \"\$(grep -c '^result ' '$out1')\" -ge \$n ] && break; sleep 0.2; done
    done
" -- --allow-host "fixture.test:$fixture_port" --resolve "fixture.test:$fixture_port:127.0.0.1"
status=$?
cat "$out1"
[ "$status" = 0 ] || fail "run.sh exited with $status after Ctrl-D"
grep -q "stdout\] $marker" "$out1" || fail "the typed 'ls /workspace' did not print $marker"
grep -q "^result c1 ok exit=0" "$out1" || fail "no ok result for the typed command"
grep -q "system folder" "$out1" && fail "the workspace under HOME=$home was refused as a system folder"
# The session's first line: the agent carries the commands.
first=$(grep -m 1 "^session local: " "$out1")
case "$first" in
    "session local: commands run through the sandbox agent "*) ;;
    *) fail "the session's first line does not say the agent is used: '$first'" ;;
esac
grep -q "^session local: network allowlist" "$out1" || fail "no line says the allowlist is in force"
# `true` end to end, as the console prints it: the fastest of the three (c2-c4).
fastest=$(sed -n 's/^result c[234] ok exit=0 .* round_trip_ms=\([0-9]*\).*/\1/p' "$out1" | sort -n | head -n 1)
[ -n "$fastest" ] || fail "no round trip printed for 'true'"
[ "$fastest" -lt 50 ] || fail "'true' took $fastest ms end to end; through the agent it takes a few"
echo "true: $fastest ms end to end"
grep -q "^\[c5 stdout\] fixture-answer-$$" "$out1" || fail "the allowed fixture did not answer through the proxy"
grep -q "^result c5 ok exit=0" "$out1" || fail "wget of the allowed fixture failed"
grep -q "^\[c6 stderr\] .*403 Forbidden" "$out1" || fail "the denied host did not print the 403 line"
grep -q "^network c6 denied.test:80 denied" "$out1" || fail "no network_event line for the denied host"

# 2. The app cannot start (an unknown option): run.sh says so and exits non-zero while the console still waits.
out2=$scratch/out2
run_quickstart "$out2" "sleep 20; echo 'ls /workspace'" -- --no-such-option
status=$?
cat "$out2"
[ "$status" != 0 ] || fail "run.sh exited 0 although the app could not start"
grep -q "Zeus Desktop stopped" "$out2" || fail "run.sh did not say that the app stopped"
grep -q "no-such-option" "$out2" || fail "run.sh did not show the end of the app's log (the reason)"

# 3. Another quick start runs (it holds the lock on the state folder): this one says so and stops at once.
lock_dir=$scratch/state/zeus-desktop
mkdir -p "$lock_dir"
(exec 8>>"$lock_dir/run.lock"; flock 8; : >"$scratch/locked"; exec sleep 60) &
holder=$!
for _ in $(seq 1 50); do [ -e "$scratch/locked" ] && break; sleep 0.1; done
[ -e "$scratch/locked" ] || fail "the test could not take the lock on $lock_dir/run.lock"
out3=$scratch/out3
started=$(date +%s)
run_quickstart "$out3" "true"
status=$?
kill "$holder" 2>/dev/null
cat "$out3"
[ "$status" = 1 ] || fail "a second quick start exited with $status, not 1, while another held the lock"
grep -q "another quick start (app/run.sh) is running" "$out3" || fail "the second quick start did not say another runs"
[ $(($(date +%s) - started)) -lt 10 ] || fail "the second quick start did not stop at once"

# 4. Nothing left behind: no app or console of these runs (they name this workspace) still runs.
sleep 1
if pgrep -f -- "--workspace $workspace" >/dev/null; then
    pgrep -a -f -- "--workspace $workspace" >&2
    fail "processes started by run.sh are still running"
fi
echo "PASS"
