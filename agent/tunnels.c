/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "tunnels.h"

#include "outq.h"
#include "util.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct tunnel* find_tunnel(struct agent_state* st, uint32_t id) {
    for (int i = 0; i < MAX_TUNNELS; i++) {
        if (st->tunnels[i].used && st->tunnels[i].id == id) {
            return &st->tunnels[i];
        }
    }
    return NULL;
}

static void free_tunnel(struct tunnel* t) {
    close_fd(&t->fd);
    wipe(t->inq, t->incap);
    free(t->inq);
    memset(t, 0, sizeof *t);
    t->fd = -1;
}

/* The connection is over (an error, or both directions done): say so once and forget it. */
static void end_tunnel(struct agent_state* st, struct tunnel* t) {
    put_frame(&st->out, T_TCLOSED, t->id, NULL, 0);
    free_tunnel(t);
}

void do_listen(struct agent_state* st, const unsigned char* p, size_t n) {
    if (n != 8) {
        protocol_error(st, "bad listen frame");
    }
    uint32_t port = get32(p), kind = get32(p + 4);
    if (port == 0 || port > 65535 || kind == 0) {
        protocol_error(st, "bad listen frame");
    }
    unsigned char reply[8];
    put32(reply, port);
    int err = 0;
    int fd = -1;
    if (st->nlisteners == MAX_LISTENERS) {
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
        st->listeners[st->nlisteners].fd = fd;
        st->listeners[st->nlisteners].kind = kind;
        st->nlisteners++;
    }
    put32(reply + 4, (uint32_t)err);
    put_frame(&st->out, T_LISTENING, 0, reply, sizeof reply);
}

static struct tunnel* free_slot(struct agent_state* st) {
    for (int i = 0; i < MAX_TUNNELS; i++) {
        if (!st->tunnels[i].used) {
            return &st->tunnels[i];
        }
    }
    return NULL;
}

static void init_tunnel(struct tunnel* t, uint32_t id, int fd) {
    memset(t, 0, sizeof *t);
    t->used = 1;
    t->id = id;
    t->fd = fd;
    t->window = WINDOW0;
    t->in_credit = TUNNEL_IN_WINDOW;
}

void do_connect(struct agent_state* st, uint32_t ch, const unsigned char* p, size_t n) {
    if ((ch & (TUNNEL_BIT | TUNNEL_APP_BIT)) != (TUNNEL_BIT | TUNNEL_APP_BIT) || n != 4) {
        protocol_error(st, "bad tunnel connect frame");
    }
    if (find_tunnel(st, ch)) {
        protocol_error(st, "tunnel connect on a live tunnel");
    }
    uint32_t port = get32(p);
    struct tunnel* t = free_slot(st);
    int err = 0, fd = -1, pending = 0;
    if (port == 0 || port > 65535) {
        err = EINVAL; /* refused, not fatal: the calls of the session go on */
    } else if (!t) {
        err = EMFILE;
    } else {
        /* The container's own loopback and nothing else: no address comes from the app. */
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno ? errno : EINVAL;
        } else if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
            if (errno == EINPROGRESS) {
                pending = 1;
            } else {
                err = errno ? errno : ECONNREFUSED;
                close(fd);
                fd = -1;
            }
        }
    }
    if (err) {
        put_u32_frame(&st->out, T_TCONNECTED, ch, (uint32_t)err);
        return;
    }
    init_tunnel(t, ch, fd);
    t->connecting = pending;
    if (!pending) {
        put_u32_frame(&st->out, T_TCONNECTED, ch, 0);
    }
}

void tunnel_connect_done(struct agent_state* st, struct tunnel* t) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno ? errno : EIO;
    }
    if (err == EINPROGRESS || err == EALREADY) {
        return; /* not done yet after all */
    }
    put_u32_frame(&st->out, T_TCONNECTED, t->id, (uint32_t)err);
    if (err) {
        free_tunnel(t); /* the answer was the failure: nothing more is said about it */
        return;
    }
    t->connecting = 0;
    tunnel_feed(st, t); /* whatever the app sent meanwhile */
}

void accept_tunnel(struct agent_state* st, int k) {
    for (;;) {
        int fd = accept4(st->listeners[k].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            return; /* EAGAIN, or the client gave up already */
        }
        struct tunnel* t = free_slot(st);
        if (!t) {
            close(fd); /* over the limit: the client sees the connection reset */
            note("too many tunnels: a connection was refused");
            return;
        }
        init_tunnel(t, TUNNEL_BIT | st->next_tunnel, fd);
        /* Below TUNNEL_APP_BIT: the ids above are the app's. */
        st->next_tunnel = st->next_tunnel == TUNNEL_APP_BIT - 1 ? 1 : st->next_tunnel + 1;
        unsigned char b[4];
        put32(b, st->listeners[k].kind);
        put_frame(&st->out, T_TOPEN, t->id, b, sizeof b);
    }
}

void tunnel_pump(struct agent_state* st, struct tunnel* t) {
    size_t want = MAX_CHUNK;
    if (want > t->window) {
        want = (size_t)t->window;
    }
    if (want == 0 || t->rd_eof) {
        return;
    }
    unsigned char* p = outq_reserve(&st->out, FRAME_HEADER + want);
    ssize_t n;
    do {
        n = read(t->fd, p + FRAME_HEADER, want);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        put_header(p, (uint32_t)n, T_TDATA_OUT, t->id);
        outq_commit(&st->out, FRAME_HEADER + (size_t)n);
        t->window -= (uint64_t)n;
    } else if (n == 0) {
        t->rd_eof = 1;
        put_frame(&st->out, T_TDATA_OUT, t->id, NULL, 0); /* an empty frame: the client is done sending */
        if (t->wr_shut) {
            end_tunnel(st, t);
        }
    } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
        end_tunnel(st, t);
    }
}

/* A tunnel the app asked for: once every byte it sent is written to the client, the socket goes to the app with a
 * `tunnel handed` frame (the fd rides on the lane's next write, outq.c) and the tunnel is forgotten here. Waits while
 * MAX_PASS sockets wait for their write already (tunnel_handoffs() tries again). */
static void try_handoff(struct agent_state* st, struct tunnel* t) {
    if (!t->handoff || t->inlen > 0 || st->out.npass >= MAX_PASS) {
        return;
    }
    put_frame(&st->out, T_THANDED, t->id, NULL, 0);
    st->out.pass[st->out.npass++] = t->fd;
    t->fd = -1;
    free_tunnel(t);
}

int tunnel_handoffs(struct agent_state* st) {
    int waiting = 0;
    for (int i = 0; i < MAX_TUNNELS; i++) {
        if (st->tunnels[i].used && st->tunnels[i].handoff) {
            try_handoff(st, &st->tunnels[i]);
            waiting += st->tunnels[i].used && st->tunnels[i].handoff && st->tunnels[i].inlen == 0;
        }
    }
    return waiting;
}

void tunnel_feed(struct agent_state* st, struct tunnel* t) {
    if (t->connecting) {
        return; /* held until the connect is done */
    }
    size_t done = 0;
    while (done < t->inlen) {
        ssize_t n = write(t->fd, t->inq + t->inhead + done, t->inlen - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            end_tunnel(st, t);
            return;
        }
    }
    if (done > 0) {
        /* No copy of what is left: the head moves on, and what was written is wiped. */
        wipe(t->inq + t->inhead, done);
        t->inhead = t->inlen == done ? 0 : t->inhead + done;
        t->inlen -= done;
        t->in_credit += (uint32_t)done;
        put_u32_frame(&st->out, T_WINDOW_OUT, t->id, (uint32_t)done);
    }
    if (t->inlen == 0 && t->in_eof && !t->wr_shut) {
        shutdown(t->fd, SHUT_WR);
        t->wr_shut = 1;
        if (t->rd_eof) {
            end_tunnel(st, t);
            return;
        }
    }
    try_handoff(st, t);
}

void tunnel_frame(struct agent_state* st, uint8_t type, uint32_t ch, const unsigned char* p, size_t n) {
    struct tunnel* t = find_tunnel(st, ch);
    if (type == T_TCLOSE) {
        if (n != 0) {
            protocol_error(st, "bad tunnel close frame");
        }
        if (t) {
            free_tunnel(t); /* the app is done with it: no `closed` follows */
        }
        return;
    }
    if (type == T_THANDOFF) {
        if (n != 0 || st->lane != LANE_SWITCHED) {
            protocol_error(st, "bad tunnel handoff frame");
        }
        if (t && t->connecting) {
            protocol_error(st, "a handoff of a tunnel still connecting");
        }
        if (t) {
            t->handoff = 1; /* nothing more is read from the client: what it sends next is the app's to read */
            try_handoff(st, t);
        }
        return;
    }
    if (type == T_WINDOW) {
        if (n != 4) {
            protocol_error(st, "bad frame length");
        }
        if (t) {
            t->window += get32(p);
        }
        return;
    }
    if (type != T_TDATA) {
        protocol_error(st, "a call's frame on a tunnel");
    }
    if (!t) {
        return; /* it crossed our `closed` on the pipe */
    }
    if (t->in_eof) {
        protocol_error(st, "tunnel data after its end");
    }
    if (n > t->in_credit) {
        protocol_error(st, "tunnel data beyond the window");
    }
    if (n == 0) {
        t->in_eof = 1;
    } else {
        if (t->inhead > 0 && t->inhead + t->inlen + n > t->incap) {
            /* Room at the end: move what is left to the front first, grow only when that is not enough (once or
             * twice per tunnel: the window bounds it). */
            memmove(t->inq, t->inq + t->inhead, t->inlen);
            wipe(t->inq + t->inlen, t->inhead);
            t->inhead = 0;
        }
        if (t->inlen + n > t->incap) {
            size_t cap = t->incap ? t->incap : 65536;
            while (cap < t->inlen + n) {
                cap *= 2;
            }
            t->inq = grow_wiped(t->inq, t->inlen, cap);
            t->incap = cap;
        }
        memcpy(t->inq + t->inhead + t->inlen, p, n);
        t->inlen += n;
        t->in_credit -= (uint32_t)n;
    }
    tunnel_feed(st, t);
}
