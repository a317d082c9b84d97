#!/bin/bash
# Runs bench_gui on a private X display with a tray (Xvfb + trayer), as docs/benchmarks-gui.md describes.
#   tests/benchmarks/gui/run-bench-gui.sh BUILD_DIR [bench_gui arguments]
# Needs Xvfb and trayer, a Docker engine (DOCKER_HOST) and the offline test image (ZEUS_TEST_IMAGE).
set -euo pipefail
build_dir=${1:?usage: run-bench-gui.sh BUILD_DIR [--iterations N] [--mib N]}
shift
bench="$build_dir/tests/benchmarks/gui/bench_gui"
[ -x "$bench" ] || { echo "build the bench_gui target in $build_dir first" >&2; exit 1; }
n=90
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
Xvfb ":$n" -screen 0 1280x800x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
trap 'kill $tray $xvfb 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
DISPLAY=":$n" trayer --edge top --align right --widthtype request --height 32 >/dev/null 2>&1 &
tray=$!
sleep 1
DISPLAY=":$n" "$bench" "$@"
