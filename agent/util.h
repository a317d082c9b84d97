/* SPDX-License-Identifier: Apache-2.0
 *
 * Small helpers every concern of the agent uses: a note on stderr, memory that leaves no secret behind, clocks,
 * big-endian integers and reading a /proc file. None keeps state.
 */
#ifndef ZEUS_AGENT_UTIL_H
#define ZEUS_AGENT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Short, fixed messages only: never a command or an environment value. */
void note(const char* msg);
/* realloc, or the end of the agent when memory is out. */
void* xrealloc(void* p, size_t n);
/* Wipes memory that may hold a secret before it is freed or handed to a child (see exec.c). */
void wipe(void* p, size_t n);
/* realloc that leaves no copy behind in the freed block. */
void* grow_wiped(void* p, size_t used, size_t n);
/* Closes *fd when it is open and marks it closed (-1). */
void close_fd(int* fd);

uint64_t now_ms(void);
/* Now in clock ticks since boot: the clock of /proc/PID/stat's start time. */
unsigned long long boot_ticks(unsigned long long ticks_per_s, int round_up);

uint32_t get32(const unsigned char* p);
void put32(unsigned char* p, uint32_t v);

/* A whole file into *buf (grown as needed, NUL-terminated); returns its length, 0 when it cannot be read. */
size_t read_file(const char* path, char** buf, size_t* cap);

#endif
