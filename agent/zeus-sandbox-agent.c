/* SPDX-License-Identifier: Apache-2.0
 *
 * zeus-sandbox-agent: runs inside a session's container and runs the app's commands there,
 * speaking the framed protocol of docs/agent-protocol.md on stdin/stdout. It decides nothing:
 * it starts processes, moves bytes and kills what it started.
 *
 * One thread, one poll() loop. Everything the agent sends goes through one output queue, and
 * a call's pipes are read only while that call has window left, so memory is bounded by the
 * windows the app grants. Linux only; linked statically so it runs in any image.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef ZEUS_AGENT_VERSION
#define ZEUS_AGENT_VERSION "dev"
#endif
#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture (generic syscall table) */
#endif

enum {
    HDR = 9,
    MAX_IN_PAYLOAD = 1 << 20,
    MAX_CHUNK = 32768,
    WINDOW0 = 256 * 1024,
    /* What the app may send on a tunnel before the agent wrote it to the client: a download's window. Wider
     * than a call's because a download is the bulk of egress; it is buffered here, inside the container. */
    TUNNEL_IN_WINDOW = 2 * 1024 * 1024,
    MAX_CALLS = 64,
    /* One environment string may hold at most MAX_ARG_STRLEN (32 pages) bytes: a long command
     * travels in several variables of at most this size. */
    CMD_CHUNK = 65536,
    /* Past this much queued output no pipe is read, whatever the windows allow. */
    OUTQ_SOFT = 1 << 20,
    SWEEP_RETRY_MS = 5,
    SWEEP_GIVE_UP_MS = 5000,
    /* Egress tunnels (SPEC §8): accepted connections on the proxy listeners, ids chosen here. */
    MAX_TUNNELS = 256,
    MAX_LISTENERS = 4,
    PROXY_PORT = 3128,
    CONNECT_HEAD_MAX = 8192,
};
#define TUNNEL_BIT 0x80000000u

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
};

enum { REASON_SELF = 0, REASON_TIMEOUT = 1, REASON_STOP = 2 };
enum { STOP_NONE = 0, STOP_TERM, STOP_KILL };

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
    char tag[33];
};

static struct call calls[MAX_CALLS];

/* One accepted connection on a proxy listener: bytes both ways, nothing read from them. */
struct tunnel {
    int used;
    uint32_t id;
    int fd;
    uint64_t window; /* bytes we may still send to the app */
    unsigned char* inq;
    size_t inlen;
    uint32_t in_credit; /* bytes the app may still send us */
    int in_eof;         /* the app said its side is done: shut our write side once inq is written */
    int wr_shut, rd_eof;
};

static struct tunnel tunnels[MAX_TUNNELS];
static uint32_t next_tunnel = 1;
static struct {
    int fd;
    uint32_t kind;
} listeners[MAX_LISTENERS];
static int nlisteners;
static int sigfd = -1;
static int in_open = 1;
static pid_t self_pid;

static struct {
    unsigned char* buf;
    size_t head, len, cap;
} outq;

static unsigned char inbuf[HDR + MAX_IN_PAYLOAD];
static size_t inlen;

/* Every tag this agent handed out, with the window of its call (start and end in clock ticks since boot; end is
 * ULLONG_MAX while the call lasts). `close` kills whatever still carries one; a stop uses the windows to tell
 * another call's processes from its own (docs/agent-protocol.md, "Which processes belong to a call"). */
struct tagrec {
    char tag[33];
    unsigned long long start, end;
};
static struct tagrec* tags;
static size_t ntags, captags;
static unsigned long long ticks_per_s = 100;

static void shutdown_all(int code, int send_frames) __attribute__((noreturn));

static void note(const char* msg) {
    /* Short, fixed messages only: never a command or an environment value. */
    char line[256];
    int n = snprintf(line, sizeof line, "zeus-sandbox-agent: %s\n", msg);
    if (n > 0) {
        ssize_t ignored = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)ignored;
    }
}

static void* xrealloc(void* p, size_t n) {
    void* q = realloc(p, n);
    if (!q) {
        note("out of memory");
        _exit(1);
    }
    return q;
}

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Now in clock ticks since boot: the clock of /proc/PID/stat's start time. */
static unsigned long long boot_ticks(int round_up) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    unsigned long long per_tick = 1000000000ull / ticks_per_s;
    unsigned long long ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    return ns / per_tick + (round_up ? 1 : 0);
}

/* Wipes memory that may hold a secret before it is freed or handed to a child (see do_exec). */
static void wipe(void* p, size_t n) {
    if (p && n > 0) {
        explicit_bzero(p, n);
    }
}

/* realloc that leaves no copy behind in the freed block. */
static void* grow_wiped(void* p, size_t used, size_t n) {
    void* q = xrealloc(NULL, n);
    if (p) {
        memcpy(q, p, used);
        wipe(p, used);
        free(p);
    }
    return q;
}

static uint32_t get32(const unsigned char* p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* ---- output queue ----------------------------------------------------------------------- */

static unsigned char* outq_reserve(size_t n) {
    if (outq.head > 0 && outq.head + outq.len + n > outq.cap) {
        memmove(outq.buf, outq.buf + outq.head, outq.len);
        outq.head = 0;
    }
    if (outq.head + outq.len + n > outq.cap) {
        size_t cap = outq.cap ? outq.cap : 65536;
        while (cap < outq.len + n) {
            cap *= 2;
        }
        outq.buf = grow_wiped(outq.buf, outq.cap, cap);
        outq.cap = cap;
    }
    return outq.buf + outq.head + outq.len;
}

static void put_header(unsigned char* p, uint32_t len, uint8_t type, uint32_t ch) {
    put32(p, len);
    p[4] = type;
    put32(p + 5, ch);
}

static void put_frame(uint8_t type, uint32_t ch, const void* payload, size_t n) {
    unsigned char* p = outq_reserve(HDR + n);
    put_header(p, (uint32_t)n, type, ch);
    if (n > 0) {
        memcpy(p + HDR, payload, n);
    }
    outq.len += HDR + n;
}

static void put_u32_frame(uint8_t type, uint32_t ch, uint32_t v) {
    unsigned char b[4];
    put32(b, v);
    put_frame(type, ch, b, 4);
}

static void put_error(uint32_t ch, const char* msg) {
    put_frame(T_ERROR, ch, msg, strlen(msg));
}

/* Writes what stdout takes now. Returns -1 when the app is gone (EPIPE or another error). */
static int flush_out(void) {
    while (outq.len > 0) {
        ssize_t n = write(1, outq.buf + outq.head, outq.len);
        if (n > 0) {
            outq.head += (size_t)n;
            outq.len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        }
        return -1;
    }
    outq.head = 0;
    return 0;
}

/* The last frames before exiting: wait for stdout a little, never forever. */
static void flush_out_before_exit(void) {
    uint64_t until = now_ms() + 2000;
    while (outq.len > 0 && now_ms() < until) {
        if (flush_out() < 0) {
            return;
        }
        struct pollfd p = {.fd = 1, .events = POLLOUT};
        if (outq.len > 0 && poll(&p, 1, 100) < 0 && errno != EINTR) {
            return;
        }
    }
}

/* ---- /proc sweep ------------------------------------------------------------------------ */

struct proc {
    pid_t pid, ppid, sid;
    unsigned long long start; /* clock ticks since boot */
    char state;
    int mark;
};

static int cmp_proc(const void* a, const void* b) {
    pid_t x = ((const struct proc*)a)->pid, y = ((const struct proc*)b)->pid;
    return (x > y) - (x < y);
}

static size_t read_file(const char* path, char** buf, size_t* cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    size_t len = 0;
    for (;;) {
        if (len + 4096 > *cap) {
            *cap = *cap ? *cap * 2 : 65536;
            *buf = xrealloc(*buf, *cap);
        }
        ssize_t n = read(fd, *buf + len, *cap - len - 1);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    (*buf)[len] = 0;
    return len;
}

static size_t scan_proc(struct proc** procs, size_t* cap) {
    static char* buf;
    static size_t bufcap;
    size_t n = 0;
    DIR* d = opendir("/proc");
    if (!d) {
        return 0;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        char* end;
        long pid = strtol(e->d_name, &end, 10);
        if (*e->d_name < '1' || *e->d_name > '9' || *end || pid == self_pid) {
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (read_file(path, &buf, &bufcap) == 0) {
            continue;
        }
        /* "pid (comm) S ppid ...": comm may hold anything, so parse after the last ')'. */
        char* rp = strrchr(buf, ')');
        char state;
        int ppid, pgrp, sid;
        unsigned long long start;
        /* fields 3 to 6 (state, ppid, pgrp, session), then 22 (starttime) */
        if (!rp
            || sscanf(rp + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &state,
                      &ppid, &pgrp, &sid, &start)
                   != 5) {
            continue;
        }
        if (n == *cap) {
            *cap = *cap ? *cap * 2 : 256;
            *procs = xrealloc(*procs, *cap * sizeof **procs);
        }
        (*procs)[n++] =
            (struct proc){.pid = (pid_t)pid, .ppid = ppid, .sid = sid, .start = start, .state = state, .mark = 0};
    }
    closedir(d);
    qsort(*procs, n, sizeof **procs, cmp_proc);
    return n;
}

/* The ZEUS_CALL_TAG a process carries in its environment, if any (into out, NUL-terminated). */
static int env_tag(pid_t pid, char out[33]) {
    static char* buf;
    static size_t bufcap;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    size_t len = read_file(path, &buf, &bufcap);
    static const char key[] = "ZEUS_CALL_TAG=";
    int found = 0;
    for (size_t i = 0; i < len && !found;) {
        size_t l = strnlen(buf + i, len - i);
        if (l == sizeof key - 1 + 32 && memcmp(buf + i, key, sizeof key - 1) == 0) {
            memcpy(out, buf + i + sizeof key - 1, 32);
            out[32] = 0;
            found = 1;
        }
        i += l + 1;
    }
    wipe(buf, len); /* another command's environment, secrets included: no copy stays here */
    return found;
}

static struct tagrec* find_tag(const char* tag) {
    for (size_t k = ntags; k-- > 0;) {
        if (memcmp(tags[k].tag, tag, 32) == 0) {
            return &tags[k];
        }
    }
    return NULL;
}

/* One pass for `close`: the live processes that descend from the agent (by parent links) or carry one of its
 * tags. With kill_them they get SIGKILL. Returns how many were found; zombies do not count (they are dead, only
 * not yet reaped). */
static size_t sweep_all(int kill_them) {
    static struct proc* procs;
    static size_t cap;
    size_t n = scan_proc(&procs, &cap), found = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (procs[i].mark) {
                continue;
            }
            int in = procs[i].ppid == self_pid;
            if (!in) {
                struct proc key = {.pid = procs[i].ppid};
                struct proc* parent = bsearch(&key, procs, n, sizeof *procs, cmp_proc);
                in = parent && parent->mark;
            }
            if (in) {
                procs[i].mark = 1;
                changed = 1;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (procs[i].state == 'Z' || procs[i].state == 'X') {
            continue;
        }
        char tag[33];
        if (procs[i].pid == 1 || (!procs[i].mark && !(env_tag(procs[i].pid, tag) && find_tag(tag)))) {
            continue;
        }
        found++;
        if (kill_them) {
            kill(procs[i].pid, SIGKILL);
        }
    }
    return found;
}

enum { V_UNDECIDED = 0, V_IN, V_OUT };

/* What one process says about itself, for the stop of call c: V_IN (c's), V_OUT (not c's) or V_UNDECIDED (its
 * parent decides). Every test but the tag's rests on what a process cannot change or fake: its pid, its
 * session (it can only leave one for a new one of its own), its parent and its start time. */
static int judge(const struct call* c, const struct proc* p) {
    if (p->pid == 1) {
        return V_OUT; /* the container's init: never */
    }
    if (p->pid == c->pid && !c->reaped) {
        return V_IN;
    }
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* d = &calls[i];
        if (d->used && d != c && !d->reaped && p->pid == d->pid) {
            return V_OUT; /* another call's shell, maybe before its own setsid */
        }
    }
    /* The call's shell leads its own session, and a session is inherited only: a process in the shell's session
     * descends from it. The id stays the shell's while anyone is in that session, even after the shell is gone. */
    if (p->sid == c->pid) {
        return V_IN;
    }
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* d = &calls[i];
        if (d->used && d != c && p->sid == d->pid) {
            return V_OUT;
        }
    }
    char tag[33];
    if (env_tag(p->pid, tag)) {
        if (memcmp(tag, c->tag, 32) == 0) {
            return V_IN; /* whoever carries this call's tag goes with it, a copied one included */
        }
        /* Another call's tag counts only on a process that started during that call: a copied tag does not
         * shelter a process started later. */
        const struct tagrec* r = find_tag(tag);
        if (r && r->start <= p->start && p->start <= r->end) {
            return V_OUT;
        }
    }
    if (p->ppid == self_pid) {
        /* An orphan re-parented to the agent (the subreaper) whose own process says nothing: its start time
         * does. Started since this call's shell (in the same clock tick: a higher pid), it is this call's. */
        return p->start > c->start || (p->start == c->start && p->pid >= c->pid) ? V_IN : V_OUT;
    }
    return V_UNDECIDED;
}

/* One pass for the stop of call c: the live processes that belong to it (docs/agent-protocol.md, "Which
 * processes belong to a call"). Each process is judged by itself, else by its nearest ancestor that says
 * something; a process whose ancestors say nothing up to one outside the agent's tree is not the call's. With
 * kill_them they get SIGKILL. Returns how many were found; zombies do not count. */
static size_t sweep_call(const struct call* c, int kill_them) {
    static struct proc* procs;
    static size_t cap, pathcap;
    static size_t* path;
    size_t n = scan_proc(&procs, &cap), found = 0;
    if (pathcap < n) {
        pathcap = n;
        path = xrealloc(path, pathcap * sizeof *path);
    }
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0, j = i;
        int v;
        for (;;) {
            v = procs[j].mark ? procs[j].mark : judge(c, &procs[j]);
            if (v != V_UNDECIDED) {
                break;
            }
            struct proc key = {.pid = procs[j].ppid};
            struct proc* parent = key.pid > 0 ? bsearch(&key, procs, n, sizeof *procs, cmp_proc) : NULL;
            if (!parent || depth == n) {
                v = V_OUT; /* above the agent's tree (or a loop of reused pids in a scan that is not atomic) */
                break;
            }
            path[depth++] = j;
            j = (size_t)(parent - procs);
        }
        procs[j].mark = v;
        while (depth > 0) {
            procs[path[--depth]].mark = v;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (procs[i].mark != V_IN || procs[i].state == 'Z' || procs[i].state == 'X') {
            continue;
        }
        found++;
        if (kill_them) {
            kill(procs[i].pid, SIGKILL);
        }
    }
    return found;
}

/* ---- calls ------------------------------------------------------------------------------ */

static struct call* find_call(uint32_t id) {
    for (int i = 0; i < MAX_CALLS; i++) {
        if (calls[i].used && calls[i].id == id) {
            return &calls[i];
        }
    }
    return NULL;
}

static void close_fd(int* fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

static void end_call(struct call* c) {
    unsigned char b[6];
    int how = 0, value = 0;
    if (WIFSIGNALED(c->status)) {
        how = 1;
        value = WTERMSIG(c->status);
    } else {
        value = WEXITSTATUS(c->status);
    }
    b[0] = (unsigned char)how;
    put32(b + 1, (uint32_t)value);
    b[5] = (unsigned char)c->reason;
    put_frame(T_EXIT, c->id, b, sizeof b);
    close_fd(&c->fd[0]);
    close_fd(&c->fd[1]);
    close_fd(&c->fdin);
    wipe(c->inq, c->inlen);
    free(c->inq);
    tags[c->tagrec].end = boot_ticks(1);
    memset(c, 0, sizeof *c);
}

static void begin_stop(struct call* c, uint32_t grace, int reason) {
    uint64_t now = now_ms();
    if (c->stop == STOP_NONE) {
        if (!c->reaped) {
            c->reason = reason;
            killpg(c->pid, SIGTERM);
            killpg(c->pid, SIGCONT); /* a stopped process acts on SIGTERM only once continued */
        }
        c->stop = STOP_TERM;
        c->kill_at = now + grace;
        c->next_sweep = now + SWEEP_RETRY_MS;
    } else if (c->stop == STOP_TERM && now + grace < c->kill_at) {
        c->kill_at = now + grace; /* a later stop may shorten the grace, never lengthen it */
    }
}

static void kill_pass(struct call* c) {
    /* Descendants first, while the parent links still lead to them; then the group. */
    size_t found = sweep_call(c, 1);
    if (!c->reaped) {
        killpg(c->pid, SIGKILL);
        found++;
    }
    c->next_sweep = now_ms() + SWEEP_RETRY_MS;
    if (found == 0 && c->reaped) {
        end_call(c); /* output still in the pipes is dropped: the app asked for the end */
    } else if (now_ms() - c->sweep_began > SWEEP_GIVE_UP_MS && c->reaped) {
        note("a stopped call's process does not die; giving up on it");
        end_call(c);
    }
}

static void on_timers(void) {
    uint64_t now = now_ms();
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &calls[i];
        if (!c->used) {
            continue;
        }
        if (c->stop == STOP_NONE && c->deadline && now >= c->deadline && !c->reaped) {
            begin_stop(c, c->grace, REASON_TIMEOUT);
        }
        if (c->stop == STOP_TERM && now >= c->kill_at) {
            c->stop = STOP_KILL;
            c->sweep_began = now;
            kill_pass(c);
        } else if (c->stop == STOP_TERM && c->reaped && now >= c->next_sweep) {
            /* The shell is gone within the grace: end now if nothing of the call is left. */
            if (sweep_call(c, 0) == 0) {
                end_call(c);
            } else {
                c->next_sweep = now + SWEEP_RETRY_MS * 4;
            }
        } else if (c->stop == STOP_KILL && now >= c->next_sweep) {
            kill_pass(c);
        }
    }
}

static int next_timeout(void) {
    uint64_t now = now_ms(), next = UINT64_MAX;
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* c = &calls[i];
        if (!c->used) {
            continue;
        }
        if (c->stop == STOP_NONE && c->deadline && !c->reaped && c->deadline < next) {
            next = c->deadline;
        }
        if (c->stop == STOP_TERM && c->kill_at < next) {
            next = c->kill_at;
        }
        if ((c->stop == STOP_KILL || (c->stop == STOP_TERM && c->reaped)) && c->next_sweep < next) {
            next = c->next_sweep;
        }
    }
    if (next == UINT64_MAX) {
        return -1;
    }
    return next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
}

static void reap(void) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int i = 0; i < MAX_CALLS; i++) {
            struct call* c = &calls[i];
            if (c->used && !c->reaped && c->pid == pid) {
                c->reaped = 1;
                c->status = st;
                /* What is in the pipes now is the call's; what comes later is a background job's. */
                for (int k = 0; k < 2; k++) {
                    int avail = 0;
                    if (c->fd[k] >= 0 && ioctl(c->fd[k], FIONREAD, &avail) == 0 && avail > 0) {
                        c->remain[k] = (size_t)avail;
                    } else {
                        c->remain[k] = 0;
                    }
                }
            }
        }
    }
}

/* Reads one chunk of a call's stdout (k 0) or stderr (k 1) into a frame, as the window allows. */
static void pump(struct call* c, int k) {
    if (c->fd[k] < 0 || c->window == 0) {
        return;
    }
    size_t want = MAX_CHUNK;
    if (want > c->window) {
        want = (size_t)c->window;
    }
    if (c->reaped && want > c->remain[k]) {
        want = c->remain[k];
    }
    if (want == 0) {
        close_fd(&c->fd[k]); /* drained: the rest belongs to background jobs */
        return;
    }
    unsigned char* p = outq_reserve(HDR + want);
    ssize_t n;
    do {
        n = read(c->fd[k], p + HDR, want);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        put_header(p, (uint32_t)n, k == 0 ? T_STDOUT : T_STDERR, c->id);
        outq.len += HDR + (size_t)n;
        c->window -= (uint64_t)n;
        if (c->reaped) {
            c->remain[k] -= (size_t)n;
        }
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || c->reaped) {
        close_fd(&c->fd[k]);
    }
}

static void feed_stdin(struct call* c) {
    size_t done = 0;
    while (c->fdin >= 0 && done < c->inlen) {
        ssize_t n = write(c->fdin, c->inq + done, c->inlen - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            /* The command closed its stdin: whatever comes is dropped, and the window given back. */
            close_fd(&c->fdin);
            c->in_broken = 1;
            done = c->inlen;
        }
    }
    if (done > 0) {
        memmove(c->inq, c->inq + done, c->inlen - done);
        c->inlen -= done;
        wipe(c->inq + c->inlen, done);
        c->in_credit += (uint32_t)done;
        put_u32_frame(T_WINDOW_OUT, c->id, (uint32_t)done);
    }
    if (c->inlen == 0 && c->in_eof) {
        close_fd(&c->fdin);
    }
}

static void finish_calls(void) {
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &calls[i];
        if (c->used && c->stop == STOP_NONE && c->reaped) {
            for (int k = 0; k < 2; k++) {
                if (c->fd[k] >= 0 && c->remain[k] == 0) {
                    close_fd(&c->fd[k]);
                }
            }
            if (c->fd[0] < 0 && c->fd[1] < 0) {
                end_call(c);
            }
        }
    }
}

/* ---- exec ------------------------------------------------------------------------------- */

static const char* find_shell(void) {
    static const char* const shells[] = {"/bin/bash", "/usr/bin/bash", "/bin/sh"};
    for (size_t i = 0; i < sizeof shells / sizeof *shells; i++) {
        if (access(shells[i], X_OK) == 0) {
            return shells[i];
        }
    }
    return NULL;
}

static int random_tag(char out[33]) {
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        long n = syscall(SYS_getrandom, r + got, sizeof r - got, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    if (got < sizeof r) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        got = 0;
        while (fd >= 0 && got < sizeof r) {
            ssize_t n = read(fd, r + got, sizeof r - got);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            got += (size_t)n;
        }
        if (fd >= 0) {
            close(fd);
        }
        if (got < sizeof r) {
            return -1;
        }
    }
    for (int i = 0; i < 16; i++) {
        snprintf(out + 2 * i, 3, "%02x", r[i]);
    }
    return 0;
}

static size_t name_len(const char* entry) {
    const char* eq = strchr(entry, '=');
    return eq ? (size_t)(eq - entry) : strlen(entry);
}

static int reserved_name(const char* entry) {
    size_t l = name_len(entry);
    return (l == 13 && memcmp(entry, "ZEUS_CALL_TAG", 13) == 0) || (l >= 12 && memcmp(entry, "ZEUS_COMMAND", 12) == 0);
}

struct envent {
    const char* s;
    size_t order;
};

static int cmp_env(const void* a, const void* b) {
    const struct envent *x = a, *y = b;
    size_t lx = name_len(x->s), ly = name_len(y->s);
    int r = memcmp(x->s, y->s, lx < ly ? lx : ly);
    if (r == 0) {
        r = (lx > ly) - (lx < ly);
    }
    if (r == 0) {
        r = (x->order > y->order) - (x->order < y->order);
    }
    return r;
}

extern char** environ;

static void do_exec(uint32_t ch, const unsigned char* p, size_t n) {
    if (find_call(ch)) {
        put_error(ch, "channel id in use");
        return;
    }
    struct call* c = NULL;
    for (int i = 0; i < MAX_CALLS && !c; i++) {
        if (!calls[i].used) {
            c = &calls[i];
        }
    }
    if (!c) {
        put_error(ch, "too many channels");
        return;
    }
    if (n < 16) {
        put_error(ch, "bad exec payload");
        return;
    }
    uint32_t timeout = get32(p), grace = get32(p + 4), flags = get32(p + 8), envc = get32(p + 12);
    if (flags & ~1u) {
        put_error(ch, "bad exec flags");
        return;
    }
    if (envc > (n - 16) / 4) {
        put_error(ch, "bad exec payload");
        return;
    }
    /* Copy the strings out with terminating NULs: entries first, the command last. */
    char** frame_env = malloc(sizeof *frame_env * (envc + 1));
    const size_t strings_size = n + envc + 1;
    char* strings = malloc(strings_size);
    if (!frame_env || !strings) {
        free(frame_env);
        free(strings);
        put_error(ch, "out of memory");
        return;
    }
    size_t off = 16, sp = 0;
    const char* bad = NULL;
    char* command = NULL;
    size_t cmdlen = 0;
    for (uint32_t k = 0; k <= envc && !bad; k++) {
        if (n - off < 4) {
            bad = "bad exec payload";
            break;
        }
        uint32_t len = get32(p + off);
        off += 4;
        if (len > n - off) {
            bad = "bad exec payload";
            break;
        }
        if (memchr(p + off, 0, len)) {
            bad = k < envc ? "NUL byte in an environment entry" : "NUL byte in the command";
            break;
        }
        char* s = strings + sp;
        memcpy(s, p + off, len);
        s[len] = 0;
        sp += len + 1;
        off += len;
        if (k < envc) {
            if (len == 0 || s[0] == '=' || !strchr(s, '=')) {
                bad = "bad environment entry";
            }
            frame_env[k] = s;
        } else {
            command = s;
            cmdlen = len;
        }
    }
    if (!bad && off != n) {
        bad = "bad exec payload";
    }
    const char* shell = bad ? NULL : find_shell();
    if (!bad && !shell) {
        bad = "no shell (/bin/bash, /usr/bin/bash, /bin/sh)";
    }
    char tag[33];
    if (!bad && random_tag(tag) < 0) {
        bad = "no random numbers for the call tag";
    }
    if (bad) {
        free(frame_env);
        wipe(strings, sp);
        free(strings);
        put_error(ch, bad);
        return;
    }

    /* The environment: ours, then the frame's entries, then the tag and the command chunks; the
     * last entry of a name wins. */
    size_t nchunks = cmdlen / CMD_CHUNK + 1, nown = 0;
    while (environ && environ[nown]) {
        nown++;
    }
    size_t total = nown + envc + 1 + nchunks, m = 0;
    struct envent* ents = malloc(sizeof *ents * total);
    char** envp = malloc(sizeof *envp * (total + 1));
    const size_t extra_size = sizeof "ZEUS_CALL_TAG=" + 32 + cmdlen + nchunks * 24;
    char* extra = malloc(extra_size);
    /* the script: a fixed text of names, never the command */
    char* script = malloc(64 + nchunks * 40);
    if (!ents || !envp || !extra || !script) {
        wipe(strings, strings_size);
        free(ents), free(envp), free(extra), free(script), free(frame_env), free(strings);
        put_error(ch, "out of memory");
        return;
    }
    for (size_t k = 0; k < nown; k++) {
        if (!reserved_name(environ[k])) {
            ents[m] = (struct envent){environ[k], m};
            m++;
        }
    }
    for (uint32_t k = 0; k < envc; k++) {
        if (!reserved_name(frame_env[k])) {
            ents[m] = (struct envent){frame_env[k], m};
            m++;
        }
    }
    char* x = extra;
    x += sprintf(x, "ZEUS_CALL_TAG=%s", tag) + 1;
    ents[m] = (struct envent){extra, m};
    m++;
    char* sc = script;
    sc += sprintf(sc, "__zeus_c=\"$ZEUS_COMMAND");
    for (size_t k = 0; k < nchunks; k++) {
        size_t clen = cmdlen - k * CMD_CHUNK < CMD_CHUNK ? cmdlen - k * CMD_CHUNK : CMD_CHUNK;
        char* e = x;
        x += k == 0 ? sprintf(x, "ZEUS_COMMAND=") : sprintf(x, "ZEUS_COMMAND_%zu=", k);
        memcpy(x, command + k * CMD_CHUNK, clen);
        x += clen;
        *x++ = 0;
        ents[m] = (struct envent){e, m};
        m++;
        if (k > 0) {
            sc += sprintf(sc, "$ZEUS_COMMAND_%zu", k);
        }
    }
    sc += sprintf(sc, "\"; unset ZEUS_COMMAND");
    for (size_t k = 1; k < nchunks; k++) {
        sc += sprintf(sc, " ZEUS_COMMAND_%zu", k);
    }
    sprintf(sc, "; eval \"unset __zeus_c;$__zeus_c\"");
    qsort(ents, m, sizeof *ents, cmp_env);
    size_t ne = 0;
    for (size_t k = 0; k < m; k++) {
        if (k + 1 < m && name_len(ents[k].s) == name_len(ents[k + 1].s)
            && memcmp(ents[k].s, ents[k + 1].s, name_len(ents[k].s)) == 0) {
            continue; /* a later entry of the same name follows */
        }
        envp[ne++] = (char*)ents[k].s;
    }
    envp[ne] = NULL;

    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
    pid_t pid = -1;
    const char* argv0 = strrchr(shell, '/') + 1;
    char* argv[] = {(char*)argv0, "-c", script, NULL};
    if (pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0 && (!(flags & 1) || pipe2(in, O_CLOEXEC) == 0)) {
        pid = fork();
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        setsid();
        int fin = (flags & 1) ? in[0] : open("/dev/null", O_RDONLY);
        if (fin < 0 || dup2(fin, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) {
            _exit(127);
        }
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
            for (int fd = 3; fd < 65536; fd++) {
                close(fd);
            }
        }
        /* This child is a copy of the agent, and the agent is not dumpable (main): wipe what belongs to other
         * calls and tunnels (frames read, output queued, stdin and tunnel data), then say it may be dumped
         * again, as execve of the shell would anyway. Between the two only this call's own command and
         * environment are left, which the command can read in /proc/self/environ in any case. */
        wipe(inbuf, inlen);
        wipe(outq.buf, outq.cap);
        for (int i = 0; i < MAX_CALLS; i++) {
            wipe(calls[i].inq, calls[i].inlen);
        }
        for (int i = 0; i < MAX_TUNNELS; i++) {
            wipe(tunnels[i].inq, tunnels[i].inlen);
        }
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        execve(shell, argv, envp);
        static const char msg[] = "zeus-sandbox-agent: could not start the shell\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    int fork_errno = errno;
    close_fd(&out[1]);
    close_fd(&err[1]);
    close_fd(&in[0]);
    /* The frame's environment may hold secrets: no freed block keeps a copy that a later child could show. */
    wipe(strings, strings_size);
    wipe(extra, extra_size);
    free(ents), free(envp), free(extra), free(script), free(frame_env), free(strings);
    if (pid < 0) {
        close_fd(&out[0]);
        close_fd(&err[0]);
        close_fd(&in[1]);
        put_error(ch, fork_errno == EMFILE || fork_errno == ENFILE ? "out of file descriptors"
                                                                   : "could not start the command (fork failed)");
        return;
    }
    memset(c, 0, sizeof *c);
    c->used = 1;
    c->id = ch;
    c->pid = pid;
    c->fd[0] = out[0];
    c->fd[1] = err[0];
    c->fdin = in[1];
    fcntl(c->fd[0], F_SETFL, O_NONBLOCK);
    fcntl(c->fd[1], F_SETFL, O_NONBLOCK);
    if (flags & 1) {
        fcntl(c->fdin, F_SETFL, O_NONBLOCK);
        c->has_stdin = 1;
        c->inq = xrealloc(NULL, WINDOW0);
        c->in_credit = WINDOW0;
    }
    c->window = WINDOW0;
    c->deadline = timeout ? now_ms() + timeout : 0;
    c->grace = grace;
    memcpy(c->tag, tag, sizeof tag);
    /* The call's window opens with its shell's start time, read where the kernel keeps it. */
    char path[64];
    static char* statbuf;
    static size_t statcap;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    char* rp = read_file(path, &statbuf, &statcap) > 0 ? strrchr(statbuf, ')') : NULL;
    if (!rp
        || sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                  &c->start)
               != 1) {
        c->start = boot_ticks(0) - 1;
    }
    if (ntags == captags) {
        captags = captags ? captags * 2 : 64;
        tags = xrealloc(tags, captags * sizeof *tags);
    }
    c->tagrec = ntags;
    memcpy(tags[ntags].tag, tag, sizeof tag);
    tags[ntags].start = c->start;
    tags[ntags].end = ULLONG_MAX;
    ntags++;
    put_u32_frame(T_STARTED, ch, (uint32_t)pid);
}

/* ---- frames from the app ---------------------------------------------------------------- */

static void protocol_error(const char* msg) __attribute__((noreturn));
static void protocol_error(const char* msg) {
    note(msg);
    put_error(0, msg);
    shutdown_all(1, 1);
}

/* ---- egress tunnels --------------------------------------------------------------------- */

static struct tunnel* find_tunnel(uint32_t id) {
    for (int i = 0; i < MAX_TUNNELS; i++) {
        if (tunnels[i].used && tunnels[i].id == id) {
            return &tunnels[i];
        }
    }
    return NULL;
}

static void free_tunnel(struct tunnel* t) {
    close_fd(&t->fd);
    wipe(t->inq, t->inlen);
    free(t->inq);
    memset(t, 0, sizeof *t);
    t->fd = -1;
}

/* The connection is over (an error, or both directions done): say so once and forget it. */
static void end_tunnel(struct tunnel* t) {
    put_frame(T_TCLOSED, t->id, NULL, 0);
    free_tunnel(t);
}

static void do_listen(const unsigned char* p, size_t n) {
    if (n != 8) {
        protocol_error("bad listen frame");
    }
    uint32_t port = get32(p), kind = get32(p + 4);
    if (port == 0 || port > 65535 || kind == 0) {
        protocol_error("bad listen frame");
    }
    unsigned char reply[8];
    put32(reply, port);
    int err = 0;
    int fd = -1;
    if (nlisteners == MAX_LISTENERS) {
        err = EMFILE;
    } else {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int one = 1;
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0
            || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 128) != 0) {
            err = errno ? errno : EINVAL;
            if (fd >= 0) {
                close(fd);
            }
            fd = -1;
        }
    }
    if (fd >= 0) {
        listeners[nlisteners].fd = fd;
        listeners[nlisteners].kind = kind;
        nlisteners++;
    }
    put32(reply + 4, (uint32_t)err);
    put_frame(T_LISTENING, 0, reply, sizeof reply);
}

static void accept_tunnel(int k) {
    for (;;) {
        int fd = accept4(listeners[k].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            return; /* EAGAIN, or the client gave up already */
        }
        struct tunnel* t = NULL;
        for (int i = 0; i < MAX_TUNNELS && !t; i++) {
            if (!tunnels[i].used) {
                t = &tunnels[i];
            }
        }
        if (!t) {
            close(fd); /* over the limit: the client sees the connection reset */
            note("too many tunnels: a connection was refused");
            return;
        }
        memset(t, 0, sizeof *t);
        t->used = 1;
        t->id = TUNNEL_BIT | next_tunnel;
        next_tunnel = next_tunnel == 0x7fffffffu ? 1 : next_tunnel + 1;
        t->fd = fd;
        t->window = WINDOW0;
        t->in_credit = TUNNEL_IN_WINDOW;
        unsigned char b[4];
        put32(b, listeners[k].kind);
        put_frame(T_TOPEN, t->id, b, sizeof b);
    }
}

/* Reads one chunk of a tunnel's socket into a frame, as its window allows. */
static void tunnel_pump(struct tunnel* t) {
    size_t want = MAX_CHUNK;
    if (want > t->window) {
        want = (size_t)t->window;
    }
    if (want == 0 || t->rd_eof) {
        return;
    }
    unsigned char* p = outq_reserve(HDR + want);
    ssize_t n;
    do {
        n = read(t->fd, p + HDR, want);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        put_header(p, (uint32_t)n, T_TDATA_OUT, t->id);
        outq.len += HDR + (size_t)n;
        t->window -= (uint64_t)n;
    } else if (n == 0) {
        t->rd_eof = 1;
        put_frame(T_TDATA_OUT, t->id, NULL, 0); /* an empty frame: the client is done sending */
        if (t->wr_shut) {
            end_tunnel(t);
        }
    } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
        end_tunnel(t);
    }
}

static void tunnel_feed(struct tunnel* t) {
    size_t done = 0;
    while (done < t->inlen) {
        ssize_t n = write(t->fd, t->inq + done, t->inlen - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            end_tunnel(t);
            return;
        }
    }
    if (done > 0) {
        memmove(t->inq, t->inq + done, t->inlen - done);
        t->inlen -= done;
        wipe(t->inq + t->inlen, done);
        t->in_credit += (uint32_t)done;
        put_u32_frame(T_WINDOW_OUT, t->id, (uint32_t)done);
    }
    if (t->inlen == 0 && t->in_eof && !t->wr_shut) {
        shutdown(t->fd, SHUT_WR);
        t->wr_shut = 1;
        if (t->rd_eof) {
            end_tunnel(t);
        }
    }
}

static void tunnel_frame(uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    struct tunnel* t = find_tunnel(ch);
    if (type == T_TCLOSE) {
        if (n != 0) {
            protocol_error("bad tunnel close frame");
        }
        if (t) {
            free_tunnel(t); /* the app is done with it: no `closed` follows */
        }
        return;
    }
    if (type == T_WINDOW) {
        if (n != 4) {
            protocol_error("bad frame length");
        }
        if (t) {
            t->window += get32(p);
        }
        return;
    }
    if (type != T_TDATA) {
        protocol_error("a call's frame on a tunnel");
    }
    if (!t) {
        return; /* it crossed our `closed` on the pipe */
    }
    if (t->in_eof) {
        protocol_error("tunnel data after its end");
    }
    if (n > t->in_credit) {
        protocol_error("tunnel data beyond the window");
    }
    if (n == 0) {
        t->in_eof = 1;
    } else {
        t->inq = grow_wiped(t->inq, t->inlen, t->inlen + n);
        memcpy(t->inq + t->inlen, p, n);
        t->inlen += n;
        t->in_credit -= (uint32_t)n;
    }
    tunnel_feed(t);
}

static void handle_frame(uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    if (type == T_CLOSE) {
        if (ch != 0 || n != 0) {
            protocol_error("bad close frame");
        }
        shutdown_all(0, 1);
    }
    if (type == T_LISTEN) {
        if (ch != 0) {
            protocol_error("listen on a channel");
        }
        do_listen(p, n);
        return;
    }
    if (ch & TUNNEL_BIT) {
        tunnel_frame(type, ch, p, n);
        return;
    }
    if (type == T_TDATA || type == T_TCLOSE) {
        protocol_error("a tunnel frame on a call's channel");
    }
    if (ch == 0) {
        protocol_error("a call's frame on channel 0");
    }
    if (type == T_EXEC) {
        do_exec(ch, p, n);
        return;
    }
    if (type != T_STDIN && n != 4) {
        protocol_error("bad frame length");
    }
    struct call* c = find_call(ch);
    if (!c) {
        return; /* the channel ended: the frame crossed its `exit` (or `error`) on the pipe */
    }
    uint32_t v = n == 4 ? get32(p) : 0;
    switch (type) {
        case T_STDIN:
            if (!c->has_stdin || c->in_eof) {
                protocol_error("stdin on a call without an open stdin");
            }
            if (n > c->in_credit) {
                protocol_error("stdin beyond the window");
            }
            if (n == 0) {
                c->in_eof = 1;
            } else if (c->in_broken) {
                put_u32_frame(T_WINDOW_OUT, ch, (uint32_t)n);
                return;
            } else {
                memcpy(c->inq + c->inlen, p, n);
                c->inlen += n;
                c->in_credit -= (uint32_t)n;
            }
            feed_stdin(c);
            break;
        case T_SIGNAL:
            if (v < 1 || v > 64) {
                protocol_error("bad signal number");
            }
            if (!c->reaped) {
                killpg(c->pid, (int)v);
            }
            break;
        case T_STOP:
            begin_stop(c, v, REASON_STOP);
            break;
        case T_WINDOW:
            c->window += v;
            break;
        default:
            break;
    }
}

static void read_input(void) {
    ssize_t n;
    do {
        n = read(0, inbuf + inlen, sizeof inbuf - inlen);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return;
    }
    if (n <= 0) {
        in_open = 0; /* end of file: the same as `close` */
        return;
    }
    inlen += (size_t)n;
    size_t off = 0;
    while (inlen - off >= HDR) {
        uint32_t len = get32(inbuf + off);
        uint8_t type = inbuf[off + 4];
        uint32_t ch = get32(inbuf + off + 5);
        if (len > MAX_IN_PAYLOAD) {
            protocol_error("frame over the size limit");
        }
        if (type < T_EXEC || type > T_TCLOSE) {
            protocol_error("unknown frame type");
        }
        if (inlen - off < HDR + (size_t)len) {
            break;
        }
        handle_frame(type, ch, inbuf + off + HDR, len);
        off += HDR + len;
    }
    memmove(inbuf, inbuf + off, inlen - off);
    inlen -= off;
    wipe(inbuf + inlen, off); /* what is past inlen stays zero: a child's copy holds no earlier frame */
}

/* ---- the end ---------------------------------------------------------------------------- */

/* Kills every process any call started or left behind (descendants of the agent, which every
 * orphan of a call is re-parented to, and whatever carries one of our tags), then exits. */
static void shutdown_all(int code, int send_frames) {
    uint64_t until = now_ms() + SWEEP_GIVE_UP_MS;
    for (int i = 0; i < MAX_CALLS; i++) {
        if (calls[i].used && !calls[i].reaped && calls[i].stop == STOP_NONE) {
            calls[i].reason = REASON_STOP;
        }
    }
    for (;;) {
        /* Descendants first, while the parent links still lead to them; then the groups. */
        size_t found = sweep_all(1);
        for (int i = 0; i < MAX_CALLS; i++) {
            if (calls[i].used && !calls[i].reaped) {
                killpg(calls[i].pid, SIGKILL);
            }
        }
        reap();
        if (found == 0 || now_ms() > until) {
            break;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    /* the shells are dead: wait for the last of them so their exit status is known */
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &calls[i];
        if (c->used && !c->reaped && waitpid(c->pid, &c->status, 0) == c->pid) {
            c->reaped = 1;
        }
        if (c->used) {
            end_call(c);
        }
    }
    if (send_frames) {
        flush_out_before_exit();
    }
    exit(code);
}

/* ---- connect HOST PORT ------------------------------------------------------------------ */

/* `zeus-sandbox-agent connect HOST PORT`: a ProxyCommand for ssh (GIT_SSH_COMMAND). It asks the
 * agent's HTTP proxy on 127.0.0.1:3128 for a CONNECT tunnel and then relays stdin and stdout to
 * it. Whether HOST may be reached is the app's decision, made behind the proxy, as for curl. */
static int write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int run_connect(const char* host, const char* port) {
    size_t hl = strlen(host);
    if (hl == 0 || hl > 253 || strlen(port) == 0 || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port)) {
        fprintf(stderr, "zeus-sandbox-agent connect: bad host or port\n");
        return 2;
    }
    for (size_t i = 0; i < hl; i++) {
        unsigned char c = (unsigned char)host[i];
        if (c <= ' ' || c == 0x7f || c == '/' || c == '@' || c == '[' || c == ']') {
            fprintf(stderr, "zeus-sandbox-agent connect: bad host\n");
            return 2;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    /* The port is fixed in a container; the override is for the agent's own tests on a host. */
    int proxy_port = PROXY_PORT;
    const char* override = getenv("ZEUS_EGRESS_PROXY_PORT");
    if (override && atoi(override) > 0 && atoi(override) < 65536) {
        proxy_port = atoi(override);
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)proxy_port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
        fprintf(stderr,
                "zeus-sandbox-agent connect: no egress proxy on 127.0.0.1:%d (the network policy is not allowlist)\n",
                proxy_port);
        return 1;
    }
    const int v6 = strchr(host, ':') != NULL;
    char req[600];
    int len = snprintf(req, sizeof req, "CONNECT %s%s%s:%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n\r\n", v6 ? "[" : "", host,
                       v6 ? "]" : "", port, v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (len <= 0 || (size_t)len >= sizeof req || write_all(fd, req, (size_t)len) != 0) {
        fprintf(stderr, "zeus-sandbox-agent connect: the proxy closed the connection\n");
        return 1;
    }
    /* The response head, byte by byte: nothing after it may be swallowed. */
    char head[CONNECT_HEAD_MAX + 1];
    size_t got = 0;
    while (got < CONNECT_HEAD_MAX) {
        ssize_t r = read(fd, head + got, 1);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            break;
        }
        got++;
        if (got >= 4 && memcmp(head + got - 4, "\r\n\r\n", 4) == 0) {
            break;
        }
    }
    head[got] = 0;
    if (got < 12 || strncmp(head, "HTTP/1.", 7) != 0 || strncmp(head + 9, "200", 3) != 0) {
        char* eol = strstr(head, "\r\n");
        if (eol) {
            *eol = 0;
        }
        fprintf(stderr, "zeus-sandbox-agent connect: %s:%s refused by the egress proxy (%s)\n", host, port,
                got ? head : "no answer");
        return 1;
    }
    /* Relay until both directions are done. */
    unsigned char buf[MAX_CHUNK];
    int in_open_ = 1, sock_open = 1;
    while (sock_open) {
        struct pollfd p[2] = {{.fd = in_open_ ? 0 : -1, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return 1;
        }
        if (p[0].revents) {
            ssize_t r = read(0, buf, sizeof buf);
            if (r > 0) {
                if (write_all(fd, (const char*)buf, (size_t)r) != 0) {
                    return 1;
                }
            } else if (r == 0 || errno != EINTR) {
                in_open_ = 0;
                shutdown(fd, SHUT_WR);
            }
        }
        if (p[1].revents) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r > 0) {
                if (write_all(1, (const char*)buf, (size_t)r) != 0) {
                    return 1;
                }
            } else if (r == 0 || errno != EINTR) {
                sock_open = 0;
            }
        }
    }
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
    for (int i = 0; i < MAX_TUNNELS; i++) {
        tunnels[i].fd = -1;
    }
    /* Out of the commands' reach (SPEC §7): a process that is not dumpable has its /proc files (fd, environ,
     * mem) closed to every process without CAP_SYS_PTRACE, the same user's included, and cannot be traced.
     * So no command can read the frames on our stdin (later commands, their secrets) or write to our stdout. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        note("cannot make itself non-dumpable: commands can reach the agent's descriptors");
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (hz > 0) {
        ticks_per_s = (unsigned long long)hz;
    }
    self_pid = getpid();
    signal(SIGPIPE, SIG_IGN);
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sigfd < 0) {
        note("signalfd failed");
        return 1;
    }
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        note("cannot become a child subreaper");
    }
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
    fcntl(1, F_SETFL, fcntl(1, F_GETFL) | O_NONBLOCK);

    unsigned char hello[4 + sizeof ZEUS_AGENT_VERSION - 1];
    put32(hello, 2);
    memcpy(hello + 4, ZEUS_AGENT_VERSION, sizeof ZEUS_AGENT_VERSION - 1);
    put_frame(T_HELLO, 0, hello, sizeof hello);

    enum { NPOLL = 3 + 3 * MAX_CALLS + MAX_LISTENERS + MAX_TUNNELS };
    static struct pollfd pfd[NPOLL];
    static struct call* owner[NPOLL];
    static int kind[NPOLL]; /* 0, 1: a call's stdout, stderr; 2: its stdin; 3: a listener; 4: a tunnel */
    static int slot[NPOLL]; /* kind 3, 4: the listener's or the tunnel's index */
    for (;;) {
        if (flush_out() < 0) {
            note("the app is gone (stdout closed)");
            shutdown_all(1, 0);
        }
        if (!in_open) {
            shutdown_all(0, 1);
        }
        int np = 0;
        pfd[np] = (struct pollfd){.fd = sigfd, .events = POLLIN};
        owner[np] = NULL;
        kind[np++] = -1;
        pfd[np] = (struct pollfd){.fd = 0, .events = POLLIN};
        owner[np] = NULL;
        kind[np++] = -1;
        pfd[np] = (struct pollfd){.fd = outq.len > 0 ? 1 : -1, .events = POLLOUT};
        owner[np] = NULL;
        kind[np++] = -1;
        for (int i = 0; i < MAX_CALLS; i++) {
            struct call* c = &calls[i];
            if (!c->used) {
                continue;
            }
            for (int k = 0; k < 2; k++) {
                if (c->fd[k] >= 0 && c->window > 0 && outq.len < OUTQ_SOFT && (c->stop == STOP_NONE || !c->reaped)) {
                    pfd[np] = (struct pollfd){.fd = c->fd[k], .events = POLLIN};
                    owner[np] = c;
                    kind[np++] = k;
                }
            }
            if (c->fdin >= 0 && c->inlen > 0) {
                pfd[np] = (struct pollfd){.fd = c->fdin, .events = POLLOUT};
                owner[np] = c;
                kind[np++] = 2;
            }
        }
        int first_net = np;
        int tunnels_free = 0;
        for (int i = 0; i < MAX_TUNNELS; i++) {
            tunnels_free += !tunnels[i].used;
        }
        for (int k = 0; k < nlisteners; k++) {
            pfd[np] = (struct pollfd){.fd = tunnels_free > 0 ? listeners[k].fd : -1, .events = POLLIN};
            owner[np] = NULL;
            slot[np] = k;
            kind[np++] = 3;
        }
        for (int i = 0; i < MAX_TUNNELS; i++) {
            struct tunnel* t = &tunnels[i];
            if (!t->used) {
                continue;
            }
            short ev = 0;
            if (!t->rd_eof && t->window > 0 && outq.len < OUTQ_SOFT) {
                ev |= POLLIN;
            }
            if (t->inlen > 0 || (t->in_eof && !t->wr_shut)) {
                ev |= POLLOUT;
            }
            pfd[np] = (struct pollfd){.fd = ev ? t->fd : -1, .events = ev};
            owner[np] = NULL;
            slot[np] = i;
            kind[np++] = 4;
        }
        int r = poll(pfd, (nfds_t)np, next_timeout());
        if (r < 0 && errno != EINTR) {
            note("poll failed");
            shutdown_all(1, 1);
        }
        if (r > 0 && pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo != SIGCHLD) {
                    note("terminated by a signal: stopping every call");
                    shutdown_all(1, 1);
                }
            }
            reap();
        }
        if (r > 0 && pfd[1].revents) {
            read_input();
        }
        for (int i = first_net; r > 0 && i < np; i++) {
            if (kind[i] == 3) {
                if (pfd[i].revents) {
                    accept_tunnel(slot[i]);
                }
                continue;
            }
            struct tunnel* t = &tunnels[slot[i]];
            /* A frame handled above may have ended this tunnel (and an accept may have reused its slot). */
            if (!pfd[i].revents || !t->used || pfd[i].fd != t->fd) {
                continue;
            }
            if (pfd[i].revents & (POLLOUT | POLLERR | POLLHUP)) {
                tunnel_feed(t);
            }
            if (t->used && (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) && !t->rd_eof) {
                tunnel_pump(t);
            }
        }
        for (int i = 3; r > 0 && i < first_net; i++) {
            struct call* c = owner[i];
            if (!pfd[i].revents || !c->used) {
                continue;
            }
            if (kind[i] == 2) {
                feed_stdin(c);
            } else if (c->stop == STOP_NONE || !c->reaped) {
                pump(c, kind[i]);
            }
        }
        reap();
        on_timers();
        finish_calls();
    }
}
