/* SPDX-License-Identifier: Apache-2.0
 *
 * zeus-sandbox-agent: runs inside a session's container and runs the app's commands there,
 * speaking the framed protocol of docs/agent-protocol.md on stdin/stdout. It decides nothing:
 * it starts processes, moves bytes and kills what it started.
 *
 * One thread, one poll() loop (this file). Everything the agent sends goes through one output queue (outq.c),
 * and a call's pipes are read only while that call has window left, so memory is bounded by the
 * windows the app grants. Linux only; linked statically so it runs in any image.
 */
#define _GNU_SOURCE
#include "agent.h"
#include "calls.h"
#include "connect.h"
#include "exec.h"
#include "lane.h"
#include "outq.h"
#include "sweep.h"
#include "tunnels.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef ZEUS_AGENT_VERSION
#define ZEUS_AGENT_VERSION "dev"
#endif

/* What the loop polls, rebuilt on each turn: the signals, stdin, stdout, the lane, then per call its pipes (from
 * FIRST_CALL on), then the listeners and the tunnels (from first_net on). */
enum { FIRST_CALL = 4, NPOLL = FIRST_CALL + 3 * MAX_CALLS + MAX_LISTENERS + MAX_TUNNELS };
enum { P_STDOUT = 0, P_STDERR = 1, P_STDIN = 2, P_LISTENER = 3, P_TUNNEL = 4, P_OWN = -1 };
struct pollset {
    struct pollfd pfd[NPOLL];
    struct call* owner[NPOLL];
    int kind[NPOLL]; /* P_* */
    int slot[NPOLL]; /* P_LISTENER, P_TUNNEL: the listener's or the tunnel's index */
    int n, first_net;
};

/* Kills every process any call started or left behind (descendants of the agent, which every
 * orphan of a call is re-parented to, and whatever carries one of our tags), then exits. */
void shutdown_all(struct agent_state* st, int code, int send_frames) {
    uint64_t until = now_ms() + SWEEP_GIVE_UP_MS;
    for (int i = 0; i < MAX_CALLS; i++) {
        if (st->calls[i].used && !st->calls[i].reaped && st->calls[i].stop == STOP_NONE) {
            st->calls[i].reason = REASON_STOP;
        }
    }
    for (;;) {
        /* Descendants first, while the parent links still lead to them; then the groups. */
        size_t found = sweep_all(st, 1);
        for (int i = 0; i < MAX_CALLS; i++) {
            if (st->calls[i].used && !st->calls[i].reaped) {
                killpg(st->calls[i].pid, SIGKILL);
            }
        }
        reap(st);
        if (found == 0 || now_ms() > until) {
            break;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* the shells are dead: wait for the last of them so their exit status is known */
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &st->calls[i];
        if (c->used && !c->reaped && waitpid(c->pid, &c->status, 0) == c->pid) {
            c->reaped = 1;
        }
        if (c->used) {
            end_call(st, c);
        }
    }
    if (send_frames) {
        flush_out_before_exit(&st->out_pipe); /* what stdout still had before the lane took over */
        flush_out_before_exit(&st->out);
    }
    exit(code);
}

void protocol_error(struct agent_state* st, const char* msg) {
    note(msg);
    put_error(&st->out, 0, msg);
    shutdown_all(st, 1, 1);
}

static void handle_frame(struct agent_state* st, uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    if (type == T_CLOSE) {
        if (ch != 0 || n != 0) {
            protocol_error(st, "bad close frame");
        }
        shutdown_all(st, 0, 1);
    }
    if (type == T_LISTEN) {
        if (ch != 0) {
            protocol_error(st, "listen on a channel");
        }
        do_listen(st, p, n);
        return;
    }
    if (type == T_LANE) {
        if (ch != 0) {
            protocol_error(st, "lane on a channel");
        }
        lane_frame(st, p, n);
        return;
    }
    if (type == T_TCONNECT) {
        do_connect(st, ch, p, n);
        return;
    }
    if (ch & TUNNEL_BIT) {
        tunnel_frame(st, type, ch, p, n);
        return;
    }
    if (type == T_TDATA || type == T_TCLOSE) {
        protocol_error(st, "a tunnel frame on a call's channel");
    }
    if (ch == 0) {
        protocol_error(st, "a call's frame on channel 0");
    }
    if (type == T_EXEC) {
        exec_call(st, ch, p, n);
        return;
    }
    call_frame(st, type, ch, p, n);
}

/* Frames from the app: on stdin, or on the lane once switched. */
static void read_input(struct agent_state* st) {
    const int from = st->in_fd;
    ssize_t n;
    do {
        n = read(from, st->inbuf + st->inlen, sizeof st->inbuf - st->inlen);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
    }
    if (n <= 0) {
        st->in_open = 0; /* end of file: the same as `close` */
        return;
    }
    st->inlen += (size_t)n;
    size_t off = 0;
    while (st->inlen - off >= FRAME_HEADER) {
        uint32_t len = get32(st->inbuf + off);
        uint8_t type = st->inbuf[off + 4];
        uint32_t ch = get32(st->inbuf + off + 5);
        if (len > MAX_IN_PAYLOAD) {
            protocol_error(st, "frame over the size limit");
        }
        if (type < T_EXEC || type > T_THANDOFF) {
            protocol_error(st, "unknown frame type");
        }
        if (st->inlen - off < FRAME_HEADER + (size_t)len) {
            break;
        }
        handle_frame(st, type, ch, st->inbuf + off + FRAME_HEADER, len);
        off += FRAME_HEADER + len;
        if (st->in_fd != from && st->inlen != off) {
            protocol_error(st, "a frame on stdin after the switch to the lane");
        }
    }
    memmove(st->inbuf, st->inbuf + off, st->inlen - off);
    st->inlen -= off;
    wipe(st->inbuf + st->inlen, off); /* what is past inlen stays zero: a child's copy holds no earlier frame */
}

/* Once the frames moved to the lane, stdin only says the end: anything else on it is a protocol error (the app
 * sends each frame once, on one transport, so its order stays). */
static void read_stdin_after_switch(struct agent_state* st) {
    unsigned char b[64];
    ssize_t n;
    do {
        n = read(0, b, sizeof b);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        protocol_error(st, "a frame on stdin after the switch to the lane");
    }
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
        st->in_open = 0;
    }
}

static void poll_add(struct pollset* ps, int fd, short events, struct call* owner, int kind, int slot) {
    ps->pfd[ps->n] = (struct pollfd){.fd = fd, .events = events};
    ps->owner[ps->n] = owner;
    ps->kind[ps->n] = kind;
    ps->slot[ps->n] = slot;
    ps->n++;
}

static void build_pollset(struct agent_state* st, struct pollset* ps) {
    ps->n = 0;
    poll_add(ps, st->sigfd, POLLIN, NULL, P_OWN, 0);
    poll_add(ps, 0, POLLIN, NULL, P_OWN, 0);
    const int switched = st->lane == LANE_SWITCHED;
    const struct outq* pipe = switched ? &st->out_pipe : &st->out;
    poll_add(ps, pipe->len > 0 ? 1 : -1, POLLOUT, NULL, P_OWN, 0);
    poll_add(ps, switched ? st->lane_fd : -1, (short)(POLLIN | (st->out.len > 0 ? POLLOUT : 0)), NULL, P_OWN, 0);
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &st->calls[i];
        if (!c->used) {
            continue;
        }
        for (int k = 0; k < 2; k++) {
            if (c->fd[k] >= 0 && c->window > 0 && st->out.len < OUTQ_SOFT && (c->stop == STOP_NONE || !c->reaped)) {
                poll_add(ps, c->fd[k], POLLIN, c, k, 0);
            }
        }
        if (c->fdin >= 0 && c->inlen > 0) {
            poll_add(ps, c->fdin, POLLOUT, c, P_STDIN, 0);
        }
    }
    ps->first_net = ps->n;
    int tunnels_free = 0;
    for (int i = 0; i < MAX_TUNNELS; i++) {
        tunnels_free += !st->tunnels[i].used;
    }
    for (int k = 0; k < st->nlisteners; k++) {
        poll_add(ps, tunnels_free > 0 ? st->listeners[k].fd : -1, POLLIN, NULL, P_LISTENER, k);
    }
    for (int i = 0; i < MAX_TUNNELS; i++) {
        const struct tunnel* t = &st->tunnels[i];
        if (!t->used) {
            continue;
        }
        short ev = 0;
        if (t->connecting) {
            poll_add(ps, t->fd, POLLOUT, NULL, P_TUNNEL, i); /* writable: the connect is done */
            continue;
        }
        if (!t->rd_eof && !t->handoff && t->window > 0 && st->out.len < OUTQ_SOFT) {
            ev |= POLLIN;
        }
        if (t->inlen > 0 || (t->in_eof && !t->wr_shut)) {
            ev |= POLLOUT;
        }
        poll_add(ps, ev ? t->fd : -1, ev, NULL, P_TUNNEL, i);
    }
}

static void handle_signals(struct agent_state* st) {
    struct signalfd_siginfo si;
    while (read(st->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo != SIGCHLD) {
            note("terminated by a signal: stopping every call");
            shutdown_all(st, 1, 1);
        }
    }
    reap(st);
}

static void handle_net(struct agent_state* st, const struct pollset* ps) {
    for (int i = ps->first_net; i < ps->n; i++) {
        if (ps->kind[i] == P_LISTENER) {
            if (ps->pfd[i].revents) {
                accept_tunnel(st, ps->slot[i]);
            }
            continue;
        }
        struct tunnel* t = &st->tunnels[ps->slot[i]];
        /* A frame handled above may have ended this tunnel (and an accept may have reused its slot). */
        if (!ps->pfd[i].revents || !t->used || ps->pfd[i].fd != t->fd) {
            continue;
        }
        if (t->connecting) {
            tunnel_connect_done(st, t);
            continue;
        }
        if (ps->pfd[i].revents & (POLLOUT | POLLERR | POLLHUP)) {
            tunnel_feed(st, t);
        }
        if (t->used && (ps->pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) && !t->rd_eof && !t->handoff) {
            tunnel_pump(st, t);
        }
    }
}

static void handle_pipes(struct agent_state* st, const struct pollset* ps) {
    for (int i = FIRST_CALL; i < ps->first_net; i++) {
        struct call* c = ps->owner[i];
        if (!ps->pfd[i].revents || !c->used) {
            continue;
        }
        if (ps->kind[i] == P_STDIN) {
            feed_stdin(st, c);
        } else if (c->stop == STOP_NONE || !c->reaped) {
            pump(st, c, ps->kind[i]);
        }
    }
}

static _Noreturn void run_loop(struct agent_state* st) {
    struct pollset ps;
    for (;;) {
        int waiting;
        do {
            /* A write carries at most MAX_PASS sockets: while it took them all and more wait, the next go at once
             * (poll would not wake for them). */
            waiting = tunnel_handoffs(st);
            if (flush_out(&st->out_pipe) < 0 || flush_out(&st->out) < 0) {
                note("the app is gone (stdout or the lane closed)");
                shutdown_all(st, 1, 0);
            }
        } while (waiting > 0 && st->out.npass == 0 && st->out.len == 0);
        if (!st->in_open) {
            /* Before the switch, stdin's end is the same as `close`. After it, stdin is held by the engine's exec
             * session and the lane by the app: either ending means the engine or the app went away, and the app
             * reports the running calls as such (container_failed); exit frames on a lane still open would tell
             * it instead that they were stopped. */
            shutdown_all(st, 0, st->lane != LANE_SWITCHED);
        }
        build_pollset(st, &ps);
        int r = poll(ps.pfd, (nfds_t)ps.n, next_timeout(st));
        if (r < 0 && errno != EINTR) {
            note("poll failed");
            shutdown_all(st, 1, 1);
        }
        if (r > 0 && ps.pfd[0].revents) {
            handle_signals(st);
        }
        if (r > 0 && ps.pfd[1].revents) {
            if (st->lane == LANE_SWITCHED) {
                read_stdin_after_switch(st);
            } else {
                read_input(st);
            }
        }
        if (r > 0 && ps.pfd[3].revents && st->in_open) {
            read_input(st);
        }
        if (r > 0) {
            handle_net(st, &ps);
            handle_pipes(st, &ps);
        }
        reap(st);
        on_timers(st);
        finish_calls(st);
    }
}

/* The agent's process as the protocol needs it: out of the commands' reach, the signals it handles on a
 * descriptor, the subreaper of every orphan, non-blocking stdin and stdout. Returns -1 when it cannot run. */
static int setup(struct agent_state* st) {
    for (int i = 0; i < MAX_TUNNELS; i++) {
        st->tunnels[i].fd = -1;
    }
    st->next_tunnel = 1;
    st->sigfd = -1;
    st->in_open = 1;
    st->out.fd = 1;
    st->in_fd = 0;
    st->lane_fd = -1;
    st->ticks_per_s = 100;
    /* Out of the commands' reach (SPEC §7): a process that is not dumpable has its /proc files (fd, environ,
     * mem) closed to every process without CAP_SYS_PTRACE, the same user's included, and cannot be traced.
     * So no command can read the frames on our stdin (later commands, their secrets) or write to our stdout. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        note("cannot make itself non-dumpable: commands can reach the agent's descriptors");
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz > 0) {
        st->ticks_per_s = (unsigned long long)hz;
    }
    st->self_pid = getpid();
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    st->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (st->sigfd < 0) {
        note("signalfd failed");
        return -1;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        note("cannot become a child subreaper");
    }
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("zeus-sandbox-agent %s\n", ZEUS_AGENT_VERSION);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "connect") == 0) {
        return run_connect(argv[2], argv[3]);
    }
    if (argc != 1) {
        fprintf(stderr,
                "usage: zeus-sandbox-agent [--version | connect HOST PORT]\n"
                "Speaks the framed protocol of docs/agent-protocol.md on stdin and stdout;\n"
                "`connect` is an ssh ProxyCommand through the egress proxy on 127.0.0.1:3128.\n");
        return 2;
    }
    /* Static: the input buffer alone is a megabyte. */
    static struct agent_state state;
    if (setup(&state) != 0) {
        return 1;
    }
    unsigned char hello[4 + sizeof ZEUS_AGENT_VERSION - 1];
    put32(hello, PROTOCOL_VERSION);
    memcpy(hello + 4, ZEUS_AGENT_VERSION, sizeof ZEUS_AGENT_VERSION - 1);
    put_frame(&state.out, T_HELLO, 0, hello, sizeof hello);
    run_loop(&state);
}
