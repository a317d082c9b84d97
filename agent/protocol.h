/* SPDX-License-Identifier: Apache-2.0
 *
 * The wire format of docs/agent-protocol.md: the numbers zeus-sandbox-agent, its test (tests/agent_test.c) and
 * the app (core/sandbox/agent/agentframe.h) must agree on. tests/unit/sandbox/agent/tst_agentprotocol.cpp compares them
 * with the app's at compile time, so a change on one side only does not build.
 *
 * Plain C11, constants only: no includes and no functions, so a C++ file may include it inside a namespace.
 */
#ifndef ZEUS_AGENT_PROTOCOL_H
#define ZEUS_AGENT_PROTOCOL_H

enum {
    PROTOCOL_VERSION = 4, /* in `hello` */
    /* Every frame: u32 payload length, u8 type, u32 channel (big-endian), then the payload. */
    FRAME_HEADER = 9,
    MAX_IN_PAYLOAD = 1 << 20,  /* app -> agent */
    MAX_OUT_PAYLOAD = 1 << 16, /* agent -> app */
    MAX_CHUNK = 32768,         /* one stdout, stderr or tunnel data frame */
    WINDOW0 = 256 * 1024,      /* a call's windows (both ways) and a tunnel's toward the app, to start */
    /* What the app may send on a tunnel before the agent wrote it to the client: a download's window. Wider
     * than a call's because a download is the bulk of egress; it is buffered in the agent, inside the container. */
    TUNNEL_IN_WINDOW = 2 * 1024 * 1024,
    MAX_CALLS = 64, /* live calls (channels) */
    MAX_TUNNELS = 256,
    /* The two proxy listeners and at most 16 exposed host ports (--expose-host). */
    MAX_LISTENERS = 18,
    /* `exec` payload: u32 timeout_ms, u32 grace_ms, u32 flags, u32 env_count, then the strings. */
    EXEC_FIXED = 16,
    EXEC_FLAG_STDIN = 0x1,
    /* The listeners the app asks for with the allowlist network; `connect HOST PORT` goes through the first. */
    HTTP_PROXY_PORT = 3128,
    SOCKS_PORT = 1080,
    /* The lane (docs/agent-protocol.md "The lane"): the key the agent presents on the app's Unix socket, and the
     * longest socket path a `lane` frame may name (sockaddr_un's sun_path less its NUL). */
    LANE_KEY = 32,
    LANE_MAX_PATH = 107,
    /* A tunnel handed over on the lane (docs/agent-protocol.md "Handing a tunnel over"): at most this many client
     * sockets ride on one write, and at most this many wait for their write. */
    MAX_PASS = 16,
};

/* A listener's kind, in `listen` and `tunnel open`; the agent echoes it and reads nothing in it. An exposed host port
 * (`--expose-host`) is LISTEN_EXPOSE ORed with the container port it listens on: the app learns from `tunnel open`
 * which of its exposed ports a connection came to, and refuses a port it did not ask for. */
enum { LISTEN_HTTP_PROXY = 1, LISTEN_SOCKS5 = 2, LISTEN_EXPOSE = 0x30000 };

/* Why a call ended, in `exit`. */
enum { REASON_SELF = 0, REASON_TIMEOUT = 1, REASON_STOP = 2 };

/* Frame types: app -> agent, then agent -> app (high bit set). */
enum {
    T_EXEC = 0x02,
    T_STDIN = 0x03,
    T_SIGNAL = 0x04,
    T_STOP = 0x05,
    T_WINDOW = 0x06,
    T_CLOSE = 0x07,
    T_LISTEN = 0x08,
    T_TDATA = 0x09,
    T_TCLOSE = 0x0A,
    T_TCONNECT = 0x0B,
    T_LANE = 0x0C,
    T_THANDOFF = 0x0D,
    T_HELLO = 0x81,
    T_STARTED = 0x82,
    T_STDOUT = 0x83,
    T_STDERR = 0x84,
    T_EXIT = 0x85,
    T_ERROR = 0x86,
    T_WINDOW_OUT = 0x87,
    T_TOPEN = 0x88,
    T_TDATA_OUT = 0x89,
    T_TCLOSED = 0x8A,
    T_LISTENING = 0x8B,
    T_TCONNECTED = 0x8C,
    T_LANE_OUT = 0x8D,
    T_THANDED = 0x8E,
};

/* Tunnel ids carry this bit (the agent picks them), so they never meet a call's. Not an enum constant: C11's
 * must fit an int. */
#define TUNNEL_BIT 0x80000000u
/* A tunnel the app asked for (`tunnel connect`, published ports) carries this bit too: the app picks those ids,
 * the agent picks the others below it, so the two never meet. */
#define TUNNEL_APP_BIT 0x40000000u

#endif
