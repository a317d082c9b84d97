/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "outq.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

unsigned char* outq_reserve(struct outq* q, size_t n) {
    if (q->head > 0 && q->head + q->len + n > q->cap) {
        memmove(q->buf, q->buf + q->head, q->len);
        q->head = 0;
    }
    if (q->head + q->len + n > q->cap) {
        size_t cap = q->cap ? q->cap : 65536;
        while (cap < q->len + n) {
            cap *= 2;
        }
        q->buf = grow_wiped(q->buf, q->cap, cap);
        q->cap = cap;
    }
    return q->buf + q->head + q->len;
}

void outq_commit(struct outq* q, size_t n) {
    q->len += n;
}

void put_header(unsigned char* p, uint32_t len, uint8_t type, uint32_t ch) {
    put32(p, len);
    p[4] = type;
    put32(p + 5, ch);
}

void put_frame(struct outq* q, uint8_t type, uint32_t ch, const void* payload, size_t n) {
    unsigned char* p = outq_reserve(q, FRAME_HEADER + n);
    put_header(p, (uint32_t)n, type, ch);
    if (n > 0) {
        memcpy(p + FRAME_HEADER, payload, n);
    }
    outq_commit(q, FRAME_HEADER + n);
}

void put_u32_frame(struct outq* q, uint8_t type, uint32_t ch, uint32_t v) {
    unsigned char b[4];
    put32(b, v);
    put_frame(q, type, ch, b, 4);
}

void put_error(struct outq* q, uint32_t ch, const char* msg) {
    put_frame(q, T_ERROR, ch, msg, strlen(msg));
}

/* The next write with the sockets waiting to be handed over attached: they arrive with its first byte, which is at or
 * before each one's `tunnel handed` frame (queued with it), so the app always has the socket when it reads the frame.
 */
static ssize_t write_passing(struct outq* q) {
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * MAX_PASS)];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = q->buf + q->head, .iov_len = q->len};
    struct msghdr m = {.msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control.buf,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)q->npass)};
    struct cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)q->npass);
    memcpy(CMSG_DATA(c), q->pass, sizeof(int) * (size_t)q->npass);
    ssize_t n = sendmsg(q->fd, &m, MSG_NOSIGNAL);
    if (n > 0) {
        for (int i = 0; i < q->npass; i++) {
            close_fd(&q->pass[i]); /* the app has its own now */
        }
        q->npass = 0;
    }
    return n;
}

int flush_out(struct outq* q) {
    while (q->len > 0) {
        ssize_t n = q->npass > 0 ? write_passing(q) : write(q->fd, q->buf + q->head, q->len);
        if (n > 0) {
            q->head += (size_t)n;
            q->len -= (size_t)n;
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
    q->head = 0;
    return 0;
}

void flush_out_before_exit(struct outq* q) {
    uint64_t until = now_ms() + 2000;
    while (q->len > 0 && now_ms() < until) {
        if (flush_out(q) < 0) {
            return;
        }
        struct pollfd p = {.fd = q->fd, .events = POLLOUT};
        if (q->len > 0 && poll(&p, 1, 100) < 0 && errno != EINTR) {
            return;
        }
    }
}
