#!/bin/sh
# Makes the root file system of the sandbox image from the host distribution's own package archive, for machines
# that reach a Debian/Ubuntu mirror but no container registry. docker/ensure-image.sh imports the result and
# finishes it with docker/Dockerfile (BASE); `zeus-desktop --build-image` runs the same mmdebstrap command itself.
#
# Usage: distro-rootfs.sh OUTPUT.tar PACKAGE...
#   mmdebstrap (preferred: one apt run, any user through --mode=auto) or, as root, debootstrap followed by an apt
#   run in the chroot for what debootstrap cannot order (nodejs, npm).
# Environment:
#   ZEUS_DISTRO_SUITE   the suite (default: the host's VERSION_CODENAME on Debian/Ubuntu, else bookworm)
#   ZEUS_DISTRO_MIRROR  a mirror URL (mmdebstrap also takes a sources.list file; default: the tool's own,
#                       deb.debian.org or archive.ubuntu.com; mmdebstrap adds updates and security to Debian stable)
#   ZEUS_DISTRO_TOOL    mmdebstrap or debootstrap (default: mmdebstrap when installed)
# Exit status: 0 with OUTPUT.tar written, 1 on failure (the archive unreachable, no tool), 2 on a usage error.
set -eu
out=${1:-}
[ -n "$out" ] && [ $# -ge 2 ] || { echo "usage: $0 OUTPUT.tar PACKAGE..." >&2; exit 2; }
shift
packages=$*

os_id=; codename=
if [ -r /etc/os-release ]; then
    os_id=$(. /etc/os-release && echo "${ID:-}")
    codename=$(. /etc/os-release && echo "${UBUNTU_CODENAME:-${VERSION_CODENAME:-}}")
    case "$(. /etc/os-release && echo " ${ID:-} ${ID_LIKE:-} ")" in
        *" ubuntu "*) os_id=ubuntu ;;
        *" debian "*) [ "$os_id" = debian ] || { os_id=debian; codename=; } ;;  # a derivative: its codename is its own
        *) os_id=; codename= ;;
    esac
fi
suite=${ZEUS_DISTRO_SUITE:-${codename:-bookworm}}
mirror=${ZEUS_DISTRO_MIRROR:-}
components=main
[ "$os_id" = ubuntu ] && components=main,universe  # ripgrep, nodejs and npm are in universe
echo "distro-rootfs: $suite ($components) from ${mirror:-the default mirror}: $packages"

# Smaller without manuals, info pages and most docs (copyright files stay).
dpkg_opts="path-exclude=/usr/share/man/* path-exclude=/usr/share/info/* path-exclude=/usr/share/doc/* path-include=/usr/share/doc/*/copyright"

tool=${ZEUS_DISTRO_TOOL:-}
if [ -z "$tool" ]; then
    tool=debootstrap
    command -v mmdebstrap >/dev/null 2>&1 && tool=mmdebstrap
fi
if [ "$tool" = mmdebstrap ]; then
    set -- --variant=apt --mode=auto --components="$components" --include="$(echo "$packages" | tr ' ' ',')"
    for opt in $dpkg_opts; do set -- "$@" --dpkgopt="$opt"; done
    set -- "$@" "$suite" "$out"
    [ -n "$mirror" ] && set -- "$@" "$mirror"
    exec mmdebstrap "$@"
fi

if ! command -v debootstrap >/dev/null 2>&1; then
    echo "distro-rootfs: neither mmdebstrap nor debootstrap is installed (apt install mmdebstrap)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "distro-rootfs: debootstrap needs root; install mmdebstrap to build as a user" >&2
    exit 1
fi
root=$(mktemp -d "${TMPDIR:-/tmp}/zeus-distro-root.XXXXXX")
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT
# debootstrap resolves --include in an order that fails for nodejs and npm: those go in afterwards, with apt.
first=; later=
for pkg in $packages; do
    case "$pkg" in nodejs | npm) later="$later $pkg" ;; *) first="$first,$pkg" ;; esac
done
debootstrap --variant=minbase --components="$components" --include="${first#,}" "$suite" "$root" ${mirror:+"$mirror"}
mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
for opt in $dpkg_opts; do echo "$opt"; done > "$root/etc/dpkg/dpkg.cfg.d/zeus-nodoc"
if [ -n "$later" ]; then
    mount -t proc proc "$root/proc"
    # shellcheck disable=SC2086 # one word per package
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $later
    umount "$root/proc"
fi
chroot "$root" apt-get clean
rm -rf "$root/var/lib/apt/lists/"* "$root/var/log/"*.log "$root/var/log/apt/"*
tar -C "$root" -cf "$out" .
