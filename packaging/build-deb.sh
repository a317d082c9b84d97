#!/bin/sh
# One command from a source checkout to a Debian package:
#   packaging/build-deb.sh [--install-deps] [BUILD_DIR]
# Configures a release build without tests in BUILD_DIR (default build/deb), builds it and runs CPack; the
# .deb lands in BUILD_DIR. --install-deps first installs the build dependencies with apt-get (needs root or
# sudo). Install the result with: sudo apt install ./BUILD_DIR/zeus-desktop_<version>_<arch>.deb
set -eu
source_dir=$(cd "$(dirname "$0")/.." && pwd)
install_deps=false
if [ "${1:-}" = --install-deps ]; then
    install_deps=true
    shift
fi
build_dir=${1:-$source_dir/build/deb}

if $install_deps; then
    sudo_cmd=
    [ "$(id -u)" = 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update
    $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        build-essential musl-tools cmake ninja-build dpkg-dev file \
        qt6-base-dev qt6-websockets-dev qtkeychain-qt6-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools \
        qt6-l10n-tools libgl1-mesa-dev
fi

cmake -S "$source_dir" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZEUS_BUILD_TESTS=OFF \
    -DZEUS_BUILD_BENCHMARKS=OFF
cmake --build "$build_dir"
cd "$build_dir"
cpack -G DEB
ls -l "$build_dir"/zeus-desktop_*.deb
