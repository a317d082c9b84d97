#!/bin/bash
# Builds the Debian package from a configured build tree, validates it, installs it, runs the installed
# program and removes it again. Needs root (apt-get, dpkg) and a Debian-based system.
#
# Usage: tests/packaging/test-deb.sh BUILD_DIR
#   BUILD_DIR  a configured CMake build tree of this project (e.g. build/dev); the targets the package needs
#              are built here if they are not yet.
# Prints one line per check and ends with "test-deb: N passed, M failed"; exits 0 only when nothing failed.
# Under CI=true a missing validator (desktop-file-validate, appstreamcli, lintian) that cannot be installed
# is a failure; elsewhere it is reported and skipped.
set -u
build_dir=${1:?usage: tests/packaging/test-deb.sh BUILD_DIR}
build_dir=$(cd "$build_dir" && pwd) || exit 2
[ -f "$build_dir/CPackConfig.cmake" ] || { echo "test-deb: $build_dir is not a configured build tree" >&2; exit 2; }

passed=0
failed=0
pass() { echo "PASS  $*"; passed=$((passed + 1)); }
fail() { echo "FAIL  $*"; failed=$((failed + 1)); }
check() { # description command...
    local what=$1; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
skip_or_fail() {
    if [ "${CI:-}" = true ]; then fail "$*"; else echo "SKIP  $*"; fi
}
finish() {
    echo "test-deb: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}

work=$(mktemp -d "${TMPDIR:-/tmp}/zeus-test-deb.XXXXXX")
installed_by_us=false
cleanup() {
    if $installed_by_us && dpkg -s zeus-desktop >/dev/null 2>&1; then
        apt-get purge -y -qq -o DPkg::Lock::Timeout=300 zeus-desktop >/dev/null 2>&1
    fi
    rm -rf "$work"
}
trap cleanup EXIT

apt_install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 "$@" >"$work/apt.log" 2>&1 \
        || { cat "$work/apt.log" >&2; return 1; }
}

if [ "$(id -u)" != 0 ]; then
    echo "test-deb: must run as root (installs and removes a package)" >&2
    fail "running as root"
    finish
fi
if dpkg -s zeus-desktop >/dev/null 2>&1; then
    echo "test-deb: zeus-desktop is already installed; the test would replace and then remove it" >&2
    fail "zeus-desktop not installed before the test"
    finish
fi

# --- tools -------------------------------------------------------------------------------------------------
need=()
command -v desktop-file-validate >/dev/null || need+=(desktop-file-utils)
command -v appstreamcli >/dev/null || need+=(appstream)
command -v lintian >/dev/null || need+=(lintian)
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "test-deb: installing ${need[*]}"
    apt_install "${need[@]}" || echo "test-deb: could not install ${need[*]}" >&2
fi

# --- build ---------------------------------------------------------------------------------------------------
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
echo "test-deb: building zeus-desktop $version in $build_dir"
# Everything: cpack installs every target with an install rule, not only zeus-desktop.
check "build $build_dir" cmake --build "$build_dir"
check "cpack -G DEB" cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out"
deb=$(ls "$work"/out/zeus-desktop_*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
    fail "a .deb was produced"
    finish
fi
cp "$deb" "$work/" && deb="$work/$(basename "$deb")"
echo "test-deb: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

# --- the package's metadata and contents ------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
check "package name zeus-desktop" test "$(field Package)" = zeus-desktop
check "package version is the project version ($version)" test "$(field Version)" = "$version"
check "Recommends: docker.io | podman" test "$(field Recommends)" = "docker.io | podman"
dpkg-deb -x "$deb" "$work/root"
for path in usr/bin/zeus-desktop \
            usr/share/applications/io.zeusdesktop.ZeusDesktop.desktop \
            usr/share/metainfo/io.zeusdesktop.ZeusDesktop.metainfo.xml \
            usr/share/icons/hicolor/scalable/apps/io.zeusdesktop.ZeusDesktop.svg \
            usr/share/icons/hicolor/48x48/apps/io.zeusdesktop.ZeusDesktop.png \
            usr/share/icons/hicolor/256x256/apps/io.zeusdesktop.ZeusDesktop.png \
            usr/share/zeus-desktop/docker/Dockerfile \
            usr/share/zeus-desktop/docker/agent/main.c \
            usr/share/zeus-desktop/docker/agent/protocol.h \
            usr/libexec/zeus-desktop/zeus-sandbox-agent \
            usr/share/zeus-desktop/zeus-desktop-autostart.desktop \
            usr/share/doc/zeus-desktop/copyright; do
    check "contains /$path" test -s "$work/root/$path"
done
qm_ok=true
while IFS= read -r qm; do
    test -s "$work/root/usr/share/zeus-desktop/translations/$(basename "$qm")" || { echo "test-deb: $qm missing"; qm_ok=false; }
done < <(find "$build_dir/resources" -name '*.qm' 2>/dev/null)
check "every translation the build produced is installed" $qm_ok
echo "test-deb: programs in the package: $(ls "$work/root/usr/bin" | tr '\n' ' ')"
check "the packaged Dockerfile is the project's" cmp -s "$work/root/usr/share/zeus-desktop/docker/Dockerfile" \
    "$(dirname "$0")/../../docker/Dockerfile"
# The image's build stage compiles every agent/*.c it finds: exactly the project's agent sources, nothing else.
same_agent_sources() {
    local packaged="$work/root/usr/share/zeus-desktop/docker/agent" project
    project="$(dirname "$0")/../../agent"
    diff <(cd "$packaged" && ls) <(cd "$project" && ls -- *.c *.h) >/dev/null || return 1
    local file
    for file in "$project"/*.c "$project"/*.h; do
        cmp -s "$file" "$packaged/$(basename "$file")" || return 1
    done
}
check "the packaged agent sources (the image's build stage) are the project's" same_agent_sources
# The sandbox agent runs inside any image (busybox included): it must not need a dynamic loader or libraries.
agent="$work/root/usr/libexec/zeus-desktop/zeus-sandbox-agent"
check "the sandbox agent is executable" test -x "$agent"
agent_file=$(file -b "$agent" 2>/dev/null)
echo "  zeus-sandbox-agent: $agent_file"
check "the sandbox agent is statically linked" grep -q 'statically linked' <<<"$agent_file"
check "the sandbox agent has no program interpreter" bash -c "! readelf -l \"$agent\" | grep -q 'program interpreter'"
out=$(timeout 10 "$agent" --version 2>&1)
check "the sandbox agent reports the project version ($out)" test "$out" = "zeus-sandbox-agent $version"

# Depends must name the package of every library the binary links (computed by dpkg-shlibdeps, not by hand).
depends=$(field Depends)
echo "test-deb: Depends: $depends"
deps_ok=true
for lib in $(readelf -d "$work/root/usr/bin/zeus-desktop" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64|64bit/ {print $NF; exit}')
    [ -n "$path" ] || path=$(ldconfig -p | awk -v l="$lib" '$1 == l {print $NF; exit}')
    owner=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
    [ -n "$owner" ] || owner=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
    if [ -z "$owner" ]; then
        echo "test-deb: no package owns $lib ($path)"; deps_ok=false; continue
    fi
    if ! printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -qx "$owner"; then
        echo "test-deb: $lib comes from $owner, which Depends does not name"; deps_ok=false
    fi
done
check "Depends names the package of every linked library" $deps_ok
check "Depends includes the Qt 6 runtime" grep -q 'libqt6core6' <<<"$depends"
if readelf -d "$work/root/usr/bin/zeus-desktop" | grep -q 'libQt6Widgets'; then
    # The tray and app icons are SVG: drawn by a plugin that no NEEDED entry shows.
    check "Depends includes the SVG icon engine (libqt6svg6)" grep -q 'libqt6svg6' <<<"$depends"
fi

# --- validators --------------------------------------------------------------------------------------------
if command -v desktop-file-validate >/dev/null; then
    for f in "$work/root/usr/share/applications/io.zeusdesktop.ZeusDesktop.desktop" \
             "$work/root/usr/share/zeus-desktop/zeus-desktop-autostart.desktop"; do
        out=$(desktop-file-validate "$f" 2>&1); rc=$?
        [ -n "$out" ] && echo "$out"
        check "desktop-file-validate $(basename "$f")" test $rc -eq 0
    done
    check "menu entry in Development and Utility" grep -qx 'Categories=Development;Utility;' \
        "$work/root/usr/share/applications/io.zeusdesktop.ZeusDesktop.desktop"
else
    skip_or_fail "desktop-file-validate is not available"
fi
if command -v appstreamcli >/dev/null; then
    out=$(appstreamcli validate --no-net --no-color "$work/root/usr/share/metainfo/io.zeusdesktop.ZeusDesktop.metainfo.xml" 2>&1); rc=$?
    echo "$out" | sed 's/^/  appstream: /'
    check "appstreamcli validate" test $rc -eq 0
else
    skip_or_fail "appstreamcli is not available"
fi
if command -v lintian >/dev/null; then
    lintian --tag-display-limit 0 "$deb" >"$work/lintian.log" 2>&1
    sed 's/^/  lintian: /' "$work/lintian.log"
    check "lintian reports no errors" test "$(grep -c '^E:' "$work/lintian.log")" -eq 0
else
    skip_or_fail "lintian is not available"
fi

# --- install, run, remove ----------------------------------------------------------------------------------
if apt_install --no-install-recommends "$deb"; then
    installed_by_us=true
    pass "apt-get install ./$(basename "$deb")"
else
    fail "apt-get install ./$(basename "$deb")"
    finish
fi
check "dpkg reports zeus-desktop $version installed" \
    test "$(dpkg-query -W -f '${Status} ${Version}' zeus-desktop)" = "install ok installed $version"
check "/usr/bin/zeus-desktop is executable" test -x /usr/bin/zeus-desktop
check "every library of the installed binary resolves" bash -c '! ldd /usr/bin/zeus-desktop | grep -q "not found"'

out=$(env -u DISPLAY QT_QPA_PLATFORM=offscreen timeout 30 /usr/bin/zeus-desktop --version 2>&1); rc=$?
echo "  zeus-desktop --version: $out"
check "zeus-desktop --version exits 0" test $rc -eq 0
check "zeus-desktop --version prints $version" grep -q "$version" <<<"$out"

env -u DISPLAY QT_QPA_PLATFORM=offscreen timeout 120 /usr/bin/zeus-desktop --diagnose --json \
    >"$work/diagnose.json" 2>"$work/diagnose.err"; rc=$?
if [ $rc -eq 2 ] && grep -q "not built yet" "$work/diagnose.err"; then
    echo "SKIP  zeus-desktop --diagnose --json: the mode is not built yet"
else
    check "zeus-desktop --diagnose --json exits 0 or 1 (got $rc)" test $rc -eq 0 -o $rc -eq 1
    if [ -s "$work/diagnose.json" ]; then
        check "zeus-desktop --diagnose --json prints valid JSON" python3 -m json.tool "$work/diagnose.json" >/dev/null
    else
        fail "zeus-desktop --diagnose --json printed nothing"; sed 's/^/  /' "$work/diagnose.err"
    fi
fi

# The menu entry's command starts the installed program (offscreen: no display here). It is a tray app, so it
# normally keeps running until stopped; a crash or a missing library or plugin is what this catches.
exec_line=$(sed -n 's/^Exec=//p' /usr/share/applications/io.zeusdesktop.ZeusDesktop.desktop)
check "the menu entry's Exec ($exec_line) is on PATH" bash -c "command -v \"${exec_line%% *}\" >/dev/null"
# shellcheck disable=SC2086 # Exec= may carry arguments, split as the menu would
env -u DISPLAY QT_QPA_PLATFORM=offscreen HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" \
    timeout -s TERM 5 $exec_line >"$work/gui.log" 2>&1; rc=$?
echo "  started from the menu entry: exit $rc (124: still running after 5 s)"
[ $rc -ge 125 ] && [ $rc -ne 124 ] && sed 's/^/  /' "$work/gui.log"
check "the app starts from the menu entry without crashing" test $rc -lt 125 -o $rc -eq 124

if apt-get purge -y -qq -o DPkg::Lock::Timeout=300 zeus-desktop >"$work/purge.log" 2>&1; then
    installed_by_us=false
    pass "apt-get purge zeus-desktop"
else
    cat "$work/purge.log"; fail "apt-get purge zeus-desktop"
fi
check "/usr/bin/zeus-desktop is gone" test ! -e /usr/bin/zeus-desktop
check "/usr/share/zeus-desktop is gone" test ! -e /usr/share/zeus-desktop
check "the menu entry is gone" test ! -e /usr/share/applications/io.zeusdesktop.ZeusDesktop.desktop
check "dpkg no longer knows zeus-desktop" bash -c '! dpkg -s zeus-desktop >/dev/null 2>&1'
finish
