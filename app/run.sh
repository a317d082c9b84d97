#!/bin/bash
# Quick start: installs what is missing (Debian/Ubuntu), builds, makes sure a container
# engine and the sandbox image are there, and starts Zeus Desktop with a working
# default: a workspace folder, and a local console to type commands into the sandbox.
#   app/run.sh [--workspace DIR] [-- extra zeus-desktop arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
workspace="${ZEUS_WORKSPACE:-$HOME/ZeusWorkspace}"
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --workspace) workspace=$2; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        *) extra+=("$1"); shift ;;
    esac
done
say() { printf 'zeus: %s\n' "$*" >&2; }

# Everything this script starts stops with it: on Ctrl-D, Ctrl-C, a closed terminal (SIGHUP), a kill or an error.
dockerd_pid=""; app_pid=""; backend_pid=""; token_file=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
    for pid in $backend_pid $app_pid; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $backend_pid $app_pid; do wait "$pid" 2>/dev/null || true; done
    [ -z "$token_file" ] || rm -f "$token_file"
    if [ -n "$dockerd_pid" ]; then
        kill -TERM "$dockerd_pid" 2>/dev/null || true
        wait "$dockerd_pid" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 129' HUP
trap 'exit 143' TERM

state_dir="${XDG_STATE_HOME:-$HOME/.local/state}/zeus-desktop"
mkdir -p "$state_dir"
# One quick start at a time per state folder: two would share the private dockerd (the second one's start fails
# while the first one's daemon answers, and either one's end stops it under the other), the backend's token file and
# its port. The lock is this script's alone: nothing it starts inherits the descriptor (9>&-), so a run that was
# killed outright (SIGKILL: no cleanup) leaves it free, and what it left behind is cleaned up below.
if command -v flock >/dev/null; then
    exec 9>>"$state_dir/run.lock"
    if ! flock -n 9; then
        say "another quick start (app/run.sh) is running with the state in $state_dir; only one at a time can run:"
        say "end the other one (Ctrl-D in its terminal) and try again"
        exit 1
    fi
fi

cmake/install-deps.sh --run 9>&-
# Every program a session needs: the app, the test backend and the sandbox agent (without the agent each command is a
# slow plain exec and the network allowlist has no way in; the app refuses to start without one).
# ZEUS_PREBUILT=DIR uses the binaries of an existing build folder and builds nothing: no binary, and no image when the
# engine already has the one asked for (the project's own test of this script does that, so it compiles nothing a
# second time and keeps the test image the harness made).
build_dir="${ZEUS_PREBUILT:-$source_dir/build/dev}"
if [ -z "${ZEUS_PREBUILT:-}" ]; then
    cmake --preset dev >/dev/null 9>&-
    cmake --build --preset dev -j"$(nproc 2>/dev/null || echo 2)" --target zeus-desktop zeus-testbackend zeus_sandbox_agent 9>&-
fi
app="$build_dir/app/zeus-desktop"
image="${ZEUS_IMAGE:-}"
mkdir -p "$workspace"

# stop_leftover PIDFILE NAME ARG WHAT: stops the process PIDFILE names when it is still alive and is really NAME
# with ARG among its arguments (a pid the system gave to another program since is left alone): TERM, up to 20 s,
# then KILL.
stop_leftover() {
    local pidfile=$1 name=$2 arg=$3 what=$4 pid
    pid=$(cat "$pidfile" 2>/dev/null) || return 0
    case "$pid" in '' | *[!0-9]*) return 0 ;; esac
    kill -0 "$pid" 2>/dev/null || return 0
    local argv0
    argv0=$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n 1) || return 0
    [ "${argv0##*/}" = "$name" ] || return 0
    tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -F -- "$arg" || return 0
    say "stopping $what (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
    say "$what (pid $pid) does not stop; stop it and try again"
    exit 1
}

# The app and the console of a run that was killed outright keep running (the console still holds the port and
# reads the terminal): stopped first, the same way, by the pid files this script writes.
stop_leftover "$state_dir/backend.pid" zeus-testbackend "$state_dir/testbackend.token" \
    "the console (zeus-testbackend) an earlier run left running"
stop_leftover "$state_dir/app.pid" zeus-desktop --backend "the Zeus Desktop an earlier run left running"

# A container engine: a Docker engine that answers; else, as root on a machine without
# a service manager, a private dockerd that lives as long as this script; else Podman.
# Either way the standard profile and its network allowlist: allowlist containers run with --network none and reach
# the allowed hosts through the sandbox agent, so an engine without a bridge network serves them just as well.
engine=""
if command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; then
    engine=docker
elif [ "$(id -u)" = 0 ] && command -v dockerd >/dev/null && [ ! -d /run/systemd/system ]; then
    d="$state_dir/dockerd"
    mkdir -p "$d"
    # A private dockerd (or its containerd) that a killed run left running is stopped first: it would keep the pid
    # file (the new daemon refuses to start) and answer on the socket in the new one's place until something stops it.
    stop_leftover "$d/pid" dockerd "$d/data" "the private dockerd an earlier run left running"
    stop_leftover "$d/exec/containerd/containerd.pid" containerd "$d/exec/" "the containerd an earlier run left running"
    [ ! -e "$d/log" ] || mv -f "$d/log" "$d/log.previous"
    say "no Docker engine answers; starting a private one in $d (no bridge network: none is needed, the allowlist reaches containers through the sandbox agent)"
    # No --storage-driver: dockerd takes overlay2 where the kernel and the folder's file system allow it (every
    # container and every image step on vfs copies the whole ~750 MB image: ~10 s per new session, a 10 min build),
    # vfs elsewhere, and keeps the driver an earlier run's data was made with.
    dockerd --iptables=false --ip6tables=false --bridge=none \
        --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" \
        -H "unix://$d/docker.sock" >>"$d/log" 2>&1 9>&- &
    dockerd_pid=$!
    export DOCKER_HOST="unix://$d/docker.sock"
    for _ in $(seq 1 120); do
        kill -0 "$dockerd_pid" 2>/dev/null || break
        docker info >/dev/null 2>&1 && break
        sleep 0.5
    done
    # The daemon that answers must be this one, not another that serves the same socket.
    if ! kill -0 "$dockerd_pid" 2>/dev/null || ! docker info >/dev/null 2>&1 || ! kill -0 "$dockerd_pid" 2>/dev/null; then
        say "the private dockerd did not start. The end of its log ($d/log):"
        tail -n 15 "$d/log" | sed 's/^/    /' >&2
        exit 1
    fi
    engine=docker
elif command -v podman >/dev/null && timeout 10 podman info >/dev/null 2>&1; then
    engine=podman
fi
if [ -z "$engine" ]; then
    say "no container engine is usable. Zeus Desktop refuses to run commands without one:"
    "$app" --diagnose 9>&- || true
    exit 1
fi
say "container engine: $engine"

if [ -n "${ZEUS_PREBUILT:-}" ] && [ -n "$image" ] && "$engine" image inspect "$image" >/dev/null 2>&1; then
    say "image: $image, as it is (ZEUS_PREBUILT)"
elif [ -x docker/ensure-image.sh ]; then
    docker/ensure-image.sh "$engine" ${image:+"$image"} 9>&-
fi
image_args=()
if [ -n "$image" ]; then
    image_args=(--image "$image")
fi

say "workspace: $workspace (only this folder is visible to commands, at /workspace)"
backend_bin="$build_dir/app/testbackend/zeus-testbackend"
port=${ZEUS_TESTBACKEND_PORT:-8765}
backend_url="ws://127.0.0.1:$port"

# The embedded default backend: zeus-testbackend on this computer sends each line you
# type as a desktop_exec tool call and prints what comes back. It accepts only connections
# that carry its token, random per run (any local user can reach a loopback port): it
# writes it to a 0600 file, and the app gets it in its environment (never on a command
# line, which every local user can read), so nothing has to be typed.
token_file="$state_dir/testbackend.token"
rm -f "$token_file"
start_app() {
    for _ in $(seq 1 100); do [ -s "$token_file" ] && break; sleep 0.1; done
    [ -s "$token_file" ] || { say "the test backend wrote no token to $token_file"; exit 1; }
    ZEUS_DESKTOP_TOKEN=$(cat "$token_file")
    export ZEUS_DESKTOP_TOKEN
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        exec "$app" --backend "$backend_url" --workspace "$workspace" "${image_args[@]}" "${extra[@]}" \
            2>>"$app_log"
    fi
    exec "$app" --headless --backend "$backend_url" --workspace "$workspace" --runtime "$engine" \
        "${image_args[@]}" "${extra[@]}" 2>>"$app_log"
}
app_log="$state_dir/app.log"
: >"$app_log"
start_app </dev/null 9>&- &
app_pid=$!
echo "$app_pid" >"$state_dir/app.pid"
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    say "no display: the app runs headless; its log is $app_log"
fi
say "type a command to run it in the sandbox (e.g. 'ls /workspace'), Ctrl-D to quit"
# The console reads this terminal (a job started with & would otherwise read /dev/null).
exec 3<&0
"$backend_bin" --port "$port" --workspace "$workspace" --token-file "$token_file" <&3 9>&- &
backend_pid=$!
echo "$backend_pid" >"$state_dir/backend.pid"
exec 3<&-

# Whichever stops first decides: the console at Ctrl-D is the normal end; the app stopping first is an error
# said here, with the end of its log, never a console that silently sends lines to nobody.
finished=""
status=0
wait -n -p finished "$backend_pid" "$app_pid" 2>/dev/null || status=$?
if [ "$finished" = "$app_pid" ]; then
    app_pid=""
    say "Zeus Desktop stopped (exit status $status); nothing you type can run. The end of its log ($app_log):"
    tail -n 15 "$app_log" | sed 's/^/    /' >&2
    exit 1
fi
backend_pid=""
exit "$status"
