/* SPDX-License-Identifier: Apache-2.0
 *
 * `zeus-sandbox-agent connect HOST PORT`: a ProxyCommand for ssh (GIT_SSH_COMMAND). It asks the agent's HTTP
 * proxy on 127.0.0.1:3128 for a CONNECT tunnel and then relays stdin and stdout to it. Whether HOST may be
 * reached is the app's decision, made behind the proxy, as for curl. Shares nothing with the framed mode but the
 * port.
 */
#ifndef ZEUS_AGENT_CONNECT_H
#define ZEUS_AGENT_CONNECT_H

/* Returns the process's exit code: 0 once both directions are done, 1 on a refusal or an error, 2 on bad input. */
int run_connect(const char* host, const char* port);

#endif
