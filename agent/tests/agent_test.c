/* SPDX-License-Identifier: Apache-2.0
 *
 * Tests of zeus-sandbox-agent (docs/agent-protocol.md): starts the agent binary as a child with
 * pipes, speaks frames to it and looks at /proc for what must (not) be running.
 *   usage: agent_test PATH_TO_AGENT
 * Every wait has a deadline and an alarm ends the whole program, so a bug cannot hang CTest.
 * Prints one line per check; exits 0 only when every check passed.
 */
#define _GNU_SOURCE
#include "../protocol.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The test's own bookkeeping: channel ids and tunnel numbers it may see (the agent's limits are lower). */
enum { NCH = 128, NTUN = 512 };

static const char* agent_path;
static int failures, checks;
static unsigned base; /* makes the sleep durations of this run unique on the machine */

#define CHECK(cond, ...)                                  \
    do {                                                  \
        checks++;                                         \
        if (cond) {                                       \
            printf("PASS  ");                             \
        } else {                                          \
            printf("FAIL  (%s:%d) ", __FILE__, __LINE__); \
            failures++;                                   \
        }                                                 \
        printf(__VA_ARGS__);                              \
        printf("\n");                                     \
        fflush(stdout);                                   \
    } while (0)

struct buf {
    unsigned char* p;
    size_t len, cap;
};

static void buf_add(struct buf* b, const void* p, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) {
            abort();
        }
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = 0;
}

struct chan {
    int started, done, exited, errored, autogrant;
    uint32_t pid;
    int how, value, reason;
    struct buf out, err, order; /* order: 'o'/'e' per data frame */
    char errmsg[256];
    uint64_t stdin_granted;
    size_t frames_after_end;
};

struct tun {
    int opened, closed, eof, frames_after_close;
    int connected; /* `tunnel connected` came (for the app's own tunnels), with connect_err */
    uint32_t connect_err;
    uint32_t kind;
    struct buf data;
    uint64_t granted;
    int handed;    /* `tunnel handed` came */
    int handed_fd; /* the socket that came with it (-1: none did) */
};

static struct {
    pid_t pid;
    int to, from, eof;
    unsigned char in[1 << 17];
    size_t inlen;
    int hello, first_was_hello, frames, ch0_errors;
    uint32_t protocol;
    char version[64], ch0msg[256];
    struct chan ch[NCH];
    struct tun tun[NTUN];
    uint32_t tunnel_order[NTUN]; /* tunnel ids in the order they were opened */
    int ntunnels, listening, listen_errno;
    uint32_t listen_port;
    int lane_answers, lane_err, lane_switched;
    int fds[64]; /* sockets received on the lane, not yet claimed by a `tunnel handed` frame */
    int nfds, ctrunc;
} A;

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
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

static void free_chans(void) {
    for (int i = 0; i < NCH; i++) {
        free(A.ch[i].out.p);
        free(A.ch[i].err.p);
        free(A.ch[i].order.p);
    }
    for (int i = 0; i < NTUN; i++) {
        free(A.tun[i].data.p);
    }
}

/* The agent runs in a container without capabilities (--cap-drop ALL): as root on a host it would still hold
 * CAP_SYS_PTRACE and CAP_DAC_OVERRIDE, which open any process's /proc files whatever it made of itself. So in the
 * child: an empty bounding set (execve gives root nothing back then), no ambient set, then no capabilities. */
static void drop_capabilities(void) {
    if (geteuid() != 0) {
        return;
    }
    for (int cap = 0; cap < 64; cap++) {
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct {
        uint32_t version;
        int pid;
    } header = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    struct {
        uint32_t effective, permitted, inheritable;
    } data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) {
        _exit(126);
    }
}

static void agent_start(void) {
    free_chans();
    memset(&A, 0, sizeof A);
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
        perror("pipe");
        exit(2);
    }
    A.pid = fork();
    if (A.pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        drop_capabilities();
        execl(agent_path, agent_path, (char*)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    A.to = in[1];
    A.from = out[0];
    fcntl(A.from, F_SETFL, O_NONBLOCK);
}

static void send_raw(const void* p, size_t n) {
    const unsigned char* b = p;
    while (n > 0) {
        ssize_t w = write(A.to, b, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return; /* the agent is gone: the checks will say so */
        }
        b += w;
        n -= (size_t)w;
    }
}

static void send_frame(uint8_t type, uint32_t ch, const void* p, size_t n) {
    unsigned char h[FRAME_HEADER];
    put32(h, (uint32_t)n);
    h[4] = type;
    put32(h + 5, ch);
    send_raw(h, sizeof h);
    send_raw(p, n);
}

static void send_u32(uint8_t type, uint32_t ch, uint32_t v) {
    unsigned char b[4];
    put32(b, v);
    send_frame(type, ch, b, 4);
}

static void send_exec(uint32_t ch, uint32_t timeout, uint32_t grace, uint32_t flags, const char* env, const char* cmd) {
    struct buf b = {0};
    unsigned char w[4];
    put32(w, timeout);
    buf_add(&b, w, 4);
    put32(w, grace);
    buf_add(&b, w, 4);
    put32(w, flags);
    buf_add(&b, w, 4);
    put32(w, env ? 1 : 0);
    buf_add(&b, w, 4);
    if (env) {
        put32(w, (uint32_t)strlen(env));
        buf_add(&b, w, 4);
        buf_add(&b, env, strlen(env));
    }
    put32(w, (uint32_t)strlen(cmd));
    buf_add(&b, w, 4);
    buf_add(&b, cmd, strlen(cmd));
    send_frame(T_EXEC, ch, b.p, b.len);
    free(b.p);
}

static void dispatch(uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    A.frames++;
    if (A.frames == 1) {
        A.first_was_hello = type == T_HELLO && ch == 0;
    }
    if (ch & TUNNEL_BIT) {
        /* The app's own tunnels (TUNNEL_APP_BIT | k, k small) count down from the end of the table. */
        uint32_t i = (ch & TUNNEL_APP_BIT) ? NTUN - 1 - (ch & 0xffu) : ch & ~TUNNEL_BIT;
        if (i >= NTUN) {
            return;
        }
        struct tun* t = &A.tun[i];
        if (t->closed) {
            t->frames_after_close++;
        }
        if (type == T_TOPEN) {
            t->opened = 1;
            t->kind = n == 4 ? get32(p) : 0;
            if (A.ntunnels < NTUN) {
                A.tunnel_order[A.ntunnels++] = ch;
            }
        } else if (type == T_TCONNECTED && n == 4) {
            t->connected = 1;
            t->connect_err = get32(p);
        } else if (type == T_TDATA_OUT && n == 0) {
            t->eof = 1;
        } else if (type == T_TDATA_OUT) {
            buf_add(&t->data, p, n);
        } else if (type == T_TCLOSED) {
            t->closed = 1;
        } else if (type == T_WINDOW_OUT && n == 4) {
            t->granted += get32(p);
        } else if (type == T_THANDED) {
            t->handed = 1;
            t->handed_fd = A.nfds > 0 ? A.fds[0] : -1;
            if (A.nfds > 0) {
                memmove(A.fds, A.fds + 1, sizeof(int) * (size_t)--A.nfds);
            }
        }
        return;
    }
    if (ch == 0 && type == T_LANE_OUT) {
        if (n == 4) {
            A.lane_answers++;
            A.lane_err = (int)get32(p);
        } else {
            A.lane_switched += n == 0;
        }
        return;
    }
    if (ch == 0 && type == T_LISTENING && n == 8) {
        A.listening = 1;
        A.listen_port = get32(p);
        A.listen_errno = (int)get32(p + 4);
        return;
    }
    if (ch == 0) {
        if (type == T_HELLO && n >= 4) {
            A.hello = 1;
            A.protocol = get32(p);
            snprintf(A.version, sizeof A.version, "%.*s", (int)(n - 4), (const char*)p + 4);
        } else if (type == T_ERROR) {
            A.ch0_errors++;
            snprintf(A.ch0msg, sizeof A.ch0msg, "%.*s", (int)n, (const char*)p);
        }
        return;
    }
    if (ch >= NCH) {
        return;
    }
    struct chan* c = &A.ch[ch];
    if (c->done && type != T_WINDOW_OUT) {
        c->frames_after_end++;
    }
    switch (type) {
        case T_STARTED:
            c->started = 1;
            c->pid = n == 4 ? get32(p) : 0;
            break;
        case T_STDOUT:
        case T_STDERR:
            buf_add(type == T_STDOUT ? &c->out : &c->err, p, n);
            buf_add(&c->order, type == T_STDOUT ? "o" : "e", 1);
            if (c->autogrant) {
                send_u32(T_WINDOW, ch, (uint32_t)n);
            }
            break;
        case T_EXIT:
            c->done = c->exited = 1;
            if (n == 6) {
                c->how = p[0];
                c->value = (int)get32(p + 1);
                c->reason = p[5];
            }
            break;
        case T_ERROR:
            c->done = c->errored = 1;
            snprintf(c->errmsg, sizeof c->errmsg, "%.*s", (int)n, (const char*)p);
            break;
        case T_WINDOW_OUT:
            c->stdin_granted += n == 4 ? get32(p) : 0;
            break;
        default:
            break;
    }
}

/* Reads and dispatches frames for at most ms milliseconds (returns early after some arrived). */
static void agent_poll(int ms) {
    if (A.eof) {
        sleep_ms(ms > 10 ? 10 : ms);
        return;
    }
    struct pollfd p = {.fd = A.from, .events = POLLIN};
    if (poll(&p, 1, ms) <= 0) {
        return;
    }
    /* recvmsg, not read: on the lane, handed-over sockets ride along (a plain read would close them). */
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * MAX_PASS)];
    } control;
    struct iovec iov = {.iov_base = A.in + A.inlen, .iov_len = sizeof A.in - A.inlen};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control};
    ssize_t r = recvmsg(A.from, &m, MSG_CMSG_CLOEXEC);
    if (r < 0 && errno == ENOTSOCK) {
        r = read(A.from, A.in + A.inlen, sizeof A.in - A.inlen);
    } else if (r > 0) {
        A.ctrunc |= (m.msg_flags & MSG_CTRUNC) != 0;
        for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k && A.nfds < 64; i++) {
                    memcpy(&A.fds[A.nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                }
            }
        }
    }
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
        A.eof = 1;
        return;
    }
    if (r < 0) {
        return;
    }
    A.inlen += (size_t)r;
    size_t off = 0;
    while (A.inlen - off >= FRAME_HEADER) {
        uint32_t len = get32(A.in + off);
        if (len > MAX_OUT_PAYLOAD) {
            printf("FAIL  the agent sent a frame of %u bytes\n", len);
            failures++;
            A.eof = 1;
            return;
        }
        if (A.inlen - off < FRAME_HEADER + (size_t)len) {
            break;
        }
        dispatch(A.in[off + 4], get32(A.in + off + 5), A.in + off + FRAME_HEADER, len);
        off += FRAME_HEADER + len;
    }
    memmove(A.in, A.in + off, A.inlen - off);
    A.inlen -= off;
}

#define WAIT_FOR(cond, ms)                               \
    do {                                                 \
        uint64_t until_ = now_ms() + (ms);               \
        while (!(cond) && now_ms() < until_ && !A.eof) { \
            agent_poll((int)(until_ - now_ms()));        \
        }                                                \
    } while (0)

/* Reads whatever comes for ms milliseconds. */
static void drain_for(int ms) {
    uint64_t until = now_ms() + (uint64_t)ms;
    while (now_ms() < until) {
        agent_poll((int)(until - now_ms()));
    }
}

/* Waits for the agent to exit (after close or EOF); returns its wait status, -1 on timeout. */
static int agent_wait(int ms) {
    uint64_t until = now_ms() + (uint64_t)ms;
    int st;
    while (now_ms() < until) {
        agent_poll(20);
        pid_t r = waitpid(A.pid, &st, WNOHANG);
        if (r == A.pid) {
            while (!A.eof) {
                agent_poll(100);
            }
            close(A.to);
            close(A.from);
            return st;
        }
    }
    kill(A.pid, SIGKILL);
    waitpid(A.pid, &st, 0);
    close(A.to);
    close(A.from);
    return -1;
}

static int agent_close(void) {
    send_frame(T_CLOSE, 0, NULL, 0);
    return agent_wait(10000);
}

/* ---- /proc ---------------------------------------------------------------------------------- */

static size_t slurp(const char* path, char* buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    if (fd < 0) {
        return 0;
    }
    for (;;) {
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0) {
            break;
        }
        len += (size_t)n;
    }
    close(fd);
    buf[len] = 0;
    return len;
}

enum { BY_CMDLINE_EQ, BY_CMDLINE_HAS, BY_TAG };

/* Counts the live processes whose cmdline (NULs as spaces) equals / contains `what`, or whose
 * environment carries ZEUS_CALL_TAG=what. */
static int count_procs(int by, const char* what) {
    static char buf[1 << 20];
    int count = 0;
    DIR* d = opendir("/proc");
    struct dirent* e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid()) {
            continue;
        }
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        slurp(path, buf, sizeof buf);
        char* rp = strrchr(buf, ')');
        if (!rp || rp[2] == 'Z' || rp[2] == 'X') {
            continue;
        }
        snprintf(path, sizeof path, "/proc/%s/%s", e->d_name, by == BY_TAG ? "environ" : "cmdline");
        size_t len = slurp(path, buf, sizeof buf);
        if (by == BY_TAG) {
            char want[64];
            int wl = snprintf(want, sizeof want, "ZEUS_CALL_TAG=%s", what);
            for (size_t i = 0; i < len;) {
                size_t l = strnlen(buf + i, len - i);
                if (l == (size_t)wl && memcmp(buf + i, want, l) == 0) {
                    count++;
                    break;
                }
                i += l + 1;
            }
            continue;
        }
        if (by == BY_CMDLINE_HAS) {
            count += memmem(buf, len, what, strlen(what)) != NULL;
            continue;
        }
        while (len > 0 && buf[len - 1] == 0) {
            len--;
        }
        for (size_t i = 0; i < len; i++) {
            if (buf[i] == 0) {
                buf[i] = ' ';
            }
        }
        buf[len] = 0;
        count += strcmp(buf, what) == 0;
    }
    if (d) {
        closedir(d);
    }
    return count;
}

static int count_sleep(unsigned n) {
    char s[64];
    snprintf(s, sizeof s, "sleep %u", n);
    return count_procs(BY_CMDLINE_EQ, s);
}

/* Waits until count_sleep(n) == want (processes take a moment to start or die). */
static int wait_sleep_count(unsigned n, int want, int ms) {
    uint64_t until = now_ms() + (uint64_t)ms;
    int got;
    while ((got = count_sleep(n)) != want && now_ms() < until) {
        agent_poll(20);
    }
    return got;
}

/* ---- the tests ------------------------------------------------------------------------------ */

static void test_hello_and_basic(void) {
    agent_start();
    WAIT_FOR(A.hello, 5000);
    CHECK(A.hello && A.first_was_hello, "hello is the first frame");
    CHECK(A.protocol == PROTOCOL_VERSION, "hello says protocol %d (got %u)", PROTOCOL_VERSION, A.protocol);
    CHECK(A.version[0] != 0, "hello carries a version (%s)", A.version);

    send_exec(1, 0, 0, 0, NULL, "echo hi; echo err >&2; exit 3");
    WAIT_FOR(A.ch[1].done, 10000);
    struct chan* c = &A.ch[1];
    CHECK(c->started && c->pid > 1, "started with the shell's pid (%u)", c->pid);
    CHECK(c->out.len == 3 && memcmp(c->out.p, "hi\n", 3) == 0, "stdout is \"hi\\n\"");
    CHECK(c->err.len == 4 && memcmp(c->err.p, "err\n", 4) == 0, "stderr is \"err\\n\"");
    CHECK(c->exited && c->how == 0 && c->value == 3 && c->reason == 0, "exit: exited, code 3, by itself");

    /* UTF-8 in the command and in the output, and bytes that are not UTF-8 at all, pass intact. */
    send_exec(2, 0, 0, 0, NULL, "printf 'h\\303\\251llo \\344\\270\\226 \\377\\000\\001end'; echo ' caf\xc3\xa9'");
    WAIT_FOR(A.ch[2].done, 10000);
    static const char want[] =
        "h\xc3\xa9llo \xe4\xb8\x96 \xff\x00\x01"
        "end caf\xc3\xa9\n";
    CHECK(A.ch[2].out.len == sizeof want - 1 && memcmp(A.ch[2].out.p, want, sizeof want - 1) == 0,
          "binary and UTF-8 bytes arrive intact (%zu bytes)", A.ch[2].out.len);

    /* The environment: frame entries arrive, the command's own variables do not. */
    send_exec(3, 0, 0, 0, "ZEUS_TEST_VAR=a b=c",
              "echo \"$ZEUS_TEST_VAR\"; env | grep -c '^ZEUS_COMMAND' ; echo \"${__zeus_c-unset}\"; "
              "echo ${#ZEUS_CALL_TAG}");
    WAIT_FOR(A.ch[3].done, 10000);
    CHECK(A.ch[3].out.p && strcmp((char*)A.ch[3].out.p, "a b=c\n0\nunset\n32\n") == 0,
          "frame environment arrives; ZEUS_COMMAND and the script's variable do not reach the command; "
          "a 128-bit tag (got %s)",
          A.ch[3].out.p ? (char*)A.ch[3].out.p : "(nothing)");

    /* A command longer than one environment string may be (128 KiB) still runs whole. */
    size_t big = 300 * 1024;
    char* cmd = malloc(big + 64);
    strcpy(cmd, "x='");
    memset(cmd + 3, 'y', big);
    strcpy(cmd + 3 + big, "'; echo ${#x}");
    send_exec(4, 0, 0, 0, NULL, cmd);
    free(cmd);
    WAIT_FOR(A.ch[4].done, 10000);
    CHECK(A.ch[4].exited && A.ch[4].out.p && strcmp((char*)A.ch[4].out.p, "307200\n") == 0,
          "a 300 KiB command runs whole (got %s%s)", A.ch[4].out.p ? (char*)A.ch[4].out.p : "",
          A.ch[4].errored ? A.ch[4].errmsg : "");

    /* Killed by a signal: how 1, the signal number. */
    send_exec(5, 0, 0, 0, NULL, "kill -KILL $$");
    WAIT_FOR(A.ch[5].done, 10000);
    CHECK(A.ch[5].exited && A.ch[5].how == 1 && A.ch[5].value == 9, "killed by SIGKILL: how 1, value 9");

    /* A signal frame goes to the call's group. */
    send_exec(6, 0, 0, 0, NULL, "trap 'echo got-usr1; exit 7' USR1; echo ready; while :; do sleep 0.05; done");
    WAIT_FOR(A.ch[6].out.len > 0, 5000);
    send_u32(T_SIGNAL, 6, 10 /* SIGUSR1 */);
    WAIT_FOR(A.ch[6].done, 5000);
    CHECK(A.ch[6].exited && A.ch[6].value == 7 && strstr((char*)A.ch[6].out.p, "got-usr1"),
          "signal frame reaches the command (exit %d)", A.ch[6].value);
    int frames_after = 0;
    for (int i = 1; i <= 6; i++) {
        frames_after += (int)A.ch[i].frames_after_end;
    }
    CHECK(frames_after == 0, "nothing arrives on a channel after its exit");
    int st = agent_close();
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "close: the agent exits 0");
}

static void test_command_not_in_argv(void) {
    agent_start();
    char marker[64];
    snprintf(marker, sizeof marker, "zeus-marker-%u-secret", base);
    char cmd[200];
    snprintf(cmd, sizeof cmd, ": %s; sleep %u; echo done", marker, base + 1);
    send_exec(1, 0, 0, 0, NULL, cmd);
    WAIT_FOR(A.ch[1].started, 5000);
    int running = wait_sleep_count(base + 1, 1, 5000);
    CHECK(running == 1, "the command is running (its sleep is there)");
    CHECK(count_procs(BY_CMDLINE_HAS, marker) == 0, "the command text is in no /proc/*/cmdline");
    send_u32(T_STOP, 1, 0);
    WAIT_FOR(A.ch[1].done, 5000);
    CHECK(A.ch[1].exited && A.ch[1].reason == 2, "stop: exit with reason 2");
    agent_close();
}

static void test_window(void) {
    agent_start();
    send_exec(1, 0, 0, 0, NULL, "head -c 4194304 /dev/zero");
    struct chan* c = &A.ch[1];
    WAIT_FOR(c->out.len >= WINDOW0, 10000);
    drain_for(500);
    CHECK(c->out.len == WINDOW0 && !c->done, "without grants the agent stops at the window (%zu bytes)", c->out.len);
    send_u32(T_WINDOW, 1, 100000);
    WAIT_FOR(c->out.len >= WINDOW0 + 100000, 10000);
    drain_for(300);
    CHECK(c->out.len == WINDOW0 + 100000, "a grant lets exactly that much more through (%zu)", c->out.len);
    c->autogrant = 1;
    send_u32(T_WINDOW, 1, WINDOW0);
    WAIT_FOR(c->done, 30000);
    int zeros = 1;
    for (size_t i = 0; i < c->out.len; i++) {
        zeros &= c->out.p[i] == 0;
    }
    CHECK(c->exited && c->value == 0 && c->out.len == 4194304 && zeros,
          "with grants all 4 MiB arrive, then exit 0 (%zu bytes)", c->out.len);
    agent_close();
}

static void test_timeout(void) {
    agent_start();
    uint64_t t0 = now_ms();
    send_exec(1, 300, 200, 0, NULL, "sleep 100");
    WAIT_FOR(A.ch[1].done, 10000);
    uint64_t took = now_ms() - t0;
    CHECK(A.ch[1].exited && A.ch[1].reason == 1 && A.ch[1].how == 1 && A.ch[1].value == 15,
          "timeout: killed by SIGTERM, reason 1 (how %d value %d reason %d)", A.ch[1].how, A.ch[1].value,
          A.ch[1].reason);
    CHECK(took >= 300 && took < 3000, "the timeout took %llu ms", (unsigned long long)took);

    /* A command that ignores SIGTERM dies with SIGKILL after the grace. */
    t0 = now_ms();
    send_exec(2, 200, 300, 0, NULL, "trap '' TERM; sleep 100");
    WAIT_FOR(A.ch[2].done, 10000);
    took = now_ms() - t0;
    CHECK(A.ch[2].exited && A.ch[2].reason == 1 && A.ch[2].how == 1 && A.ch[2].value == 9,
          "a command deaf to SIGTERM is killed after the grace (how %d value %d, %llu ms)", A.ch[2].how, A.ch[2].value,
          (unsigned long long)took);
    agent_close();
}

static void get_tag(struct chan* c, char tag[33]) {
    WAIT_FOR(c->out.len >= 33 || c->done, 5000);
    tag[0] = 0;
    if (c->out.len >= 33) {
        memcpy(tag, c->out.p, 32);
        tag[32] = 0;
    }
}

static void test_stop_escapees(int use_timeout) {
    agent_start();
    unsigned s1 = base + 10, s2 = base + 11, s3 = base + 12;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "echo $ZEUS_CALL_TAG; setsid sleep %u & (sleep %u &) & sleep %u", s1, s2, s3);
    send_exec(1, use_timeout ? 1500 : 0, 200, 0, NULL, cmd);
    char tag[33];
    get_tag(&A.ch[1], tag);
    CHECK(strlen(tag) == 32, "the command printed its tag");
    int n1 = wait_sleep_count(s1, 1, 5000), n2 = wait_sleep_count(s2, 1, 5000), n3 = wait_sleep_count(s3, 1, 5000);
    CHECK(n1 == 1 && n2 == 1 && n3 == 1, "setsid, double-forked and foreground sleeps run");
    CHECK(count_procs(BY_TAG, tag) >= 4, "the tag marks the call's processes (%d)", count_procs(BY_TAG, tag));
    if (!use_timeout) {
        send_u32(T_STOP, 1, 200);
    }
    WAIT_FOR(A.ch[1].done, 10000);
    CHECK(A.ch[1].exited && A.ch[1].reason == (use_timeout ? 1 : 2), "%s: exit with reason %d",
          use_timeout ? "timeout" : "stop", A.ch[1].reason);
    CHECK(count_procs(BY_TAG, tag) == 0 && count_sleep(s1) + count_sleep(s2) + count_sleep(s3) == 0,
          "%s: nothing of the call is left (tagged %d, sleeps %d %d %d)", use_timeout ? "timeout" : "stop",
          count_procs(BY_TAG, tag), count_sleep(s1), count_sleep(s2), count_sleep(s3));
    agent_close();
}

static void test_background_and_concurrency(void) {
    agent_start();
    unsigned bg = base + 20, a = base + 21, b = base + 22;
    char cmd[200];
    /* The background job keeps the output pipes open: exit must not wait for their end of file. */
    snprintf(cmd, sizeof cmd, "sleep %u & echo started", bg);
    uint64_t t0 = now_ms();
    send_exec(1, 0, 0, 0, NULL, cmd);
    WAIT_FOR(A.ch[1].done, 5000);
    CHECK(A.ch[1].exited && A.ch[1].value == 0 && now_ms() - t0 < 3000,
          "a command that leaves a background job ends at once");
    CHECK(wait_sleep_count(bg, 1, 2000) == 1, "the background job survives the call's normal exit");

    snprintf(cmd, sizeof cmd, "sleep %u", a);
    send_exec(2, 0, 0, 0, NULL, cmd);
    snprintf(cmd, sizeof cmd, "sleep %u", b);
    send_exec(3, 0, 0, 0, NULL, cmd);
    CHECK(wait_sleep_count(a, 1, 5000) == 1 && wait_sleep_count(b, 1, 5000) == 1, "two concurrent calls run");
    send_u32(T_STOP, 2, 100);
    WAIT_FOR(A.ch[2].done, 5000);
    CHECK(A.ch[2].exited && A.ch[2].reason == 2 && count_sleep(a) == 0, "the stopped call is gone");
    CHECK(count_sleep(b) == 1 && !A.ch[3].done, "stopping one call leaves the other running");
    CHECK(count_sleep(bg) == 1, "stopping a call leaves another call's background job running");

    /* Outputs of concurrent calls never mix. */
    A.ch[4].autogrant = A.ch[5].autogrant = 1;
    send_exec(4, 0, 0, 0, NULL, "i=0; while [ $i -lt 3000 ]; do echo AAAAAAAAAAAAAAAAAAAA; i=$((i+1)); done");
    send_exec(5, 0, 0, 0, NULL, "i=0; while [ $i -lt 3000 ]; do echo BBBBBBBBBBBBBBBBBBBB; i=$((i+1)); done >&2");
    WAIT_FOR(A.ch[4].done && A.ch[5].done, 20000);
    int clean =
        A.ch[4].out.len == 3000 * 21 && A.ch[5].err.len == 3000 * 21 && A.ch[4].err.len == 0 && A.ch[5].out.len == 0;
    for (size_t i = 0; clean && i < A.ch[4].out.len; i++) {
        clean = A.ch[4].out.p[i] == (i % 21 == 20 ? '\n' : 'A') && A.ch[5].err.p[i] == (i % 21 == 20 ? '\n' : 'B');
    }
    CHECK(clean, "two concurrent calls' outputs do not mix (%zu / %zu bytes)", A.ch[4].out.len, A.ch[5].err.len);

    int st = agent_close();
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "close: exit 0");
    CHECK(A.ch[3].exited && A.ch[3].reason == 2, "close ends the running call with reason 2");
    CHECK(count_sleep(b) == 0, "close kills the running call");
    CHECK(count_sleep(bg) == 0, "close kills the background job a finished call left");
}

static void test_eof(void) {
    agent_start();
    unsigned s = base + 30;
    char cmd[100];
    snprintf(cmd, sizeof cmd, "sleep %u", s);
    send_exec(1, 0, 0, 0, NULL, cmd);
    CHECK(wait_sleep_count(s, 1, 5000) == 1, "a call runs");
    close(A.to);
    A.to = -1;
    int st = agent_wait(10000);
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "end of file on stdin: the agent exits 0");
    CHECK(count_sleep(s) == 0, "end of file on stdin kills the calls");
}

static void test_stdin(void) {
    agent_start();
    send_exec(1, 0, 0, 1, NULL, "cat; echo end");
    WAIT_FOR(A.ch[1].started, 5000);
    send_frame(T_STDIN, 1, "hello\n", 6);
    send_frame(T_STDIN, 1, "w\xc3\xb6rld\n", 7);
    WAIT_FOR(A.ch[1].out.len >= 13, 5000);
    send_frame(T_STDIN, 1, NULL, 0);
    WAIT_FOR(A.ch[1].done, 5000);
    CHECK(A.ch[1].out.p && strcmp((char*)A.ch[1].out.p, "hello\nw\xc3\xb6rld\nend\n") == 0,
          "stdin frames reach cat and the empty frame ends its input");
    CHECK(A.ch[1].exited && A.ch[1].value == 0, "exit 0 after end of input");
    CHECK(A.ch[1].stdin_granted == 13, "the agent gives the stdin window back as it writes (%llu)",
          (unsigned long long)A.ch[1].stdin_granted);

    /* Without the flag stdin is /dev/null. */
    send_exec(2, 0, 0, 0, NULL, "cat; echo rc=$?");
    WAIT_FOR(A.ch[2].done, 5000);
    CHECK(A.ch[2].out.p && strcmp((char*)A.ch[2].out.p, "rc=0\n") == 0, "without the flag stdin is empty");

    /* Stdin over the window: a protocol error. */
    send_exec(3, 0, 0, 1, NULL, "sleep 100");
    WAIT_FOR(A.ch[3].started, 5000);
    char* blob = calloc(1, WINDOW0 + 1);
    send_frame(T_STDIN, 3, blob, WINDOW0 + 1);
    free(blob);
    int st = agent_wait(10000);
    CHECK(A.ch0_errors == 1 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "stdin beyond the window: error on channel 0 (%s), exit 1", A.ch0msg);
}

static void test_bad_frames(void) {
    agent_start();
    /* An exec whose payload is cut short, whose string runs past the end, with unknown flags: error on
     * that channel, and the agent goes on. */
    send_frame(T_EXEC, 1, "\0\0\0\0\0\0\0\0", 8);
    unsigned char bad[20] = {0};
    put32(bad + 16, 100); /* the command claims 100 bytes, none follow */
    send_frame(T_EXEC, 2, bad, sizeof bad);
    send_exec(3, 0, 0, 2, NULL, "true");
    send_exec(4, 0, 0, 0, "NOEQUALS", "true");
    WAIT_FOR(A.ch[1].done && A.ch[2].done && A.ch[3].done && A.ch[4].done, 5000);
    CHECK(A.ch[1].errored && !A.ch[1].started, "truncated exec: error (%s)", A.ch[1].errmsg);
    CHECK(A.ch[2].errored && !A.ch[2].started, "string past the payload: error (%s)", A.ch[2].errmsg);
    CHECK(A.ch[3].errored && !A.ch[3].started, "unknown exec flags: error (%s)", A.ch[3].errmsg);
    CHECK(A.ch[4].errored && !A.ch[4].started, "environment entry without '=': error (%s)", A.ch[4].errmsg);

    /* A channel id in use. */
    unsigned s = base + 40;
    char cmd[100];
    snprintf(cmd, sizeof cmd, "sleep %u", s);
    send_exec(5, 0, 0, 0, NULL, cmd);
    WAIT_FOR(A.ch[5].started, 5000);
    send_exec(5, 0, 0, 0, NULL, "echo second");
    WAIT_FOR(A.ch[5].errored, 5000);
    CHECK(A.ch[5].errored && strstr(A.ch[5].errmsg, "in use"), "exec on a channel in use: error (%s)", A.ch[5].errmsg);
    CHECK(wait_sleep_count(s, 1, 1000) == 1, "the call that owns the channel runs on");

    /* Frames for a channel that is not live cross its end on the pipe: ignored. */
    send_u32(T_WINDOW, 77, 1000);
    send_u32(T_STOP, 78, 0);
    send_frame(T_STDIN, 79, "x", 1);
    /* 64 live channels at most (5 is live). */
    for (uint32_t ch = 10; ch < 10 + 63; ch++) {
        send_exec(ch, 0, 0, 0, NULL, "sleep 100");
    }
    send_exec(100, 0, 0, 0, NULL, "true");
    WAIT_FOR(A.ch[100].done && A.ch[72].started, 20000);
    int all = 1;
    for (uint32_t ch = 10; ch < 10 + 63; ch++) {
        all &= A.ch[ch].started;
    }
    CHECK(all && A.ch[100].errored, "64 live channels; the 65th exec gets an error (%s)", A.ch[100].errmsg);
    CHECK(A.ch0_errors == 0 && !A.eof, "the agent is still there after the bad frames");
    for (uint32_t ch = 10; ch < 10 + 63; ch++) {
        send_u32(T_STOP, ch, 0);
    }
    WAIT_FOR(A.ch[72].done, 10000);
    send_exec(6, 0, 0, 0, NULL, "echo still-sane");
    WAIT_FOR(A.ch[6].done, 5000);
    CHECK(A.ch[6].out.p && strcmp((char*)A.ch[6].out.p, "still-sane\n") == 0, "and runs the next command");
    agent_close();

    /* Header errors end the connection: oversize length, unknown type. */
    agent_start();
    unsigned char h[FRAME_HEADER] = {0, 0x10, 0, 1, T_EXEC, 0, 0, 0, 1}; /* MAX_IN_PAYLOAD + 1 */
    send_raw(h, sizeof h);
    int st = agent_wait(5000);
    CHECK(A.ch0_errors == 1 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "oversize frame: error on channel 0 (%s), exit 1", A.ch0msg);
    agent_start();
    send_frame(0x42, 1, "", 0);
    st = agent_wait(5000);
    CHECK(A.ch0_errors == 1 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "unknown frame type: error on channel 0 (%s), exit 1", A.ch0msg);
    agent_start();
    send_exec(0, 0, 0, 0, NULL, "true");
    st = agent_wait(5000);
    CHECK(A.ch0_errors == 1 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "exec on channel 0: error on channel 0 (%s), exit 1", A.ch0msg);
    agent_start();
    send_frame(T_WINDOW, 5, "ab", 2); /* the length is checked before the channel */
    st = agent_wait(5000);
    CHECK(A.ch0_errors == 1 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1,
          "window frame of 2 bytes: error on channel 0 (%s), exit 1", A.ch0msg);
}

static void test_version(void) {
    int p[2];
    if (pipe(p) < 0) {
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        execl(agent_path, agent_path, "--version", (char*)NULL);
        _exit(127);
    }
    close(p[1]);
    char out[200] = {0};
    size_t len = 0;
    ssize_t n;
    while ((n = read(p[0], out + len, sizeof out - 1 - len)) > 0) {
        len += (size_t)n;
    }
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strncmp(out, "zeus-sandbox-agent ", 19) == 0,
          "--version prints the version (%.*s)", (int)strcspn(out, "\n"), out);
}

/* ---- egress tunnels ---------------------------------------------------------------------- */

static int free_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr*)&a, &l) != 0) {
        return 0;
    }
    close(fd);
    return ntohs(a.sin_port);
}

static int dial(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/* Reads from a socket until n bytes came, EOF, or the deadline; keeps the agent's frames flowing. */
static size_t sock_read(int fd, char* out, size_t n, int ms, int* eof) {
    size_t got = 0;
    uint64_t until = now_ms() + (uint64_t)ms;
    *eof = 0;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    while (got < n && now_ms() < until) {
        ssize_t r = read(fd, out + got, n - got);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            *eof = 1;
            break;
        }
        agent_poll(5);
    }
    return got;
}

static int start_listener(uint32_t kind) {
    for (int attempt = 0; attempt < 5; attempt++) {
        int port = free_port();
        unsigned char b[8];
        put32(b, (uint32_t)port);
        put32(b + 4, kind);
        A.listening = 0;
        send_frame(T_LISTEN, 0, b, 8);
        WAIT_FOR(A.listening, 3000);
        if (A.listening && A.listen_errno == 0 && A.listen_port == (uint32_t)port) {
            return port;
        }
    }
    return 0;
}

static void test_tunnels(void) {
    agent_start();
    WAIT_FOR(A.hello, 5000);
    int port = start_listener(1);
    CHECK(port > 0, "listen: the agent listens on 127.0.0.1:%d and says so", port);

    /* One connection, both ways, then a clean close from both sides. */
    int c = dial(port);
    WAIT_FOR(A.ntunnels == 1, 3000);
    uint32_t id = A.ntunnels ? A.tunnel_order[0] : 0;
    struct tun* t = &A.tun[id & ~TUNNEL_BIT];
    CHECK(c >= 0 && A.ntunnels == 1 && (id & TUNNEL_BIT) && t->kind == 1,
          "an accepted connection opens a tunnel with the listener's kind and an id with the high bit (%08x)", id);
    if (write(c, "CONNECT x:443 HTTP/1.1\r\n\r\n", 26) != 26) {
        CHECK(0, "write to the tunnel");
    }
    WAIT_FOR(t->data.len >= 26, 3000);
    CHECK(t->data.len == 26 && memcmp(t->data.p, "CONNECT x:443", 13) == 0,
          "the client's bytes arrive unchanged in tunnel data frames (%zu bytes)", t->data.len);
    send_frame(T_TDATA, id, "HTTP/1.1 200 OK\r\n\r\n", 19);
    char back[64];
    int eof = 0;
    size_t got = sock_read(c, back, 19, 3000, &eof);
    CHECK(got == 19 && memcmp(back, "HTTP/1.1 200 OK", 15) == 0, "the app's bytes reach the client (%zu bytes)", got);
    WAIT_FOR(t->granted >= 19, 3000);
    CHECK(t->granted == 19, "the agent gives back the window of what it wrote (%llu)", (unsigned long long)t->granted);
    shutdown(c, SHUT_WR);
    WAIT_FOR(t->eof, 3000);
    CHECK(t->eof && !t->closed, "the client's end of sending arrives as an empty data frame; the tunnel stays open");
    send_frame(T_TDATA, id, NULL, 0);
    got = sock_read(c, back, sizeof back, 3000, &eof);
    CHECK(got == 0 && eof, "the app's empty data frame ends the client's reading (EOF)");
    WAIT_FOR(t->closed, 3000);
    CHECK(t->closed, "both directions done: the agent says the tunnel is closed");
    close(c);

    /* Flow control: a client that sends 600 KiB gets 256 KiB through until the app grants more. */
    c = dial(port);
    WAIT_FOR(A.ntunnels == 2, 3000);
    id = A.ntunnels == 2 ? A.tunnel_order[1] : 0;
    t = &A.tun[id & ~TUNNEL_BIT];
    static char big[600 * 1024];
    memset(big, 'z', sizeof big);
    fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
    size_t sent = 0;
    uint64_t until = now_ms() + 3000;
    while (sent < sizeof big && now_ms() < until) {
        ssize_t w = write(c, big + sent, sizeof big - sent);
        if (w > 0) {
            sent += (size_t)w;
        }
        agent_poll(5);
    }
    drain_for(300);
    CHECK(t->data.len == WINDOW0, "without a grant the agent sends exactly the 256 KiB window (%zu)", t->data.len);
    send_u32(T_WINDOW, id, 1 << 20);
    until = now_ms() + 5000;
    while (sent < sizeof big && now_ms() < until) {
        ssize_t w = write(c, big + sent, sizeof big - sent);
        if (w > 0) {
            sent += (size_t)w;
        }
        agent_poll(5);
    }
    WAIT_FOR(t->data.len == sizeof big, 5000);
    CHECK(t->data.len == sizeof big, "after a grant the rest flows (%zu of %zu)", t->data.len, sizeof big);

    /* The app closes a tunnel: the client sees the end at once and the agent says nothing more. */
    send_frame(T_TCLOSE, id, NULL, 0);
    got = sock_read(c, back, sizeof back, 3000, &eof);
    CHECK(eof, "tunnel close from the app ends the client's connection");
    drain_for(100);
    CHECK(!t->closed && t->frames_after_close == 0, "no frame follows the app's own close");
    close(c);

    /* Frames for a tunnel that is gone are ignored (they crossed on the pipe). */
    send_frame(T_TDATA, id, "late", 4);
    send_u32(T_WINDOW, id, 100);
    drain_for(100);
    CHECK(!A.eof && A.ch0_errors == 0, "frames for an ended tunnel are ignored");

    /* Many connections at once: each gets its own tunnel. */
    int many[100];
    for (int i = 0; i < 100; i++) {
        many[i] = dial(port);
    }
    WAIT_FOR(A.ntunnels == 102, 5000);
    CHECK(A.ntunnels == 102, "100 concurrent connections open 100 tunnels (%d)", A.ntunnels - 2);
    for (int i = 0; i < 100; i++) {
        close(many[i]);
    }
    send_frame(T_CLOSE, 0, NULL, 0);
    int st = agent_wait(5000);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "close ends the agent with tunnels open");

    /* A hostile app gets nowhere either: data beyond the window is a protocol error. */
    agent_start();
    WAIT_FOR(A.hello, 5000);
    port = start_listener(2);
    c = dial(port);
    WAIT_FOR(A.ntunnels == 1, 3000);
    id = A.ntunnels ? A.tunnel_order[0] : 0;
    CHECK(A.tun[id & ~TUNNEL_BIT].kind == 2, "a second kind of listener keeps its kind (socks: 2)");
    /* The app may send 2 MiB on a tunnel (a download's window) plus what the agent gave back as it wrote to the
     * client. The client reads nothing, so once the socket buffers are full nothing more is given back: then one
     * byte beyond the window is a protocol error. */
    static char mib[1 << 20];
    struct tun* tt = &A.tun[id & ~TUNNEL_BIT];
    uint64_t pushed = 0;
    for (int rounds = 0; rounds < 64; rounds++) {
        uint64_t room = 2u * 1024 * 1024 + tt->granted - pushed;
        if (room >= sizeof mib) {
            send_frame(T_TDATA, id, mib, sizeof mib);
            pushed += sizeof mib;
            continue;
        }
        uint64_t before = tt->granted;
        drain_for(300);
        if (tt->granted == before) {
            break; /* the client's socket is full: no more window comes */
        }
    }
    uint64_t room = 2u * 1024 * 1024 + tt->granted - pushed;
    CHECK(!A.eof && A.ch0_errors == 0 && room < sizeof mib,
          "a tunnel takes its window and what the agent gave back (%llu bytes sent)", (unsigned long long)pushed);
    send_frame(T_TDATA, id, mib, (size_t)room + 1);
    WAIT_FOR(A.eof, 5000);
    CHECK(A.ch0_errors == 1 && strstr(A.ch0msg, "window"), "tunnel data beyond the window is a protocol error (%s)",
          A.ch0msg);
    agent_wait(5000);
    close(c);

    agent_start();
    WAIT_FOR(A.hello, 5000);
    send_exec(TUNNEL_BIT | 5, 0, 0, 0, NULL, "true");
    WAIT_FOR(A.eof, 5000);
    CHECK(A.ch0_errors == 1, "exec on a tunnel id is a protocol error (%s)", A.ch0msg);
    agent_wait(5000);
}

/* Published ports: the app asks the agent to connect to 127.0.0.1:PORT (here the test's own loopback). */
/* Exposed host ports (SPEC §8 "Ports"): besides the two proxy listeners, one listener per exposed port (at most 16),
 * whose kind names its port so the app knows which host port a connection is for; the agent echoes it unchanged. */
static void test_expose_listeners(void) {
    agent_start();
    WAIT_FOR(A.hello, 5000);
    int ports[MAX_LISTENERS];
    int opened = 0;
    ports[opened++] = start_listener(LISTEN_HTTP_PROXY);
    ports[opened++] = start_listener(LISTEN_SOCKS5);
    while (opened < MAX_LISTENERS) {
        int port = free_port();
        unsigned char l[8];
        put32(l, (uint32_t)port);
        put32(l + 4, (uint32_t)LISTEN_EXPOSE | (uint32_t)port);
        A.listening = 0;
        send_frame(T_LISTEN, 0, l, 8);
        WAIT_FOR(A.listening, 3000);
        ports[opened++] = A.listening && A.listen_errno == 0 && A.listen_port == (uint32_t)port ? port : 0;
    }
    int all = 1;
    for (int i = 0; i < opened; i++) {
        all = all && ports[i] > 0;
    }
    CHECK(MAX_LISTENERS >= 18 && all, "the two proxies and 16 exposed ports listen at once (%d listeners)", opened);
    unsigned char b[8];
    put32(b, (uint32_t)free_port());
    put32(b + 4, LISTEN_EXPOSE | 4242u);
    A.listening = 0;
    send_frame(T_LISTEN, 0, b, 8);
    WAIT_FOR(A.listening, 3000);
    CHECK(A.listening && A.listen_errno == EMFILE, "one listener more is refused with EMFILE (%d)", A.listen_errno);
    int last = ports[MAX_LISTENERS - 1];
    int c = dial(last);
    WAIT_FOR(A.ntunnels == 1, 3000);
    uint32_t id = A.ntunnels ? A.tunnel_order[0] : 0;
    CHECK(c >= 0 && A.ntunnels == 1 && A.tun[id & ~TUNNEL_BIT].kind == ((uint32_t)LISTEN_EXPOSE | (uint32_t)last),
          "a connection to an exposed port opens a tunnel whose kind names that port (%08x)",
          A.ntunnels ? A.tun[id & ~TUNNEL_BIT].kind : 0);
    if (c >= 0) {
        close(c);
    }
    send_frame(T_CLOSE, 0, NULL, 0);
    int st = agent_wait(5000);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "close ends the agent with every listener open");
}

static struct tun* app_tunnel(uint32_t k) {
    return &A.tun[NTUN - 1 - k];
}

static void send_connect(uint32_t id, uint32_t port) {
    send_u32(T_TCONNECT, id, port);
}

static void test_connect_tunnels(void) {
    agent_start();
    WAIT_FOR(A.hello, 5000);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr*)&a, sizeof a) != 0 || getsockname(ls, (struct sockaddr*)&a, &l) != 0
        || listen(ls, 4) != 0) {
        CHECK(0, "a loopback server for tunnel connect");
        return;
    }
    int port = ntohs(a.sin_port);
    const uint32_t id = TUNNEL_BIT | TUNNEL_APP_BIT | 1;
    send_connect(id, (uint32_t)port);
    struct tun* t = app_tunnel(1);
    WAIT_FOR(t->connected, 3000);
    CHECK(t->connected && t->connect_err == 0, "tunnel connect reaches 127.0.0.1:%d and says so (%u)", port,
          t->connect_err);
    int s = accept(ls, NULL, NULL);
    CHECK(s >= 0, "the server accepted the agent's connection");
    send_frame(T_TDATA, id, "GET / HTTP/1.0\r\n\r\n", 18);
    char got[64];
    int eof = 0;
    size_t n = sock_read(s, got, 18, 3000, &eof);
    CHECK(n == 18 && memcmp(got, "GET / HTTP/1.0", 14) == 0, "the app's bytes reach the server (%zu)", n);
    WAIT_FOR(t->granted >= 18, 3000);
    CHECK(t->granted == 18, "the agent gives back the window of what it wrote (%llu)", (unsigned long long)t->granted);
    if (write(s, "HTTP/1.0 200 OK\r\n\r\nhello", 24) != 24) {
        CHECK(0, "write to the tunnel");
    }
    shutdown(s, SHUT_WR);
    WAIT_FOR(t->eof, 3000);
    CHECK(t->data.len == 24 && memcmp(t->data.p + 19, "hello", 5) == 0 && t->eof,
          "the server's bytes and its end come back in tunnel data frames (%zu)", t->data.len);
    send_frame(T_TDATA, id, NULL, 0);
    n = sock_read(s, got, sizeof got, 3000, &eof);
    CHECK(n == 0 && eof, "the app's end reaches the server as EOF");
    WAIT_FOR(t->closed, 3000);
    CHECK(t->closed, "both directions done: the agent says the tunnel is closed");
    close(s);

    /* Nothing listening: the answer is the errno, and the tunnel never existed. */
    close(ls);
    send_connect(id + 1, (uint32_t)port);
    WAIT_FOR(app_tunnel(2)->connected, 3000);
    CHECK(app_tunnel(2)->connect_err == ECONNREFUSED, "a closed port is refused with ECONNREFUSED (%u)",
          app_tunnel(2)->connect_err);
    /* Ports outside 1-65535 are refused, not fatal: the agent goes on. */
    send_connect(id + 2, 0);
    send_connect(id + 3, 70000);
    WAIT_FOR(app_tunnel(3)->connected && app_tunnel(4)->connected, 3000);
    CHECK(app_tunnel(3)->connect_err == EINVAL && app_tunnel(4)->connect_err == EINVAL && !A.eof && A.ch0_errors == 0,
          "ports 0 and 70000 are refused with EINVAL and the agent goes on (%u %u)", app_tunnel(3)->connect_err,
          app_tunnel(4)->connect_err);
    /* An id the agent would pick (no TUNNEL_APP_BIT) is a protocol error: the two kinds of ids never meet. */
    send_connect(TUNNEL_BIT | 7, (uint32_t)port);
    WAIT_FOR(A.eof, 5000);
    CHECK(A.ch0_errors == 1 && strstr(A.ch0msg, "connect"), "tunnel connect on an agent's id is a protocol error (%s)",
          A.ch0msg);
    agent_wait(5000);

    agent_start();
    WAIT_FOR(A.hello, 5000);
    unsigned char b[8] = {0};
    send_frame(T_TCONNECT, id, b, sizeof b);
    WAIT_FOR(A.eof, 5000);
    CHECK(A.ch0_errors == 1, "a tunnel connect payload that is not 4 bytes is a protocol error (%s)", A.ch0msg);
    agent_wait(5000);
}

/* A fake egress proxy for `connect`: answers the CONNECT with `status` and then echoes. */
static void test_connect_mode(const char* status, int expect_ok) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof a;
    bind(ls, (struct sockaddr*)&a, sizeof a);
    listen(ls, 1);
    getsockname(ls, (struct sockaddr*)&a, &l);
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", ntohs(a.sin_port));
    int in[2], out[2], err[2];
    if (pipe(in) || pipe(out) || pipe(err)) {
        abort();
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        setenv("ZEUS_EGRESS_PROXY_PORT", portstr, 1);
        execl(agent_path, agent_path, "connect", "git.example.test", "22", (char*)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    int s = accept(ls, NULL, NULL);
    char req[256] = {0};
    size_t got = 0;
    while (got < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
        ssize_t r = read(s, req + got, sizeof req - 1 - got);
        if (r <= 0) {
            break;
        }
        got += (size_t)r;
    }
    CHECK(strncmp(req, "CONNECT git.example.test:22 HTTP/1.1\r\n", 38) == 0,
          "connect asks the proxy with CONNECT HOST:PORT");
    char resp[128];
    int n = snprintf(resp, sizeof resp, "HTTP/1.1 %s\r\nX-Test: 1\r\n\r\nSSH-2.0-fake\r\n", status);
    if (write(s, resp, (size_t)n) != n) {
        abort();
    }
    if (expect_ok) {
        if (write(in[1], "client-hello", 12) != 12) {
            abort();
        }
        char echo[32] = {0};
        ssize_t r = read(s, echo, 12);
        CHECK(r == 12 && memcmp(echo, "client-hello", 12) == 0, "connect relays stdin to the tunnel");
        char outb[64] = {0};
        r = read(out[0], outb, sizeof outb - 1);
        CHECK(r > 0 && strcmp(outb, "SSH-2.0-fake\r\n") == 0,
              "connect relays the tunnel to stdout, after the head only");
    }
    close(in[1]);
    close(s);
    int st;
    waitpid(pid, &st, 0);
    char errb[256] = {0};
    ssize_t r = read(err[0], errb, sizeof errb - 1);
    (void)r;
    if (expect_ok) {
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "connect exits 0 when both sides are done");
    } else {
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(errb, "refused by the egress proxy"),
              "a refusal from the proxy ends connect with 1 and says why (%s)", errb);
    }
    close(out[0]);
    close(err[0]);
    close(ls);
}

/* ---- the agent is out of the commands' reach -------------------------------------------------- */

static void read_small(const char* dir, const char* name, char* out, size_t cap) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    out[0] = 0;
    size_t n = slurp(path, out, cap);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ')) {
        out[--n] = 0;
    }
}

/* A background job of one call attacks the agent itself: it opens the agent's stdin (every later frame, the
 * environment of every later call with its secrets) and its stdout (to forge frames), through /proc. */
static void test_out_of_reach(void) {
    char dir[] = "/tmp/zeus-agent-test-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    chmod(dir, 0777);
    agent_start();
    WAIT_FOR(A.hello, 5000);
    char cmd[2048];
    /* $PPID of the call's shell is the agent. The forged frame: 6 bytes of stdout on channel 2. */
    snprintf(cmd, sizeof cmd,
             "a=$PPID; d=%s\n"
             "( exec </dev/null >/dev/null 2>&1; cat /proc/$a/fd/0 >$d/stolen 2>$d/in.err; echo $? >$d/in.rc ) &\n"
             "( exec </dev/null >/dev/null 2>&1; sleep 0.3\n"
             "  printf '\\000\\000\\000\\006\\203\\000\\000\\000\\002FORGED' 2>$d/out.err >/proc/$a/fd/1; echo $? "
             ">$d/out.rc\n"
             "  head -c 64 /proc/$a/environ >$d/environ 2>/dev/null; echo $? >$d/environ.rc ) &\n"
             "echo $a",
             dir);
    send_exec(1, 0, 0, 0, NULL, cmd);
    WAIT_FOR(A.ch[1].done, 5000);
    char want[32];
    snprintf(want, sizeof want, "%d\n", (int)A.pid);
    CHECK(A.ch[1].exited && A.ch[1].out.p && strcmp((char*)A.ch[1].out.p, want) == 0,
          "the call's shell is the agent's child (it printed %s)", A.ch[1].out.p ? (char*)A.ch[1].out.p : "nothing");

    /* A later call with a secret in its environment, running while the job tries to forge a frame. */
    char secret[64];
    snprintf(secret, sizeof secret, "ZEUS_T_SECRET=zeus-secret-%u-value", base);
    send_exec(2, 0, 0, 0, secret, "sleep 0.8; echo \"${#ZEUS_T_SECRET}\"");
    WAIT_FOR(A.ch[2].done, 5000);
    char len[16];
    snprintf(len, sizeof len, "%zu\n", strlen(secret) - strlen("ZEUS_T_SECRET="));
    CHECK(A.ch[2].exited && A.ch[2].out.p && strcmp((char*)A.ch[2].out.p, len) == 0,
          "the later call runs and sees its secret (stdout %s)", A.ch[2].out.p ? (char*)A.ch[2].out.p : "nothing");
    CHECK(!A.ch[2].out.p || !memmem(A.ch[2].out.p, A.ch[2].out.len, "FORGED", 6), "no forged frame reached the app");
    send_exec(3, 0, 0, 0, NULL, "echo still");
    WAIT_FOR(A.ch[3].done, 5000);
    CHECK(A.ch[3].exited && A.ch[3].out.p && strcmp((char*)A.ch[3].out.p, "still\n") == 0, "the agent goes on");

    static char got[1 << 16];
    char rc[64], err[256];
    read_small(dir, "in.rc", rc, sizeof rc);
    read_small(dir, "in.err", err, sizeof err);
    CHECK(rc[0] != 0 && strcmp(rc, "0") != 0 && strstr(err, "denied"),
          "a command cannot open the agent's stdin through /proc (rc %s: %s)", rc[0] ? rc : "none: still reading", err);
    char path[256];
    snprintf(path, sizeof path, "%s/stolen", dir);
    size_t n = slurp(path, got, sizeof got);
    CHECK(!memmem(got, n, secret + strlen("ZEUS_T_SECRET="), strlen(secret) - strlen("ZEUS_T_SECRET=")),
          "the later call's secret was not read from the agent's stdin (%zu bytes stolen)", n);
    read_small(dir, "out.rc", rc, sizeof rc);
    read_small(dir, "out.err", err, sizeof err);
    CHECK(rc[0] != 0 && strcmp(rc, "0") != 0 && strstr(err, "denied"),
          "a command cannot open the agent's stdout through /proc (rc %s: %s)", rc[0] ? rc : "none", err);
    read_small(dir, "environ.rc", rc, sizeof rc);
    CHECK(rc[0] != 0 && strcmp(rc, "0") != 0, "nor read the agent's environment (rc %s)", rc[0] ? rc : "none");
    int st = agent_close();
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "close: exit 0");
    static const char* const files[] = {"stolen", "in.err", "in.rc", "out.err", "out.rc", "environ", "environ.rc"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* Processes that leave the call every way at once (a cleared environment, so no tag; a new session; their
 * parents gone) die on timeout and stop; an earlier call's background jobs that did the same, and a concurrent
 * call, do not. */
static void test_detached_escapees(int use_timeout) {
    agent_start();
    unsigned bg1 = base + 60, bg2 = base + 61, bg3 = base + 62;
    unsigned e1 = base + 63, e2 = base + 64, e3 = base + 65, e4 = base + 66, other = base + 67;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "( (exec -c setsid sleep %u >/dev/null 2>&1) & ); ( (env -i setsid sleep %u >/dev/null 2>&1) & ); "
             "sleep %u >/dev/null 2>&1 & echo ok",
             bg1, bg2, bg3);
    send_exec(1, 0, 0, 0, NULL, cmd);
    WAIT_FOR(A.ch[1].done, 5000);
    CHECK(wait_sleep_count(bg1, 1, 5000) == 1 && wait_sleep_count(bg2, 1, 5000) == 1
              && wait_sleep_count(bg3, 1, 5000) == 1,
          "a finished call's background jobs run (detached and not)");

    snprintf(cmd, sizeof cmd,
             "( (exec -c sleep %u >/dev/null 2>&1) & ); ( (exec -c setsid sleep %u >/dev/null 2>&1) & ); "
             "( (env -i setsid sh -c 'sleep %u >/dev/null 2>&1 & exit') & ); "
             "setsid sh -c '(env -i sleep %u >/dev/null 2>&1 &)'; sleep 60",
             e1, e2, e3, e4);
    send_exec(2, use_timeout ? 1500 : 0, 200, 0, NULL, cmd);
    snprintf(cmd, sizeof cmd, "sleep %u", other);
    send_exec(3, 0, 0, 0, NULL, cmd);
    int n1 = wait_sleep_count(e1, 1, 5000), n2 = wait_sleep_count(e2, 1, 5000), n3 = wait_sleep_count(e3, 1, 5000),
        n4 = wait_sleep_count(e4, 1, 5000), n5 = wait_sleep_count(other, 1, 5000);
    CHECK(n1 == 1 && n2 == 1 && n3 == 1 && n4 == 1 && n5 == 1,
          "the escapees and the concurrent call run (%d %d %d %d %d)", n1, n2, n3, n4, n5);
    if (!use_timeout) {
        send_u32(T_STOP, 2, 200);
    }
    WAIT_FOR(A.ch[2].done, 10000);
    const char* how = use_timeout ? "timeout" : "stop";
    CHECK(A.ch[2].exited && A.ch[2].reason == (use_timeout ? 1 : 2), "%s: exit with reason %d", how, A.ch[2].reason);
    wait_sleep_count(e1, 0, 1000);
    CHECK(
        count_sleep(e1) + count_sleep(e2) + count_sleep(e3) + count_sleep(e4) == 0,
        "%s: the detached escapees are gone (exec -c %d, exec -c setsid %d, env -i setsid sh %d, setsid sh env -i %d)",
        how, count_sleep(e1), count_sleep(e2), count_sleep(e3), count_sleep(e4));
    CHECK(count_sleep(bg1) == 1 && count_sleep(bg2) == 1 && count_sleep(bg3) == 1,
          "%s: the earlier call's background jobs are left alone (%d %d %d)", how, count_sleep(bg1), count_sleep(bg2),
          count_sleep(bg3));
    CHECK(count_sleep(other) == 1 && !A.ch[3].done, "%s: the concurrent call is left alone", how);
    int st = agent_close();
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "close: exit 0");
    CHECK(count_sleep(bg1) + count_sleep(bg2) + count_sleep(bg3) + count_sleep(other) == 0,
          "close kills the background jobs and the running call");
}

/* ---- the lane ------------------------------------------------------------------------------ */

static void send_lane(const unsigned char* key, const char* path) {
    unsigned char b[LANE_KEY + LANE_MAX_PATH];
    memcpy(b, key, LANE_KEY);
    memcpy(b + LANE_KEY, path, strlen(path));
    send_frame(T_LANE, 0, b, LANE_KEY + strlen(path));
}

/* A listening Unix socket at dir/socket, as the app makes one. */
static int lane_listener(const char* dir, char* path, size_t cap) {
    snprintf(path, cap, "%s/socket", dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path) < sizeof a.sun_path ? strlen(path) : sizeof a.sun_path - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
        perror("lane listener");
        exit(2);
    }
    return fd;
}

/* The agent moves its frames to the lane when asked: it connects, presents the key, answers on stdout, and after the
 * switch every frame both ways travels on the lane; a frame on stdin after it is a protocol error. */
static void test_lane(void) {
    char dir[] = "/tmp/zeus-agent-lane-XXXXXX", path[128], missing[128];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    int srv = lane_listener(dir, path, sizeof path);
    snprintf(missing, sizeof missing, "%s/none", dir);
    unsigned char key[LANE_KEY];
    for (int i = 0; i < LANE_KEY; i++) {
        key[i] = (unsigned char)(0xA0 + i);
    }
    agent_start();
    WAIT_FOR(A.hello, 5000);
    send_lane(key, missing);
    WAIT_FOR(A.lane_answers == 1, 5000);
    CHECK(A.lane_answers == 1 && A.lane_err == ENOENT, "a lane to no socket is answered with ENOENT (%d)", A.lane_err);
    send_exec(1, 0, 0, 0, NULL, "echo pipe");
    WAIT_FOR(A.ch[1].done, 10000);
    CHECK(A.ch[1].out.len == 5, "after a failed lane the pipe carries the calls");

    send_lane(key, path);
    int conn = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
    unsigned char got[LANE_KEY] = {0};
    size_t have = 0;
    while (conn >= 0 && have < LANE_KEY) {
        ssize_t r = read(conn, got + have, LANE_KEY - have);
        if (r <= 0) {
            break;
        }
        have += (size_t)r;
    }
    CHECK(have == LANE_KEY && memcmp(got, key, LANE_KEY) == 0, "the agent presents the key first on the lane");
    WAIT_FOR(A.lane_answers == 2, 5000);
    CHECK(A.lane_answers == 2 && A.lane_err == 0, "the lane is answered with 0 on stdout");
    send_frame(T_LANE, 0, NULL, 0);
    WAIT_FOR(A.lane_switched, 5000);
    CHECK(A.lane_switched == 1, "the switch is answered on stdout");

    int pipe_to = A.to, pipe_from = A.from;
    A.to = conn;
    A.from = dup(conn);
    A.ch[2].autogrant = 1;
    send_exec(2, 0, 0, 0, NULL, "echo lane; head -c 3000000 /dev/zero");
    WAIT_FOR(A.ch[2].done, 20000);
    CHECK(A.ch[2].exited && A.ch[2].out.len == 3000005, "a call runs on the lane: 3 MB of output arrive (%zu)",
          A.ch[2].out.len);
    /* stdin after the switch: only its end may come */
    unsigned char h[FRAME_HEADER] = {0};
    h[4] = T_CLOSE;
    if (write(pipe_to, h, sizeof h) != (ssize_t)sizeof h) {
        perror("write");
    }
    int st = agent_wait(10000);
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(A.ch0msg, "after the switch"),
          "a frame on stdin after the switch is a protocol error, said on the lane (%s)", A.ch0msg);
    close(pipe_to);
    close(pipe_from);

    /* A switch without a lane is a protocol error. */
    agent_start();
    WAIT_FOR(A.hello, 5000);
    send_frame(T_LANE, 0, NULL, 0);
    st = agent_wait(10000);
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(A.ch0msg, "without a lane"),
          "a switch without a lane is a protocol error (%s)", A.ch0msg);
    close(srv);
    unlink(path);
    rmdir(dir);
}

static int lane_pipe[2] = {-1, -1};

/* Sets up a lane as the app does and moves the test's frames to it; returns the listening socket (to close). */
static int lane_up(char* dir, char* path, size_t cap) {
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    int srv = lane_listener(dir, path, cap);
    unsigned char key[LANE_KEY];
    memset(key, 0x5A, sizeof key);
    agent_start();
    WAIT_FOR(A.hello, 5000);
    send_lane(key, path);
    int conn = accept4(srv, NULL, NULL, SOCK_CLOEXEC);
    unsigned char got[LANE_KEY];
    size_t have = 0;
    while (conn >= 0 && have < LANE_KEY) {
        ssize_t r = read(conn, got + have, LANE_KEY - have);
        if (r <= 0) {
            break;
        }
        have += (size_t)r;
    }
    WAIT_FOR(A.lane_answers == 1, 5000);
    send_frame(T_LANE, 0, NULL, 0);
    WAIT_FOR(A.lane_switched, 5000);
    /* stdin stays open (its end would end the agent); the test's pipe ends are closed after the agent exits */
    lane_pipe[0] = A.to;
    lane_pipe[1] = A.from;
    A.to = conn;
    A.from = dup(conn);
    return srv;
}

/* A tunnel handed over (docs/agent-protocol.md "Handing a tunnel over"): what the app sent is written to the client
 * first, then the client's own socket comes on the lane with `tunnel handed`, and the agent reads nothing more of it;
 * more handoffs at once than ride on one write all arrive; off the lane a handoff is a protocol error. */
static void test_handoff(void) {
    char dir[] = "/tmp/zeus-agent-handoff-XXXXXX", path[128];
    int srv = lane_up(dir, path, sizeof path);
    CHECK(A.lane_switched == 1, "handoff: the frames moved to the lane");
    int port = start_listener(1);
    int c = dial(port);
    WAIT_FOR(A.ntunnels == 1, 3000);
    uint32_t id = A.ntunnels ? A.tunnel_order[0] : 0;
    struct tun* t = &A.tun[id & ~TUNNEL_BIT];
    if (write(c, "from-client", 11) != 11) {
        CHECK(0, "write to the tunnel");
    }
    WAIT_FOR(t->data.len == 11, 3000);
    send_frame(T_TDATA, id, "to-client", 9);
    send_frame(T_THANDOFF, id, NULL, 0);
    WAIT_FOR(t->handed, 3000);
    struct stat sb;
    int fd = t->handed_fd;
    CHECK(t->handed && fd >= 0 && fstat(fd, &sb) == 0 && S_ISSOCK(sb.st_mode) && !A.ctrunc,
          "the agent hands the client's socket over with `tunnel handed` (fd %d)", fd);
    char back[64];
    int eof = 0;
    size_t got = sock_read(c, back, 9, 3000, &eof);
    CHECK(got == 9 && memcmp(back, "to-client", 9) == 0, "what the app sent before reached the client first");
    if (fd >= 0 && write(fd, "direct", 6) == 6) {
        got = sock_read(c, back, 6, 3000, &eof);
        CHECK(got == 6 && memcmp(back, "direct", 6) == 0, "the handed socket is the client's connection");
    }
    if (write(c, "after", 5) != 5) {
        CHECK(0, "write to the client socket");
    }
    got = fd >= 0 ? sock_read(fd, back, 5, 3000, &eof) : 0;
    drain_for(100);
    CHECK(got == 5 && memcmp(back, "after", 5) == 0 && t->data.len == 11 && !t->closed,
          "what the client sends next is the app's to read: nothing more in frames, no `closed` (%zu)", t->data.len);
    close(c);
    if (fd >= 0) {
        close(fd);
    }

    /* More at once than one write carries (MAX_PASS): every socket arrives, each with its frame. */
    enum { MANY = MAX_PASS + 8 };
    int cs[MANY];
    for (int i = 0; i < MANY; i++) {
        cs[i] = dial(port);
    }
    WAIT_FOR(A.ntunnels == 1 + MANY, 3000);
    for (int i = 1; i <= MANY && i < A.ntunnels; i++) {
        send_frame(T_THANDOFF, A.tunnel_order[i], NULL, 0);
    }
    int handed = 0, sockets = 0;
    uint64_t until = now_ms() + 5000;
    while (handed < MANY && now_ms() < until) {
        agent_poll(20);
        handed = sockets = 0;
        for (int i = 1; i <= MANY && i < A.ntunnels; i++) {
            struct tun* u = &A.tun[A.tunnel_order[i] & ~TUNNEL_BIT];
            handed += u->handed;
            sockets += u->handed && u->handed_fd >= 0;
        }
    }
    CHECK(handed == MANY && sockets == MANY && A.nfds == 0, "%d handoffs at once: %d frames, %d sockets, %d unclaimed",
          MANY, handed, sockets, A.nfds);
    for (int i = 0; i < MANY; i++) {
        close(cs[i]);
        struct tun* u = &A.tun[A.tunnel_order[i + 1] & ~TUNNEL_BIT];
        if (u->handed && u->handed_fd >= 0) {
            close(u->handed_fd);
        }
    }
    int st = agent_close();
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "handoff: close, exit 0");
    close(lane_pipe[0]);
    close(lane_pipe[1]);
    close(srv);
    unlink(path);
    rmdir(dir);

    /* Off the lane there is nothing to carry a socket: a protocol error. */
    agent_start();
    WAIT_FOR(A.hello, 5000);
    port = start_listener(1);
    c = dial(port);
    WAIT_FOR(A.ntunnels == 1, 3000);
    send_frame(T_THANDOFF, A.ntunnels ? A.tunnel_order[0] : TUNNEL_BIT | 1, NULL, 0);
    st = agent_wait(10000);
    CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1 && strstr(A.ch0msg, "handoff"),
          "a handoff off the lane is a protocol error (%s)", A.ch0msg);
    close(c);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: agent_test PATH_TO_AGENT\n");
        return 2;
    }
    agent_path = argv[1];
    signal(SIGPIPE, SIG_IGN);
    alarm(100); /* the last resort against a hang, before CTest's own timeout */
    base = 400000000u + (unsigned)getpid() * 100u;

    test_version();
    test_hello_and_basic();
    test_command_not_in_argv();
    test_window();
    test_timeout();
    test_stop_escapees(0);
    test_stop_escapees(1);
    test_out_of_reach();
    test_detached_escapees(1);
    test_detached_escapees(0);
    test_background_and_concurrency();
    test_eof();
    test_stdin();
    test_bad_frames();
    test_tunnels();
    test_expose_listeners();
    test_connect_tunnels();
    test_connect_mode("200 Connection established", 1);
    test_connect_mode("403 Forbidden", 0);
    test_lane();
    test_handoff();
    printf("agent_test: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
