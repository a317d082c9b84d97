#pragma once

#include <QString>
#include <QtGlobal>

#include <optional>

namespace zeus {

// One exposed host service (SPEC §8 "Ports"): `--expose-host HOST_PORT[:CONTAINER_PORT]`. A service on this
// computer's 127.0.0.1:HOST_PORT is reachable at 127.0.0.1:CONTAINER_PORT inside the container (the same number when
// left out). Both sides are loopback and there is no address in the spelling, so none can be given. A pure value
// with its parser, so the flag, the session and the tests read it alike.
struct ExposeSpec {
    quint16 hostPort = 0;
    quint16 containerPort = 0;

    // At most this many per run: each is one listener of the sandbox agent, which has room for the two proxies and
    // these (agent/protocol.h MAX_LISTENERS).
    static constexpr int kMaxExposed = 16;

    // "5432" or "15432:5432" (decimal, 1-65535). A container port the agent's own proxies listen on (3128, 1080)
    // is refused. nullopt and *error on anything else.
    static std::optional<ExposeSpec> parse(const QString& text, QString* error = nullptr);
    QString text() const;
    bool operator==(const ExposeSpec& other) const {
        return hostPort == other.hostPort && containerPort == other.containerPort;
    }
};

}  // namespace zeus
