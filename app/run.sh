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

cmake/install-deps.sh --run
cmake --preset dev >/dev/null
cmake --build --preset dev -j"$(nproc 2>/dev/null || echo 2)" --target zeus-desktop zeus-testbackend
app="$source_dir/build/dev/app/zeus-desktop"
state_dir="${XDG_STATE_HOME:-$HOME/.local/state}/zeus-desktop"
mkdir -p "$state_dir" "$workspace"

# A container engine: a Docker engine that answers; else, as root on a machine without
# a service manager, a private dockerd that lives as long as this script; else Podman.
engine=""
profile_args=()
if command -v docker >/dev/null && timeout 10 docker info >/dev/null 2>&1; then
    engine=docker
elif [ "$(id -u)" = 0 ] && command -v dockerd >/dev/null && [ ! -d /run/systemd/system ]; then
    d="$state_dir/dockerd"
    mkdir -p "$d"
    say "no Docker engine answers; starting a private one in $d (no bridge network: commands run with --network none)"
    dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs \
        --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" \
        -H "unix://$d/docker.sock" >"$d/log" 2>&1 &
    dockerd_pid=$!
    trap 'kill $dockerd_pid 2>/dev/null; wait $dockerd_pid 2>/dev/null' EXIT
    export DOCKER_HOST="unix://$d/docker.sock"
    for _ in $(seq 1 120); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    docker info >/dev/null 2>&1 || { say "the private dockerd did not start; see $d/log"; exit 1; }
    engine=docker
    profile_args=(--profile hardened)
elif command -v podman >/dev/null && timeout 10 podman info >/dev/null 2>&1; then
    engine=podman
fi
if [ -z "$engine" ]; then
    say "no container engine is usable. Zeus Desktop refuses to run commands without one:"
    "$app" --diagnose || true
    exit 1
fi
say "container engine: $engine"

if [ -x docker/ensure-image.sh ]; then
    docker/ensure-image.sh "$engine"
fi

say "workspace: $workspace (only this folder is visible to commands, at /workspace)"
backend_bin="$source_dir/build/dev/app/testbackend/zeus-testbackend"
port=${ZEUS_TESTBACKEND_PORT:-8765}
backend_url="ws://127.0.0.1:$port"

# The embedded default backend: zeus-testbackend on this computer sends each line you
# type as a desktop_exec tool call and prints what comes back.
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    "$app" --backend "$backend_url" --workspace "$workspace" "${profile_args[@]}" "${extra[@]}" &
else
    "$app" --headless --backend "$backend_url" --workspace "$workspace" --runtime "$engine" \
        "${profile_args[@]}" "${extra[@]}" 2>>"$state_dir/headless.log" &
    say "no display: the app runs headless; its log is $state_dir/headless.log"
fi
app_pid=$!
trap 'kill -TERM $app_pid 2>/dev/null; wait $app_pid 2>/dev/null; if [ -n "${dockerd_pid:-}" ]; then kill $dockerd_pid 2>/dev/null; wait $dockerd_pid 2>/dev/null; fi' EXIT
say "type a command to run it in the sandbox (e.g. 'ls /workspace'), Ctrl-D to quit"
"$backend_bin" --port "$port" --workspace "$workspace"
