/* SPDX-License-Identifier: Apache-2.0
 *
 * The lane (docs/agent-protocol.md "The lane"): a second transport for the frames, a Unix socket the app listens on
 * in a folder mounted read-only into the container, which moves bytes without the engine's exec pipe in the way.
 * The agent connects when the app asks, presents the key the app sent it on stdin, and moves every frame to the lane
 * once the app switched; until then, and for ever when anything fails, the frames stay on stdin and stdout.
 */
#ifndef ZEUS_AGENT_LANE_H
#define ZEUS_AGENT_LANE_H

#include "agent.h"

#include <stddef.h>

/* A `lane` frame: with a key and a path, connect and answer `lane` with 0 or the errno; empty, switch to the lane
 * (answered with an empty `lane` on stdout, the last frame there). */
void lane_frame(struct agent_state* st, const unsigned char* p, size_t n);

#endif
