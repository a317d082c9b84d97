#!/bin/bash
# Defends SPEC §3 "Every process the app starts … gets a scrubbed environment".
# The app runs with the backend token and a ZEUS_* secret in its environment; every engine command it starts (run,
# the mount check, exec, rm, inspect), the agent channel (`exec -i … /run/zeus/agent`), the monitor (events,
# stats) and the host's git (a review copy's commits fetched at --apply) goes through a wrapper on PATH that
# records its own environment. Expected: neither value in any of them. (Image builds use the same
# ProcessRunner::childEnvironment(); they are not started here because a build would try to pull a base image.)
source "$(dirname "$0")/lib.sh"
ws=$(workspace env)
git -C "$ws" init -q && HOME="$scratch" git -C "$ws" -c user.name=t -c user.email=t@e commit -q --allow-empty -m one \
    || broken "git init"
wrappers="$scratch/bin"
record="$scratch/environments"
mkdir -p "$wrappers"
: >"$record"
for tool in "$ZEUS_ENGINE" git; do
    real=$(command -v "$tool") || broken "$tool is not installed"
    cat >"$wrappers/$tool" <<WRAP
#!/bin/sh
# kind: the subcommand (exec -i … is the agent channel), then every variable that holds a canary
kind="$tool \$1"; [ "\$1 \$2" = "exec -i" ] && kind="$tool exec -i (agent channel)"
for a in "\$@"; do case "\$a" in fetch|bundle|init) kind="$tool \$a"; break ;; esac; done
printf '%s\t%s\n' "\$kind" "\$(env | grep -c canary-)" >>"$record"
exec "$real" "\$@"
WRAP
    chmod +x "$wrappers/$tool"
done
export PATH="$wrappers:$PATH"
export ZEUS_DESKTOP_TOKEN=canary-token-$$ ZEUS_REGISTRY_SECRET=canary-secret-$$

zeus_exec "$ws" "true" >/dev/null || broken "--exec did not run: $(tail -n 5 "$scratch/app.log")"
printf '%s\n' 'echo changed > /workspace/new.txt' \
    'cd /workspace && git -c user.name=a -c user.email=a@e commit -q --allow-empty -m agent && echo committed' \
    >"$scratch/lines"
zeus_session "$ws" "$scratch/lines" "$scratch/console" --workspace-mode review
grep -q '^result .* ok' "$scratch/console" || broken "the headless session ran nothing: $(tail -n 5 "$scratch/console")"
"$ZEUS_APP" --runtime "$ZEUS_ENGINE" --apply local >/dev/null 2>>"$scratch/app.log" || true

for kind in "$ZEUS_ENGINE run" "$ZEUS_ENGINE exec" "$ZEUS_ENGINE exec -i (agent channel)" "$ZEUS_ENGINE rm" \
    "git fetch"; do
    grep -q "^$kind	" "$record" || broken "no '$kind' was started: the script no longer sees that kind"
done
while IFS=$'\t' read -r kind canaries; do
    if [ "$canaries" != 0 ]; then through "$kind got the app's token or secret"; fi
done <"$record"
[ "$failures" = 0 ] && pass "$(cut -f1 "$record" | sort -u | tr '\n' ',' | sed 's/,$//') all scrubbed"
finish
