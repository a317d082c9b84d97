#!/bin/sh
# on-distro-image.sh PROGRAM ARGS...: runs a benchmark against the sandbox image built from the distribution's
# package archive (docs/sandbox-image.md), the image a new user's run command gives them, so its figures are
# printed for that image too and not only for the offline test image. @ENGINE@ and @IMAGE@ in ARGS become the
# engine and image the harness built it with (ZEUS_TEST_DISTRO_ENGINE, ZEUS_TEST_DISTRO_IMAGE).
#
# Skipped (exit 77) only when the image is missing because the Debian archive cannot be reached, as
# tst_distroimage is; under CI=true a missing image with the archive reachable is a failure.
set -eu
engine=${ZEUS_TEST_DISTRO_ENGINE:-podman}
image=${ZEUS_TEST_DISTRO_IMAGE:-zeus-desktop-sandbox:distro-test}
if ! "$engine" image inspect "$image" >/dev/null 2>&1; then
    if timeout 30 curl -sfI http://deb.debian.org/debian/dists/bookworm/Release >/dev/null 2>&1 \
        && [ "${CI:-}" = "true" ]; then
        echo "on-distro-image: $image is not in $engine's store although the archive answers (tests/run.sh builds it)" >&2
        exit 1
    fi
    echo "on-distro-image: SKIPPED: $image is not in $engine's store and the Debian archive is unreachable" >&2
    exit 77
fi
program=$1
shift
for argument in "$@"; do
    case $argument in
        @ENGINE@) argument=$engine ;;
        @IMAGE@) argument=$image ;;
    esac
    set -- "$@" "$argument"
    shift
done
exec "$program" "$@"
