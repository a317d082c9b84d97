/* SPDX-License-Identifier: Apache-2.0
 *
 * The start of a call: an `exec` frame checked, the command's environment built (the command itself travels in
 * ZEUS_COMMAND variables, never in argv), its shell started in a session of its own with fresh pipes, and
 * `started` (or one `error`) sent.
 */
#ifndef ZEUS_AGENT_EXEC_H
#define ZEUS_AGENT_EXEC_H

#include "agent.h"

#include <stddef.h>
#include <stdint.h>

void exec_call(struct agent_state* st, uint32_t ch, const unsigned char* p, size_t n);

#endif
