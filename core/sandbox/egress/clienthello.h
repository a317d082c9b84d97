#pragma once

#include <QByteArray>
#include <QString>

namespace zeus::clienthello {

// The first bytes a command sends through a tunnel to a name (SPEC §8, "the connection judged is the connection
// made"), read before the proxy connects anywhere: a TLS ClientHello must name, in its server_name extension,
// the very host the policy checked, or the tunnel ends. Pure functions over untrusted bytes: every length is
// checked against what is there, nothing is guessed, and a hello that could be read two ways is refused.
//
// What this does not see: the HTTP Host inside the encrypted stream (domain fronting with a matching SNI).

// A ClientHello, its records included, is at most this long; a longer one is refused rather than buffered.
inline constexpr int kMaxHelloBytes = 32 * 1024;
// An SSH identification line (RFC 4253 §4.2) is at most 255 bytes with its CR LF.
inline constexpr int kMaxSshLineBytes = 255;

// What the TLS records at the start of a stream say.
struct Hello {
    enum class State { NeedMore, Complete, NotTls, Malformed };
    State state = State::NeedMore;
    QString serverName;  // the one host_name of the server_name extension, lower case; empty when none
    bool hasServerName = false;
    bool encrypted = false;  // encrypted_client_hello (0xfe0d) or the older ESNI draft (0xffce)
    QString error;           // Malformed: why
};

// Reads a ClientHello that may span several TLS handshake records and several reads: record type 22, a
// handshake of type 1, and every length inside it consistent; extensions never repeated; at most one server
// name, a plain DNS name (no trailing dot, no IP literal, no NUL).
Hello parse(const QByteArray& bytes);

// The verdict on the first bytes of a tunnel to `host` (a name, lower case, no trailing dot, as the policy
// checked it).
struct Verdict {
    enum class Status { NeedMore, Pass, Refuse };
    Status status = Status::NeedMore;
    QString why;         // Refuse: the rule for the policy log and the network_event (names no host)
    QString serverName;  // the server name the hello carried, when there was one
    bool ssh = false;    // Pass: an SSH identification line, not TLS
};

// Pass when the hello's server name equals `host` (case aside), or when the stream starts with an SSH-2.0
// identification line (SSH has no virtual hosts; the line may not contain "HTTP", so an HTTP server cannot
// read it as a request line). Refuse: no server name, ECH, another name, a malformed hello, anything else
// (plain text, SSLv2), or more than the limits without a verdict.
Verdict judge(const QByteArray& bytes, const QString& host);

}  // namespace zeus::clienthello
