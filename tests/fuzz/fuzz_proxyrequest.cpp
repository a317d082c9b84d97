// libFuzzer target for what the egress proxy reads from a command's bytes (SPEC §8): the HTTP proxy head
// (CONNECT or an absolute-URI request), the SOCKS5 greeting and request, and the TLS ClientHello that must name
// the checked host. Any byte string must end as a verdict, never a crash, a sanitizer report or a hang. Beyond
// not crashing it checks the properties the proxy relies on: a verdict never uses more bytes than it was given,
// an accepted request names a host the policy would read the same way, a forwarded head is one request with
// `Connection: close`, and a hello is judged the same whether its bytes came at once or one more at a time.
#include "sandbox/egress/clienthello.h"
#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/proxyrequest.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

void check(bool ok) {
    if (!ok) {
        std::abort();
    }
}

void checkRequest(const proxyrequest::Request& r, const QByteArray& bytes) {
    using proxyrequest::Status;
    check(r.consumed >= 0 && r.consumed <= bytes.size());
    if (r.status == Status::Connect || r.status == Status::Forward) {
        check(!r.host.isEmpty() && EgressPolicy::normalizeHost(r.host) == r.host);
        check(r.port > 0 && r.port <= 65535);
    }
    if (r.status == Status::Forward) {
        check(r.forward.endsWith("Connection: close\r\n\r\n") && r.forward.count("\r\n\r\n") == 1);
        check(r.bodyBytes >= 0);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));

    checkRequest(proxyrequest::parseHttp(bytes), bytes);
    checkRequest(proxyrequest::parseSocks5(bytes, false), bytes);
    checkRequest(proxyrequest::parseSocks5(bytes, true), bytes);

    const clienthello::Hello hello = clienthello::parse(bytes);
    if (hello.state == clienthello::Hello::State::Complete && hello.hasServerName) {
        check(!hello.serverName.isEmpty() && hello.serverName == hello.serverName.toLower());
    }
    const QString host = QStringLiteral("allowed.test");
    const clienthello::Verdict whole = clienthello::judge(bytes, host);
    if (whole.status == clienthello::Verdict::Status::Pass && !whole.ssh) {
        check(whole.serverName == host);
    }
    // As the proxy sees it: a verdict on a prefix is final, and the whole never contradicts it.
    if (size <= 4096) {
        for (qsizetype cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 64) {
            const clienthello::Verdict part = clienthello::judge(bytes.left(cut), host);
            if (part.status != clienthello::Verdict::Status::NeedMore) {
                check(part.status == whole.status);
                break;
            }
        }
    }
    return 0;
}
