#!/bin/bash
# Runs clang-tidy (.clang-tidy: every enabled check is an error) over the project's own
# sources in core/, ui/, app/ and agent/, in parallel, and fails when any finding remains.
# GCC-only warning flags of the compilation database are unknown to clang: those two
# diagnostics are turned off, nothing else.
#   run-clang-tidy.sh BUILD_DIR [--all | --changed]
# --all (the default under CI=true) checks every source in BUILD_DIR's compilation database;
# --changed (the default otherwise) checks the sources that differ from the upstream branch
# (or the last commit) and the sources that include a changed header.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${1:?usage: run-clang-tidy.sh BUILD_DIR [--all|--changed]}
mode=${2:-}
[ -n "$mode" ] || { [ "${CI:-}" = true ] && mode=--all || mode=--changed; }
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
    echo "clang-tidy: not installed (apt-get install clang-tidy)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 0
fi
[ -f "$build_dir/compile_commands.json" ] || { echo "clang-tidy: no $build_dir/compile_commands.json" >&2; exit 1; }

# The project's sources that the build compiles (headers are checked through them).
mapfile -t sources < <(git ls-files 'core/*.cpp' 'ui/*.cpp' 'app/*.cpp' 'agent/*.cpp' | sort)
if [ "$mode" = --changed ]; then
    base=$(git merge-base HEAD '@{upstream}' 2>/dev/null || git rev-parse HEAD~1 2>/dev/null || echo HEAD)
    mapfile -t changed < <({ git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)
    selected=()
    for source in "${sources[@]}"; do
        for file in "${changed[@]}"; do
            header=$(basename "$file")
            if [ "$file" = "$source" ] || { [[ "$file" == *.h ]] && grep -q "include \".*$header\"" "$source"; }; then
                selected+=("$source"); break
            fi
        done
    done
    sources=("${selected[@]+"${selected[@]}"}")
fi
if [ "${#sources[@]}" -eq 0 ]; then
    echo "clang-tidy: nothing to check ($mode)"
    exit 0
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
status=0
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -n 4 "$tidy" -p "$build_dir" --quiet \
    --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-gnu-zero-variadic-macro-arguments >"$log" 2>/dev/null || status=$?
findings=$(grep -cE '(warning|error): .*\[[a-z0-9.,-]+\]$' "$log" || true)
if [ "$status" != 0 ] || [ "$findings" != 0 ]; then
    grep -E -A3 '(warning|error): ' "$log" | head -n 400
    echo "clang-tidy: $findings findings in ${#sources[@]} files ($mode); by check:" >&2
    grep -oE '\[[a-z0-9.,-]+\]$' "$log" | sort | uniq -c | sort -rn >&2 || true
    exit 1
fi
echo "clang-tidy: ${#sources[@]} files clean ($mode, $(( $(date +%s) - start )) s)"
