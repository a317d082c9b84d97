#pragma once
// The server side of the HTTPS fixtures (tests and benchmarks): a QSslSocket on an accepted descriptor that presents
// one leaf and asks nothing of the client, not yet encrypting, so the caller connects its handlers first and then
// calls startServerEncryption(). nullptr when the descriptor cannot be taken.
#include "secrets/interceptca.h"

#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>

namespace zeus::test {

inline QSslSocket* tlsServerSocket(qintptr descriptor, const InterceptCa::Leaf& leaf, QObject* parent) {
    auto* socket = new QSslSocket(parent);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return nullptr;
    }
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setLocalCertificate(leaf.certificate);
    config.setPrivateKey(leaf.key);
    config.setPeerVerifyMode(QSslSocket::VerifyNone);
    socket->setSslConfiguration(config);
    return socket;
}

}  // namespace zeus::test
