#pragma once

// What the egress tests (tst_egress, tst_egressupstream) put on the far side of the app's proxy: a ClientHello that
// names a host, and a tiny HTTP server on 127.0.0.1.
#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>

#include <memory>

namespace zeus::test {

// A TLS ClientHello that names `name` (TLS 1.3 shape, one record): what curl or git sends first in a tunnel. The
// fixture does not speak TLS; what matters is whether the proxy lets these bytes reach it.
inline QByteArray clientHello(const QByteArray& name) {
    const auto u16 = [](QByteArray* out, qsizetype v) {
        out->append(char((v >> 8) & 0xff));
        out->append(char(v & 0xff));
    };
    QByteArray sni;  // server_name: type 0, one host_name entry
    u16(&sni, 0);
    u16(&sni, name.size() + 5);
    u16(&sni, name.size() + 3);
    sni.append('\0');
    u16(&sni, name.size());
    sni.append(name);
    QByteArray body;
    u16(&body, 0x0303);
    body.append(QByteArray(32, 'r'));
    body.append('\0');  // no session id
    u16(&body, 2);
    u16(&body, 0x1301);
    body.append('\1');
    body.append('\0');  // compression: null
    u16(&body, sni.size());
    body.append(sni);
    QByteArray record;
    record.append(char(0x16));
    u16(&record, 0x0301);
    u16(&record, body.size() + 4);
    record.append('\1');
    record.append('\0');
    u16(&record, body.size());
    record.append(body);
    return record;
}

// A tiny HTTP server: answers every request with "hello-from-fixture PATH" and keeps what it saw. A request may
// follow other bytes (a ClientHello or an SSH line, which it does not speak): it starts at "GET ".
class FixtureServer : public QObject {
public:
    FixtureServer() {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* socket = m_server.nextPendingConnection()) {
                connections++;
                auto buffer = std::make_shared<QByteArray>();
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
                    *buffer += socket->readAll();
                    const qsizetype end = buffer->indexOf("\r\n\r\n");
                    if (end < 0) {
                        return;
                    }
                    raw << *buffer;
                    const qsizetype start = qMax<qsizetype>(0, buffer->indexOf("GET "));
                    heads << buffer->mid(start, end - start);
                    const QByteArray path = heads.last().split(' ').value(1);
                    // /bytes/N: N bytes, for a download long enough to be handed over; else a line naming the path.
                    const QByteArray body = path.startsWith("/bytes/") ? QByteArray(path.mid(7).toInt(), 'z')
                                                                       : "hello-from-fixture " + path + '\n';
                    socket->write("HTTP/1.0 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
                                  + body);
                    socket->disconnectFromHost();
                    buffer->clear();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    int port() const { return m_server.serverPort(); }
    int connections = 0;
    QList<QByteArray> heads;
    QList<QByteArray> raw;  // everything each connection sent, up to its request's end

private:
    QTcpServer m_server;
};

}  // namespace zeus::test
