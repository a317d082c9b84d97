/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "exec.h"

#include "calls.h"
#include "outq.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436 /* the same number on every architecture (generic syscall table) */
#endif

extern char** environ;

/* An `exec` frame's payload, its strings copied out with terminating NULs: entries first, the command last. */
struct exec_req {
    uint32_t timeout, grace, flags, envc;
    char** frame_env;
    char* strings;
    size_t strings_size, used; /* used: bytes of strings filled */
    char* command;
    size_t cmdlen;
    const char* shell;
    char tag[TAG_LEN + 1];
};

/* The shell's environment and script, built from a request (see build_env). */
struct exec_env {
    struct envent* ents;
    char** envp;
    char* extra; /* the tag and the command chunks, NAME=value each */
    size_t extra_size;
    char* script;
};

static const char* find_shell(void) {
    static const char* const shells[] = {"/bin/bash", "/usr/bin/bash", "/bin/sh"};
    for (size_t i = 0; i < sizeof shells / sizeof *shells; i++) {
        if (access(shells[i], X_OK) == 0) {
            return shells[i];
        }
    }
    return NULL;
}

static size_t read_random(int fd, unsigned char* r, size_t want) {
    size_t got = 0;
    while (fd >= 0 && got < want) {
        ssize_t n = read(fd, r + got, want - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        got += (size_t)n;
    }
    return got;
}

static int random_tag(char out[TAG_LEN + 1]) {
    unsigned char r[TAG_LEN / 2];
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
        got = read_random(fd, r, sizeof r);
        if (fd >= 0) {
            close(fd);
        }
        if (got < sizeof r) {
            return -1;
        }
    }
    for (size_t i = 0; i < sizeof r; i++) {
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

/* Copies the strings of an `exec` payload out of the frame. Returns what is wrong with it, NULL when nothing. */
static const char* parse_strings(struct exec_req* r, const unsigned char* p, size_t n) {
    size_t off = EXEC_FIXED;
    for (uint32_t k = 0; k <= r->envc; k++) {
        if (n - off < 4) {
            return "bad exec payload";
        }
        uint32_t len = get32(p + off);
        off += 4;
        if (len > n - off) {
            return "bad exec payload";
        }
        if (memchr(p + off, 0, len)) {
            return k < r->envc ? "NUL byte in an environment entry" : "NUL byte in the command";
        }
        char* s = r->strings + r->used;
        memcpy(s, p + off, len);
        s[len] = 0;
        r->used += len + 1;
        off += len;
        if (k < r->envc) {
            r->frame_env[k] = s;
            if (len == 0 || s[0] == '=' || !strchr(s, '=')) {
                return "bad environment entry";
            }
        } else {
            r->command = s;
            r->cmdlen = len;
        }
    }
    return off != n ? "bad exec payload" : NULL;
}

static void free_req(struct exec_req* r, size_t wipe_size) {
    free(r->frame_env);
    wipe(r->strings, wipe_size);
    free(r->strings);
}

/* Reads an `exec` payload into r, with the shell and a fresh tag. Returns 0, or -1 after sending `error`. */
static int parse_exec(struct agent_state* st, uint32_t ch, const unsigned char* p, size_t n, struct exec_req* r) {
    memset(r, 0, sizeof *r);
    if (n < EXEC_FIXED) {
        put_error(&st->out, ch, "bad exec payload");
        return -1;
    }
    r->timeout = get32(p);
    r->grace = get32(p + 4);
    r->flags = get32(p + 8);
    r->envc = get32(p + 12);
    if (r->flags & ~(uint32_t)EXEC_FLAG_STDIN) {
        put_error(&st->out, ch, "bad exec flags");
        return -1;
    }
    if (r->envc > (n - EXEC_FIXED) / 4) {
        put_error(&st->out, ch, "bad exec payload");
        return -1;
    }
    r->frame_env = malloc(sizeof *r->frame_env * (r->envc + 1));
    r->strings_size = n + r->envc + 1;
    r->strings = malloc(r->strings_size);
    if (!r->frame_env || !r->strings) {
        free(r->frame_env);
        free(r->strings);
        put_error(&st->out, ch, "out of memory");
        return -1;
    }
    const char* bad = parse_strings(r, p, n);
    r->shell = bad ? NULL : find_shell();
    if (!bad && !r->shell) {
        bad = "no shell (/bin/bash, /usr/bin/bash, /bin/sh)";
    }
    if (!bad && random_tag(r->tag) < 0) {
        bad = "no random numbers for the call tag";
    }
    if (bad) {
        free_req(r, r->used);
        put_error(&st->out, ch, bad);
        return -1;
    }
    return 0;
}

static void free_env(struct exec_env* e) {
    wipe(e->extra, e->extra ? e->extra_size : 0);
    free(e->ents);
    free(e->envp);
    free(e->extra);
    free(e->script);
}

/* The shell's script, a fixed text of names, never the command: it joins the ZEUS_COMMAND chunks, unsets them
 * and evaluates the result. */
static void write_script(char* sc, size_t nchunks) {
    sc += sprintf(sc, "__zeus_c=\"$ZEUS_COMMAND");
    for (size_t k = 1; k < nchunks; k++) {
        sc += sprintf(sc, "$ZEUS_COMMAND_%zu", k);
    }
    sc += sprintf(sc, "\"; unset ZEUS_COMMAND");
    for (size_t k = 1; k < nchunks; k++) {
        sc += sprintf(sc, " ZEUS_COMMAND_%zu", k);
    }
    sprintf(sc, "; eval \"unset __zeus_c;$__zeus_c\"");
}

/* The environment: ours, then the frame's entries, then the tag and the command chunks; the last entry of a name
 * wins. Returns -1 when memory is out. */
static int build_env(const struct exec_req* r, struct exec_env* e) {
    size_t nchunks = r->cmdlen / CMD_CHUNK + 1, nown = 0;
    while (environ && environ[nown]) {
        nown++;
    }
    size_t total = nown + r->envc + 1 + nchunks, m = 0;
    e->ents = malloc(sizeof *e->ents * total);
    e->envp = malloc(sizeof *e->envp * (total + 1));
    e->extra_size = sizeof "ZEUS_CALL_TAG=" + TAG_LEN + r->cmdlen + nchunks * 24;
    e->extra = malloc(e->extra_size);
    e->script = malloc(64 + nchunks * 40);
    if (!e->ents || !e->envp || !e->extra || !e->script) {
        return -1;
    }
    for (size_t k = 0; k < nown; k++) {
        if (!reserved_name(environ[k])) {
            e->ents[m] = (struct envent){environ[k], m};
            m++;
        }
    }
    for (uint32_t k = 0; k < r->envc; k++) {
        if (!reserved_name(r->frame_env[k])) {
            e->ents[m] = (struct envent){r->frame_env[k], m};
            m++;
        }
    }
    char* x = e->extra;
    x += sprintf(x, "ZEUS_CALL_TAG=%s", r->tag) + 1;
    e->ents[m] = (struct envent){e->extra, m};
    m++;
    for (size_t k = 0; k < nchunks; k++) {
        size_t clen = r->cmdlen - k * CMD_CHUNK < CMD_CHUNK ? r->cmdlen - k * CMD_CHUNK : CMD_CHUNK;
        char* entry = x;
        x += k == 0 ? sprintf(x, "ZEUS_COMMAND=") : sprintf(x, "ZEUS_COMMAND_%zu=", k);
        memcpy(x, r->command + k * CMD_CHUNK, clen);
        x += clen;
        *x++ = 0;
        e->ents[m] = (struct envent){entry, m};
        m++;
    }
    write_script(e->script, nchunks);
    qsort(e->ents, m, sizeof *e->ents, cmp_env);
    size_t ne = 0;
    for (size_t k = 0; k < m; k++) {
        if (k + 1 < m && name_len(e->ents[k].s) == name_len(e->ents[k + 1].s)
            && memcmp(e->ents[k].s, e->ents[k + 1].s, name_len(e->ents[k].s)) == 0) {
            continue; /* a later entry of the same name follows */
        }
        e->envp[ne++] = (char*)e->ents[k].s;
    }
    e->envp[ne] = NULL;
    return 0;
}

/* In the forked child: the command's descriptors and signals, then the shell. */
_Noreturn static void run_shell(struct agent_state* st, const struct exec_req* r, const struct exec_env* e,
                                const int out[2], const int err[2], const int in[2]) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setsid();
    int fin = (r->flags & EXEC_FLAG_STDIN) ? in[0] : open("/dev/null", O_RDONLY);
    if (fin < 0 || dup2(fin, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0) {
        _exit(127);
    }
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
        for (int fd = 3; fd < 65536; fd++) {
            close(fd);
        }
    }
    /* This child is a copy of the agent, and the agent is not dumpable (main.c): wipe what belongs to other calls
     * and tunnels (frames read, output queued, stdin and tunnel data), then say it may be dumped again, as execve
     * of the shell would anyway. Between the two only this call's own command and environment are left, which
     * the command can read in /proc/self/environ in any case. */
    wipe(st->inbuf, st->inlen);
    wipe(st->out.buf, st->out.cap);
    wipe(st->out_pipe.buf, st->out_pipe.cap);
    for (int i = 0; i < MAX_CALLS; i++) {
        wipe(st->calls[i].inq, st->calls[i].inlen);
    }
    for (int i = 0; i < MAX_TUNNELS; i++) {
        wipe(st->tunnels[i].inq, st->tunnels[i].incap);
    }
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    const char* argv0 = strrchr(r->shell, '/') + 1;
    char* argv[] = {(char*)argv0, "-c", e->script, NULL};
    execve(r->shell, argv, e->envp);
    static const char msg[] = "zeus-sandbox-agent: could not start the shell\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
}

/* The shell's start time, read where the kernel keeps it: the call's window opens with it. */
static unsigned long long start_time(struct agent_state* st, pid_t pid) {
    char path[64];
    unsigned long long start;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    char* rp = read_file(path, &st->scratch.file, &st->scratch.filecap) > 0 ? strrchr(st->scratch.file, ')') : NULL;
    if (!rp
        || sscanf(rp + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start)
               != 1) {
        start = boot_ticks(st->ticks_per_s, 0) - 1;
    }
    return start;
}

/* The call's slot filled for a started shell, its tag recorded, `started` sent. */
static void register_call(struct agent_state* st, struct call* c, uint32_t ch, pid_t pid, const struct exec_req* r,
                          const int out[2], const int err[2], const int in[2]) {
    memset(c, 0, sizeof *c);
    c->used = 1;
    c->id = ch;
    c->pid = pid;
    c->fd[0] = out[0];
    c->fd[1] = err[0];
    c->fdin = in[1];
    fcntl(c->fd[0], F_SETFL, O_NONBLOCK);
    fcntl(c->fd[1], F_SETFL, O_NONBLOCK);
    if (r->flags & EXEC_FLAG_STDIN) {
        fcntl(c->fdin, F_SETFL, O_NONBLOCK);
        c->has_stdin = 1;
        c->inq = xrealloc(NULL, WINDOW0);
        c->in_credit = WINDOW0;
    }
    c->window = WINDOW0;
    c->deadline = r->timeout ? now_ms() + r->timeout : 0;
    c->grace = r->grace;
    memcpy(c->tag, r->tag, sizeof c->tag);
    c->start = start_time(st, pid);
    if (st->ntags == st->captags) {
        st->captags = st->captags ? st->captags * 2 : 64;
        st->tags = xrealloc(st->tags, st->captags * sizeof *st->tags);
    }
    c->tagrec = st->ntags;
    memcpy(st->tags[st->ntags].tag, r->tag, sizeof r->tag);
    st->tags[st->ntags].start = c->start;
    st->tags[st->ntags].end = ULLONG_MAX;
    st->ntags++;
    put_u32_frame(&st->out, T_STARTED, ch, (uint32_t)pid);
}

/* A free slot for channel ch, or NULL after sending `error`. */
static struct call* take_slot(struct agent_state* st, uint32_t ch) {
    if (find_call(st, ch)) {
        put_error(&st->out, ch, "channel id in use");
        return NULL;
    }
    for (int i = 0; i < MAX_CALLS; i++) {
        if (!st->calls[i].used) {
            return &st->calls[i];
        }
    }
    put_error(&st->out, ch, "too many channels");
    return NULL;
}

void exec_call(struct agent_state* st, uint32_t ch, const unsigned char* p, size_t n) {
    struct call* c = take_slot(st, ch);
    struct exec_req r;
    if (!c || parse_exec(st, ch, p, n, &r) < 0) {
        return;
    }
    struct exec_env e = {0};
    if (build_env(&r, &e) < 0) {
        free_env(&e);
        free_req(&r, r.strings_size);
        put_error(&st->out, ch, "out of memory");
        return;
    }
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
    pid_t pid = -1;
    if (pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0
        && (!(r.flags & EXEC_FLAG_STDIN) || pipe2(in, O_CLOEXEC) == 0)) {
        pid = fork();
    }
    if (pid == 0) {
        run_shell(st, &r, &e, out, err, in);
    }
    int fork_errno = errno;
    close_fd(&out[1]);
    close_fd(&err[1]);
    close_fd(&in[0]);
    /* The frame's environment may hold secrets: no freed block keeps a copy that a later child could show. */
    free_env(&e);
    free_req(&r, r.strings_size);
    if (pid < 0) {
        close_fd(&out[0]);
        close_fd(&err[0]);
        close_fd(&in[1]);
        put_error(&st->out, ch,
                  fork_errno == EMFILE || fork_errno == ENFILE ? "out of file descriptors"
                                                               : "could not start the command (fork failed)");
        return;
    }
    register_call(st, c, ch, pid, &r, out, err, in);
}
