#include "sandbox/egress/interceptedconnection.h"

#include "sandbox/egress/proxyrequest.h"
#include "sandbox/egress/secretplaceholders.h"
#include "sandbox/egress/secretsubstitution.h"
#include "secrets/interceptca.h"
#include "support/logging.h"

#include <QSslConfiguration>
#include <QSslKey>

#ifndef Q_OS_WIN
#include <cerrno>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {
const QByteArray kHttp11 = QByteArrayLiteral("http/1.1");
}

bool SecretInterception::covers(const QString& host, int port) const {
    if (placeholders == nullptr || placeholders->isEmpty()) {
        return false;
    }
    const QStringList names = placeholders->names();
    for (const QString& name : names) {
        const SecretPlaceholders::Entry* entry = placeholders->entry(name);
        if (entry != nullptr && entry->binding.allows(host, port, /*tls=*/true)) {
            return true;
        }
    }
    return false;
}

InterceptedConnection::InterceptedConnection(QSslSocket* upstream, const QString& host, int port,
                                             const SecretPlaceholders* placeholders, QObject* parent)
    : QObject(parent),
      m_upstream(upstream),
      m_host(host),
      m_port(port),
      m_substitution(std::make_unique<SecretSubstitution>(placeholders, host, port, /*tls=*/true)),
      m_placeholders(placeholders),
      m_answers({}, Redactor::Marker::Masked) {
    maskNewValues();
    m_quiet.setSingleShot(true);
    connect(&m_quiet, &QTimer::timeout, this, [this] {
        if (!m_answered && m_client != nullptr) {
            m_client->write(m_answers.flush());
        }
    });
}

InterceptedConnection::~InterceptedConnection() = default;

InterceptedConnection* InterceptedConnection::start(QSslSocket* upstream, const QString& host, int port,
                                                    const SecretInterception& setup, QObject* parent,
                                                    qintptr* clientEnd, QString* error) {
#ifdef Q_OS_WIN
    Q_UNUSED(upstream)
    Q_UNUSED(host)
    Q_UNUSED(port)
    Q_UNUSED(setup)
    Q_UNUSED(parent)
    Q_UNUSED(clientEnd)
    *error = QStringLiteral("host-bound secrets are not supported on Windows yet");
    return nullptr;
#else
    if (setup.ca == nullptr || !setup.ca->isLoaded()) {
        *error = QStringLiteral("the interception CA of host-bound secrets is not loaded");
        return nullptr;
    }
    const InterceptCa::Leaf leaf = setup.ca->mint(host);
    if (leaf.isNull()) {
        *error = QStringLiteral("no certificate could be made for %1: %2").arg(host, leaf.error);
        return nullptr;
    }
    int fds[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *error = QStringLiteral("no local socket pair: %1").arg(qt_error_string(errno));
        return nullptr;
    }
    auto* connection = new InterceptedConnection(upstream, host, port, setup.placeholders, parent);
    connection->m_client = new QSslSocket(connection);
    if (!connection->m_client->setSocketDescriptor(fds[1])) {
        *error = QStringLiteral("the local socket pair: %1").arg(connection->m_client->errorString());
        ::close(fds[0]);
        ::close(fds[1]);
        connection->m_upstream = nullptr;  // still the caller's
        delete connection;
        return nullptr;
    }
    *clientEnd = fds[0];
    connection->begin(setup, leaf.certificate, leaf.key);
    return connection;
#endif
}

void InterceptedConnection::begin(const SecretInterception& setup, const QSslCertificate& leaf, const QSslKey& key) {
    // The real host: its own name verified against this computer's roots, HTTP/1.1 as the rewriter reads it.
    m_upstream->setParent(this);
    QSslConfiguration upstream = QSslConfiguration::defaultConfiguration();
    upstream.setCaCertificates(setup.roots);
    upstream.setPeerVerifyMode(QSslSocket::VerifyPeer);
    upstream.setAllowedNextProtocols({kHttp11});
    m_upstream->setSslConfiguration(upstream);
    m_upstream->setPeerVerifyName(m_host);
    m_upstream->setReadBufferSize(kHeldBytes);
    connect(m_upstream, &QSslSocket::encrypted, this, [this] { onUpstreamEncrypted(); });
    connect(m_upstream, &QSslSocket::readyRead, this, [this] { fromServer(); });
    connect(m_upstream, &QSslSocket::encryptedBytesWritten, this, [this] { fromClient(); });
    connect(m_upstream, &QSslSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) { onUpstreamError(); });
    connect(m_upstream, &QSslSocket::sslErrors, this, [this](const QList<QSslError>& errors) {
        if (m_untrusted.isEmpty() && !errors.isEmpty()) {
            m_untrusted = errors.first().errorString();  // never ignored: the handshake fails after this
        }
    });

    // The client in the sandbox: a leaf for the name it asked for, and no h2.
    QSslConfiguration server = QSslConfiguration::defaultConfiguration();
    server.setLocalCertificate(leaf);
    server.setPrivateKey(key);
    server.setPeerVerifyMode(QSslSocket::VerifyNone);
    server.setAllowedNextProtocols({kHttp11});
    m_client->setSslConfiguration(server);
    m_client->setReadBufferSize(kHeldBytes);
    connect(m_client, &QSslSocket::readyRead, this, [this] { fromClient(); });
    connect(m_client, &QSslSocket::encryptedBytesWritten, this, [this] { fromServer(); });
    connect(m_client, &QSslSocket::disconnected, this, [this] {
        finish();
        m_upstream->abort();
    });
    connect(m_client, &QSslSocket::errorOccurred, this, [this](QAbstractSocket::SocketError error) {
        if (error != QAbstractSocket::RemoteHostClosedError) {
            qCInfo(lcSession) << "egress: the sandbox's TLS to" << m_host << m_port
                              << "failed:" << m_client->errorString();
        }
    });
    m_handshake.setSingleShot(true);
    connect(&m_handshake, &QTimer::timeout, this, [this] {
        m_untrusted = QStringLiteral("no TLS handshake within %1 s").arg(kHandshakeMs / 1000);
        onUpstreamError();
    });
    m_handshake.start(kHandshakeMs);
    m_upstream->startClientEncryption();
    m_client->startServerEncryption();
}

qint64 InterceptedConnection::held(const QSslSocket* socket) {
    return socket->bytesToWrite() + socket->encryptedBytesToWrite();
}

void InterceptedConnection::onUpstreamEncrypted() {
    m_handshake.stop();
    m_secured = true;
    const QSslCertificate peer = m_upstream->peerCertificate();
    const QStringList issuer = peer.issuerInfo(QSslCertificate::CommonName);
    Q_EMIT secured(QStringLiteral("TLS ended here for a bound secret; %1 verified (issuer %2)")
                       .arg(m_host, issuer.isEmpty() ? peer.issuerDisplayName() : issuer.first()));
    fromClient();
    fromServer();
}

void InterceptedConnection::onUpstreamError() {
    if (m_secured) {
        // The server ended (or broke) the connection: what it sent goes out, then the client's TLS ends.
        m_serverEnded = true;
        fromServer();
        return;
    }
    if (m_upstreamFailed) {
        return;  // said once; the socket may report the same end twice
    }
    m_upstreamFailed = true;
    m_handshake.stop();
    if (m_untrusted.isEmpty()) {
        m_untrusted = m_upstream->errorString();
    }
    const QString why =
        QStringLiteral(
            "%1:%2 did not pass TLS verification (%3); a secret is bound to this host, so the connection "
            "is refused rather than tunnelled")
            .arg(m_host)
            .arg(m_port)
            .arg(m_untrusted);
    m_untrusted = why;
    m_upstream->abort();  // what the client sent meanwhile was held in it, never sent
    Q_EMIT untrusted(why);
    if (m_clientSpoke) {
        answerClient(proxyrequest::httpError(502, QStringLiteral("Bad Gateway"), why));
    }
}

void InterceptedConnection::fromClient() {
    if (m_answered) {
        m_client->readAll();  // read and dropped: the connection's answer is out
        return;
    }
    if (!m_untrusted.isEmpty()) {
        m_clientSpoke = m_clientSpoke || m_client->bytesAvailable() > 0;
        if (m_clientSpoke && (m_secured || m_upstream->state() == QAbstractSocket::UnconnectedState)) {
            answerClient(proxyrequest::httpError(502, QStringLiteral("Bad Gateway"), m_untrusted));
        }
        return;
    }
    // Held while the real host's TLS is not up (the QSslSocket keeps what is written before the handshake), and
    // bounded: nothing more is read from the client while the server's side holds kHeldBytes.
    while (m_client->bytesAvailable() > 0 && held(m_upstream) < kHeldBytes) {
        const QByteArray in = m_client->read(kHeldBytes);
        m_clientSpoke = true;
        const QByteArray out = m_substitution->feed(in);
        if (!out.isEmpty()) {
            m_upstream->write(out);
        }
        const QByteArray early = m_substitution->takeClientReply();
        if (!early.isEmpty()) {
            m_client->write(early);
        }
        switch (m_substitution->status()) {
            case SecretSubstitution::Status::Ok:
                continue;
            case SecretSubstitution::Status::NotBound:
                Q_EMIT notBound(m_substitution->refusedName(), m_substitution->error());
                break;
            case SecretSubstitution::Status::Refused:
                qCInfo(lcSession) << "egress: a request to" << m_host << m_port
                                  << "refused:" << m_substitution->error();
                break;
        }
        answerClient(m_substitution->reply());
        return;
    }
}

// A secret bound in this session after the connection opened is substituted from then on: masked too.
void InterceptedConnection::maskNewValues() {
    if (m_placeholders == nullptr) {
        return;
    }
    const QStringList masked = m_answers.names();
    for (const QString& name : m_placeholders->names()) {
        const SecretPlaceholders::Entry* entry = m_placeholders->entry(name);
        if (entry != nullptr && !masked.contains(name)) {
            m_answers.add({name, entry->value});
        }
    }
}

void InterceptedConnection::fromServer() {
    if (m_answered || !m_secured) {
        return;
    }
    maskNewValues();
    while (m_upstream->bytesAvailable() > 0 && held(m_client) < kHeldBytes) {
        m_client->write(m_answers.feed(m_upstream->read(kHeldBytes)));
    }
    if (m_answers.heldBack() > 0) {
        m_quiet.start(kQuietMs);
    }
    if (m_serverEnded && m_upstream->bytesAvailable() == 0) {
        m_quiet.stop();
        m_client->write(m_answers.flush());
        m_answered = true;
        finish();
        m_client->disconnectFromHost();  // after what is written: the tunnel then sees the end
    }
}

// The last thing the client gets on this connection; the server gets nothing more.
void InterceptedConnection::answerClient(const QByteArray& reply) {
    m_answered = true;
    finish();
    m_upstream->abort();  // what it held of this request is never sent
    m_client->write(reply);
    m_client->disconnectFromHost();
}

void InterceptedConnection::finish() {
    if (m_countsSent) {
        return;
    }
    m_countsSent = true;
    if (m_answers.count() > 0) {
        qCInfo(lcSession).noquote() << "egress:" << m_answers.count() << "forms of a bound secret's value masked in"
                                    << "answers from" << m_host << m_port;
    }
    if (!m_substitution->counts().isEmpty()) {
        Q_EMIT substituted(m_substitution->counts());
    }
}

}  // namespace zeus
