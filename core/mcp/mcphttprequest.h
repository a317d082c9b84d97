#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace zeus {

// One HTTP/1.1 request as the MCP Streamable HTTP transport takes it (docs/mcp.md "Limits of the HTTP
// transport"): method, target, headers with lowercased names in arrival order, and the whole body.
struct McpHttpRequest {
    QByteArray method;
    QByteArray target;  // origin-form: starts with '/'
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    // The value of the header `lowerName` (the first, if several), trimmed; empty when absent.
    QByteArray header(const QByteArray& lowerName) const;
    bool hasHeader(const QByteArray& lowerName) const;
    int headerCount(const QByteArray& lowerName) const;
    // The target without its query.
    QByteArray path() const;
};

// Reads requests off one connection's bytes, one at a time, as a pure state machine: bytes in, a request or the
// HTTP status to refuse with out. It owns the limits of a request: the head (request line and headers) at most
// kMaxHeadBytes and kMaxHeaders lines, a body only with Content-Length (no chunked encoding: 501) of at most
// kMaxBodyBytes, CRLF line ends, no obsolete line folding, one Content-Length and one Host. It must never buffer
// more than one head and one body, never trust its input, and never do I/O: any byte string ends as NeedMore,
// a request, or an error; after an error the connection's framing is lost and the caller closes it.
class McpHttpRequestParser {
public:
    static constexpr qsizetype kMaxHeadBytes = 16 * 1024;
    static constexpr int kMaxHeaders = 64;
    static constexpr qsizetype kMaxBodyBytes = 4 * 1024 * 1024;  // McpCodec::kMaxMessageBytes: one message

    enum class Status {
        NeedMore,  // no whole request yet
        Complete,  // takeRequest() has it; the bytes after it stay for the next
        Error,     // answer with httpStatus and message, then close the connection
    };
    struct Result {
        Status status = Status::NeedMore;
        int httpStatus = 0;  // Error only
        QString message;     // Error only: short, never echoes the input
    };

    // Appends `data` and parses as far as one request. Once Complete, call takeRequest() before feeding on; once
    // Error, every later call returns the same error.
    Result feed(const QByteArray& data);
    // Parses what is already buffered (the next request of a kept-alive connection).
    Result next() { return feed(QByteArray()); }
    McpHttpRequest takeRequest();
    qsizetype buffered() const { return m_buffer.size(); }

    // The head alone (request line and header lines, without the blank line): the request, and the body length
    // it announces. Pure; the table tests drive it directly.
    static Result parseHead(const QByteArray& head, McpHttpRequest& request, qsizetype& contentLength);

private:
    Result fail(int httpStatus, const QString& message);

    QByteArray m_buffer;
    McpHttpRequest m_request;
    qsizetype m_contentLength = -1;  // -1: the head is not read yet
    bool m_complete = false;
    Result m_error;
};

}  // namespace zeus
