/* SPDX-License-Identifier: Apache-2.0
 *
 * The output queue: everything the agent sends goes through it, frame by frame, and is written to stdout as
 * stdout takes it. Its size is bounded by the windows the app grants (and OUTQ_SOFT, past which nothing is read).
 */
#ifndef ZEUS_AGENT_OUTQ_H
#define ZEUS_AGENT_OUTQ_H

#include "agent.h"

#include <stddef.h>
#include <stdint.h>

/* Room for n more bytes at the end of the queue; they count once outq_commit says so. */
unsigned char* outq_reserve(struct outq* q, size_t n);
void outq_commit(struct outq* q, size_t n);
/* A frame header at p (for a payload already read into place behind it). */
void put_header(unsigned char* p, uint32_t len, uint8_t type, uint32_t ch);
void put_frame(struct outq* q, uint8_t type, uint32_t ch, const void* payload, size_t n);
void put_u32_frame(struct outq* q, uint8_t type, uint32_t ch, uint32_t v);
void put_error(struct outq* q, uint32_t ch, const char* msg);
/* Writes what q's descriptor (stdout or the lane) takes now. Returns -1 when the app is gone (EPIPE or another error).
 */
int flush_out(struct outq* q);
/* The last frames before exiting: waits for stdout a little, never forever. */
void flush_out_before_exit(struct outq* q);

#endif
