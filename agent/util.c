/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void note(const char* msg) {
    char line[256];
    int n = snprintf(line, sizeof line, "zeus-sandbox-agent: %s\n", msg);
    if (n > 0) {
        ssize_t ignored = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)ignored;
    }
}

void* xrealloc(void* p, size_t n) {
    void* q = realloc(p, n);
    if (!q) {
        note("out of memory");
        _exit(1);
    }
    return q;
}

void wipe(void* p, size_t n) {
    if (p && n > 0) {
        explicit_bzero(p, n);
    }
}

void* grow_wiped(void* p, size_t used, size_t n) {
    void* q = xrealloc(NULL, n);
    if (p) {
        memcpy(q, p, used);
        wipe(p, used);
        free(p);
    }
    return q;
}

void close_fd(int* fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

unsigned long long boot_ticks(unsigned long long ticks_per_s, int round_up) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    unsigned long long per_tick = 1000000000ull / ticks_per_s;
    unsigned long long ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    return ns / per_tick + (round_up ? 1 : 0);
}

uint32_t get32(const unsigned char* p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void put32(unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

size_t read_file(const char* path, char** buf, size_t* cap) {
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
