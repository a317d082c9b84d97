#!/bin/bash
# Screenshots of the widgets, for looking at them (not a test).
#   tests/ui/screenshots.sh [BUILD_DIR] [OUT_DIR]
# Runs the UI tests that have a screenshot() case with ZEUS_SCREENSHOT_DIR set (offscreen,
# QWidget::grab()). With Xvfb, trayer and ImageMagick's import available it also starts
# the app on a private X display with a tray and a throw-away home folder, and captures the
# screen, in English and in Chinese.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
build_dir=${1:-$source_dir/build/ci}
out_dir=${2:-$build_dir/screenshots}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)

for test in tst_sessionlogview tst_settingsdialog tst_workspacepanel tst_runtimepanel tst_sessionspanel \
    tst_dashboardwindow; do
    binary="$build_dir/tests/$test"
    if [ ! -x "$binary" ]; then
        echo "screenshots: $binary not built, skipped" >&2
        continue
    fi
    ZEUS_SCREENSHOT_DIR="$out_dir" QT_QPA_PLATFORM=offscreen LANG=C.UTF-8 "$binary" >/dev/null
done

app="$build_dir/app/zeus-desktop"
if [ -x "$app" ] && command -v Xvfb >/dev/null && command -v trayer >/dev/null && command -v import >/dev/null; then
    work=$(mktemp -d)
    pids=()
    cleanup() {
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        rm -rf "$work"
    }
    trap cleanup EXIT
    display=:$((90 + RANDOM % 100))
    Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 &
    pids+=($!)
    sleep 1
    DISPLAY=$display trayer --edge top --align right --widthtype request --height 32 >/dev/null 2>&1 &
    pids+=($!)
    sleep 1
    for lang in C.UTF-8 zh_CN.UTF-8; do
        mkdir -p "$work/$lang/runtime" && chmod 700 "$work/$lang/runtime"
        HOME="$work/$lang" XDG_CONFIG_HOME="$work/$lang/.config" XDG_RUNTIME_DIR="$work/$lang/runtime" \
            DISPLAY=$display LANG=$lang LANGUAGE=${lang%%.*} "$app" >"$work/$lang.log" 2>&1 &
        app_pid=$!
        sleep 6
        DISPLAY=$display import -window root "$out_dir/app-${lang%%.*}.png"
        kill "$app_pid" 2>/dev/null || true
        wait "$app_pid" 2>/dev/null || true
    done
fi
echo "screenshots in $out_dir:"
ls "$out_dir"
