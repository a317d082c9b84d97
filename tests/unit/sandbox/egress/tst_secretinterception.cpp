// Host-bound secrets end to end on loopback, without a sandbox (SPEC §9): a real client (curl) trusts only the
// per-install CA, talks TLS to a server-side QSslSocket that presents a leaf minted for the host, and sends the
// placeholder; what comes out of the rewriter, where the server would be, carries the value. ALPN lands on
// HTTP/1.1 although curl offers h2; a placeholder for a host it is not bound to gets 403 secret-not-bound and
// nothing reaches the server; and without the CA curl refuses the leaf, so nothing but a sandbox that was given the
// CA trusts it.
#include "sandbox/egress/secretsubstitution.h"
#include "secrets/interceptca.h"
#include "testenvironment.h"

#include <QProcess>
#include <QSignalSpy>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace zeus;
using namespace Qt::StringLiterals;

namespace {

const QByteArray kValue = "ghp_realValueOfTheToken_0123456789";

// Terminates TLS as the egress proxy will for a bound host: one leaf for the host it serves, HTTP/1.1 only, every
// decrypted byte through a SecretSubstitution; what it lets through is kept as "what the real server saw".
class InterceptingServer : public QTcpServer {
public:
    InterceptingServer(InterceptCa* ca, const SecretPlaceholders* placeholders, QString host)
        : m_leaf(ca->mint(host)), m_placeholders(placeholders), m_host(std::move(host)) {}

    QByteArray upstream;  // what the server behind the proxy received
    QByteArray refused;   // the refusal replies sent to the client
    QStringList errors;

protected:
    void incomingConnection(qintptr descriptor) override {
        auto* socket = new QSslSocket(this);
        if (!socket->setSocketDescriptor(descriptor)) {
            errors.append(socket->errorString());
            return;
        }
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setLocalCertificate(m_leaf.certificate);
        config.setPrivateKey(m_leaf.key);
        config.setPeerVerifyMode(QSslSocket::VerifyNone);
        config.setAllowedNextProtocols({QByteArrayLiteral("http/1.1")});  // h2 is negotiated down
        socket->setSslConfiguration(config);
        auto substitution =
            std::make_shared<SecretSubstitution>(m_placeholders, m_host, int(serverPort()), /*tls=*/true);
        connect(socket, &QSslSocket::readyRead, socket, [this, socket, substitution] {
            upstream += substitution->feed(socket->readAll());
            socket->write(substitution->takeClientReply());
            if (substitution->status() != SecretSubstitution::Status::Ok) {
                refused += substitution->reply();
                socket->write(substitution->reply());
                socket->disconnectFromHost();
                return;
            }
            if (substitution->requestsForwarded() > 0 && substitution->idle()) {
                socket->write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
                socket->disconnectFromHost();
            }
        });
        connect(socket, &QSslSocket::sslErrors, socket,
                [this](const QList<QSslError>& list) { errors.append(list.first().errorString()); });
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        socket->startServerEncryption();
    }

private:
    InterceptCa::Leaf m_leaf;
    const SecretPlaceholders* m_placeholders;
    QString m_host;
};

struct Curl {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Curl curl(const QStringList& arguments) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& name : {u"HTTPS_PROXY"_s, u"https_proxy"_s, u"HTTP_PROXY"_s, u"http_proxy"_s, u"ALL_PROXY"_s,
                                u"all_proxy"_s, u"CURL_CA_BUNDLE"_s, u"SSL_CERT_FILE"_s, u"SSL_CERT_DIR"_s}) {
        env.remove(name);
    }
    process.setProcessEnvironment(env);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(u"curl"_s, QStringList{u"-sS"_s, u"--noproxy"_s, u"*"_s, u"--max-time"_s, u"20"_s} + arguments);
    // The server answers from this thread's event loop, so wait on it rather than block.
    if (!finished.wait(30000)) {
        process.kill();
        return {};
    }
    return Curl{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
}

}  // namespace

class TestSecretInterception : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void bearerHeaderGetsTheValue();
    void basicCredentialGetsTheValue();
    void anotherHostIsRefused();
    void nothingElseTrustsTheCa();

private:
    QStringList fixture(quint16 port, const QString& host = u"fixture.test"_s) const;
    InterceptCa m_ca;
    SecretPlaceholders m_placeholders;
    QTemporaryDir m_dir;
    QString m_caFile;
    std::unique_ptr<InterceptingServer> m_bound;
    std::unique_ptr<InterceptingServer> m_other;
    QByteArray m_placeholder;
};

void TestSecretInterception::initTestCase() {
    if (QStandardPaths::findExecutable(u"curl"_s).isEmpty()) {
        if (zeus::test::isCi()) {
            QFAIL("curl is not installed");
        }
        QSKIP("curl is not installed");
    }
    QString error;
    QVERIFY2(m_ca.generate(&error), qPrintable(error));
    QVERIFY(m_dir.isValid());
    m_caFile = m_dir.filePath(u"zeus-ca.pem"_s);
    QFile file(m_caFile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(m_ca.certificatePem());
    file.close();

    m_bound = std::make_unique<InterceptingServer>(&m_ca, &m_placeholders, u"fixture.test"_s);
    m_other = std::make_unique<InterceptingServer>(&m_ca, &m_placeholders, u"other.test"_s);
    QVERIFY(m_bound->listen(QHostAddress::LocalHost));
    QVERIFY(m_other->listen(QHostAddress::LocalHost));
    const QString rule = u"GITHUB_TOKEN=fixture.test:%1"_s.arg(m_bound->serverPort());
    m_placeholder = m_placeholders.bind(*SecretBinding::parse(rule), kValue);
}

QStringList TestSecretInterception::fixture(quint16 port, const QString& host) const {
    const QString hostPort = u"%1:%2"_s.arg(host).arg(port);
    return {u"--cacert"_s,
            m_caFile,
            u"--resolve"_s,
            hostPort + u":127.0.0.1"_s,
            u"-w"_s,
            u"\\n%{http_code} HTTP/%{http_version}"_s,
            u"https://%1/"_s.arg(hostPort)};
}

void TestSecretInterception::bearerHeaderGetsTheValue() {
    m_bound->upstream.clear();
    const Curl c = curl(QStringList{u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_placeholder)}
                        + fixture(m_bound->serverPort()));
    QVERIFY2(c.exitCode == 0, c.err.constData());
    QVERIFY2(c.out.endsWith("\n200 HTTP/1.1"), c.out.constData());  // ALPN: HTTP/1.1, not the h2 curl offered
    QVERIFY2(m_bound->upstream.contains(QByteArray("\r\nAuthorization: Bearer " + kValue + "\r\n")),
             m_bound->upstream.constData());
    QVERIFY(!m_bound->upstream.contains(m_placeholder));
    QVERIFY(m_bound->upstream.startsWith("GET / HTTP/1.1\r\n"));
    QVERIFY(!c.out.contains(kValue) && !c.err.contains(kValue));
    QVERIFY2(m_bound->errors.isEmpty(), qPrintable(m_bound->errors.join(u"; "_s)));
}

void TestSecretInterception::basicCredentialGetsTheValue() {
    m_bound->upstream.clear();
    const Curl c = curl(QStringList{u"-u"_s, u"x-access-token:"_s + QString::fromLatin1(m_placeholder)}
                        + fixture(m_bound->serverPort()));
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const QByteArray basic = "x-access-token:" + kValue;
    QVERIFY2(m_bound->upstream.contains(QByteArray("\r\nAuthorization: Basic " + basic.toBase64() + "\r\n")),
             m_bound->upstream.constData());
}

void TestSecretInterception::anotherHostIsRefused() {
    m_other->upstream.clear();
    const Curl c = curl(QStringList{u"-i"_s, u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_placeholder)}
                        + fixture(m_other->serverPort(), u"other.test"_s));
    QVERIFY2(c.exitCode == 0, c.err.constData());
    QVERIFY2(c.out.endsWith("\n403 HTTP/1.1"), c.out.constData());
    QVERIFY(c.out.contains("X-Proxy-Error: secret-not-bound"));
    QVERIFY(c.out.contains("GITHUB_TOKEN"));
    QVERIFY(m_other->upstream.isEmpty());
    QVERIFY(!c.out.contains(kValue));
}

void TestSecretInterception::nothingElseTrustsTheCa() {
    m_bound->upstream.clear();
    QStringList arguments = fixture(m_bound->serverPort());
    arguments.removeAt(arguments.indexOf(u"--cacert"_s) + 1);
    arguments.removeOne(u"--cacert"_s);
    const Curl c =
        curl(QStringList{u"-H"_s, u"Authorization: Bearer "_s + QString::fromLatin1(m_placeholder)} + arguments);
    QCOMPARE(c.exitCode, 60);  // CURLE_PEER_FAILED_VERIFICATION
    QVERIFY(m_bound->upstream.isEmpty());
}

QTEST_GUILESS_MAIN(TestSecretInterception)
#include "tst_secretinterception.moc"
