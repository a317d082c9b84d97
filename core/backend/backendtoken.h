#pragma once

#include <QString>
#include <QUrl>

namespace zeus {

// Which bearer token a connection to a backend sends, shared by the tray app and headless
// mode so both treat a local backend the same way.
//
// A backend on this computer over plain ws:// may run without sign-in (the local test
// backend does). BackendConnection needs a token to open a connection, so that case sends
// a fixed, meaningless placeholder; a backend that wants a real token refuses it with 401.
// This must never invent a token for any other URL, and never log one.
class BackendToken {
public:
    // The placeholder sent to a local backend when no token is stored.
    static QString anonymous();

    // True for ws:// to localhost or a loopback address (never wss://, never a remote host).
    static bool allowsAnonymous(const QUrl& url);

    // The token to send: the stored one when there is one, else the placeholder where
    // allowsAnonymous(), else empty (the user must sign in).
    static QString effective(const QUrl& url, const QString& storedToken);
};

}  // namespace zeus
