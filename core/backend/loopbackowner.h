#pragma once

#include <QByteArray>
#include <QList>

#include <optional>

namespace zeus {

// Who listens on a loopback port of this computer (Linux). Any local user can bind a free loopback port; one who
// binds the backend's port first would receive the app's token and could send it tool calls. Before it connects
// to a `ws://` loopback backend, the app looks the listening socket up in /proc/net/tcp and /proc/net/tcp6 and
// refuses one owned by another user (SPEC §5 "No anonymous backends"; docs/security.md).
class LoopbackOwner {
public:
    // The uids of the sockets listening on `port` (on 127.0.0.0/8, ::1, 0.0.0.0 or ::) in the text of
    // /proc/net/tcp or /proc/net/tcp6; empty when none listens there or the text is not that table.
    static QList<uint> listenerUids(const QByteArray& procNetTcp, quint16 port);
    // The same on this machine (both tables); empty where there is no /proc (not Linux) or no listener.
    static QList<uint> hostListenerUids(quint16 port);
    // This process's effective uid; nullopt where the platform has none.
    static std::optional<uint> currentUid();
};

}  // namespace zeus
