/* SPDX-License-Identifier: Apache-2.0
 *
 * Tunnels (SPEC §8): the egress listeners the app asks for (the HTTP proxy on 3128, SOCKS5 on 1080, both on
 * 127.0.0.1 inside the container) and the connections they accept, and the connections the app asks for to a port
 * on the container's own loopback (published ports). The agent only moves bytes both ways as the
 * windows allow; what a client asks for is read and decided by the app.
 */
#ifndef ZEUS_AGENT_TUNNELS_H
#define ZEUS_AGENT_TUNNELS_H

#include "agent.h"

#include <stddef.h>
#include <stdint.h>

/* A `listen` frame: binds 127.0.0.1:port and answers `listening` with 0 or the errno. */
void do_listen(struct agent_state* st, const unsigned char* p, size_t n);
/* A `tunnel connect` frame: connects to 127.0.0.1:port in the container (never another address: the frame names
 * only a port) on the app's tunnel id; `tunnel connected` answers with 0 or the errno, at once or once done. */
void do_connect(struct agent_state* st, uint32_t ch, const unsigned char* p, size_t n);
/* The socket of a connecting tunnel became writable: the connect is done, one way or the other. */
void tunnel_connect_done(struct agent_state* st, struct tunnel* t);
/* Takes every connection waiting on listener k; each becomes a tunnel with `tunnel open`. */
void accept_tunnel(struct agent_state* st, int k);
/* Reads one chunk of a tunnel's socket into a frame, as its window allows. */
void tunnel_pump(struct agent_state* st, struct tunnel* t);
/* Writes what the client's socket takes now, gives that much window back, half-closes after the app's end. */
void tunnel_feed(struct agent_state* st, struct tunnel* t);
/* Hands over the sockets of tunnels the app asked for that could not go yet (MAX_PASS were waiting); returns how many
 * still wait for room on the next write (not those whose client has yet to take what the app sent). */
int tunnel_handoffs(struct agent_state* st);
/* A frame on a tunnel's channel: data, window, close or handoff. */
void tunnel_frame(struct agent_state* st, uint8_t type, uint32_t ch, const unsigned char* p, size_t n);

#endif
