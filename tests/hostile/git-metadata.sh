#!/bin/bash
# Defends SPEC §3 "Direct mode keeps the repository's metadata read-only".
# A command in a direct-mode sandbox of a git repository plants every way the host's git finds a program to run:
# core.fsmonitor through `git config`, a hook, core.hooksPath, include.path and includeIf to a planted file,
# .git/commondir naming a folder of its own, config.worktree. Then the host's git runs `status` and `commit` there,
# as a shell prompt and the user would. Expected: nothing planted, nothing run on the host.
source "$(dirname "$0")/lib.sh"
command -v git >/dev/null || broken "git is not installed on the host"
hostgit() { HOME="$scratch" GIT_CONFIG_NOSYSTEM=1 git -C "$ws" -c user.name=t -c user.email=t@example.com "$@"; }
attack() {  # attack NAME [app arguments…]: a fresh repository, the attack in its sandbox, then the host's git
    ws=$(workspace "$1")
    markers="$scratch/markers-$1"
    shift
    mkdir -p "$markers"
    hostgit init -q && hostgit commit -q --allow-empty -m first || broken "git init on the host"
    out=$(zeus_exec "$ws" "export HOME=/tmp
git config core.fsmonitor 'touch $markers/fsmonitor' && echo planted:fsmonitor
printf '#!/bin/sh\ntouch $markers/hook\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted:hook
mkdir -p .h && printf '#!/bin/sh\ntouch $markers/hookspath\n' > .h/pre-commit && chmod +x .h/pre-commit
git config core.hooksPath /workspace/.h && echo planted:hookspath
printf '[core]\n\tfsmonitor = touch $markers/include\n' > .inc
git config include.path ../.inc && echo planted:include
git config 'includeIf.gitdir:/.path' ../.inc && echo planted:includeif
mkdir -p .c/hooks .c/objects .c/refs && printf '[core]\n\tfsmonitor = touch $markers/commondir\n' > .c/config
echo ../.c > .git/commondir && echo planted:commondir
echo '[core]' > .git/config.worktree && echo planted:config.worktree
mkdir -p .git/info && echo '* filter=x' > .git/info/attributes && echo planted:info
git log --oneline >/dev/null && echo read:log
true" "$@")
    hostgit status >/dev/null 2>&1
    hostgit commit -q --allow-empty -m second >/dev/null 2>&1
    ran=$(ls "$markers")
}

# The control first: with the folder's .git writable (--allow-git-writes) the same attack does reach the host's git,
# so this script would see it if the protection went.
attack control --allow-git-writes
[ -n "$ran" ] || broken "control: even with .git writable the host's git ran nothing; this script cannot see the attack"
echo "  control (--allow-git-writes): the host's git ran: $(echo $ran)"

attack protected
echo "$out" | grep -q '^read:log' || broken "git log did not work in the sandbox: $out"
for what in fsmonitor hook hookspath include includeif commondir config.worktree info; do
    if echo "$out" | grep -q "^planted:$what\$"; then through "the sandbox wrote .git ($what)"; else pass "$what"; fi
done
[ -z "$ran" ] && pass "the host's git ran nothing" || through "the host's git ran: $ran"
finish
