/* SPDX-License-Identifier: Apache-2.0
 *
 * Calls after their start (exec.c starts them): their output read as the windows allow, their stdin fed, their
 * shell waited for, their stop (SIGTERM, then after the grace SIGKILL and sweeps until nothing of the call is
 * left) and their one `exit` frame.
 */
#ifndef ZEUS_AGENT_CALLS_H
#define ZEUS_AGENT_CALLS_H

#include "agent.h"

#include <stddef.h>
#include <stdint.h>

struct call* find_call(struct agent_state* st, uint32_t id);
/* Sends the call's `exit`, closes its pipes and frees its slot. */
void end_call(struct agent_state* st, struct call* c);
/* SIGTERM to the group now, the sweep and SIGKILL once the grace is over (a later stop may shorten the grace). */
void begin_stop(struct call* c, uint32_t grace, int reason);
/* Timeouts that passed, graces that ended, sweeps that are due. */
void on_timers(struct agent_state* st);
/* Milliseconds until on_timers has something to do; -1: nothing is timed. */
int next_timeout(const struct agent_state* st);
/* Waits for every child that ended; a call's shell marks the call reaped. */
void reap(struct agent_state* st);
/* Reads one chunk of a call's stdout (k 0) or stderr (k 1) into a frame, as the window allows. */
void pump(struct agent_state* st, struct call* c, int k);
/* Writes what the command's stdin takes now and gives that much window back. */
void feed_stdin(struct agent_state* st, struct call* c);
/* Ends the calls whose shell is gone and whose output is read. */
void finish_calls(struct agent_state* st);
/* A `stdin`, `signal`, `stop` or `window` frame on a call's channel. */
void call_frame(struct agent_state* st, uint8_t type, uint32_t ch, const unsigned char* p, size_t n);

#endif
