#!/bin/bash
# Screenshots, for looking at the UI (not a test).
#   tests/ui/screenshots.sh [--app-only] [BUILD_DIR] [OUT_DIR]
#
# 1. Unless --app-only: the UI tests that have a screenshot() case, with ZEUS_SCREENSHOT_DIR
#    set (offscreen, QWidget::grab()), into OUT_DIR/widgets.
# 2. The real tray app on a private X display (Xvfb) with a tray (trayer), against the local
#    test backend (zeus-testbackend) and a real container engine, into OUT_DIR:
#      tray-menu.png          the tray menu, Recent Folders open
#      dashboard-overview.png the Overview page: folder, runtime, connection
#      dashboard-session.png  the Sessions page with a live session and its log
#      diagnostics.png        the Diagnostics page
#      settings.png           Settings, Sandbox tab
#      no-runtime.png         Overview with the install guidance (PATH without any engine)
#      dashboard-zh_CN.png    the Overview page in Chinese
#    docs/screenshots/ holds the committed set:
#      tests/ui/screenshots.sh --app-only build/ci docs/screenshots
#
# Needs: Xvfb, trayer, xdotool, ImageMagick (import, convert), a Docker engine that answers
# (DOCKER_HOST is honoured) with the sandbox image ($ZEUS_SCREENSHOT_IMAGE, default the
# offline test image zeus-desktop-sandbox:test), and a CJK font (fonts-noto-cjk) for the
# Chinese shot. xsetroot (x11-xserver-utils) gives the desktop a colour. Only the engine's
# `none` network is used (--profile hardened).
set -euo pipefail
app_only=0
if [ "${1:-}" = "--app-only" ]; then
    app_only=1
    shift
fi
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$source_dir/build/ci}
out_dir=${2:-$build_dir/screenshots}
image=${ZEUS_SCREENSHOT_IMAGE:-zeus-desktop-sandbox:test}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
say() { printf 'screenshots: %s\n' "$*" >&2; }

if [ "$app_only" = 0 ]; then
    mkdir -p "$out_dir/widgets"
    for test in tst_sessionlogview tst_settingsdialog tst_workspacepanel tst_runtimepanel tst_sessionspanel \
        tst_dashboardwindow tst_secretapprovaldialog tst_networkpanel tst_approvaldialog tst_changesview; do
        binary="$build_dir/tests/$test"
        if [ ! -x "$binary" ]; then
            say "$binary not built, skipped"
            continue
        fi
        ZEUS_SCREENSHOT_DIR="$out_dir/widgets" QT_QPA_PLATFORM=offscreen LANG=C.UTF-8 "$binary" >/dev/null
    done
fi

app="$build_dir/app/zeus-desktop"
backend="$build_dir/app/testbackend/zeus-testbackend"
for tool in Xvfb trayer xdotool import convert; do
    if ! command -v "$tool" >/dev/null; then
        say "$tool is missing: no screenshots of the app"
        exit 0
    fi
done
if [ ! -x "$app" ] || [ ! -x "$backend" ]; then
    say "build zeus-desktop and zeus-testbackend in $build_dir first"
    exit 1
fi
if ! docker info >/dev/null 2>&1; then
    say "no Docker engine answers: the live-session shots need one"
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/zeus.XXXXXX")
pids=()
app_pids=()
cleanup() {
    for pid in "${app_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${app_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# A free display number.
n=90
while [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
display=":$n"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp -noreset >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
x() { DISPLAY=$display "$@"; }
if command -v xsetroot >/dev/null; then
    x xsetroot -solid '#3b4a5a'
fi
x trayer --edge top --align right --widthtype request --height 32 --transparent false --tint 0xdddddd \
    >"$work/trayer.log" 2>&1 &
pids+=($!)
sleep 1

wait_for() {  # file pattern seconds
    local i
    for i in $(seq 1 $(($3 * 5))); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.2
    done
    say "timed out waiting for '$2' in $1"
    tail -20 "$1" >&2 || true
    return 1
}

# One app run: its own home (so its own settings and single-instance lock), its own test
# backend fed through a FIFO. Sets run_env, run_dir, run_fifo, run_log, run_backend_log.
start_run() {  # name lang extra-args...
    local name=$1 lang=$2
    shift 2
    run_dir="$work/$name"
    local home="$run_dir/home"
    local workspace="$work/alex/ZeusWorkspace"  # shared by the runs, outside their homes
    mkdir -p "$home/runtime" "$workspace/src"
    chmod 700 "$home/runtime"
    printf '# Demo project\n' >"$workspace/README.md"
    printf 'print("hello from the sandbox")\n' >"$workspace/src/main.py"
    printf 'build:\n\t@echo building\n' >"$workspace/Makefile"
    run_env=(env -u ZEUS_DESKTOP_TOKEN -u DBUS_SESSION_BUS_ADDRESS -u QT_QPA_PLATFORM HOME="$home"
        XDG_CONFIG_HOME="$home/.config" XDG_RUNTIME_DIR="$home/runtime" DISPLAY="$display" LANG="$lang"
        LC_ALL="$lang" LANGUAGE="${lang%%.*}" QT_LOGGING_RULES='zeus.*.info=true')
    if [ -n "${run_path:-}" ]; then
        run_env+=(PATH="$run_path")
    fi
    local port=$((20000 + RANDOM % 20000))
    run_fifo="$run_dir/commands"
    mkfifo "$run_fifo"
    sleep infinity >"$run_fifo" &  # holds the FIFO open between commands
    pids+=($!)
    run_backend_log="$run_dir/backend.log"
    "$backend" --port "$port" --workspace "$workspace" --token-file "$run_dir/backend.token" \
        <"$run_fifo" >"$run_backend_log" 2>&1 &
    pids+=($!)
    wait_for "$run_backend_log" "listening" 10
    run_log="$run_dir/app.log"
    # The backend's token of this run, as app/run.sh hands it over.
    "${run_env[@]}" ZEUS_DESKTOP_TOKEN="$(cat "$run_dir/backend.token")" "$app" --backend "ws://127.0.0.1:$port" --workspace "$workspace" "$@" \
        >"$run_log" 2>&1 &
    run_pid=$!
    app_pids+=("$run_pid")
    wait_for "$run_log" "tray ready" 20
}

stop_run() {
    kill -TERM "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
}

send() {  # call-number command: the backend numbers its calls c1, c2, ...
    printf '%s\n' "$2" >"$run_fifo"
    wait_for "$run_backend_log" "result c$1 " 60
}

dashboard() {  # raise it (a second launch asks the first) and show page 1..4
    "${run_env[@]}" "$app" >/dev/null 2>&1
    local id
    for _ in $(seq 1 25); do
        id=$(x xdotool search --onlyvisible --name '^Zeus Desktop$' 2>/dev/null | tail -1 || true)
        [ -n "$id" ] && break
        sleep 0.2
    done
    x xdotool windowfocus --sync "$id" key "ctrl+$1"
    sleep 1
    dashboard_id=$id
}

tray_click() {  # button; the icon is the rightmost in the tray at the top right
    x xdotool mousemove 1268 16 click "$1"
    sleep 1
}

# English, Docker, a live session.
start_run en C.UTF-8 --runtime docker --image "$image" --profile hardened
wait_for "$run_log" "hello sent" 30
send 1 'ls -la /workspace'
send 2 'for i in 1 2 3; do echo "step $i: building"; sleep 0.2; done; echo "warning: cache is cold" >&2; exit 0'
send 3 'cat /workspace/src/main.py; id -un 2>/dev/null || id -u; ls /root 2>&1 | head -1; exit 2'
tray_click 3
x xdotool mousemove 1130 94  # Recent Folders
sleep 1
x import -window root "$work/menu.png"
convert "$work/menu.png" -crop 640x216+640+0 +repage "$out_dir/tray-menu.png"
x xdotool mousemove 1145 50 click 1  # Open Dashboard (closes the menu)
sleep 1
dashboard 1
x import -window "$dashboard_id" "$out_dir/dashboard-overview.png"
# A command still streaming while the Sessions page is captured.
printf '%s\n' 'for i in $(seq 1 12); do echo "test $i/12 passed ($(date +%T))"; sleep 0.5; done' >"$run_fifo"
wait_for "$run_backend_log" "test 2/12" 20
dashboard 2
sleep 2  # stats are polled while the page is visible
x import -window "$dashboard_id" "$out_dir/dashboard-session.png"
dashboard 4
x import -window "$dashboard_id" "$out_dir/diagnostics.png"
x xdotool windowfocus --sync "$dashboard_id" key ctrl+comma
sleep 1
settings_id=$(x xdotool search --onlyvisible --name '^Zeus Desktop Settings$' | tail -1)
x xdotool windowfocus --sync "$settings_id" key ctrl+Tab
sleep 0.5
x import -window "$settings_id" "$out_dir/settings.png"
x xdotool key Escape
stop_run

# No runtime: a PATH without docker, podman or container, as on a fresh computer.
mkdir -p "$work/empty-bin"
run_path="$work/empty-bin" start_run none C.UTF-8
wait_for "$run_log" "no usable\\|not_installed" 20
sleep 1
dashboard 1
x import -window "$dashboard_id" "$out_dir/no-runtime.png"
stop_run

# Chinese.
start_run zh zh_CN.UTF-8 --runtime docker --image "$image" --profile hardened
wait_for "$run_log" "hello sent" 30
send 1 'ls /workspace'
dashboard 1
x import -window "$dashboard_id" "$out_dir/dashboard-zh_CN.png"
stop_run

for png in "$out_dir"/*.png; do
    # Fewer colours where that loses nothing visible; keeps each file small.
    convert "$png" -strip -define png:compression-level=9 "$png"
done
say "screenshots in $out_dir:"
ls -la "$out_dir" >&2
