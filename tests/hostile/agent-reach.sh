#!/bin/bash
# Defends SPEC §7 "The agent is out of the commands' reach".
# Call 1 leaves a background job that opens the sandbox agent's stdin (every later command's text and secrets)
# and stdout (to forge frames) through /proc. Call 2 prints a canary; call 3 looks at what the job got.
# Expected: the job opens nothing, call 2's output is exactly its own, call 3 finds no canary in the loot.
source "$(dirname "$0")/lib.sh"
ws=$(workspace agent)
cat >"$scratch/lines" <<'LINES'
agent=$(for p in /proc/[0-9]*; do [ "$(cat $p/cmdline 2>/dev/null | tr '\0' ' ')" = "/run/zeus/agent " ] && echo ${p#/proc/}; done | head -n1); echo agent=$agent; (for i in 1 2 3 4 5 6 7 8 9 10; do cat /proc/$agent/fd/0 >>/tmp/loot 2>>/tmp/errors; printf 'FORGED' >/proc/$agent/fd/1 2>>/tmp/errors; sleep 0.3; done) >/dev/null 2>&1 &
sleep 1; echo CANARY-SECOND-CALL
sleep 3; echo loot=$(cat /tmp/loot 2>/dev/null | grep -c CANARY); head -n 1 /tmp/errors
LINES
zeus_session "$ws" "$scratch/lines" "$scratch/console"
grep -q 'agent=[0-9]' "$scratch/console" || broken "call 1 did not find the agent: $(grep -a 'stdout\]' "$scratch/console" | head -3)"
mapfile -t results < <(grep '^result ' "$scratch/console")
[ "${#results[@]}" = 3 ] || broken "expected 3 results: $(tail -n 5 "$scratch/console")"
out2=$(grep -a '^\[[^ ]* stdout\]' "$scratch/console" | sed -n '2p')
[[ "$out2" == *"] CANARY-SECOND-CALL" ]] && pass "call 2's output is its own" || through "call 2's output: $out2"
grep -a '^\[[^ ]* std' "$scratch/console" | grep -q 'FORGED' && through "a forged frame reached the app" || pass "no forged frame"
grep -aq 'loot=0' "$scratch/console" && pass "the job read no later command" \
    || through "the job read a later command: $(grep -a 'loot=' "$scratch/console")"
grep -a 'denied\|Permission' "$scratch/console" | head -n 1 | sed 's/^/    /'
finish
