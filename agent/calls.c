/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "calls.h"

#include "outq.h"
#include "sweep.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct call* find_call(struct agent_state* st, uint32_t id) {
    for (int i = 0; i < MAX_CALLS; i++) {
        if (st->calls[i].used && st->calls[i].id == id) {
            return &st->calls[i];
        }
    }
    return NULL;
}

void end_call(struct agent_state* st, struct call* c) {
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
    put_frame(&st->out, T_EXIT, c->id, b, sizeof b);
    close_fd(&c->fd[0]);
    close_fd(&c->fd[1]);
    close_fd(&c->fdin);
    wipe(c->inq, c->inlen);
    free(c->inq);
    st->tags[c->tagrec].end = boot_ticks(st->ticks_per_s, 1);
    memset(c, 0, sizeof *c);
}

void begin_stop(struct call* c, uint32_t grace, int reason) {
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

static void kill_pass(struct agent_state* st, struct call* c) {
    /* Descendants first, while the parent links still lead to them; then the group. */
    size_t found = sweep_call(st, c, 1);
    if (!c->reaped) {
        killpg(c->pid, SIGKILL);
        found++;
    }
    c->next_sweep = now_ms() + SWEEP_RETRY_MS;
    if (found == 0 && c->reaped) {
        end_call(st, c); /* output still in the pipes is dropped: the app asked for the end */
    } else if (now_ms() - c->sweep_began > SWEEP_GIVE_UP_MS && c->reaped) {
        note("a stopped call's process does not die; giving up on it");
        end_call(st, c);
    }
}

void on_timers(struct agent_state* st) {
    uint64_t now = now_ms();
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &st->calls[i];
        if (!c->used) {
            continue;
        }
        if (c->stop == STOP_NONE && c->deadline && now >= c->deadline && !c->reaped) {
            begin_stop(c, c->grace, REASON_TIMEOUT);
        }
        if (c->stop == STOP_TERM && now >= c->kill_at) {
            c->stop = STOP_KILL;
            c->sweep_began = now;
            kill_pass(st, c);
        } else if (c->stop == STOP_TERM && c->reaped && now >= c->next_sweep) {
            /* The shell is gone within the grace: end now if nothing of the call is left. */
            if (sweep_call(st, c, 0) == 0) {
                end_call(st, c);
            } else {
                c->next_sweep = now + SWEEP_RETRY_MS * 4;
            }
        } else if (c->stop == STOP_KILL && now >= c->next_sweep) {
            kill_pass(st, c);
        }
    }
}

int next_timeout(const struct agent_state* st) {
    uint64_t now = now_ms(), next = UINT64_MAX;
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* c = &st->calls[i];
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

void reap(struct agent_state* st) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < MAX_CALLS; i++) {
            struct call* c = &st->calls[i];
            if (c->used && !c->reaped && c->pid == pid) {
                c->reaped = 1;
                c->status = status;
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

void pump(struct agent_state* st, struct call* c, int k) {
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
    unsigned char* p = outq_reserve(&st->out, FRAME_HEADER + want);
    ssize_t n;
    do {
        n = read(c->fd[k], p + FRAME_HEADER, want);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        put_header(p, (uint32_t)n, k == 0 ? T_STDOUT : T_STDERR, c->id);
        outq_commit(&st->out, FRAME_HEADER + (size_t)n);
        c->window -= (uint64_t)n;
        if (c->reaped) {
            c->remain[k] -= (size_t)n;
        }
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) || c->reaped) {
        close_fd(&c->fd[k]);
    }
}

void feed_stdin(struct agent_state* st, struct call* c) {
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
        put_u32_frame(&st->out, T_WINDOW_OUT, c->id, (uint32_t)done);
    }
    if (c->inlen == 0 && c->in_eof) {
        close_fd(&c->fdin);
    }
}

void finish_calls(struct agent_state* st) {
    for (int i = 0; i < MAX_CALLS; i++) {
        struct call* c = &st->calls[i];
        if (c->used && c->stop == STOP_NONE && c->reaped) {
            for (int k = 0; k < 2; k++) {
                if (c->fd[k] >= 0 && c->remain[k] == 0) {
                    close_fd(&c->fd[k]);
                }
            }
            if (c->fd[0] < 0 && c->fd[1] < 0) {
                end_call(st, c);
            }
        }
    }
}

void call_frame(struct agent_state* st, uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    if (type != T_STDIN && n != 4) {
        protocol_error(st, "bad frame length");
    }
    struct call* c = find_call(st, ch);
    if (!c) {
        return; /* the channel ended: the frame crossed its `exit` (or `error`) on the pipe */
    }
    uint32_t v = n == 4 ? get32(p) : 0;
    switch (type) {
        case T_STDIN:
            if (!c->has_stdin || c->in_eof) {
                protocol_error(st, "stdin on a call without an open stdin");
            }
            if (n > c->in_credit) {
                protocol_error(st, "stdin beyond the window");
            }
            if (n == 0) {
                c->in_eof = 1;
            } else if (c->in_broken) {
                put_u32_frame(&st->out, T_WINDOW_OUT, ch, (uint32_t)n);
                return;
            } else {
                memcpy(c->inq + c->inlen, p, n);
                c->inlen += n;
                c->in_credit -= (uint32_t)n;
            }
            feed_stdin(st, c);
            break;
        case T_SIGNAL:
            if (v < 1 || v > 64) {
                protocol_error(st, "bad signal number");
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
