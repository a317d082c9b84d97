#!/bin/bash
# Test harness: real container engines and a real keyring for the test suite.
# Sourced by tests/run.sh. It reuses what is reachable and otherwise, when root,
# installs and starts private instances that it stops again at the end.
#
# Exports for the tests:
#   DOCKER_HOST                 the Docker engine to use
#   CONTAINERS_CONF             the harness's Podman configuration (runc, rlimits)
#   ZEUS_TEST_IMAGE             the offline test image, present in both engines
#   ZEUS_TEST_DOCKERD_PIDFILE   set when the harness owns dockerd (fault tests stop/restart it)
#   ZEUS_TEST_DOCKERD_RESTART   a command that starts the private dockerd again
#   ZEUS_TEST_REMOTE_DOCKER_HOST tcp://127.0.0.1:PORT of a second private dockerd with the test image: a
#                               "remote" engine by its scheme (SPEC §10), on this machine (ensure_remote_docker)
# Under CI=true an engine that cannot be had is an error, never a skip.

ZEUS_TEST_IMAGE=${ZEUS_TEST_IMAGE:-zeus-desktop-sandbox:test}
export ZEUS_TEST_IMAGE
harness_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=$(cd "$harness_dir/../.." && pwd)

harness_fail() {
    echo "harness: $*" >&2
    if [ "${CI:-}" = true ]; then
        exit 1
    fi
    return 1
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi
}

docker_reachable() {
    command -v docker >/dev/null 2>&1 && timeout 10 docker info --format '{{.ServerVersion}}' >/dev/null 2>&1
}

start_private_dockerd() {
    ZEUS_DOCKERD_DIR=$(mktemp -d /tmp/zeus-dockerd.XXXXXX)
    export ZEUS_DOCKERD_DIR
    cat > "$ZEUS_DOCKERD_DIR/start" <<START
#!/bin/sh
D="$ZEUS_DOCKERD_DIR"
rm -f "\$D/pid" "\$D/exec/containerd/containerd.pid"
dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs \\
  --data-root "\$D/data" --exec-root "\$D/exec" --pidfile "\$D/pid" \\
  -H "unix://\$D/docker.sock" >>"\$D/log" 2>&1 &
i=0
while [ \$i -lt 120 ]; do
  DOCKER_HOST="unix://\$D/docker.sock" docker info --format '{{.ServerVersion}}' >/dev/null 2>&1 && exit 0
  sleep 0.5; i=\$((i+1))
done
echo "harness: private dockerd did not answer; its log:" >&2; tail -n 30 "\$D/log" >&2; exit 1
START
    chmod +x "$ZEUS_DOCKERD_DIR/start"
    export DOCKER_HOST="unix://$ZEUS_DOCKERD_DIR/docker.sock"
    export ZEUS_TEST_DOCKERD_PIDFILE="$ZEUS_DOCKERD_DIR/pid"
    export ZEUS_TEST_DOCKERD_RESTART="$ZEUS_DOCKERD_DIR/start"
    "$ZEUS_DOCKERD_DIR/start"
}

stop_private_dockerd() {
    [ -n "${ZEUS_DOCKERD_DIR:-}" ] || return 0
    if [ -f "$ZEUS_DOCKERD_DIR/pid" ]; then
        local pid; pid=$(cat "$ZEUS_DOCKERD_DIR/pid")
        docker ps -aq 2>/dev/null | xargs -r docker rm -f >/dev/null 2>&1
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -9 "$pid" 2>/dev/null
    fi
    # vfs layers can hold read-only bits; remove what can be removed
    rm -rf "$ZEUS_DOCKERD_DIR" 2>/dev/null || true
}

# A second private dockerd listening on loopback TCP, which counts as a remote engine by its scheme. Its own
# data-root, exec-root and pidfile, so it shares nothing with the first; the test image is copied into it from the
# Docker engine in use. Needs root and dockerd (ensure_docker installs docker.io where it had to).
ensure_remote_docker() {
    if [ -n "${ZEUS_TEST_REMOTE_DOCKER_HOST:-}" ] && DOCKER_HOST="$ZEUS_TEST_REMOTE_DOCKER_HOST" timeout 10 \
        docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; then
        echo "harness: using the remote-engine dockerd at $ZEUS_TEST_REMOTE_DOCKER_HOST"
        return 0
    fi
    if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
        harness_fail "a second dockerd for the remote-engine tests needs root and dockerd"
        return 1
    fi
    ZEUS_REMOTE_DOCKERD_DIR=$(mktemp -d /tmp/zeus-remote-dockerd.XXXXXX)
    export ZEUS_REMOTE_DOCKERD_DIR
    local D=$ZEUS_REMOTE_DOCKERD_DIR port="" candidate
    # A port nothing answers on: a daemon that is already there would be someone else's engine.
    for candidate in $(seq 23750 23790); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [ -n "$port" ] || { harness_fail "no free loopback port for the remote-engine dockerd"; return 1; }
    dockerd --iptables=false --ip6tables=false --bridge=none --storage-driver=vfs \
        --data-root "$D/data" --exec-root "$D/exec" --pidfile "$D/pid" \
        -H "tcp://127.0.0.1:$port" >>"$D/log" 2>&1 &
    local host="tcp://127.0.0.1:$port" i=0
    while [ $i -lt 120 ]; do
        DOCKER_HOST="$host" docker info --format '{{.ServerVersion}}' >/dev/null 2>&1 && break
        sleep 0.5; i=$((i+1))
    done
    if [ $i -ge 120 ] || [ ! -s "$D/pid" ]; then
        echo "harness: the remote-engine dockerd did not answer; its log:" >&2; tail -n 30 "$D/log" >&2
        harness_fail "the remote-engine dockerd did not start"
        return 1
    fi
    docker save "$ZEUS_TEST_IMAGE" | DOCKER_HOST="$host" docker load >/dev/null \
        || { harness_fail "could not load $ZEUS_TEST_IMAGE into the remote-engine dockerd"; return 1; }
    export ZEUS_TEST_REMOTE_DOCKER_HOST="$host"
    echo "harness: started a remote-engine dockerd at $host with $ZEUS_TEST_IMAGE"
}

stop_remote_dockerd() {
    [ -n "${ZEUS_REMOTE_DOCKERD_DIR:-}" ] || return 0
    if [ -f "$ZEUS_REMOTE_DOCKERD_DIR/pid" ]; then
        local pid; pid=$(cat "$ZEUS_REMOTE_DOCKERD_DIR/pid")
        DOCKER_HOST="$ZEUS_TEST_REMOTE_DOCKER_HOST" docker ps -aq 2>/dev/null \
            | DOCKER_HOST="$ZEUS_TEST_REMOTE_DOCKER_HOST" xargs -r docker rm -f >/dev/null 2>&1
        kill "$pid" 2>/dev/null
        for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -9 "$pid" 2>/dev/null
    fi
    rm -rf "$ZEUS_REMOTE_DOCKERD_DIR" 2>/dev/null || true
    unset ZEUS_REMOTE_DOCKERD_DIR ZEUS_TEST_REMOTE_DOCKER_HOST
}

ensure_docker() {
    if docker_reachable; then
        echo "harness: using the reachable Docker engine (${DOCKER_HOST:-default socket})"
        return 0
    fi
    unset DOCKER_HOST
    if docker_reachable; then echo "harness: using the Docker engine on the default socket"; return 0; fi
    if [ "$(id -u)" != 0 ]; then
        harness_fail "no Docker engine is reachable and this is not root: start Docker (sudo systemctl start docker) or set DOCKER_HOST"
        return 1
    fi
    command -v dockerd >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null \
        || { harness_fail "could not install docker.io"; return 1; }
    start_private_dockerd || { harness_fail "the private dockerd did not start"; return 1; }
    echo "harness: started a private dockerd ($(docker info --format '{{.ServerVersion}}'))"
}

ensure_podman() {
    if ! command -v podman >/dev/null; then
        if [ "$(id -u)" = 0 ]; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc catatonit >/dev/null \
                || { harness_fail "could not install podman"; return 1; }
        else
            harness_fail "podman is not installed (sudo apt-get install podman runc)"; return 1
        fi
    fi
    if [ -z "${CONTAINERS_CONF:-}" ]; then
        ZEUS_PODMAN_DIR=$(mktemp -d /tmp/zeus-podman.XXXXXX)
        cat > "$ZEUS_PODMAN_DIR/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
        export CONTAINERS_CONF="$ZEUS_PODMAN_DIR/containers.conf"
    fi
    timeout 30 podman info --format json >/dev/null 2>&1 \
        || { harness_fail "podman info fails: $(podman info 2>&1 | tail -n 3)"; return 1; }
    echo "harness: using Podman $(podman version --format '{{.Client.Version}}' 2>/dev/null)"
}

# Bumped whenever make-rootfs.sh changes what the image holds: an older import is replaced.
ZEUS_TEST_IMAGE_REVISION=4

ensure_test_image() { # $1 = docker|podman
    local engine=$1 revision
    revision=$("$engine" image inspect --format '{{index .Config.Labels "zeus.testimage"}}' "$ZEUS_TEST_IMAGE" 2>/dev/null || true)
    if [ "$revision" = "$ZEUS_TEST_IMAGE_REVISION" ]; then
        echo "harness: $engine already has $ZEUS_TEST_IMAGE"
        return 0
    fi
    if [ -z "${ZEUS_TEST_ROOTFS:-}" ]; then
        command -v busybox >/dev/null || [ -x /bin/busybox ] || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq busybox-static >/dev/null
        ZEUS_TEST_ROOTFS=$(mktemp /tmp/zeus-rootfs.XXXXXX.tar)
        export ZEUS_TEST_ROOTFS
        "$source_dir/docker/testimage/make-rootfs.sh" "$ZEUS_TEST_ROOTFS" || { harness_fail "could not make the test rootfs"; return 1; }
    fi
    # The title is how --diagnose knows the offline test image (DiagnosticSections::classifyImage).
    # One label per --change: Podman takes the rest of a LABEL line as the first label's value.
    "$engine" import --change "LABEL org.opencontainers.image.title=zeus-desktop-sandbox-offline-test" \
        --change "LABEL zeus.testimage=$ZEUS_TEST_IMAGE_REVISION" "$ZEUS_TEST_ROOTFS" "$ZEUS_TEST_IMAGE" >/dev/null \
        || { harness_fail "$engine import of $ZEUS_TEST_IMAGE failed"; return 1; }
    echo "harness: imported $ZEUS_TEST_IMAGE into $engine"
}

# The sandbox image built from the distribution's package archive, for tst_distroimage (docs/sandbox-image.md):
# docker/ensure-image.sh's archive way, once per recipe revision (a machine that kept the image reuses it). With
# Podman: its overlay storage builds it in a few minutes, where the private Docker on vfs copies the whole file
# system for every Dockerfile step (several times longer). The test builds it itself when this did not.
ZEUS_TEST_DISTRO_IMAGE=${ZEUS_TEST_DISTRO_IMAGE:-zeus-desktop-sandbox:distro-test}
ZEUS_TEST_DISTRO_ENGINE=${ZEUS_TEST_DISTRO_ENGINE:-podman}
# The image's apt list; empty: the Dockerfile's own (the whole image is tested, compilers included).
ZEUS_TEST_DISTRO_APT_PACKAGES=${ZEUS_TEST_DISTRO_APT_PACKAGES:-}
export ZEUS_TEST_DISTRO_IMAGE ZEUS_TEST_DISTRO_ENGINE ZEUS_TEST_DISTRO_APT_PACKAGES

ensure_distro_image() {
    local started
    command -v mmdebstrap >/dev/null 2>&1 \
        || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null \
        || { harness_fail "could not install mmdebstrap"; return 1; }
    ensure_verdaccio || return 1
    if ! timeout 30 curl -sfI http://deb.debian.org/debian/dists/bookworm/Release >/dev/null 2>&1; then
        echo "harness: ****************************************************************************" >&2
        echo "harness: WARNING: the Debian archive (deb.debian.org) is unreachable: the distribution" >&2
        echo "harness: image cannot be built and tst_distroimage will SKIP." >&2
        echo "harness: ****************************************************************************" >&2
        return 0
    fi
    started=$(date +%s)
    ZEUS_IMAGE_WAY=distro ZEUS_APT_PACKAGES="$ZEUS_TEST_DISTRO_APT_PACKAGES" \
        "$source_dir/docker/ensure-image.sh" "$ZEUS_TEST_DISTRO_ENGINE" "$ZEUS_TEST_DISTRO_IMAGE" \
        || { harness_fail "could not build $ZEUS_TEST_DISTRO_IMAGE from the distribution's archive"; return 1; }
    "$ZEUS_TEST_DISTRO_ENGINE" image inspect "$ZEUS_TEST_DISTRO_IMAGE" >/dev/null 2>&1 \
        || { harness_fail "$ZEUS_TEST_DISTRO_IMAGE is missing after its build"; return 1; }
    echo "harness: $ZEUS_TEST_DISTRO_IMAGE ready in $(( $(date +%s) - started )) s"
}

# verdaccio (a local npm registry) from the npm registry, for tst_distroimage's npm install; kept in the user's
# cache between runs.
ensure_verdaccio() {
    local prefix="${XDG_CACHE_HOME:-$HOME/.cache}/zeus-test-tools/verdaccio"
    if [ -n "${ZEUS_TEST_VERDACCIO:-}" ] && [ -x "$ZEUS_TEST_VERDACCIO" ]; then
        return 0
    fi
    if [ ! -x "$prefix/node_modules/.bin/verdaccio" ]; then
        command -v npm >/dev/null 2>&1 \
            || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null \
            || { harness_fail "could not install npm"; return 1; }
        npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error verdaccio@6 >/dev/null \
            || { harness_fail "could not install verdaccio from the npm registry"; return 1; }
    fi
    ZEUS_TEST_VERDACCIO="$prefix/node_modules/.bin/verdaccio"
    export ZEUS_TEST_VERDACCIO
    echo "harness: verdaccio $("$ZEUS_TEST_VERDACCIO" --version 2>/dev/null)"
}

# The official MCP TypeScript SDK from the npm registry, for the MCP client test (tests/e2e/mcp/sdk-client.mjs); kept
# in the user's cache between runs.
ensure_mcp_sdk() {
    local prefix="${XDG_CACHE_HOME:-$HOME/.cache}/zeus-test-tools/mcp-sdk"
    if [ -n "${ZEUS_TEST_MCP_SDK:-}" ] && [ -f "$ZEUS_TEST_MCP_SDK/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
        return 0
    fi
    if [ ! -f "$prefix/node_modules/@modelcontextprotocol/sdk/package.json" ]; then
        command -v npm >/dev/null 2>&1 \
            || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null \
            || { harness_fail "could not install npm"; return 1; }
        mkdir -p "$prefix" && echo '{"private": true}' > "$prefix/package.json"
        npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error @modelcontextprotocol/sdk@1 >/dev/null \
            || { harness_fail "could not install @modelcontextprotocol/sdk from the npm registry"; return 1; }
    fi
    ZEUS_TEST_MCP_SDK="$prefix"
    export ZEUS_TEST_MCP_SDK
    echo "harness: @modelcontextprotocol/sdk $(node -p "require('$prefix/node_modules/@modelcontextprotocol/sdk/package.json').version")"
}

# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) from the npm registry, in the same
# cache as the SDK; exports ZEUS_TEST_MCP_CONFORMANCE for tests/e2e/mcp/conformance.sh.
ensure_mcp_conformance() {
    local version=0.1.16
    local prefix="${XDG_CACHE_HOME:-$HOME/.cache}/zeus-test-tools/mcp-conformance"
    local installed="$prefix/node_modules/@modelcontextprotocol/conformance/package.json"
    if [ -n "${ZEUS_TEST_MCP_CONFORMANCE:-}" ] && [ -f "$ZEUS_TEST_MCP_CONFORMANCE/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
        return 0
    fi
    if [ ! -f "$installed" ] || [ "$(node -p "require('$installed').version" 2>/dev/null)" != "$version" ]; then
        command -v npm >/dev/null 2>&1 \
            || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null \
            || { harness_fail "could not install npm"; return 1; }
        mkdir -p "$prefix" && echo '{"private": true}' > "$prefix/package.json"
        npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$version" >/dev/null \
            || { harness_fail "could not install @modelcontextprotocol/conformance from the npm registry"; return 1; }
    fi
    ZEUS_TEST_MCP_CONFORMANCE="$prefix"
    export ZEUS_TEST_MCP_CONFORMANCE
    echo "harness: @modelcontextprotocol/conformance $version"
}

stop_engines() {
    set +e  # best effort: a process that is already gone is fine
    stop_remote_dockerd
    stop_private_dockerd
    [ -n "${ZEUS_TEST_ROOTFS:-}" ] && rm -f "$ZEUS_TEST_ROOTFS"
    [ -n "${ZEUS_PODMAN_DIR:-}" ] && rm -rf "$ZEUS_PODMAN_DIR"
    return 0
}

# Runs "$@" on a private session bus with an unlocked gnome-keyring.
with_keyring() {
    if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dbus dbus-x11 gnome-keyring libsecret-tools >/dev/null \
            || { harness_fail "could not install gnome-keyring"; return 1; }
    fi
    local keyring_home; keyring_home=$(mktemp -d /tmp/zeus-keyring.XXXXXX)
    mkdir -p "$keyring_home/run" "$keyring_home/data" && chmod 700 "$keyring_home/run"
    XDG_DATA_HOME="$keyring_home/data" XDG_RUNTIME_DIR="$keyring_home/run" \
        dbus-run-session -- "$harness_dir/keyring-session.sh" "$@"
    local rc=$?
    rm -rf "$keyring_home"
    return $rc
}
