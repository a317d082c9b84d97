/* SPDX-License-Identifier: Apache-2.0
 *
 * The process sweep: finds, in /proc, the processes a call (or any call) started or left behind, escapees of
 * setsid, double forks and `nohup ... &` included, and kills them on a stop, a timeout or `close`
 * (docs/agent-protocol.md, "Which processes belong to a call"). It reads /proc only; what it knows of the calls
 * and their tags is in the state.
 */
#ifndef ZEUS_AGENT_SWEEP_H
#define ZEUS_AGENT_SWEEP_H

#include "agent.h"

#include <stddef.h>

/* The record of a tag this agent handed out (the latest with that value), or NULL. */
struct tagrec* find_tag(struct agent_state* st, const char* tag);
/* One pass for `close`: the live processes that descend from the agent (by parent links) or carry one of its
 * tags. With kill_them they get SIGKILL. Returns how many were found; zombies do not count (they are dead, only
 * not yet reaped). */
size_t sweep_all(struct agent_state* st, int kill_them);
/* One pass for the stop of call c: the live processes that belong to it. With kill_them they get SIGKILL.
 * Returns how many were found; zombies do not count. */
size_t sweep_call(struct agent_state* st, const struct call* c, int kill_them);

#endif
