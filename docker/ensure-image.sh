#!/bin/sh
# Makes sure the sandbox image exists in one container engine, building it when it is missing.
#
# Usage: docker/ensure-image.sh ENGINE [TAG]
#   ENGINE  docker | podman | container (Apple Containerization)
#   TAG     image to ensure (default zeus-desktop-sandbox:latest)
#   ZEUS_DOCKER_DIR  (environment) folder with the Dockerfile to build, instead of this one -- the same override
#                    the app honours
#
#   1. TAG already present          -> nothing to do, exit 0.
#   2. else `ENGINE build` of docker/Dockerfile (Ubuntu base, needs a registry) -> exit 0 when it succeeds.
#   3. else (offline: the base cannot be pulled) the OFFLINE TEST IMAGE is built from docker/testimage/
#      (busybox + bash, no registry) and imported AS TAG, with a loud notice: it is enough to try the app and
#      run the tests, it is not the real sandbox (no Python, Node.js, git or compilers).
#      Needs busybox (busybox-static) on the host. Not available for `container` (it has no import).
# Exit status: 0 when TAG exists at the end, 1 otherwise, 2 on a usage error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
recipe=${ZEUS_DOCKER_DIR:-$here}
engine=${1:-}
tag=${2:-zeus-desktop-sandbox:latest}
case "$engine" in
    docker|podman|container) ;;
    *) echo "usage: $0 docker|podman|container [TAG]" >&2; exit 2 ;;
esac
command -v "$engine" >/dev/null 2>&1 || { echo "ensure-image: $engine is not installed" >&2; exit 1; }

if "$engine" image inspect "$tag" >/dev/null 2>&1; then
    echo "ensure-image: $engine already has $tag"
    exit 0
fi

# The version label comes from the one place the version is set: project(VERSION) in CMakeLists.txt.
version=$(sed -n 's/^[[:space:]]*VERSION[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' "$here/../CMakeLists.txt" 2>/dev/null | head -n 1)
[ -n "$version" ] || version=dev

# The image compiles the sandbox agent from agent/zeus-sandbox-agent.c in its build context. An installed or
# build-tree docker folder carries it; a checkout keeps it in agent/, outside docker/, so the context is
# assembled in a temporary folder.
context=$recipe
scratch=
rootfs=
trap 'rm -rf "$scratch" "$rootfs"' EXIT
if [ ! -f "$recipe/agent/zeus-sandbox-agent.c" ] && [ -f "$here/../agent/zeus-sandbox-agent.c" ]; then
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/zeus-sandbox-context.XXXXXX")
    mkdir "$scratch/agent"
    cp "$recipe/Dockerfile" "$scratch/"
    [ -f "$recipe/.dockerignore" ] && cp "$recipe/.dockerignore" "$scratch/"
    cp "$here/../agent/zeus-sandbox-agent.c" "$scratch/agent/"
    context=$scratch
fi

echo "ensure-image: building $tag with $engine from $recipe/Dockerfile (version $version)"
force_rm=--force-rm
[ "$engine" = container ] && force_rm=
# shellcheck disable=SC2086 # $force_rm is one flag or nothing
if "$engine" build -t "$tag" -f "$context/Dockerfile" $force_rm --build-arg "ZEUS_VERSION=$version" "$context"; then
    echo "ensure-image: built $tag"
    exit 0
fi

echo "ensure-image: the build of $recipe/Dockerfile failed (is the Ubuntu base image reachable? offline, it is not)." >&2
if [ "$engine" = container ]; then
    echo "ensure-image: Apple's container has no import command; connect to a registry and run this again." >&2
    exit 1
fi
rootfs=$(mktemp "${TMPDIR:-/tmp}/zeus-sandbox-rootfs.XXXXXX")
if ! "$here/testimage/make-rootfs.sh" "$rootfs"; then
    echo "ensure-image: could not make the offline test image either (install busybox-static)" >&2
    exit 1
fi
if ! "$engine" import \
        --change "LABEL org.opencontainers.image.title=zeus-desktop-sandbox-offline-test" \
        --change "LABEL org.opencontainers.image.version=$version" \
        --change "WORKDIR /workspace" \
        --change 'CMD ["/bin/sh"]' \
        "$rootfs" "$tag" >/dev/null; then
    echo "ensure-image: $engine import failed" >&2
    exit 1
fi
cat >&2 <<NOTICE
ensure-image: ****************************************************************************
ensure-image: NOTE: $tag is now the MINIMAL OFFLINE TEST IMAGE (busybox + bash),
ensure-image: not the real sandbox: no Python, Node.js, git or compilers. Commands that
ensure-image: need them will fail. Build the real image when a registry is reachable:
ensure-image:   $engine rmi $tag && $0 $engine $tag
ensure-image: ****************************************************************************
NOTICE
exit 0
