#!/bin/sh
# Builds the libFuzzer targets with clang + ASan/UBSan and runs each for a bounded time.
#   tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS]      (default 60 s per target)
# Exit status 0: no finding. A finding leaves its input in BUILD_DIR/fuzz-artifacts/ and fails.
set -eu

build=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
fuzz_dir=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$fuzz_dir/../.." && pwd)

CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$source_dir" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZEUS_FUZZ=ON -DZEUS_BUILD_GUI=OFF -DZEUS_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" --target fuzz_protocol fuzz_agentframe fuzz_commandanalyser fuzz_redactor fuzz_workspaceapproval fuzz_textdiff fuzz_proxyrequest fuzz_mcpmessage fuzz_mcphttprequest fuzz_secretsubstitution

mkdir -p "$build/fuzz-artifacts" "$build/fuzz-corpus/protocol" "$build/fuzz-corpus/agentframe" "$build/fuzz-corpus/commandanalyser" "$build/fuzz-corpus/redactor" "$build/fuzz-corpus/workspaceapproval" "$build/fuzz-corpus/textdiff" "$build/fuzz-corpus/proxyrequest" "$build/fuzz-corpus/mcpmessage" "$build/fuzz-corpus/mcphttprequest" "$build/fuzz-corpus/secretsubstitution"
# halt on the first UBSan report, as for ASan; leaks count as findings.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# The first corpus folder receives new inputs; the seeds in the source tree stay untouched.
"$build/tests/fuzz/fuzz_protocol" \
    -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$fuzz_dir/protocol.dict" -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/protocol" "$fuzz_dir/corpus/protocol"

"$build/tests/fuzz/fuzz_agentframe" \
    -max_total_time="$seconds" -max_len=70000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/agentframe" "$fuzz_dir/corpus/agentframe"

"$build/tests/fuzz/fuzz_commandanalyser" \
    -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/commandanalyser" "$fuzz_dir/corpus/commandanalyser"
"$build/tests/fuzz/fuzz_redactor" \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/redactor"
"$build/tests/fuzz/fuzz_workspaceapproval" \
    -max_total_time="$seconds" -max_len=256 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/workspaceapproval" "$fuzz_dir/corpus/workspaceapproval"
"$build/tests/fuzz/fuzz_textdiff" \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/textdiff" "$fuzz_dir/corpus/textdiff"
"$build/tests/fuzz/fuzz_proxyrequest" \
    -max_total_time="$seconds" -max_len=20000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/proxyrequest" "$fuzz_dir/corpus/proxyrequest"
"$build/tests/fuzz/fuzz_mcpmessage" \
    -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/mcpmessage" "$fuzz_dir/corpus/mcpmessage"
"$build/tests/fuzz/fuzz_mcphttprequest" \
    -max_total_time="$seconds" -max_len=20000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/mcphttprequest" "$fuzz_dir/corpus/mcphttprequest"
"$build/tests/fuzz/fuzz_secretsubstitution" \
    -max_total_time="$seconds" -max_len=20000 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    "$build/fuzz-corpus/secretsubstitution" "$fuzz_dir/corpus/secretsubstitution"
