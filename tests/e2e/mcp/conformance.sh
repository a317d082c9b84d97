#!/usr/bin/env bash
# Runs conformance.mjs (the official MCP conformance suite against `zeus-desktop --mcp-http`) on one engine. Without
# the suite or the engine it skips (exit 77), except under CI=true, where that is a failure.
set -u
app="$1"
runtime="$2"
here="$(cd "$(dirname "$0")" && pwd)"
missing=""
[ -n "${ZEUS_TEST_MCP_CONFORMANCE:-}" ] || missing="ZEUS_TEST_MCP_CONFORMANCE (tests/harness/engines.sh ensure_mcp_conformance)"
command -v node >/dev/null 2>&1 || missing="node"
"$runtime" info >/dev/null 2>&1 || missing="a running $runtime engine"
if [ -n "$missing" ]; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: needs $missing" >&2
        exit 1
    fi
    echo "SKIP: needs $missing"
    exit 77
fi
exec node "$here/conformance.mjs" "$app" "$runtime"
