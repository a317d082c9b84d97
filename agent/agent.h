/* SPDX-License-Identifier: Apache-2.0
 *
 * The agent's one state: every call, tunnel, listener and buffer lives in one struct agent_state that main.c owns
 * and hands to each concern (outq.c, calls.c, exec.c, sweep.c, tunnels.c). No other file keeps state of its own.
 */
#ifndef ZEUS_AGENT_AGENT_H
#define ZEUS_AGENT_AGENT_H

#include "protocol.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum {
    /* One environment string may hold at most MAX_ARG_STRLEN (32 pages) bytes: a long command
     * travels in several variables of at most this size. */
    CMD_CHUNK = 65536,
    /* Past this much queued output no pipe or socket is read, whatever the windows allow. */
    OUTQ_SOFT = 1 << 20,
    SWEEP_RETRY_MS = 5,
    SWEEP_GIVE_UP_MS = 5000,
    TAG_LEN = 32, /* hex digits of ZEUS_CALL_TAG */
};

enum { STOP_NONE = 0, STOP_TERM, STOP_KILL };

/* The lane (lane.c): none, connected to the app's socket (frames still on stdin and stdout), or switched (every frame
 * both ways on the lane; stdin only says the end). */
enum { LANE_NONE = 0, LANE_CONNECTED, LANE_SWITCHED };

struct call {
    int used;
    uint32_t id;
    pid_t pid;
    int reaped; /* the shell was waited for: its pid may be reused, never signal it again */
    int status;
    int fd[2];        /* our ends of stdout, stderr; -1 once closed */
    size_t remain[2]; /* once reaped: bytes still in the pipe that the shell's side wrote */
    uint64_t window;  /* output bytes we may still send */
    int fdin;         /* our end of the command's stdin, -1 when none or closed */
    int has_stdin, in_eof, in_broken;
    unsigned char* inq;
    size_t inlen;
    uint32_t in_credit; /* stdin bytes the app may still send */
    uint64_t deadline;  /* 0: no timeout */
    uint32_t grace;
    int stop, reason;
    uint64_t kill_at, next_sweep, sweep_began;
    unsigned long long start; /* the shell's start time (clock ticks since boot, as /proc/PID/stat says) */
    size_t tagrec;            /* this call's entry in tags[] */
    char tag[TAG_LEN + 1];
};

/* One connection: accepted on a proxy listener, or made to the container's loopback for the app (a published port).
 * Bytes both ways, nothing read from them. */
struct tunnel {
    int used;
    uint32_t id;
    int fd;
    int connecting;     /* `tunnel connect`: the connect is under way, nothing is read or written yet */
    uint64_t window;    /* bytes we may still send to the app */
    unsigned char* inq; /* bytes for the client: inq[inhead .. inhead + inlen), in a buffer of incap */
    size_t inhead, inlen, incap;
    uint32_t in_credit; /* bytes the app may still send us */
    int in_eof;         /* the app said its side is done: shut our write side once inq is written */
    int wr_shut, rd_eof;
    int handoff; /* the app asked for the socket: nothing more is read from it; it goes once inq is written */
};

struct listener {
    int fd;
    uint32_t kind;
};

/* Everything the agent sends, in order: frames are appended at the end and written from head. */
struct outq {
    int fd; /* where it is written: stdout (1), or the lane once the app switched to it */
    unsigned char* buf;
    size_t head, len, cap;
    /* Client sockets handed over (the lane only): they ride on the next write, at or before their `tunnel handed`
     * frame, and are closed here once written. */
    int pass[MAX_PASS];
    int npass;
};

/* Every tag this agent handed out, with the window of its call (start and end in clock ticks since boot; end is
 * ULLONG_MAX while the call lasts). `close` kills whatever still carries one; a stop uses the windows to tell
 * another call's processes from its own (docs/agent-protocol.md, "Which processes belong to a call"). */
struct tagrec {
    char tag[TAG_LEN + 1];
    unsigned long long start, end;
};

/* One process as /proc/PID/stat shows it, for a sweep. */
struct proc {
    pid_t pid, ppid, sid;
    unsigned long long start; /* clock ticks since boot */
    char state;
    int mark;
};

/* Buffers kept between sweeps, so a sweep every few milliseconds does not allocate. */
struct scratch {
    char* file; /* a /proc file's text */
    size_t filecap;
    char* env; /* a process's environment: wiped after each read */
    size_t envcap;
    struct proc* procs;
    size_t procscap;
    size_t* path;
    size_t pathcap;
};

struct agent_state {
    struct call calls[MAX_CALLS];
    struct tunnel tunnels[MAX_TUNNELS];
    uint32_t next_tunnel;
    struct listener listeners[MAX_LISTENERS];
    int nlisteners;
    int sigfd;
    int in_open; /* 0 once stdin ended: the same as `close` */
    pid_t self_pid;
    unsigned long long ticks_per_s;
    struct outq out;      /* everything the agent sends from now on */
    struct outq out_pipe; /* once switched to the lane: what was still queued for stdout, written before it closes */
    int lane_fd;
    int lane;  /* LANE_* */
    int in_fd; /* where frames come from: stdin (0), or the lane once switched */
    struct tagrec* tags;
    size_t ntags, captags;
    struct scratch scratch;
    size_t inlen;
    unsigned char inbuf[FRAME_HEADER + MAX_IN_PAYLOAD];
};

/* Ends the agent (main.c): kills every process any call started or left behind, says how each call ended when
 * send_frames is set, and exits with code. */
_Noreturn void shutdown_all(struct agent_state* st, int code, int send_frames);
/* A frame the protocol forbids: `error` on channel 0, then the end (main.c). */
_Noreturn void protocol_error(struct agent_state* st, const char* msg);

#endif
