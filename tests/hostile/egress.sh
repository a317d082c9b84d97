#!/bin/bash
# Defends SPEC §8 "The connection judged is the connection made".
# With allowed.test allowed (on a loopback fixture through --resolve), a command tries to reach what the policy did
# not allow through the allowed name: a second Host inside a tunnel (the CDN trick), a CONNECT to port 80, a TLS
# ClientHello naming another host (SNI), a second request on a plain HTTP connection once the first went (after the
# app handed the connection's answer over to the kernel, docs/agent-protocol.md "Handing a tunnel over"), and
# addresses written so that a parser may read them otherwise (decimal, octal, IPv4-mapped metadata, userinfo). Controls: a plain request and a ClientHello naming allowed.test do reach
# the fixture, so the script would see a leak.
source "$(dirname "$0")/lib.sh"
command -v busybox >/dev/null || broken "busybox (the fixture's nc) is not installed"
ws=$(workspace egress)
corpus="$(dirname "$0")/../fuzz/corpus/proxyrequest"
cp "$corpus/curl-hello.bin" "$ws/other-hello.bin" && cp "$corpus/openssl-hello.bin" "$ws/allowed-hello.bin" \
    || broken "the ClientHello fixtures are missing"
port=$((20000 + RANDOM % 20000))
log="$scratch/fixture.log"
: >"$log"
# The fixture: every connection's bytes go to the log; it answers 200 "fixture-ok" and keeps the connection open for
# 3 s (until the client closes), so that a byte sent after the answer has somewhere to go.
(while [ ! -e "$scratch/stop" ]; do
    { printf 'HTTP/1.0 200 OK\r\nContent-Length: 10\r\n\r\nfixture-ok'; sleep 3; } |
        timeout 15 busybox nc -l -p "$port" >>"$log" 2>/dev/null
    echo "--connection--" >>"$log"
done) &
fixture=$!
sleep 0.5
proxy=127.0.0.1:3128
connect="printf 'CONNECT allowed.test:$port HTTP/1.1\r\nHost: allowed.test:$port\r\n\r\n'"
out=$(zeus_exec "$ws" "
echo '# control-plain'; wget -qO- http://allowed.test:$port/ 2>&1; echo
echo '# cdn'; { $connect; sleep 0.5; printf 'GET / HTTP/1.1\r\nHost: other.test\r\n\r\n'; sleep 1; } | nc $proxy 2>&1
echo '# pipelined'; { printf 'GET http://allowed.test:$port/ HTTP/1.1\r\nHost: allowed.test:$port\r\n\r\n'; sleep 1; \
    printf 'GET http://other.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n'; sleep 1; } | nc $proxy 2>&1; echo
echo '# port80'; { printf 'CONNECT allowed.test:80 HTTP/1.1\r\nHost: allowed.test\r\n\r\n'; sleep 1; } | nc $proxy 2>&1
echo '# sni-other'; { $connect; sleep 0.5; cat /workspace/other-hello.bin; sleep 1; } | nc $proxy >/dev/null 2>&1
echo '# control-sni'; { $connect; sleep 0.5; cat /workspace/allowed-hello.bin; sleep 1; } | nc $proxy >/dev/null 2>&1
for url in http://2852039166/ http://0251.0376.0251.0376/ 'http://[::ffff:169.254.169.254]/' \
    http://github.com@127.0.0.1:$port/; do echo \"# odd \$url\"; wget -qO- \"\$url\" 2>&1; echo; done
true" --allow-host "allowed.test:$port" --resolve "allowed.test:$port:127.0.0.1")
touch "$scratch/stop"
kill "$fixture" 2>/dev/null
echo "$out" | sed 's/^/    /'

section() { echo "$out" | awk -v h="# $1" '$0 == h {on=1; next} /^# / {on=0} on'; }
section control-plain | grep -q fixture-ok || broken "control: a plain request to allowed.test did not reach the fixture"
section pipelined | grep -q fixture-ok || broken "control: the first request of the pipelined connection got no answer"
grep -aq allowed.test "$log" || broken "control: a ClientHello naming allowed.test did not reach the fixture"
grep -aq other.test "$log" && through "the fixture saw other.test (a second Host or another SNI)" \
    || pass "no Host or SNI of other.test reached the fixture"
section port80 | grep -q ' 403' && pass "CONNECT to port 80" || through "CONNECT to port 80 was not refused with 403"
for url in http://2852039166/ http://0251.0376.0251.0376/ 'http://[::ffff:169.254.169.254]/' \
    "http://github.com@127.0.0.1:$port/"; do
    if section "odd $url" | grep -q fixture-ok; then
        through "$url reached a fixture"
    elif section "odd $url" | grep -Eq '40[03]'; then
        pass "$url (4xx)"
    else
        through "$url: no 400/403 from the proxy: $(section "odd $url" | tr '\n' ' ')"
    fi
done
finish
