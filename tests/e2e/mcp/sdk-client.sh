#!/usr/bin/env bash
# Runs sdk-client.mjs (the official MCP SDK against `zeus-desktop --mcp`), or with `http` sdk-http-client.mjs (the
# same SDK against `zeus-desktop --mcp-http`), or with `bridge` sdk-bridge-client.mjs (`--mcp` while the tray app
# runs), on one engine. Without the SDK or the engine it skips (exit 77),
# except under CI=true, where that is a failure.
set -u
app="$1"
runtime="$2"
script=sdk-client.mjs
[ "${3:-}" = http ] && script=sdk-http-client.mjs
[ "${3:-}" = bridge ] && script=sdk-bridge-client.mjs
here="$(cd "$(dirname "$0")" && pwd)"
missing=""
[ -n "${ZEUS_TEST_MCP_SDK:-}" ] || missing="ZEUS_TEST_MCP_SDK (tests/harness/engines.sh ensure_mcp_sdk)"
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
exec node "$here/$script" "$app" "$runtime"
