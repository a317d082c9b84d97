#!/bin/bash
# The whole test suite, from a fresh Debian/Ubuntu machine: installs what is missing,
# checks formatting, builds both configurations (Widgets and headless, warnings as
# errors), brings up real container engines and a keyring, and runs every test.
# Under CI=true a missing engine, keyring or display fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)
step() { printf '\n=== %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }

step "dependencies"
cmake/install-deps.sh --test

step "formatting"
tests/harness/check-format.sh

step "build: Widgets configuration (preset ci)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j"$jobs"

step "build: headless configuration (preset ci-headless, no Widgets)"
cmake --preset ci-headless >/dev/null
cmake --build --preset ci-headless -j"$jobs"

step "clang-tidy (every enabled check is an error)"
tests/harness/run-clang-tidy.sh build/ci

step "container engines and test image"
source tests/harness/engines.sh
trap stop_engines EXIT
ensure_docker && ensure_test_image docker || echo "harness: WARNING: Docker engine tests will skip (not under CI)"
ensure_remote_docker || echo "harness: WARNING: the remote-engine tests will skip (not under CI)"
ensure_podman && ensure_test_image podman || echo "harness: WARNING: Podman engine tests will skip (not under CI)"
ensure_distro_image || echo "harness: WARNING: tst_distroimage builds its image itself or skips (not under CI)"
ensure_mcp_sdk || echo "harness: WARNING: the MCP SDK client test will skip (not under CI)"
ensure_mcp_conformance || echo "harness: WARNING: the MCP conformance test will skip (not under CI)"

status=0
failed_steps=()
fail() { status=1; failed_steps+=("$1"); }
# The end of the log is what is read first: name what failed there, with ctest's list.
ctest_failures() {
    local log="$1/Testing/Temporary/LastTestsFailed.log"
    [ -s "$log" ] && sed 's/^[0-9]*:/    /' "$log"
    return 0
}
step "tests: Widgets build (all labels), on a private keyring session"
with_keyring ctest --preset ci -j1 --timeout 600 || fail "ctest (Widgets build)"

step "tests: headless build (unit, e2e)"
with_keyring ctest --preset ci-headless -L 'unit|e2e' -j1 --timeout 600 || fail "ctest (headless build)"

step "hostile suite: each attack through the real binaries, on Docker and Podman (tests/hostile/)"
tests/hostile/run.sh build/ci || fail "hostile suite"

for extra in tests/packaging/test-deb.sh tests/fuzz/run-fuzz.sh tests/ui/screenshots.sh; do
    case "$extra" in
        tests/packaging/test-deb.sh) args=("$source_dir/build/ci") ;;
        # 10 s for each of the ten targets (a smoke run over the kept corpora) keeps the whole suite inside CI's
        # 90 minutes; fuzz longer by hand (tests/fuzz/run-fuzz.sh build/fuzz 300).
        tests/fuzz/run-fuzz.sh) args=("$source_dir/build/fuzz" 10) ;;
        *) continue ;;
    esac
    if [ -x "$extra" ]; then
        step "$extra"
        "$extra" "${args[@]}" || fail "$extra"
    fi
done

if [ "$status" = 0 ]; then
    step "ALL TESTS PASSED"
else
    # What the failed tests said first, so the last lines of the log are the list of what failed.
    for failed in "${failed_steps[@]}"; do
        case "$failed" in
            "ctest (Widgets build)") tests/harness/failed-test-output.py build/ci 40 ;;
            "ctest (headless build)") tests/harness/failed-test-output.py build/ci-headless 40 ;;
        esac
    done
    step "SOME TESTS FAILED"
    for failed in "${failed_steps[@]}"; do
        echo "  failed: $failed"
        case "$failed" in
            "ctest (Widgets build)") ctest_failures build/ci ;;
            "ctest (headless build)") ctest_failures build/ci-headless ;;
        esac
    done
fi
exit "$status"
