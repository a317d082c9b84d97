/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "connect.h"

#include "protocol.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { CONNECT_HEAD_MAX = 8192 };

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

/* A host name or address and a port, nothing that could change the request line. Returns 0 or prints why not. */
static int check_target(const char* host, const char* port) {
    size_t hl = strlen(host);
    if (hl == 0 || hl > 253 || strlen(port) == 0 || strlen(port) > 5 || strspn(port, "0123456789") != strlen(port)) {
        fprintf(stderr, "zeus-sandbox-agent connect: bad host or port\n");
        return -1;
    }
    for (size_t i = 0; i < hl; i++) {
        unsigned char c = (unsigned char)host[i];
        if (c <= ' ' || c == 0x7f || c == '/' || c == '@' || c == '[' || c == ']') {
            fprintf(stderr, "zeus-sandbox-agent connect: bad host\n");
            return -1;
        }
    }
    return 0;
}

/* A connection to the proxy listener, or -1 after saying there is none. */
static int open_proxy(void) {
    /* The port is fixed in a container; the override is for the agent's own tests on a host. */
    int proxy_port = HTTP_PROXY_PORT;
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
        return -1;
    }
    return fd;
}

/* Sends CONNECT and reads the answer's head; returns 0 on a 200, else prints the refusal. */
static int ask_proxy(int fd, const char* host, const char* port) {
    const int v6 = strchr(host, ':') != NULL;
    char req[600];
    int len = snprintf(req, sizeof req, "CONNECT %s%s%s:%s HTTP/1.1\r\nHost: %s%s%s:%s\r\n\r\n", v6 ? "[" : "", host,
                       v6 ? "]" : "", port, v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (len <= 0 || (size_t)len >= sizeof req || write_all(fd, req, (size_t)len) != 0) {
        fprintf(stderr, "zeus-sandbox-agent connect: the proxy closed the connection\n");
        return -1;
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
        return -1;
    }
    return 0;
}

/* Relays until both directions are done. */
static int relay(int fd) {
    unsigned char buf[MAX_CHUNK];
    int in_open = 1, sock_open = 1;
    while (sock_open) {
        struct pollfd p[2] = {{.fd = in_open ? 0 : -1, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
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
                in_open = 0;
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

int run_connect(const char* host, const char* port) {
    if (check_target(host, port) != 0) {
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int fd = open_proxy();
    if (fd < 0) {
        return 1;
    }
    if (ask_proxy(fd, host, port) != 0) {
        return 1;
    }
    return relay(fd);
}
