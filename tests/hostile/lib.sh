# Shared by the hostile scripts (tests/hostile/README.md). Sourced with these set by run.sh:
#   ZEUS_APP          the zeus-desktop binary under test
#   ZEUS_TESTBACKEND  the zeus-testbackend binary
#   ZEUS_ENGINE       docker | podman
#   ZEUS_TEST_IMAGE   the offline test image, present in the engine
# Each script exits 0 when every attack was refused, 1 when one got through (or the harness broke), 77 to skip.
set -u
scratch=$(mktemp -d "${TMPDIR:-/tmp}/zeus-hostile.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# Settings, logs and keychain lookups of these runs never touch the user's own.
export XDG_CONFIG_HOME="$scratch/config" XDG_STATE_HOME="$scratch/state" XDG_DATA_HOME="$scratch/data" \
    XDG_CACHE_HOME="$scratch/cache"
failures=0

pass() { printf '  refused: %s\n' "$*"; }
through() { printf '  GOT THROUGH: %s\n' "$*" >&2; failures=$((failures + 1)); }
broken() { printf '  HARNESS: %s\n' "$*" >&2; exit 1; }
finish() { [ "$failures" = 0 ] && exit 0 || exit 1; }

# A folder for one attack, canonical (the app mounts the canonical path).
workspace() { local d="$scratch/ws-$1"; mkdir -p "$d" && (cd "$d" && pwd -P); }

# zeus_exec DIR COMMAND [extra app arguments…]: one command in a fresh sandbox of DIR, through the real binary.
zeus_exec() {
    local dir=$1 command=$2
    shift 2
    "$ZEUS_APP" --runtime "$ZEUS_ENGINE" --image "$ZEUS_TEST_IMAGE" --workspace "$dir" "$@" --exec "$command" 2>>"$scratch/app.log"
}

# zeus_session DIR LINES-FILE OUT-FILE [extra app arguments…]: the headless app behind the test backend, one
# session; each line of LINES-FILE is a desktop_exec call, in order. OUT-FILE gets the console.
zeus_session() {
    local dir=$1 lines=$2 out=$3
    shift 3
    local token_file="$scratch/token" port=$((20000 + RANDOM % 20000)) calls
    calls=$(grep -c . "$lines")
    rm -f "$token_file"
    "$ZEUS_TESTBACKEND" --port "$port" --workspace "$dir" --token-file "$token_file" --script "$lines" \
        --exit-after-results "$calls" >"$out" 2>&1 &
    local backend=$!
    for _ in $(seq 1 100); do [ -s "$token_file" ] && break; sleep 0.1; done
    ZEUS_DESKTOP_TOKEN=$(cat "$token_file") timeout -s KILL 300 "$ZEUS_APP" --headless \
        --backend "ws://127.0.0.1:$port" --workspace "$dir" --runtime "$ZEUS_ENGINE" --image "$ZEUS_TEST_IMAGE" \
        "$@" >>"$scratch/app.log" 2>&1 &
    local app=$!
    timeout 300 tail --pid="$backend" -f /dev/null
    kill -TERM "$app" 2>/dev/null
    wait "$app" 2>/dev/null
    wait "$backend" 2>/dev/null
    return 0
}
