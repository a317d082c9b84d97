// EngineLocation: local or remote from DOCKER_HOST, Docker contexts, CONTAINER_HOST and Podman connections, and
// endpoints shown without credentials. Pure functions, no process.
#include "runtime/enginelocation.h"

#include <QJsonDocument>
#include <QTest>

using zeus::EngineLocation;
using Kind = zeus::EngineLocation::Kind;

class TestEngineLocation : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fromEndpoint_data();
    void fromEndpoint();
    void docker_data();
    void docker();
    void dockerContextInspect_data();
    void dockerContextInspect();
    void podman_data();
    void podman();
    void podmanConnections_data();
    void podmanConnections();
    void podmanInfo();
    void label();
};

void TestEngineLocation::fromEndpoint_data() {
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("host");

    QTest::newRow("empty: the default socket") << "" << Kind::Local << "";
    QTest::newRow("unix") << "unix:///var/run/docker.sock" << Kind::Local << "unix:///var/run/docker.sock";
    QTest::newRow("unix upper-case scheme") << "UNIX:///run/docker.sock" << Kind::Local << "UNIX:///run/docker.sock";
    QTest::newRow("npipe") << "npipe:////./pipe/docker_engine" << Kind::Local << "npipe:////./pipe/docker_engine";
    QTest::newRow("bare socket path") << "/run/user/1000/podman/podman.sock" << Kind::Local
                                      << "/run/user/1000/podman/podman.sock";
    QTest::newRow("tcp loopback is remote by its scheme")
        << "tcp://127.0.0.1:23750" << Kind::Remote << "tcp://127.0.0.1:23750";
    QTest::newRow("tcp") << "tcp://build.example:2376" << Kind::Remote << "tcp://build.example:2376";
    QTest::newRow("ssh with user") << "ssh://alice@build.example" << Kind::Remote << "ssh://build.example";
    QTest::newRow("ssh with user and port, path and query")
        << "ssh://core@10.0.0.5:2222/run/podman/podman.sock?secure=true" << Kind::Remote
        << "ssh://10.0.0.5:2222/run/podman/podman.sock";
    QTest::newRow("https with user:password")
        << "https://bob:s3cret@docker.example:2376" << Kind::Remote << "https://docker.example:2376";
    QTest::newRow("http") << "http://docker.example" << Kind::Remote << "http://docker.example";
    QTest::newRow("password with @ and :") << "tcp://u:p@ss:w@rd@host:1" << Kind::Remote << "tcp://host:1";
    QTest::newRow("unknown scheme is remote") << "fd://" << Kind::Remote << "fd://";
    QTest::newRow("surrounding spaces") << "  tcp://h:1  " << Kind::Remote << "tcp://h:1";
}

void TestEngineLocation::fromEndpoint() {
    QFETCH(QString, endpoint);
    QFETCH(Kind, kind);
    QFETCH(QString, host);
    const EngineLocation location = EngineLocation::fromEndpoint(endpoint);
    QCOMPARE(location.kind, kind);
    QCOMPARE(location.host, host);
    QVERIFY(!location.host.contains(QLatin1String("s3cret")));
}

void TestEngineLocation::docker_data() {
    QTest::addColumn<QString>("dockerHost");
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("contextHost");
    QTest::addColumn<bool>("needsInspect");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("host");

    QTest::newRow("DOCKER_HOST tcp wins over the context") << "tcp://127.0.0.1:23750"
                                                           << "default"
                                                           << "" << false << Kind::Remote << "tcp://127.0.0.1:23750";
    QTest::newRow("DOCKER_HOST unix") << "unix:///tmp/d.sock"
                                      << ""
                                      << "" << false << Kind::Local << "unix:///tmp/d.sock";
    QTest::newRow("DOCKER_HOST ssh with user") << "ssh://me@box"
                                               << "other"
                                               << "" << false << Kind::Remote << "ssh://box";
#if defined(Q_OS_WIN)
    const QString defaultSocket = QStringLiteral("npipe:////./pipe/docker_engine");
#else
    const QString defaultSocket = QStringLiteral("unix:///var/run/docker.sock");
#endif
    QTest::newRow("default context") << ""
                                     << "default"
                                     << "" << false << Kind::Local << defaultSocket;
    QTest::newRow("no context named") << ""
                                      << ""
                                      << "" << false << Kind::Local << defaultSocket;
    QTest::newRow("Docker Desktop context") << ""
                                            << "desktop-linux"
                                            << "unix:///Users/a/.docker/run/docker.sock" << true << Kind::Local
                                            << "unix:///Users/a/.docker/run/docker.sock";
    QTest::newRow("remote context") << ""
                                    << "build"
                                    << "ssh://alice@build.example" << true << Kind::Remote << "ssh://build.example";
    QTest::newRow("context whose endpoint is unknown") << ""
                                                       << "broken"
                                                       << "" << true << Kind::Unknown << "";
}

void TestEngineLocation::docker() {
    QFETCH(QString, dockerHost);
    QFETCH(QString, context);
    QFETCH(QString, contextHost);
    QFETCH(bool, needsInspect);
    QFETCH(Kind, kind);
    QFETCH(QString, host);
    QCOMPARE(EngineLocation::needsDockerContextInspect(dockerHost, context), needsInspect);
    const EngineLocation location = EngineLocation::forDocker(dockerHost, context, contextHost);
    QCOMPARE(location.kind, kind);
    QCOMPARE(location.host, host);
}

void TestEngineLocation::dockerContextInspect_data() {
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QString>("endpoint");

    QTest::newRow("docker 28 inspect") << QByteArray(R"([
    {
        "Name": "build",
        "Metadata": {},
        "Endpoints": {"docker": {"Host": "tcp://10.1.2.3:2376", "SkipTLSVerify": false}},
        "TLSMaterial": {},
        "Storage": {"MetadataPath": "/root/.docker/contexts/meta/x", "TLSPath": "/root/.docker/contexts/tls/x"}
    }
])") << "tcp://10.1.2.3:2376";
    QTest::newRow("one object") << QByteArray(R"({"Endpoints":{"docker":{"Host":"ssh://h"}}})") << "ssh://h";
    QTest::newRow("empty array") << QByteArray("[]") << "";
    QTest::newRow("garbage") << QByteArray("context \"x\" does not exist") << "";
    QTest::newRow("no docker endpoint") << QByteArray(R"([{"Endpoints":{}}])") << "";
}

void TestEngineLocation::dockerContextInspect() {
    QFETCH(QByteArray, output);
    QFETCH(QString, endpoint);
    QCOMPARE(EngineLocation::parseDockerContextInspect(output), endpoint);
}

void TestEngineLocation::podman_data() {
    QTest::addColumn<bool>("serviceIsRemote");
    QTest::addColumn<QString>("socket");
    QTest::addColumn<QString>("containerHost");
    QTest::addColumn<QString>("connectionUri");  // empty: no default connection
    QTest::addColumn<bool>("isMachine");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("host");

    QTest::newRow("rootless local") << false << "/run/user/1000/podman/podman.sock"
                                    << ""
                                    << "" << false << Kind::Local << "unix:///run/user/1000/podman/podman.sock";
    QTest::newRow("rootful local, socket as URL") << false << "unix:///run/podman/podman.sock"
                                                  << ""
                                                  << "" << false << Kind::Local << "unix:///run/podman/podman.sock";
    QTest::newRow("local even with CONTAINER_HOST set")
        << false << "/run/podman/podman.sock"
        << "tcp://x:1"
        << "" << false << Kind::Local << "unix:///run/podman/podman.sock";
    QTest::newRow("CONTAINER_HOST ssh") << true << ""
                                        << "ssh://bob@server/run/podman/podman.sock"
                                        << "" << false << Kind::Remote << "ssh://server/run/podman/podman.sock";
    QTest::newRow("CONTAINER_HOST unix") << true << ""
                                         << "unix:///run/podman/podman.sock"
                                         << "" << false << Kind::Local << "unix:///run/podman/podman.sock";
    QTest::newRow("default connection remote")
        << true << ""
        << ""
        << "ssh://core@10.0.0.9:22/run/podman.sock" << false << Kind::Remote << "ssh://10.0.0.9:22/run/podman.sock";
    QTest::newRow("default connection is a Podman machine")
        << true << ""
        << ""
        << "ssh://core@127.0.0.1:53741/run/user/501/podman/podman.sock" << true << Kind::Local
        << "ssh://127.0.0.1:53741/run/user/501/podman/podman.sock";
    QTest::newRow("remote client, no connection: local socket")
        << true << "/run/user/1000/podman/podman.sock"
        << ""
        << "" << false << Kind::Local << "/run/user/1000/podman/podman.sock";
    QTest::newRow("remote client, nothing known") << true << ""
                                                  << ""
                                                  << "" << false << Kind::Unknown << "";
}

void TestEngineLocation::podman() {
    QFETCH(bool, serviceIsRemote);
    QFETCH(QString, socket);
    QFETCH(QString, containerHost);
    QFETCH(QString, connectionUri);
    QFETCH(bool, isMachine);
    QFETCH(Kind, kind);
    QFETCH(QString, host);
    std::optional<EngineLocation::PodmanConnection> connection;
    if (!connectionUri.isEmpty()) {
        connection = EngineLocation::PodmanConnection{QStringLiteral("c"), connectionUri, isMachine};
    }
    const EngineLocation location = EngineLocation::forPodman(serviceIsRemote, socket, containerHost, connection);
    QCOMPARE(location.kind, kind);
    QCOMPARE(location.host, host);
}

void TestEngineLocation::podmanConnections_data() {
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<QString>("wanted");
    QTest::addColumn<QString>("name");  // empty: none
    QTest::addColumn<QString>("uri");
    QTest::addColumn<bool>("isMachine");

    const QByteArray two = R"([
 {"Name":"podman-machine-default","URI":"ssh://core@127.0.0.1:53741/run/user/501/podman/podman.sock",
  "Identity":"/Users/a/.local/share/containers/podman/machine/machine","IsMachine":true,"Default":false},
 {"Name":"server","URI":"ssh://root@10.0.0.9:22/run/podman/podman.sock","Identity":"/root/.ssh/id_ed25519",
  "IsMachine":false,"Default":true}
])";
    QTest::newRow("the default") << two << ""
                                 << "server"
                                 << "ssh://root@10.0.0.9:22/run/podman/podman.sock" << false;
    QTest::newRow("CONTAINER_CONNECTION names one")
        << two << "podman-machine-default"
        << "podman-machine-default"
        << "ssh://core@127.0.0.1:53741/run/user/501/podman/podman.sock" << true;
    QTest::newRow("named one missing") << two << "nope"
                                       << ""
                                       << "" << false;
    QTest::newRow("podman 4.3 with none") << QByteArray("[]") << ""
                                          << ""
                                          << "" << false;
    QTest::newRow("garbage") << QByteArray("Error: x") << ""
                             << ""
                             << "" << false;
}

void TestEngineLocation::podmanConnections() {
    QFETCH(QByteArray, output);
    QFETCH(QString, wanted);
    QFETCH(QString, name);
    QFETCH(QString, uri);
    QFETCH(bool, isMachine);
    const auto connection = EngineLocation::parsePodmanConnections(output, wanted);
    QCOMPARE(connection.has_value(), !name.isEmpty());
    if (connection) {
        QCOMPARE(connection->name, name);
        QCOMPARE(connection->uri, uri);
        QCOMPARE(connection->isMachine, isMachine);
    }
}

void TestEngineLocation::podmanInfo() {
    const QJsonObject local =
        QJsonDocument::fromJson(
            R"({"host":{"serviceIsRemote":false,"remoteSocket":{"path":"/run/podman/podman.sock"}}})")
            .object();
    QVERIFY(!EngineLocation::podmanServiceIsRemote(local));
    QCOMPARE(EngineLocation::podmanRemoteSocket(local), QStringLiteral("/run/podman/podman.sock"));
    const QJsonObject remote = QJsonDocument::fromJson(R"({"host":{"serviceIsRemote":true}})").object();
    QVERIFY(EngineLocation::podmanServiceIsRemote(remote));
    QCOMPARE(EngineLocation::podmanRemoteSocket(remote), QString());
    QCOMPARE(EngineLocation::dockerContextName(QJsonDocument::fromJson(R"({"ClientInfo":{"Context":"b"}})").object()),
             QStringLiteral("b"));
}

void TestEngineLocation::label() {
    QCOMPARE(EngineLocation::fromEndpoint(QStringLiteral("unix:///s")).label(), QStringLiteral("local"));
    QCOMPARE(EngineLocation::fromEndpoint(QStringLiteral("tcp://u:pw@h:1")).label(),
             QStringLiteral("remote (tcp://h:1)"));
    QCOMPARE(EngineLocation().label(), QStringLiteral("unknown"));
    QCOMPARE(EngineLocation::kindToString(Kind::Remote), QStringLiteral("remote"));
    QCOMPARE(EngineLocation::kindToString(Kind::Local), QStringLiteral("local"));
    QCOMPARE(EngineLocation::kindToString(Kind::Unknown), QStringLiteral("unknown"));
}

QTEST_GUILESS_MAIN(TestEngineLocation)
#include "tst_enginelocation.moc"
