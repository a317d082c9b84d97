#!/bin/bash
# Defends SPEC §12 "Streamable HTTP": 127.0.0.1 only, a bearer token, Origin validated, no CORS.
# Another local user, or a web page in the user's browser, tries to run `touch /workspace/pwned` through
# `zeus-desktop --mcp-http`: from another interface, without the token, with a wrong one, with the token in the
# URL, as a page's simple POST, through a rebound DNS name, with a guessed session id, and with a body too large.
# Expected: each is refused before any tools/call runs (no file appears); a control with the token runs.
source "$(dirname "$0")/lib.sh"
if [ "${ZEUS_TEST_KEYRING:-}" != 1 ]; then
    # The token lives in the keychain: a private keyring session, as the tests use.
    source "$(dirname "$0")/../harness/engines.sh"
    with_keyring bash "$0"
    exit $?
fi
ws=$(workspace mcp-http)
log="$scratch/mcp-http.log"
"$ZEUS_APP" --mcp-http 0 --mcp-http-token-reset --workspace "$ws" --runtime "$ZEUS_ENGINE" --image "$ZEUS_TEST_IMAGE" \
    2>"$log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 1 300); do grep -q 'MCP over HTTP at' "$log" && break; sleep 0.1; done
url=$(sed -n 's/.*MCP over HTTP at \(http[^ ]*\).*/\1/p' "$log" | head -n 1)
token=$(sed -n 's/.*shown only now): \([^ ]*\).*/\1/p' "$log" | head -n 1)
[ -n "$url" ] && [ -n "$token" ] || broken "the server did not start: $(tail -n 3 "$log")"
port=${url##*:}
port=${port%%/*}

init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}'
touch_call='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"touch /workspace/pwned"}}}'
# post [curl options…] BODY: prints the HTTP status (000 when nothing answered); headers go to $scratch/headers.
post() {
    local body=${*: -1}
    curl -s -o "$scratch/body" -D "$scratch/headers" -w '%{http_code}' -m 20 -X POST "${@:1:$#-1}" \
        -H 'Accept: application/json, text/event-stream' --data-binary "$body"
}
session_of() { tr -d '\r' <"$scratch/headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'; }

# Another interface: the host's own non-loopback address (another machine, or a container with host networking).
other=$(hostname -I 2>/dev/null | awk '{print $1}')
if [ -n "$other" ]; then
    code=$(post -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "http://$other:$port/mcp" "$init")
    [ "$code" = 000 ] && pass "nothing listens on $other:$port" || through "$other:$port answered $code"
fi

code=$(post -H 'Content-Type: application/json' "$url" "$init")
[ "$code" = 401 ] && pass "no token: 401" || through "no token: $code"
code=$(post -H "Authorization: Bearer ${token%?}x" -H 'Content-Type: application/json' "$url" "$init")
[ "$code" = 401 ] && pass "a wrong token: 401" || through "a wrong token: $code"
code=$(post -H "Authorization: Basic $(printf 'x:%s' "$token" | base64 -w0)" -H 'Content-Type: application/json' \
    "$url" "$init")
[ "$code" = 401 ] && pass "the token as Basic credentials: 401" || through "the token as Basic credentials: $code"
code=$(post -H 'Content-Type: application/json' "$url?access_token=$token" "$init")
[ "$code" = 401 ] && pass "the token in the URL: 401" || through "the token in the URL: $code"

# A page on another site: a "simple" cross-origin POST needs no preflight, and a browser sends its Origin.
code=$(post -H "Authorization: Bearer $token" -H 'Origin: https://evil.example' -H 'Content-Type: text/plain' \
    "$url" "$init")
grep -qi '^access-control-allow-origin' "$scratch/headers" && through "a CORS header was sent to another origin"
[ "$code" = 403 ] && pass "another Origin: 403, no CORS header" || through "another Origin: $code"
code=$(curl -s -o /dev/null -D "$scratch/headers" -w '%{http_code}' -m 20 -X OPTIONS -H 'Origin: https://evil.example' \
    -H 'Access-Control-Request-Method: POST' -H 'Access-Control-Request-Headers: authorization' "$url")
grep -qi '^access-control-allow' "$scratch/headers" && through "a preflight was allowed ($code)" \
    || pass "a preflight gets no Access-Control-Allow-* ($code)"
# DNS rebinding: the page's own name now resolves to 127.0.0.1, so the browser sends that name as Host.
code=$(post -H "Authorization: Bearer $token" -H "Host: rebind.evil.example:$port" -H 'Content-Type: application/json' \
    "$url" "$init")
case $code in 403 | 421) pass "a foreign Host: $code" ;; *) through "a foreign Host: $code" ;; esac

# The control: with the token a session opens; then a guessed session id, and a body past the limit.
code=$(post -H "Authorization: Bearer $token" -H 'Content-Type: application/json' "$url" "$init")
session=$(session_of)
[ "$code" = 200 ] && [ -n "$session" ] || broken "the control could not initialize: $code"
guess=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
code=$(post -H "Authorization: Bearer $token" -H "Mcp-Session-Id: $guess" -H 'Content-Type: application/json' \
    "$url" "$touch_call")
[ "$code" = 404 ] && pass "a guessed session id: 404" || through "a guessed session id: $code"
code=$(post -H "Mcp-Session-Id: $session" -H 'Content-Type: application/json' "$url" "$touch_call")
[ "$code" = 401 ] && pass "a real session id without the token: 401" || through "a session id without the token: $code"
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$scratch/big"
code=$(curl -s -o /dev/null -w '%{http_code}' -m 30 -X POST -H "Authorization: Bearer $token" \
    -H "Mcp-Session-Id: $session" -H 'Content-Type: application/json' --data-binary @"$scratch/big" "$url")
case $code in 413 | 000) pass "a 5 MiB body: $code" ;; *) through "a 5 MiB body: $code" ;; esac
[ -e "$ws/pwned" ] && through "a refused request ran its command" || pass "no refused request ran anything"

# The control runs a command, so the checks above could have seen one run.
post -H "Authorization: Bearer $token" -H "Mcp-Session-Id: $session" -H 'Content-Type: application/json' \
    "$url" '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
code=$(post -H "Authorization: Bearer $token" -H "Mcp-Session-Id: $session" -H 'Content-Type: application/json' \
    -H 'MCP-Protocol-Version: 2025-06-18' "$url" \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"touch /workspace/control"}}}')
[ "$code" = 200 ] && [ -e "$ws/control" ] || broken "the control did not run its command: $code $(head -c 300 "$scratch/body")"
grep -q "$token" "$scratch/config" -r 2>/dev/null && through "the token is in a settings file"
[ "$(grep -c "$token" "$log")" = 1 ] && pass "the token appears once, on the line that shows it" \
    || through "the token appears $(grep -c "$token" "$log") times on stderr"
finish
