#!/bin/bash
# The hostile suite (tests/hostile/README.md): every script, against each real engine, through the real binaries
# of BUILD_DIR. Called by tests/run.sh after the engines are up. Under CI=true a skip is a failure.
#   tests/hostile/run.sh BUILD_DIR [SCRIPT…]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
shift
export ZEUS_APP="$build/app/zeus-desktop" ZEUS_TESTBACKEND="$build/app/testbackend/zeus-testbackend"
export ZEUS_TEST_IMAGE=${ZEUS_TEST_IMAGE:-zeus-desktop-sandbox:test}
[ -x "$ZEUS_APP" ] && [ -x "$ZEUS_TESTBACKEND" ] || { echo "hostile: build $build first" >&2; exit 1; }
scripts=("$@")
[ ${#scripts[@]} -gt 0 ] || mapfile -t scripts < <(ls "$here"/*.sh | grep -v -e '/run.sh$' -e '/lib.sh$')
status=0
for engine in docker podman; do
    if ! timeout 20 "$engine" info >/dev/null 2>&1; then
        echo "hostile: $engine does not answer" >&2
        [ "${CI:-}" = true ] && status=1
        continue
    fi
    for script in "${scripts[@]}"; do
        name=$(basename "$script" .sh)
        echo "--- $name on $engine ($(sed -n 's/^# Defends \(.*\)$/\1/p' "$script" | head -n 1))"
        ZEUS_ENGINE=$engine timeout 600 bash "$script"
        rc=$?
        case $rc in
            0) echo "    PASS $name ($engine)" ;;
            77) echo "    SKIP $name ($engine)"; [ "${CI:-}" = true ] && status=1 ;;
            *) echo "    FAIL $name ($engine): exit $rc"; status=1 ;;
        esac
    done
done
exit "$status"
