#!/bin/sh
# Fails when a tracked C++ file, or a C file of the sandbox agent (agent/), is not formatted per .clang-format.
set -eu
cd "$(dirname "$0")/../.."
files=$(git ls-files '*.cpp' '*.h' 'agent/*.c' | grep -v '^tests/data/' || true)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
if ! clang-format --dry-run -Werror $files; then
    echo "check-format: the files above are not formatted; run: clang-format -i \$(git ls-files '*.cpp' '*.h' 'agent/*.c')" >&2
    exit 1
fi
echo "check-format: $(echo "$files" | wc -l) files formatted"
