#!/bin/bash
# Defends SPEC §11 "Parsing is conservative" (deny rules hold through every wrapper).
# A headless session with `--deny-command rm --deny-command "git push"` in auto mode gets the wrappers that run
# their argument as a command or a shell string, git's alias, dashed and plumbing spellings of push, and a builtin
# that assigns a variable. Expected: each refused with approval_denied, and the effect checked on disk: the file
# `x` is still there and the repository's remote has no ref. Controls: ls and git status run.
# (The analyser's own table, tests/unit/approval/tst_commandanalyser.cpp, holds 250 more.)
source "$(dirname "$0")/lib.sh"
command -v git >/dev/null || broken "git is not installed"
ws=$(workspace deny)
echo keep >"$ws/x"
git -C "$ws" init -q && HOME="$scratch" git -C "$ws" -c user.name=t -c user.email=t@e commit -q --allow-empty -m one \
    && git init -q --bare "$ws/remote.git" && git -C "$ws" remote add origin /workspace/remote.git || broken "git setup"
attacks=(
    'rm x'
    'script -qc "rm x" /dev/null'
    'parallel rm ::: x'
    'toybox rm x'
    'busybox rm x'
    'env -S"rm x"'
    'sudo -iu root rm x'
    '/bin/rm x'
    "r''m x"
    '\rm x'
    'command -p rm x'
    'nice -n5 rm x'
    'timeout -s KILL 5 rm x'
    'find . -name x -exec rm {} +'
    'echo x | xargs rm'
    "sh -c 'rm x'"
    'A=1 rm x'
    'git -c alias.p=push p origin HEAD'
    'git-push origin HEAD'
    '/usr/lib/git-core/git-push origin HEAD'
    'git send-pack /workspace/remote.git HEAD'
    'git --no-pager -C /workspace push origin HEAD'
)
{
    echo 'ls /workspace'
    echo 'git status --short'
    printf '%s\n' "${attacks[@]}"
} >"$scratch/lines"
zeus_session "$ws" "$scratch/lines" "$scratch/console" --approval auto --deny-command rm --deny-command "git push"
mapfile -t results < <(grep '^result ' "$scratch/console")
[ "${#results[@]}" = $((${#attacks[@]} + 2)) ] || broken "expected $((${#attacks[@]} + 2)) results: $(tail -n 5 "$scratch/console")"
[[ "${results[0]}" == *" ok exit=0"* ]] || broken "control: ls did not run: ${results[0]}"
[[ "${results[1]}" == *" ok exit=0"* ]] || broken "control: git status did not run: ${results[1]}"
for i in "${!attacks[@]}"; do
    line=${results[$((i + 2))]}
    if [[ "$line" == *"error=approval_denied"* ]]; then pass "${attacks[$i]}"; else through "${attacks[$i]}: $line"; fi
done
[ -f "$ws/x" ] && pass "x is still there" || through "x was removed"
[ -z "$(git -C "$ws/remote.git" for-each-ref)" ] && pass "nothing was pushed" || through "a ref was pushed"
finish
