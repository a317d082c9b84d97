#!/bin/bash
# Defends SPEC §3 "Every mount source is pinned".
# One sandbox of a folder swaps `.git` (a folder) and a link to a host folder outside the workspace atomically, as
# fast as it can (tests/hostile/renameswap.c), while new sandboxes of the same folder start, each through the real
# binary. The engine resolves every mount source again at `run`: without the pins, some would get the outside
# folder at /workspace/.git. Expected: no command ever lists the marker kept there; a new sandbox either runs on the
# folder's own .git or is refused. (tst_hardening's mountRaceNeverMountsAnotherFolder does 50 in one app.)
source "$(dirname "$0")/lib.sh"
swap="$(dirname "$ZEUS_APP")/../tests/hostile/renameswap"
[ -x "$swap" ] || broken "renameswap is not built ($swap)"
ws=$(workspace race)
outside="$scratch/outside"
mkdir -p "$outside" && touch "$outside/marker-outside"
cp "$swap" "$ws/.swap"
# The attacker starts before .git exists (so .git is no mount point in its sandbox), with an install id of its own
# (another app's containers are not orphans of the next ones).
XDG_CONFIG_HOME="$scratch/attacker-config" "$ZEUS_APP" --runtime "$ZEUS_ENGINE" --image "$ZEUS_TEST_IMAGE" \
    --workspace "$ws" --exec 'while [ ! -d .git ]; do sleep 0.1; done; ./.swap .git .git-link 120' \
    >/dev/null 2>>"$scratch/app.log" &
attacker=$!
sleep 3
mkdir -p "$ws/.git/refs" && ln -s "$outside" "$ws/.git-link"
swapping=""
for _ in $(seq 1 300); do [ -L "$ws/.git" ] && swapping=yes && break; sleep 0.1; done
[ -n "$swapping" ] || broken "the attacker never started swapping: $(tail -n 3 "$scratch/app.log")"
refused=0
ran=0
# 20 sandboxes, and up to 40 until the race has hit at least once.
for i in $(seq 1 40); do
    [ "$i" -gt 20 ] && [ "$refused" -gt 0 ] && break
    out=$(zeus_exec "$ws" 'ls -a /workspace/.git/ 2>&1; echo listed')
    rc=$?
    if echo "$out" | grep -q marker-outside; then through "sandbox $i listed the outside folder: $out"; fi
    if [ "$rc" = 0 ]; then ran=$((ran + 1)); else refused=$((refused + 1)); fi
done
kill -TERM "$attacker" 2>/dev/null  # the app removes its container as it quits
wait "$attacker" 2>/dev/null
# Every refused sandbox's container is gone too (one with a foreign mount must never be left running).
left=$("$ZEUS_ENGINE" ps -aq --filter "label=zeus.desktop.workspace=$ws" | wc -l)
[ "$left" = 0 ] && pass "no container left" || through "$left containers of the folder are still there"
echo "  $ran sandboxes ran, $refused were refused"
[ "$refused" -gt 0 ] || broken "the race never hit in 40 sandboxes: this run did not exercise the pins"
[ "$failures" = 0 ] && pass "no sandbox saw the outside folder"
finish
