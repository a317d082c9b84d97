// libFuzzer target for the MCP HTTP transport's request parser: any byte string, fed whole and in pieces, must
// end as requests, NeedMore or an error with a 4xx/5xx status, never a crash, a sanitizer report or a hang; what
// it buffers stays within one head and one body, and the same bytes give the same requests however they are cut.
#include "mcp/mcphttprequest.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

using Status = McpHttpRequestParser::Status;

// Feeds `chunks` and collects the requests' bodies and methods, and how it ended.
QList<QByteArray> run(const QList<QByteArray>& chunks, Status& last) {
    McpHttpRequestParser parser;
    QList<QByteArray> seen;
    last = Status::NeedMore;
    for (const QByteArray& chunk : chunks) {
        McpHttpRequestParser::Result result = parser.feed(chunk);
        while (result.status == Status::Complete) {
            const McpHttpRequest request = parser.takeRequest();
            if (request.body.size() > McpHttpRequestParser::kMaxBodyBytes || !request.target.startsWith('/')) {
                std::abort();
            }
            seen << request.method + ' ' + request.target + ' ' + request.body;
            result = parser.next();
        }
        if (result.status == Status::Error && (result.httpStatus < 400 || result.httpStatus > 599)) {
            std::abort();
        }
        last = result.status;
        if (last == Status::Error) {
            break;
        }
        if (parser.buffered() > McpHttpRequestParser::kMaxHeadBytes + 4 + McpHttpRequestParser::kMaxBodyBytes) {
            std::abort();
        }
    }
    return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray input(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    Status whole = Status::NeedMore;
    const QList<QByteArray> once = run({input}, whole);

    // The same bytes cut in three: the same requests, the same end.
    const qsizetype a = input.isEmpty() ? 0 : static_cast<unsigned char>(input.at(0)) % (input.size() + 1);
    const qsizetype b = a + (input.size() - a) / 2;
    Status cut = Status::NeedMore;
    const QList<QByteArray> pieces = run({input.left(a), input.mid(a, b - a), input.mid(b)}, cut);
    if (pieces != once || cut != whole) {
        std::abort();
    }
    return 0;
}
