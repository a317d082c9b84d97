/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "lane.h"

#include "outq.h"
#include "util.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Connects to the app's socket and presents the key. Returns 0, or the errno of what failed. Non-blocking from the
 * start: a socket whose backlog is full (a command may connect too) answers EAGAIN rather than stalling the loop. */
static int lane_connect(struct agent_state* st, const unsigned char* key, const char* path) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, path, strlen(path));
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno ? errno : EINVAL;
    }
    if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
        int err = errno ? errno : ECONNREFUSED;
        close(fd);
        return err;
    }
    /* A new socket's buffer is empty: the key goes in one write, or the lane is not used. */
    ssize_t w;
    do {
        w = write(fd, key, LANE_KEY);
    } while (w < 0 && errno == EINTR);
    if (w != LANE_KEY) {
        int err = w < 0 && errno ? errno : EIO;
        close(fd);
        return err;
    }
    st->lane_fd = fd;
    return 0;
}

static void lane_switch(struct agent_state* st) {
    if (st->lane != LANE_CONNECTED) {
        protocol_error(st, "lane switch without a lane");
    }
    /* The last frame on stdout: the app reads the lane from here on. */
    put_frame(&st->out, T_LANE_OUT, 0, NULL, 0);
    st->out_pipe = st->out;
    memset(&st->out, 0, sizeof st->out);
    st->out.fd = st->lane_fd;
    st->in_fd = st->lane_fd;
    st->lane = LANE_SWITCHED;
    note("frames move on the lane");
}

void lane_frame(struct agent_state* st, const unsigned char* p, size_t n) {
    if (n == 0) {
        lane_switch(st);
        return;
    }
    if (n <= LANE_KEY || n > LANE_KEY + LANE_MAX_PATH) {
        protocol_error(st, "bad lane frame");
    }
    if (st->lane != LANE_NONE) {
        protocol_error(st, "a second lane");
    }
    char path[LANE_MAX_PATH + 1];
    memcpy(path, p + LANE_KEY, n - LANE_KEY);
    path[n - LANE_KEY] = '\0';
    if (strlen(path) != n - LANE_KEY) {
        protocol_error(st, "bad lane frame");
    }
    int err = lane_connect(st, p, path);
    if (err == 0) {
        st->lane = LANE_CONNECTED;
    }
    put_u32_frame(&st->out, T_LANE_OUT, 0, (uint32_t)err);
}
