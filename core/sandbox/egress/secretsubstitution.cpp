#include "sandbox/egress/secretsubstitution.h"

#include "sandbox/egress/egresspolicy.h"
#include "sandbox/egress/proxyrequest.h"

#include <QList>

#include <algorithm>
#include <cctype>
#include <utility>

namespace zeus {

namespace {

constexpr QByteArrayView kCrlf = "\r\n";
constexpr QByteArrayView kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

bool isTchar(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        return true;
    }
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text) {
    if (text.isEmpty()) {
        return false;
    }
    for (char c : text) {
        if (!isTchar(c)) {
            return false;
        }
    }
    return true;
}

// A field value (and a chunk extension): visible ASCII, obs-text, space and tab; no other control character.
bool isFieldText(QByteArrayView text) {
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7f) {
            return false;
        }
    }
    return true;
}

QByteArrayView trimmed(QByteArrayView text) {
    while (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t')) {
        text = text.sliced(1);
    }
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t')) {
        text.chop(1);
    }
    return text;
}

bool equalsNoCase(QByteArrayView a, QByteArrayView b) {
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

// host[:port] or [v6][:port]; false when it is not one (userinfo, an empty host, a bad port).
bool splitAuthority(QByteArrayView authority, int defaultPort, QString* host, int* port) {
    if (authority.isEmpty() || authority.contains('@')) {
        return false;
    }
    *port = defaultPort;
    QByteArrayView hostPart = authority;
    QByteArrayView portPart;
    if (authority.front() == '[') {
        const qsizetype close = authority.indexOf(']');
        if (close < 0) {
            return false;
        }
        hostPart = authority.first(close + 1);
        const QByteArrayView rest = authority.sliced(close + 1);
        if (!rest.isEmpty()) {
            if (rest.front() != ':') {
                return false;
            }
            portPart = rest.sliced(1);
        }
    } else if (const qsizetype colon = authority.lastIndexOf(':'); colon >= 0) {
        hostPart = authority.first(colon);
        portPart = authority.sliced(colon + 1);
    }
    if (!portPart.isEmpty()) {
        bool ok = false;
        *port = portPart.toInt(&ok);
        if (!ok || portPart.size() > 5 || portPart.front() == '+' || *port <= 0 || *port > 65535) {
            return false;
        }
    }
    *host = EgressPolicy::normalizeHost(QString::fromLatin1(hostPart));
    return !host->isEmpty();
}

QByteArrayView reasonFor(int code) {
    switch (code) {
        case 403:
            return "Forbidden";
        case 413:
            return "Content Too Large";
        case 417:
            return "Expectation Failed";
        case 431:
            return "Request Header Fields Too Large";
        case 501:
            return "Not Implemented";
        case 502:
            return "Bad Gateway";
        default:
            return "Bad Request";
    }
}

}  // namespace

// One request's head, split but not yet judged.
struct SecretSubstitution::Head {
    QByteArrayView method;
    QByteArrayView target;
    QByteArrayView version;
    QList<std::pair<QByteArrayView, QByteArrayView>> fields;  // name, value without OWS
};

SecretSubstitution::SecretSubstitution(const SecretPlaceholders* placeholders, QString host, int port, bool tls,
                                       Limits limits)
    : m_placeholders(placeholders), m_host(std::move(host)), m_port(port), m_tls(tls), m_limits(limits) {}

SecretSubstitution::SecretSubstitution(const SecretPlaceholders* placeholders, QString host, int port, bool tls)
    : SecretSubstitution(placeholders, std::move(host), port, tls, Limits()) {}

SecretSubstitution::~SecretSubstitution() {
    wipeHeld();
}

QByteArray SecretSubstitution::feed(QByteArrayView bytes) {
    if (m_phase == Phase::Stopped) {
        return {};
    }
    m_in.append(bytes);
    QByteArray out;
    while (step(&out)) {
    }
    m_in.remove(0, m_pos);
    m_pos = 0;
    if (m_phase == Phase::Stopped) {
        m_in.clear();
    }
    return out;
}

QByteArray SecretSubstitution::takeClientReply() {
    return std::exchange(m_clientReply, QByteArray());
}

bool SecretSubstitution::idle() const {
    return m_phase == Phase::Head && m_in.size() == m_pos;
}

bool SecretSubstitution::step(QByteArray* out) {
    switch (m_phase) {
        case Phase::Head:
            if (m_pos >= m_in.size() || takeHead() != Step::Done) {
                return false;
            }
            m_phase = Phase::Window;
            return true;
        case Phase::Window: {
            const Step body = consumeBody(&m_held, &m_scan);  // judges the scanned part as it grows
            if (body == Step::Failed) {
                return false;
            }
            const bool full = m_scan.size() >= m_limits.scanBodyBytes + SecretPlaceholders::kMaxLength - 1;
            if (body == Step::NeedMore && !full) {
                return false;
            }
            if (!release(out)) {
                return false;
            }
            m_phase = body == Step::Done ? Phase::Head : Phase::Body;
            return true;
        }
        case Phase::Body: {
            const Step body = consumeBody(out, nullptr);
            if (body != Step::Done) {
                return false;
            }
            m_phase = Phase::Head;
            return true;
        }
        case Phase::Stopped:
            break;
    }
    return false;
}

SecretSubstitution::Step SecretSubstitution::takeHead() {
    const QByteArrayView avail(m_in.constData() + m_pos, m_in.size() - m_pos);
    for (qsizetype i = m_headScanned; i < avail.size(); ++i) {
        const char c = avail[i];
        if (c == '\r') {
            if (i + 1 < avail.size() && avail[i + 1] != '\n') {
                fail(Status::Refused, 400, QStringLiteral("a bare CR in the request head"));
                return Step::Failed;
            }
            continue;
        }
        if (c != '\n') {
            continue;
        }
        if (i == 0 || avail[i - 1] != '\r') {
            fail(Status::Refused, 400, QStringLiteral("a line of the request head ends in a bare LF"));
            return Step::Failed;
        }
        const qsizetype length = i - 1 - m_lineStart;
        if (length > m_limits.maxLineBytes) {
            fail(Status::Refused, 431, QStringLiteral("a line of the request head is too long"));
            return Step::Failed;
        }
        if (length == 0) {
            if (m_headLines == 0) {
                fail(Status::Refused, 400, QStringLiteral("an empty line where a request should start"));
                return Step::Failed;
            }
            if (i + 1 > m_limits.maxHeadBytes) {
                fail(Status::Refused, 431, QStringLiteral("the request head is too large"));
                return Step::Failed;
            }
            const QByteArrayView text = avail.first(i - 1);  // without the last line's CRLF
            m_pos += i + 1;
            m_headScanned = 0;
            m_lineStart = 0;
            m_headLines = 0;
            Head head;
            if (!splitHead(text, &head)) {
                return Step::Failed;
            }
            return rewriteHead(head) ? Step::Done : Step::Failed;
        }
        if (++m_headLines > m_limits.maxHeaders + 1) {
            fail(Status::Refused, 431, QStringLiteral("more than %1 header lines").arg(m_limits.maxHeaders));
            return Step::Failed;
        }
        m_lineStart = i + 1;
    }
    // A CR at the very end is looked at again once the next byte is in.
    m_headScanned = avail.size() - (avail.endsWith('\r') ? 1 : 0);
    if (avail.size() - m_lineStart > m_limits.maxLineBytes + 1) {
        fail(Status::Refused, 431, QStringLiteral("a line of the request head is too long"));
        return Step::Failed;
    }
    if (avail.size() > m_limits.maxHeadBytes) {
        fail(Status::Refused, 431, QStringLiteral("the request head is too large"));
        return Step::Failed;
    }
    return Step::NeedMore;
}

bool SecretSubstitution::splitHead(QByteArrayView text, Head* head) {
    const qsizetype firstEnd = text.indexOf(kCrlf);
    const QByteArrayView requestLine = firstEnd < 0 ? text : text.first(firstEnd);
    const qsizetype space1 = requestLine.indexOf(' ');
    const qsizetype space2 = space1 < 0 ? -1 : requestLine.indexOf(' ', space1 + 1);
    if (space2 < 0 || requestLine.indexOf(' ', space2 + 1) >= 0) {
        return fail(Status::Refused, 400, QStringLiteral("the request line is not METHOD TARGET VERSION"));
    }
    head->method = requestLine.first(space1);
    head->target = requestLine.sliced(space1 + 1, space2 - space1 - 1);
    head->version = requestLine.sliced(space2 + 1);
    for (qsizetype from = firstEnd < 0 ? text.size() : firstEnd + 2; from < text.size();) {
        qsizetype end = text.indexOf(kCrlf, from);
        if (end < 0) {
            end = text.size();
        }
        const QByteArrayView line = text.sliced(from, end - from);
        from = end + 2;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(line.first(colon))) {
            return fail(Status::Refused, 400,
                        line.startsWith(' ') || line.startsWith('\t')
                            ? QStringLiteral("a folded header line (obs-fold)")
                            : QStringLiteral("a header line that is not NAME: VALUE"));
        }
        head->fields.append({line.first(colon), trimmed(line.sliced(colon + 1))});
    }
    return true;
}

bool SecretSubstitution::checkRequestLine(const Head& head) {
    if (!isToken(head.method) || head.method.size() > 32) {
        return fail(Status::Refused, 400, QStringLiteral("the request's method is not a token"));
    }
    const bool http11 = head.version == "HTTP/1.1";
    if (!http11 && head.version != "HTTP/1.0") {
        return fail(Status::Refused, head.version.startsWith("HTTP/") ? 501 : 400,
                    QStringLiteral("only HTTP/1.1 and HTTP/1.0 are spoken on this connection"));
    }
    if (head.method == "CONNECT") {
        return fail(Status::Refused, 501, QStringLiteral("CONNECT inside an intercepted connection"));
    }
    for (char c : head.target) {
        if (c <= 0x20 || c >= 0x7f) {
            return fail(Status::Refused, 400, QStringLiteral("the request target holds a byte a URL cannot"));
        }
    }
    m_hostMatches = true;
    if (head.target.startsWith('/')) {
        // origin form
    } else if (head.target == "*") {
        if (head.method != "OPTIONS") {
            return fail(Status::Refused, 400, QStringLiteral("'*' is a target for OPTIONS only"));
        }
    } else {
        const qsizetype scheme = head.target.indexOf("://");
        const QByteArrayView name = scheme > 0 ? head.target.first(scheme) : QByteArrayView();
        if (!equalsNoCase(name, "http") && !equalsNoCase(name, "https")) {
            return fail(Status::Refused, 400, QStringLiteral("the request target is not a path or an http(s) URL"));
        }
        QString host;
        int port = 0;
        QByteArrayView authority = head.target.sliced(scheme + 3);
        const qsizetype end = authority.indexOf('/');
        const qsizetype query = authority.indexOf('?');
        const qsizetype cut = end < 0 ? query : (query < 0 ? end : qMin(end, query));
        authority = cut < 0 ? authority : authority.first(cut);
        if (!splitAuthority(authority, equalsNoCase(name, "https") ? 443 : 80, &host, &port)) {
            return fail(Status::Refused, 400, QStringLiteral("the request target's host is not a host"));
        }
        m_hostMatches = host == m_host && port == m_port;
    }
    return true;
}

bool SecretSubstitution::checkFields(const Head& head, bool* expectContinue) {
    const bool http11 = head.version == "HTTP/1.1";
    const int defaultPort = m_tls ? 443 : 80;
    QString host;
    int port = 0;
    int hosts = 0;
    int lengths = 0;
    int encodings = 0;
    for (const auto& [name, value] : head.fields) {
        if (!isFieldText(value)) {
            return fail(Status::Refused, 400, QStringLiteral("a header value holds a control character"));
        }
        if (equalsNoCase(name, "host")) {
            ++hosts;
            if (!splitAuthority(value, defaultPort, &host, &port)) {
                return fail(Status::Refused, 400, QStringLiteral("the Host header is not a host"));
            }
            m_hostMatches = m_hostMatches && host == m_host && port == m_port;
        } else if (equalsNoCase(name, "content-length")) {
            ++lengths;
            bool ok = false;
            m_remaining = value.toLongLong(&ok);
            const bool digits = !value.isEmpty() && value.size() <= 15
                                && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
            if (!ok || !digits) {
                return fail(Status::Refused, 400, QStringLiteral("Content-Length is not a number"));
            }
        } else if (equalsNoCase(name, "transfer-encoding")) {
            ++encodings;
            if (!equalsNoCase(value, "chunked")) {
                return fail(Status::Refused, 501, QStringLiteral("a Transfer-Encoding other than chunked"));
            }
        } else if (equalsNoCase(name, "expect")) {
            if (!equalsNoCase(value, "100-continue")) {
                return fail(Status::Refused, 417, QStringLiteral("an Expect other than 100-continue"));
            }
            *expectContinue = true;
        }
    }
    if (hosts > 1 || (http11 && hosts == 0)) {
        return fail(Status::Refused, 400, QStringLiteral("a request needs exactly one Host header"));
    }
    if (lengths > 1 || encodings > 1 || (lengths > 0 && encodings > 0) || (encodings > 0 && !http11)) {
        return fail(Status::Refused, 400, QStringLiteral("the body's length is ambiguous"));
    }
    m_framing = encodings > 0 ? Framing::Chunked : (lengths > 0 && m_remaining > 0 ? Framing::Length : Framing::None);
    m_chunkState = ChunkState::SizeLine;
    m_trailerLines = 0;
    return true;
}

bool SecretSubstitution::rewriteHead(const Head& head) {
    bool expectContinue = false;
    if (!checkRequestLine(head) || !checkFields(head, &expectContinue)) {
        return false;
    }
    // The head again with the values in place; Expect (answered here) and Upgrade (the stream stays HTTP/1.1)
    // are taken off. On TLS to a bound host the answer is asked for uncompressed (Accept-Encoding and TE replaced):
    // the reflection of a value is masked on its way back (InterceptedConnection), which a compressed one escapes.
    QByteArray rewritten;
    rewritten.reserve(qsizetype(head.target.size()) + 256);
    if (!m_placeholders->find(head.method).isEmpty()) {
        return fail(Status::Refused, 400, QStringLiteral("a placeholder where no value can go"));
    }
    rewritten.append(head.method).append(' ');
    if (!substitute(head.target, Where::Target, m_hostMatches, &rewritten)) {
        return false;
    }
    rewritten.append(' ').append(head.version).append(kCrlf);
    for (const auto& [name, value] : head.fields) {
        if (equalsNoCase(name, "expect") || equalsNoCase(name, "upgrade")
            || (m_tls && (equalsNoCase(name, "accept-encoding") || equalsNoCase(name, "te")))) {
            continue;
        }
        if (!m_placeholders->find(name).isEmpty()) {
            return fail(Status::Refused, 400, QStringLiteral("a placeholder where no value can go"));
        }
        rewritten.append(name).append(": ");
        if (!substituteHeaderValue(value, m_hostMatches, &rewritten)) {
            return false;
        }
        rewritten.append(kCrlf);
    }
    if (m_tls) {
        rewritten.append("Accept-Encoding: identity").append(kCrlf);
    }
    rewritten.append(kCrlf);
    wipeHeld();
    m_held = std::move(rewritten);
    if (expectContinue && m_framing != Framing::None) {
        m_clientReply.append(kContinue);
    }
    return true;
}

bool SecretSubstitution::judge(const SecretPlaceholders::Match& match, bool hostMatches) {
    const SecretBinding& binding = match.entry->binding;
    if (hostMatches && binding.allows(m_host, m_port, m_tls)) {
        return true;
    }
    m_refusedName = binding.name;
    const QString where = QStringLiteral("%1:%2").arg(m_host).arg(m_port);
    QString why;
    if (!hostMatches) {
        why = QStringLiteral("the secret %1 was sent to %2 in a request whose Host names another host")
                  .arg(binding.name, where);
    } else if (!m_tls && binding.allows(m_host, m_port, true)) {
        why = QStringLiteral("the secret %1 is bound to %2 over TLS only, and this request is clear text")
                  .arg(binding.name, m_host);
    } else {
        why = QStringLiteral("the secret %1 is not bound to %2 (it is bound to %3)")
                  .arg(binding.name, where, binding.ruleTexts().join(QStringLiteral(", ")));
    }
    return fail(Status::NotBound, 403, why);
}

bool SecretSubstitution::substitute(QByteArrayView text, Where where, bool hostMatches, QByteArray* into) {
    const QList<SecretPlaceholders::Match> matches = m_placeholders->find(text);
    qsizetype from = 0;
    for (const SecretPlaceholders::Match& match : matches) {
        if (!judge(match, hostMatches)) {
            return false;
        }
        const QByteArray& value = match.entry->value;
        if (where == Where::Header && !isFieldText(value)) {
            return fail(Status::Refused, 502,
                        QStringLiteral("the value of the secret %1 holds a control character and cannot go into a "
                                       "header")
                            .arg(match.entry->binding.name));
        }
        into->append(text.sliced(from, match.offset - from));
        into->append(where == Where::Target ? value.toPercentEncoding() : value);
        from = match.offset + match.length;
        ++m_pendingCounts[match.entry->binding.name];
    }
    into->append(text.sliced(from));
    return true;
}

bool SecretSubstitution::substituteHeaderValue(QByteArrayView value, bool hostMatches, QByteArray* into) {
    // `Basic <base64 of user:password>`: the placeholder is inside the base64 (git and pip send a URL's password
    // this way). A placeholder holds '-', which base64 does not, so it is never also in the text as it is.
    const qsizetype space = value.indexOf(' ');
    if (space > 0 && equalsNoCase(value.first(space), "basic")) {
        const QByteArrayView encoded = trimmed(value.sliced(space + 1));
        auto decoded = QByteArray::fromBase64Encoding(encoded.toByteArray(), QByteArray::AbortOnBase64DecodingErrors);
        if (decoded && !encoded.isEmpty() && !m_placeholders->find(*decoded).isEmpty()) {
            QByteArray plain;
            if (!substitute(*decoded, Where::Credential, hostMatches, &plain)) {
                return false;
            }
            into->append(value.first(space)).append(' ').append(plain.toBase64());
            return true;
        }
    }
    return substitute(value, Where::Header, hostMatches, into);
}

SecretSubstitution::Step SecretSubstitution::consumeBody(QByteArray* raw, QByteArray* decoded) {
    switch (m_framing) {
        case Framing::None:
            return Step::Done;
        case Framing::Chunked:
            return consumeChunked(raw, decoded);
        case Framing::Length:
            break;
    }
    const qsizetype n = qMin<qint64>(m_remaining, m_in.size() - m_pos);
    const QByteArrayView data(m_in.constData() + m_pos, n);
    raw->append(data);
    m_pos += n;
    m_remaining -= n;
    if (decoded != nullptr) {
        const qsizetype room = m_limits.scanBodyBytes + SecretPlaceholders::kMaxLength - 1 - decoded->size();
        decoded->append(data.first(qBound<qsizetype>(0, room, n)));
        if (!checkScan()) {
            return Step::Failed;
        }
    }
    if (m_remaining > 0) {
        return Step::NeedMore;
    }
    m_framing = Framing::None;
    return Step::Done;
}

SecretSubstitution::Step SecretSubstitution::takeLine(QByteArrayView* line) {
    const QByteArrayView avail(m_in.constData() + m_pos, m_in.size() - m_pos);
    const QByteArrayView window = avail.first(qMin<qsizetype>(avail.size(), qsizetype(m_limits.maxLineBytes) + 2));
    const qsizetype lf = window.indexOf('\n');
    if (lf < 0) {
        if (avail.size() > qsizetype(m_limits.maxLineBytes) + 1) {
            fail(Status::Refused, 431, QStringLiteral("a chunk or trailer line is too long"));
            return Step::Failed;
        }
        return Step::NeedMore;
    }
    if (lf == 0 || avail[lf - 1] != '\r' || avail.first(lf - 1).contains('\r')) {
        fail(Status::Refused, 400, QStringLiteral("a chunk or trailer line does not end in CRLF"));
        return Step::Failed;
    }
    *line = avail.first(lf - 1);
    m_pos += lf + 1;
    return Step::Done;
}

SecretSubstitution::Step SecretSubstitution::consumeChunked(QByteArray* raw, QByteArray* decoded) {
    const qsizetype scanCap = m_limits.scanBodyBytes + SecretPlaceholders::kMaxLength - 1;
    const qsizetype heldCap = qsizetype(m_limits.maxHeadBytes) + 4 * qsizetype(m_limits.scanBodyBytes);
    // Judged as each piece comes, so a refusal never depends on how the bytes were split (a framing error later
    // in the same read does not hide a placeholder before it).
    const auto scan = [this, decoded, scanCap](QByteArrayView data) {
        if (decoded != nullptr && decoded->size() < scanCap) {
            decoded->append(data.first(qMin(data.size(), scanCap - decoded->size())));
            return checkScan();
        }
        return true;
    };
    for (;;) {
        QByteArrayView line;
        switch (m_chunkState) {
            case ChunkState::SizeLine: {
                const Step got = takeLine(&line);
                if (got != Step::Done) {
                    return got;
                }
                raw->append(line).append(kCrlf);
                // Held back, framing that costs far more than the data it frames (tiny chunks, long extensions).
                if (decoded != nullptr && raw->size() > heldCap) {
                    fail(Status::Refused, 413, QStringLiteral("the body's framing is too large"));
                    return Step::Failed;
                }
                const qsizetype semicolon = line.indexOf(';');
                const QByteArrayView digits = semicolon < 0 ? line : line.first(semicolon);
                bool ok = false;
                m_remaining = digits.toLongLong(&ok, 16);
                const bool hex = !digits.isEmpty() && digits.size() <= 15
                                 && std::all_of(digits.begin(), digits.end(), [](char c) { return isxdigit(c) != 0; });
                if (!ok || !hex || !isFieldText(line)) {
                    fail(Status::Refused, 400, QStringLiteral("a chunk size is not a hexadecimal number"));
                    return Step::Failed;
                }
                m_chunkState = m_remaining == 0 ? ChunkState::Trailer : ChunkState::Data;
                break;
            }
            case ChunkState::Data: {
                const qsizetype n = qMin<qint64>(m_remaining, m_in.size() - m_pos);
                if (n == 0) {
                    return Step::NeedMore;
                }
                const QByteArrayView data(m_in.constData() + m_pos, n);
                raw->append(data);
                m_pos += n;
                m_remaining -= n;
                if (m_remaining == 0) {
                    m_chunkState = ChunkState::DataEnd;
                }
                if (!scan(data)) {
                    return Step::Failed;
                }
                break;
            }
            case ChunkState::DataEnd:
                if (m_in.size() - m_pos < 2) {
                    return Step::NeedMore;
                }
                if (QByteArrayView(m_in.constData() + m_pos, 2) != kCrlf) {
                    fail(Status::Refused, 400, QStringLiteral("a chunk does not end in CRLF"));
                    return Step::Failed;
                }
                raw->append(kCrlf);
                m_pos += 2;
                m_chunkState = ChunkState::SizeLine;
                break;
            case ChunkState::Trailer: {
                const Step got = takeLine(&line);
                if (got != Step::Done) {
                    return got;
                }
                raw->append(line).append(kCrlf);
                if (line.isEmpty()) {
                    m_framing = Framing::None;
                    m_chunkState = ChunkState::SizeLine;
                    return Step::Done;
                }
                const qsizetype colon = line.indexOf(':');
                if (colon <= 0 || !isToken(line.first(colon)) || !isFieldText(line)) {
                    fail(Status::Refused, 400, QStringLiteral("a trailer line that is not NAME: VALUE"));
                    return Step::Failed;
                }
                if (++m_trailerLines > m_limits.maxHeaders) {
                    fail(Status::Refused, 431, QStringLiteral("too many trailer lines"));
                    return Step::Failed;
                }
                if (!scan(line) || !scan(kCrlf)) {
                    return Step::Failed;
                }
                break;
            }
        }
    }
}

bool SecretSubstitution::checkScan() {
    // Only what came since the last look, plus the longest placeholder's worth before it: a refusal comes as soon
    // as its placeholder is in, and scanning stays linear however the bytes were split.
    const qsizetype from = qMax<qsizetype>(0, m_scanChecked - (SecretPlaceholders::kMaxLength - 1));
    for (const SecretPlaceholders::Match& match : m_placeholders->find(QByteArrayView(m_scan).sliced(from))) {
        // A bound placeholder in the body goes as it is: bodies are never rewritten (their length would change).
        if (!judge(match, m_hostMatches)) {
            return false;
        }
    }
    m_scanChecked = m_scan.size();
    return true;
}

bool SecretSubstitution::release(QByteArray* out) {
    out->append(m_held);
    wipeHeld();
    m_scan.clear();
    m_scanChecked = 0;
    for (auto it = m_pendingCounts.cbegin(); it != m_pendingCounts.cend(); ++it) {
        m_counts[it.key()] += it.value();
    }
    m_pendingCounts.clear();
    ++m_forwarded;
    return true;
}

bool SecretSubstitution::fail(Status status, int code, const QString& error) {
    m_status = status;
    m_replyCode = code;
    m_error = error;
    m_phase = Phase::Stopped;
    m_pendingCounts.clear();
    m_clientReply.clear();
    m_scan.clear();
    m_scanChecked = 0;
    wipeHeld();
    return false;
}

void SecretSubstitution::wipeHeld() {
    // The held head may carry a value: overwrite it in place before it goes (best effort, this copy only).
    if (m_held.isDetached()) {
        m_held.fill('\0');
    }
    m_held.clear();
}

QByteArray SecretSubstitution::reply() const {
    if (m_status == Status::Ok) {
        return {};
    }
    if (m_status == Status::NotBound) {
        const QByteArray body = QStringLiteral(
                                    "Zeus Desktop: %1. The request was not sent. Bind the secret to this host in "
                                    "Settings > Secrets or with --bind-secret %2=HOST.\n")
                                    .arg(m_error, m_refusedName)
                                    .toUtf8();
        return "HTTP/1.1 403 Forbidden\r\nX-Proxy-Error: secret-not-bound\r\nContent-Type: text/plain; "
               "charset=utf-8\r\nContent-Length: "
               + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    }
    return proxyrequest::httpError(m_replyCode, QString::fromLatin1(reasonFor(m_replyCode)),
                                   QStringLiteral("Zeus Desktop: %1; the request was not sent.").arg(m_error));
}

}  // namespace zeus
