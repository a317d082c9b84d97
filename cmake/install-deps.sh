#!/bin/sh
# Installs what Zeus Desktop needs to build (and, with --test, to run its test suite)
# on Debian/Ubuntu. Only missing packages are installed; sudo is used when not root.
# Elsewhere it prints the equivalent commands and stops.
#   install-deps.sh            build + run (Qt 6, QtKeychain, CMake, a container engine)
#   install-deps.sh --test     additionally: Podman, busybox, keyring, Xvfb, linters
set -eu

build_pkgs="build-essential musl-tools cmake ninja-build lld pkg-config qt6-base-dev qt6-websockets-dev qtkeychain-qt6-dev
 libssl-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-svg-dev qt6-qpa-plugins libgl1-mesa-dev"
# mmdebstrap: the sandbox image from the distribution's package archive where no registry answers.
run_pkgs="docker.io busybox-static git mmdebstrap"
# curl and npm: tst_distroimage's fixtures (verdaccio comes from the npm registry: tests/harness/engines.sh).
# tinyproxy: tst_egressupstream's upstream proxy.
test_pkgs="podman runc catatonit busybox-static curl nodejs npm tinyproxy gnome-keyring libsecret-tools dbus dbus-x11 xvfb xauth trayer imagemagick
 clang clang-format clang-tidy libclang-rt-14-dev desktop-file-utils appstream lintian file procps python3"

want="$build_pkgs"
case "${1:-}" in
    --test) want="$want $run_pkgs $test_pkgs" ;;
    --run | "") want="$want $run_pkgs" ;;
    *) echo "usage: install-deps.sh [--run|--test]" >&2; exit 2 ;;
esac

os_id=""; os_like=""
if [ -r /etc/os-release ]; then
    os_id=$(. /etc/os-release && echo "${ID:-}")
    os_like=$(. /etc/os-release && echo "${ID_LIKE:-}")
fi
case " $os_id $os_like " in
    *" debian "* | *" ubuntu "*) ;;
    *)
        cat >&2 <<'ELSEWHERE'
install-deps: this script installs packages on Debian/Ubuntu only. Elsewhere install:
  macOS (Homebrew):   brew install cmake ninja qt qtkeychain && install Docker Desktop,
                      or on macOS 26 Apple's container CLI (https://github.com/apple/container)
  Windows (winget):   winget install Kitware.CMake Ninja-build.Ninja Docker.DockerDesktop
                      and Qt 6 with the Qt Online Installer (add QtKeychain via vcpkg: vcpkg install qtkeychain-qt6)
  Fedora (dnf):       sudo dnf install cmake ninja-build gcc-c++ qt6-qtbase-devel qt6-qtwebsockets-devel
                      qt6-qtsvg-devel qt6-qttools-devel qtkeychain-qt6-devel podman
  Arch (pacman):      sudo pacman -S cmake ninja qt6-base qt6-websockets qt6-svg qt6-tools qtkeychain-qt6 docker
ELSEWHERE
        exit 1 ;;
esac

missing=""
for pkg in $want; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
    fi
done
# Another engine (Docker Desktop, a docker-ce install, podman) already serves: docker.io is not needed.
case " $missing " in
    *" docker.io "*)
        if command -v dockerd >/dev/null 2>&1 || { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }; then
            missing=$(echo "$missing" | sed 's/ docker\.io//')
        fi ;;
esac
# A Node.js from elsewhere (NodeSource, nvm) brings its own npm, which Debian's npm package would conflict with.
if command -v npm >/dev/null 2>&1; then
    missing=$(echo "$missing" | sed 's/ nodejs\b//; s/ npm\b//')
fi
[ -n "$(echo "$missing" | tr -d ' ')" ] || exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; }
    sudo=sudo
fi
echo "install-deps: installing:$missing"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
