#!/bin/sh
# Makes sure the sandbox image exists in one container engine, building it when it is missing or out of date.
#
# Usage: docker/ensure-image.sh ENGINE [TAG]
#        docker/ensure-image.sh --revision      (prints the recipe's zeus.image.revision)
#   ENGINE  docker | podman | container (Apple Containerization)
#   TAG     image to ensure (default zeus-desktop-sandbox:latest)
# Environment:
#   ZEUS_DOCKER_DIR    folder with the Dockerfile to build, instead of this one -- the same override the app honours
#   ZEUS_APT_PACKAGES  the image's apt packages instead of the Dockerfile's list (the tests' smaller variant)
#   ZEUS_IMAGE_WAY     auto (default) | dockerfile | distro: skip the other way
#   ZEUS_DISTRO_SUITE, ZEUS_DISTRO_MIRROR  passed to distro-rootfs.sh
#
#   1. TAG present with this recipe's revision (label zeus.image.revision) -> nothing to do, exit 0. A TAG that
#      is not one of ours (another title) is left alone; ours with another revision, or the busybox fallback, is
#      built again. With another recipe (ZEUS_DOCKER_DIR without ZEUS_DISTRO_PACKAGES) a present TAG is enough.
#   2. else `ENGINE build` of docker/Dockerfile (Ubuntu base, needs a registry) -> exit 0 when it succeeds.
#   3. else (the base cannot be pulled), for the sandbox recipe, from the host distribution's package archive:
#      distro-rootfs.sh (mmdebstrap/debootstrap) makes the root file system, `ENGINE import` makes it a base, and
#      the same Dockerfile finishes it with BASE set to that base (zeus.image.source=debootstrap).
#   4. else (not even the archive answers) the OFFLINE TEST IMAGE is built from docker/testimage/ (busybox + bash)
#      and imported AS TAG (zeus.image.source=busybox-fallback), with a loud notice: it is not the real sandbox.
#      Needs busybox (busybox-static) on the host. Not available for `container` (it has no import).
# Exit status: 0 when TAG exists at the end, 1 otherwise, 2 on a usage error.
set -u
here=$(cd "$(dirname "$0")" && pwd)
recipe=${ZEUS_DOCKER_DIR:-$here}
engine=${1:-}
tag=${2:-zeus-desktop-sandbox:latest}
way=${ZEUS_IMAGE_WAY:-auto}
old_id=
case "$engine" in
    docker|podman|container|--revision) ;;
    *) echo "usage: $0 docker|podman|container [TAG]" >&2; exit 2 ;;
esac
case "$way" in
    auto|dockerfile|distro) ;;
    *) echo "ensure-image: ZEUS_IMAGE_WAY is auto, dockerfile or distro" >&2; exit 2 ;;
esac

# The version label comes from the one place the version is set: project(VERSION) in CMakeLists.txt.
version=$(sed -n 's/^[[:space:]]*VERSION[[:space:]]\{1,\}\([0-9][0-9.]*\).*/\1/p' "$here/../CMakeLists.txt" 2>/dev/null | head -n 1)
[ -n "$version" ] || version=dev

# The image compiles the sandbox agent from agent/*.c and agent/*.h in its build context. An installed or
# build-tree docker folder carries them; a checkout keeps them in agent/, outside docker/, so the context is
# assembled in a temporary folder. main.c marks a folder that has them.
agent_dir=$recipe/agent
[ -f "$agent_dir/main.c" ] || agent_dir=$here/../agent
[ -f "$recipe/Dockerfile" ] && [ -f "$agent_dir/main.c" ] \
    || { echo "ensure-image: no Dockerfile and agent sources in $recipe" >&2; exit 1; }
# The agent's sources in the byte order of their names (ImageBuilder::agentSources reads them the same way).
agent_sources() {
    (cd "$agent_dir" && for file in *.c *.h; do [ -f "$file" ] && printf '%s\n' "$file"; done) | LC_ALL=C sort
}

# The default of `ARG NAME="..."` in the Dockerfile.
arg_default() {
    sed -n "s/^ARG $1=\"\\(.*\\)\"[[:space:]]*\$/\\1/p" "$recipe/Dockerfile" | head -n 1
}
apt_packages=${ZEUS_APT_PACKAGES:-$(arg_default ZEUS_APT_PACKAGES)}
distro_packages=$(arg_default ZEUS_DISTRO_PACKAGES)
# The recipe's revision: the Dockerfile, the agent's sources one after the other and the package list
# (ImageBuilder::recipeRevision computes the same). One build per revision and engine.
revision=$( { cat "$recipe/Dockerfile"; agent_sources | while IFS= read -r file; do cat "$agent_dir/$file"; done
              printf 'ZEUS_APT_PACKAGES=%s\n' "$apt_packages"; } | sha256sum | cut -c1-12)
if [ "$engine" = --revision ]; then
    echo "$revision"
    exit 0
fi
command -v "$engine" >/dev/null 2>&1 || { echo "ensure-image: $engine is not installed" >&2; exit 1; }

label() { # $1 = label name: its value on TAG, empty when absent
    "$engine" image inspect --format "{{index .Config.Labels \"$1\"}}" "$tag" 2>/dev/null | sed 's/^<no value>$//'
}
if [ "$engine" != container ] && "$engine" image inspect "$tag" >/dev/null 2>&1; then
    title=$(label org.opencontainers.image.title)
    have=$(label zeus.image.revision)
    source=$(label zeus.image.source)
    if [ "$have" = "$revision" ] && [ "$source" != busybox-fallback ]; then
        echo "ensure-image: $engine already has $tag (revision $revision, built by ${source:-?})"
        exit 0
    fi
    if [ -z "$distro_packages" ]; then
        # Another recipe (ZEUS_DOCKER_DIR) has no revision and no archive way: present is enough.
        echo "ensure-image: $engine already has $tag"
        exit 0
    fi
    # Built again: ours from another revision, the busybox fallback (also an older one, without the source
    # label). Left alone: the test harness's offline image (zeus.testimage) and anything else.
    testimage=$(label zeus.testimage)
    if [ "$source" = busybox-fallback ] || [ "$title" = "Zeus Desktop sandbox" ] \
        || { [ "$title" = zeus-desktop-sandbox-offline-test ] && [ -z "$testimage" ]; }; then
        echo "ensure-image: $tag is from another recipe (revision ${have:-none}, ${source:-no source label}); building revision $revision"
        old_id=$("$engine" image inspect --format '{{.Id}}' "$tag" 2>/dev/null)
    else
        echo "ensure-image: $engine already has $tag, not built by this script (title \"$title\"): left as it is"
        exit 0
    fi
elif [ "$engine" = container ] && "$engine" image inspect "$tag" >/dev/null 2>&1; then
    echo "ensure-image: $engine already has $tag"
    exit 0
fi

# The replaced image, once TAG names the new one: removed (best effort: a container may still use it), so
# rebuilds do not pile up untagged copies.
built() {
    new_id=$("$engine" image inspect --format '{{.Id}}' "$tag" 2>/dev/null)
    if [ -n "$old_id" ] && [ "$old_id" != "$new_id" ]; then
        "$engine" rmi "$old_id" >/dev/null 2>&1 || true
    fi
    exit 0
}

context=$recipe
scratch=$(mktemp -d "${TMPDIR:-/tmp}/zeus-sandbox-context.XXXXXX")
base=
trap 'rm -rf "$scratch"; [ -n "$base" ] && "$engine" rmi "$base" >/dev/null 2>&1' EXIT
if [ "$agent_dir" != "$recipe/agent" ]; then
    mkdir "$scratch/context" "$scratch/context/agent"
    cp "$recipe/Dockerfile" "$scratch/context/"
    [ -f "$recipe/.dockerignore" ] && cp "$recipe/.dockerignore" "$scratch/context/"
    agent_sources | while IFS= read -r file; do cp "$agent_dir/$file" "$scratch/context/agent/"; done
    context=$scratch/context
fi
force_rm=--force-rm
[ "$engine" = container ] && force_rm=

build() { # extra build arguments...
    # shellcheck disable=SC2086 # $force_rm is one flag or nothing
    "$engine" build -t "$tag" -f "$context/Dockerfile" $force_rm --build-arg "ZEUS_VERSION=$version" \
        --build-arg "ZEUS_IMAGE_REVISION=$revision" --build-arg "ZEUS_APT_PACKAGES=$apt_packages" "$@" "$context"
}

if [ "$way" != distro ]; then
    echo "ensure-image: building $tag with $engine from $recipe/Dockerfile (version $version, revision $revision)"
    if build --build-arg ZEUS_IMAGE_SOURCE=dockerfile; then
        echo "ensure-image: built $tag"
        built
    fi
    echo "ensure-image: the build of $recipe/Dockerfile failed (is the Ubuntu base image reachable? offline, it is not)." >&2
fi
if [ "$engine" = container ]; then
    echo "ensure-image: Apple's container has no import command; connect to a registry and run this again." >&2
    exit 1
fi

if [ "$way" != dockerfile ] && [ -n "$distro_packages" ]; then
    echo "ensure-image: building $tag from the distribution's package archive instead"
    started=$(date +%s)
    # shellcheck disable=SC2086 # one word per package
    if "$here/distro-rootfs.sh" "$scratch/rootfs.tar" $apt_packages $distro_packages; then
        base=zeus-desktop-sandbox-base:$revision
        # "debian:bookworm": no spaces, so the one --change holds one label with either engine.
        distribution=$(tar -xOf "$scratch/rootfs.tar" ./etc/os-release ./usr/lib/os-release 2>/dev/null \
            | awk -F= '$1 == "ID" && !id { id = $2 } $1 == "VERSION_CODENAME" && !cn { cn = $2 }
                       END { gsub(/"/, "", id); gsub(/"/, "", cn); if (id != "") print id ":" cn }')
        if "$engine" import \
                --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
                --change "LABEL zeus.image.distribution=${distribution:-unknown}" \
                "$scratch/rootfs.tar" "$base" >/dev/null; then
            rm -f "$scratch/rootfs.tar"
            if build --build-arg "BASE=$base" --build-arg "NODE_IMAGE=$base" --build-arg PNPM_OPTIONAL=1 \
                    --build-arg ZEUS_IMAGE_SOURCE=debootstrap --build-arg "ZEUS_BASE_NAME=${distribution:-unknown}"; then
                echo "ensure-image: built $tag from the distribution's archive (${distribution:-unknown}) in $(( $(date +%s) - started )) s"
                built
            fi
            echo "ensure-image: the build on the distribution's root file system failed" >&2
            exit 1
        fi
        echo "ensure-image: $engine import of the distribution's root file system failed" >&2
        exit 1
    fi
    echo "ensure-image: the distribution's package archive is not reachable either (or mmdebstrap/debootstrap is missing)." >&2
fi

if ! "$here/testimage/make-rootfs.sh" "$scratch/rootfs.tar"; then
    echo "ensure-image: could not make the offline test image either (install busybox-static)" >&2
    exit 1
fi
if ! "$engine" import \
        --change "LABEL org.opencontainers.image.title=zeus-desktop-sandbox-offline-test" \
        --change "LABEL org.opencontainers.image.version=$version" \
        --change "LABEL zeus.image.source=busybox-fallback" \
        --change "WORKDIR /workspace" \
        --change 'CMD ["/bin/sh"]' \
        "$scratch/rootfs.tar" "$tag" >/dev/null; then
    echo "ensure-image: $engine import failed" >&2
    exit 1
fi
cat >&2 <<NOTICE
ensure-image: ****************************************************************************
ensure-image: NOTE: $tag is now the MINIMAL OFFLINE TEST IMAGE (busybox + bash),
ensure-image: not the real sandbox: no Python, Node.js, git or compilers. Commands that
ensure-image: need them will fail. Neither a registry nor the distribution's package
ensure-image: archive was reachable. When one is, run this again: it builds the real image.
ensure-image: ****************************************************************************
NOTICE
built
