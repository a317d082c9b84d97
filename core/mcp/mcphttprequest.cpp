#include "mcp/mcphttprequest.h"

#include <utility>

namespace zeus {

namespace {

constexpr int kBadRequest = 400;
constexpr int kLengthRequired = 411;
constexpr int kPayloadTooLarge = 413;
constexpr int kHeadersTooLarge = 431;
constexpr int kNotImplemented = 501;
constexpr int kVersionNotSupported = 505;

// RFC 9110 tchar: what a method and a header name are made of.
bool isTokenChar(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        return true;
    }
    static const QByteArray kSpecials("!#$%&'*+-.^_`|~");
    return kSpecials.contains(c);
}

bool isToken(const QByteArray& text) {
    if (text.isEmpty()) {
        return false;
    }
    for (const char c : text) {
        if (!isTokenChar(c)) {
            return false;
        }
    }
    return true;
}

// A field value: visible ASCII, obs-text, space and tab; never a control character (CR, LF and NUL included).
bool isFieldValue(const QByteArray& value) {
    for (const char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f) {
            return false;
        }
    }
    return true;
}

// A request target in origin-form: '/' then visible ASCII.
bool isOriginForm(const QByteArray& target) {
    if (!target.startsWith('/')) {
        return false;
    }
    for (const char c : target) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u >= 0x7f) {
            return false;
        }
    }
    return true;
}

McpHttpRequestParser::Result error(int status, const QString& message) {
    return {McpHttpRequestParser::Status::Error, status, message};
}

}  // namespace

QByteArray McpHttpRequest::header(const QByteArray& lowerName) const {
    for (const auto& [name, value] : headers) {
        if (name == lowerName) {
            return value;
        }
    }
    return {};
}

bool McpHttpRequest::hasHeader(const QByteArray& lowerName) const {
    return headerCount(lowerName) > 0;
}

int McpHttpRequest::headerCount(const QByteArray& lowerName) const {
    int count = 0;
    for (const auto& header : headers) {
        count += header.first == lowerName ? 1 : 0;
    }
    return count;
}

QByteArray McpHttpRequest::path() const {
    const qsizetype query = target.indexOf('?');
    return query < 0 ? target : target.left(query);
}

McpHttpRequestParser::Result McpHttpRequestParser::parseHead(const QByteArray& head, McpHttpRequest& request,
                                                             qsizetype& contentLength) {
    request = McpHttpRequest();
    contentLength = 0;
    const QList<QByteArray> lines = head.split('\n');
    if (lines.size() - 1 > kMaxHeaders) {
        return error(kHeadersTooLarge, QStringLiteral("more than %1 header lines").arg(kMaxHeaders));
    }
    for (qsizetype i = 0; i < lines.size(); ++i) {
        // Every line but the last ends in CRLF (the caller cut the head's last CRLF): a bare LF or CR is refused.
        const QByteArray& line = lines.at(i);
        const bool last = i == lines.size() - 1;
        if ((!last && !line.endsWith('\r')) || line.chopped(last ? 0 : 1).contains('\r')) {
            return error(kBadRequest, QStringLiteral("lines must end in CRLF"));
        }
    }
    const QList<QByteArray> requestLine = lines.first().chopped(lines.size() > 1 ? 1 : 0).split(' ');
    if (requestLine.size() != 3 || !isToken(requestLine.at(0)) || !isOriginForm(requestLine.at(1))) {
        return error(kBadRequest, QStringLiteral("malformed request line"));
    }
    if (requestLine.at(2) != "HTTP/1.1" && requestLine.at(2) != "HTTP/1.0") {
        return error(requestLine.at(2).startsWith("HTTP/") ? kVersionNotSupported : kBadRequest,
                     QStringLiteral("only HTTP/1.1 is served"));
    }
    request.method = requestLine.at(0);
    request.target = requestLine.at(1);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = i == lines.size() - 1 ? lines.at(i) : lines.at(i).chopped(1);
        if (line.startsWith(' ') || line.startsWith('\t')) {
            return error(kBadRequest, QStringLiteral("folded header lines are not accepted"));
        }
        const qsizetype colon = line.indexOf(':');
        const QByteArray name = colon < 0 ? QByteArray() : line.left(colon).toLower();
        const QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1).trimmed();
        if (!isToken(name) || !isFieldValue(value)) {
            return error(kBadRequest, QStringLiteral("malformed header line"));
        }
        request.headers.append({name, value});
    }
    if (request.hasHeader("transfer-encoding")) {
        return error(kNotImplemented, QStringLiteral("Transfer-Encoding is not accepted: send Content-Length"));
    }
    if (request.headerCount("host") != 1) {
        return error(kBadRequest, QStringLiteral("exactly one Host header is required"));
    }
    const int lengths = request.headerCount("content-length");
    if (lengths > 1) {
        return error(kBadRequest, QStringLiteral("more than one Content-Length"));
    }
    if (lengths == 1) {
        const QByteArray text = request.header("content-length");
        bool digits = !text.isEmpty() && text.size() <= 10;
        for (const char c : text) {
            digits = digits && c >= '0' && c <= '9';
        }
        if (!digits) {
            return error(kBadRequest, QStringLiteral("malformed Content-Length"));
        }
        contentLength = text.toLongLong();
        if (contentLength > kMaxBodyBytes) {
            return error(kPayloadTooLarge, QStringLiteral("the body is larger than %1 bytes").arg(kMaxBodyBytes));
        }
    } else if (request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
        return error(kLengthRequired, QStringLiteral("Content-Length is required"));
    }
    return {Status::Complete, 0, {}};
}

McpHttpRequestParser::Result McpHttpRequestParser::fail(int httpStatus, const QString& message) {
    m_error = error(httpStatus, message);
    m_buffer.clear();
    return m_error;
}

McpHttpRequestParser::Result McpHttpRequestParser::feed(const QByteArray& data) {
    if (m_error.status == Status::Error) {
        return m_error;
    }
    if (m_complete) {
        m_buffer.append(data);  // the next request's bytes: bounded by the caller, which stops reading meanwhile
        return {Status::Complete, 0, {}};
    }
    m_buffer.append(data);
    if (m_contentLength < 0) {
        const qsizetype end = m_buffer.indexOf("\r\n\r\n");
        if (end < 0) {
            // The head may still be coming: allow for its blank line before refusing.
            if (m_buffer.size() > kMaxHeadBytes + 4) {
                return fail(kHeadersTooLarge,
                            QStringLiteral("the request head is larger than %1 bytes").arg(kMaxHeadBytes));
            }
            return {Status::NeedMore, 0, {}};
        }
        if (end > kMaxHeadBytes) {
            return fail(kHeadersTooLarge,
                        QStringLiteral("the request head is larger than %1 bytes").arg(kMaxHeadBytes));
        }
        qsizetype length = 0;
        const Result head = parseHead(m_buffer.left(end), m_request, length);
        if (head.status == Status::Error) {
            return fail(head.httpStatus, head.message);
        }
        m_buffer.remove(0, end + 4);
        m_contentLength = length;
    }
    if (m_buffer.size() < m_contentLength) {
        return {Status::NeedMore, 0, {}};
    }
    m_request.body = m_buffer.left(m_contentLength);
    m_buffer.remove(0, m_contentLength);
    m_complete = true;
    return {Status::Complete, 0, {}};
}

McpHttpRequest McpHttpRequestParser::takeRequest() {
    m_complete = false;
    m_contentLength = -1;
    return std::exchange(m_request, McpHttpRequest());
}

}  // namespace zeus
