#pragma once

#include "sandbox/egress/secretplaceholders.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QString>

namespace zeus {

// Puts host-bound secrets into the requests of one intercepted connection (SPEC §9 "Host-bound secrets"): the
// client's HTTP/1.1 byte stream (after the proxy terminated its TLS, or an absolute-URI request's head on the
// plain-HTTP path) goes in, the bytes for the server come out, request by request on a keep-alive connection.
//
// In each request the placeholders of the session's bound secrets are replaced by their values in the request
// target (percent-encoded) and in every header value, also inside an `Authorization: Basic` credential's base64
// (as git and pip send a password from a URL). A placeholder goes only where its binding allows (the connection's
// host and port, TLS or clear text: SecretBinding::allows) and only in a request whose Host (and absolute target)
// names that host. Any other placeholder in the request line, a header, or the first 64 KiB of the body (chunked
// bodies are read decoded) stops the stream with NotBound; nothing of that request has been sent by then, because
// a request is held back until its head and the first 64 KiB (plus the longest placeholder) of its body are in.
// Bodies themselves are never changed; past the scanned part they pass as they come.
//
// Everything is untrusted input from a command in the sandbox: lines, the head, the header count, chunk lines and
// trailers are bounded, anything ambiguous (a bare LF or CR, obs-fold, Content-Length with Transfer-Encoding,
// two lengths, a Transfer-Encoding other than chunked, CONNECT, HTTP/2) is refused, never guessed. A refusal is
// final: feed() returns nothing more. `Expect: 100-continue` is taken off the request and the continue answered
// by the proxy (clientReply()), since the head is held until the body's start is in.
//
// It never logs, and its error texts never carry a value: only names, hosts and what was wrong.
class SecretSubstitution {
public:
    enum class Status {
        Ok,        // keep feeding
        NotBound,  // a placeholder for a secret not bound to this request's host: reply(), a network_event
                   // secret_not_bound, close; nothing of the request was forwarded
        Refused,   // malformed, oversized or unsupported: reply() (400, 431, 501, 502), close
    };

    struct Limits {
        int maxLineBytes = 8 * 1024;    // the request line, a header line, a chunk-size line, a trailer line
        int maxHeadBytes = 64 * 1024;   // the whole head
        int maxHeaders = 100;           // header lines (and trailer lines)
        int scanBodyBytes = 64 * 1024;  // the decoded body scanned for placeholders before the request goes
    };

    // `placeholders` outlives this object; `host` is the connection's host (normalised, as the policy checked it),
    // `port` its port, `tls` whether the leg to the server is the proxy's own verified TLS.
    SecretSubstitution(const SecretPlaceholders* placeholders, QString host, int port, bool tls, Limits limits);
    SecretSubstitution(const SecretPlaceholders* placeholders, QString host, int port, bool tls);
    ~SecretSubstitution();
    SecretSubstitution(const SecretSubstitution&) = delete;
    SecretSubstitution& operator=(const SecretSubstitution&) = delete;

    // Client bytes in, server bytes out. What it returns goes to the server even when the call ends the stream
    // (earlier requests of the same chunk): send it, then look at status().
    QByteArray feed(QByteArrayView bytes);
    // What the proxy answers the client itself before the server does (`HTTP/1.1 100 Continue`), taken once.
    QByteArray takeClientReply();

    Status status() const { return m_status; }
    // Why the stream stopped, for the log and the reply body (names and hosts, never a value).
    QString error() const { return m_error; }
    // NotBound: the secret whose placeholder was refused.
    QString refusedName() const { return m_refusedName; }
    // The whole reply for the client when status() is not Ok (403 with X-Proxy-Error: secret-not-bound, or the
    // error's code), Connection: close.
    QByteArray reply() const;
    int replyCode() const { return m_replyCode; }

    // Substitutions made in requests that went to the server, per secret name (for the policy log: name, this
    // connection's host, count).
    const QHash<QString, qint64>& counts() const { return m_counts; }
    // Requests whose head went to the server.
    int requestsForwarded() const { return m_forwarded; }
    // Between two requests with nothing buffered.
    bool idle() const;
    QString host() const { return m_host; }

private:
    enum class Phase { Head, Window, Body, Stopped };
    enum class Framing { None, Length, Chunked };
    enum class ChunkState { SizeLine, Data, DataEnd, Trailer };
    enum class Step { NeedMore, Done, Failed };
    enum class Where { Target, Header, Credential };  // percent-encoded; as it is, no control characters; as it is
    struct Head;

    bool step(QByteArray* out);
    Step takeHead();
    bool splitHead(QByteArrayView text, Head* head);
    bool checkRequestLine(const Head& head);
    bool checkFields(const Head& head, bool* expectContinue);
    bool rewriteHead(const Head& head);
    bool substitute(QByteArrayView text, Where where, bool hostMatches, QByteArray* into);
    bool substituteHeaderValue(QByteArrayView value, bool hostMatches, QByteArray* into);
    Step consumeBody(QByteArray* raw, QByteArray* decoded);
    Step consumeChunked(QByteArray* raw, QByteArray* decoded);
    Step takeLine(QByteArrayView* line);
    bool checkScan();
    bool release(QByteArray* out);
    bool judge(const SecretPlaceholders::Match& match, bool hostMatches);
    bool fail(Status status, int code, const QString& error);
    void wipeHeld();

    const SecretPlaceholders* m_placeholders;
    QString m_host;
    int m_port;
    bool m_tls;
    Limits m_limits;

    Status m_status = Status::Ok;
    Phase m_phase = Phase::Head;
    QString m_error;
    QString m_refusedName;
    int m_replyCode = 0;

    QByteArray m_in;  // client bytes not consumed yet, from m_pos on
    qsizetype m_pos = 0;
    qsizetype m_headScanned = 0;  // head bytes already checked for line ends (relative to m_pos)
    qsizetype m_lineStart = 0;    // start of the head line being read (relative to m_pos)
    int m_headLines = 0;

    QByteArray m_held;            // this request, rewritten, while its body's start is scanned
    QByteArray m_scan;            // its decoded body bytes within the scanned part
    qsizetype m_scanChecked = 0;  // how much of m_scan has been looked at
    QHash<QString, qint64> m_pendingCounts;
    QHash<QString, qint64> m_counts;
    Framing m_framing = Framing::None;
    ChunkState m_chunkState = ChunkState::SizeLine;
    qint64 m_remaining = 0;
    int m_trailerLines = 0;
    bool m_hostMatches = true;  // this request's Host and target name the connection's host
    QByteArray m_clientReply;
    int m_forwarded = 0;
};

}  // namespace zeus
