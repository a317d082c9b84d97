#!/bin/bash
# The README's run command (app/run.sh) tried as a new user would: no display, and as root with HOME=/root (the
# workspace is a folder under /root, which is a system tree for everyone else). It uses the binaries of this
# build (ZEUS_PREBUILT) and the test image (ZEUS_IMAGE), so it compiles and downloads nothing.
#   quickstart.sh SOURCE_DIR BUILD_DIR
# Checks:
#   1. a typed `ls /workspace` runs in the sandbox and its output is printed; Ctrl-D ends everything, exit 0;
#   2. when the app cannot start, run.sh says so with the end of its log and exits non-zero, never leaving a
#      console that sends lines to nobody;
#   3. after either, no process run.sh started is left.
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

# 1. A typed command runs. The input waits until the app has said hello (the console prints it), then types.
out1=$scratch/out1
run_quickstart "$out1" "
    for _ in \$(seq 1 600); do grep -q '^hello ' '$out1' 2>/dev/null && break; sleep 0.2; done
    echo 'ls /workspace'
    for _ in \$(seq 1 600); do grep -q '^result ' '$out1' 2>/dev/null && break; sleep 0.2; done
"
status=$?
cat "$out1"
[ "$status" = 0 ] || fail "run.sh exited with $status after Ctrl-D"
grep -q "stdout\] $marker" "$out1" || fail "the typed 'ls /workspace' did not print $marker"
grep -q "^result .* ok exit=0" "$out1" || fail "no ok result for the typed command"
grep -q "system folder" "$out1" && fail "the workspace under HOME=$home was refused as a system folder"

# 2. The app cannot start (an unknown option): run.sh says so and exits non-zero while the console still waits.
out2=$scratch/out2
run_quickstart "$out2" "sleep 20; echo 'ls /workspace'" -- --no-such-option
status=$?
cat "$out2"
[ "$status" != 0 ] || fail "run.sh exited 0 although the app could not start"
grep -q "Zeus Desktop stopped" "$out2" || fail "run.sh did not say that the app stopped"
grep -q "no-such-option" "$out2" || fail "run.sh did not show the end of the app's log (the reason)"

# 3. Nothing left behind: no app or console of these runs (they name this workspace) still runs.
sleep 1
if pgrep -f -- "--workspace $workspace" >/dev/null; then
    pgrep -a -f -- "--workspace $workspace" >&2
    fail "processes started by run.sh are still running"
fi
echo "PASS"
