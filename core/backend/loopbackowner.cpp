#include "backend/loopbackowner.h"

#include <QFile>
#include <QList>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

namespace zeus {

namespace {

constexpr int kListenState = 0x0A;  // TCP_LISTEN in the "st" column

// "0100007F:1F90" (IPv4) or 32 hex digits ":1F90" (IPv6), addresses in the kernel's byte order.
bool isLoopbackOrAny(const QByteArray& address) {
    if (address.size() == 8) {
        bool ok = false;
        const uint raw = address.toUInt(&ok, 16);
        if (!ok) {
            return false;
        }
        // The kernel prints the address as a host-order word: on little-endian hosts the first octet is the low byte.
#if Q_BYTE_ORDER == Q_LITTLE_ENDIAN
        const uint firstOctet = raw & 0xFFU;
#else
        const uint firstOctet = raw >> 24;
#endif
        return raw == 0 || firstOctet == 127U;
    }
    if (address.size() == 32) {
        static const QByteArray any(32, '0');
        static const QByteArray loopback = QByteArrayLiteral("00000000000000000000000001000000");
        static const QByteArray mappedPrefix = QByteArrayLiteral("0000000000000000FFFF0000");
        if (address == any || address.toUpper() == loopback) {
            return true;
        }
        // ::ffff:127.x.x.x
        return address.toUpper().startsWith(mappedPrefix) && isLoopbackOrAny(address.mid(24));
    }
    return false;
}

}  // namespace

QList<uint> LoopbackOwner::listenerUids(const QByteArray& procNetTcp, quint16 port) {
    QList<uint> uids;
    const QList<QByteArray> lines = procNetTcp.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {  // the first line is the header
        const QList<QByteArray> fields = lines.at(i).simplified().split(' ');
        // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
        if (fields.size() < 8) {
            continue;
        }
        const QByteArray& local = fields.at(1);
        const qsizetype colon = local.lastIndexOf(':');
        if (colon <= 0) {
            continue;
        }
        bool portOk = false;
        bool stateOk = false;
        bool uidOk = false;
        const uint localPort = local.mid(colon + 1).toUInt(&portOk, 16);
        const int state = fields.at(3).toInt(&stateOk, 16);
        const uint uid = fields.at(7).toUInt(&uidOk, 10);
        if (!portOk || !stateOk || !uidOk || localPort != port || state != kListenState) {
            continue;
        }
        if (isLoopbackOrAny(local.left(colon))) {
            uids << uid;
        }
    }
    return uids;
}

QList<uint> LoopbackOwner::hostListenerUids(quint16 port) {
    QList<uint> uids;
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        QFile file(QString::fromLatin1(table));
        if (file.open(QIODevice::ReadOnly)) {
            // These files report a size of 0: readAll reads until the end.
            uids += listenerUids(file.readAll(), port);
        }
    }
    return uids;
}

std::optional<uint> LoopbackOwner::currentUid() {
#ifdef Q_OS_UNIX
    return uint(::geteuid());
#else
    return std::nullopt;
#endif
}

}  // namespace zeus
