#!/bin/sh
# Builds the libFuzzer targets with clang + ASan/UBSan and runs each for a bounded time.
#   tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS]      (default 60 s per target)
# Exit status 0: no finding. A finding leaves its input in BUILD_DIR/fuzz-artifacts/ and fails.
# Each target's own output goes to BUILD_DIR/fuzz-logs/NAME.log; a line per target is printed, and the end of the
# log of a target that found something.
set -eu

build=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$fuzz_dir/../.." && pwd)

CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$source_dir" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZEUS_FUZZ=ON -DZEUS_BUILD_GUI=OFF -DZEUS_BUILD_BENCHMARKS=OFF >/dev/null
# name, longest input, dictionary (or -): one line per target.
targets="protocol 16384 protocol.dict
agentframe 70000 -
commandanalyser 8192 -
redactor 4096 -
workspaceapproval 256 -
textdiff 4096 -
proxyrequest 20000 -
mcpmessage 16384 -
mcphttprequest 20000 -
secretsubstitution 20000 -"
cmake --build "$build" --target $(echo "$targets" | awk '{printf "fuzz_%s ", $1}')

mkdir -p "$build/fuzz-artifacts" "$build/fuzz-logs"
# halt on the first UBSan report, as for ASan; leaks count as findings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
echo "$targets" | {
    while read -r name max_len dict; do
        mkdir -p "$build/fuzz-corpus/$name"
        set -- -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$build/fuzz-artifacts/"
        [ "$dict" = - ] || set -- "$@" -dict="$fuzz_dir/$dict"
        # The first corpus folder receives new inputs; the seeds in the source tree stay untouched.
        set -- "$@" "$build/fuzz-corpus/$name"
        [ -d "$fuzz_dir/corpus/$name" ] && set -- "$@" "$fuzz_dir/corpus/$name"
        log="$build/fuzz-logs/$name.log"
        if "$build/tests/fuzz/fuzz_$name" "$@" >"$log" 2>&1; then
            runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
            echo "fuzz_$name: ${runs:-?} inputs in ${seconds} s, no finding"
        else
            echo "fuzz_$name: FOUND SOMETHING (input in $build/fuzz-artifacts/); the end of $log:"
            tail -n 60 "$log"
            status=1
        fi
    done
    exit "$status"
}
