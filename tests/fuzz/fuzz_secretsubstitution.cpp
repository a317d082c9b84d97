// libFuzzer target for the rewriter of host-bound secrets (SPEC §9): any byte stream a command sends through an
// intercepted connection must end as bytes for the server or a refusal, never a crash, a sanitizer report or a
// hang. Beyond not crashing it checks what the proxy relies on: the result does not depend on how the bytes were
// split; a refusal is final; the value of a secret not bound to this host never comes out; a placeholder of a
// bound secret never comes out of a request's head; and a refusal's reply names no value.
#include "sandbox/egress/secretsubstitution.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

void check(bool ok) {
    if (!ok) {
        std::abort();
    }
}

struct Session {
    SecretPlaceholders placeholders;
    Session() {
        placeholders.bind(*SecretBinding::parse(QStringLiteral("BOUND=fixture.test")), "VALUE-OF-BOUND");
        placeholders.bind(*SecretBinding::parse(QStringLiteral("OTHER=other.test")), "VALUE-OF-OTHER");
    }
};

struct Run {
    QByteArray out;
    SecretSubstitution::Status status;
    QByteArray reply;
};

Run feed(const Session& session, QByteArrayView bytes, qsizetype piece) {
    SecretSubstitution s(&session.placeholders, QStringLiteral("fixture.test"), 443, true);
    Run run{};
    bool stopped = false;
    for (qsizetype at = 0; at < bytes.size(); at += piece) {
        const QByteArray out = s.feed(bytes.sliced(at, qMin(piece, bytes.size() - at)));
        check(!stopped || out.isEmpty());  // final
        stopped = s.status() != SecretSubstitution::Status::Ok;
        run.out += out;
    }
    run.status = s.status();
    run.reply = s.reply();
    check(run.status == SecretSubstitution::Status::Ok ? run.reply.isEmpty() : run.reply.startsWith("HTTP/1.1 "));
    return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const Session session;
    // The fuzzer finds the placeholders' shape from the seeds; '@' and '#' stand for the two placeholders, so short
    // inputs reach the matching paths too.
    QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    bytes.replace('@', session.placeholders.placeholderFor(QStringLiteral("BOUND")));
    bytes.replace('#', session.placeholders.placeholderFor(QStringLiteral("OTHER")));
    const bool valueInInput = bytes.contains("VALUE-OF-");

    const Run whole = feed(session, bytes, qMax<qsizetype>(1, bytes.size()));
    for (qsizetype piece : {qsizetype(1), qsizetype(7), qsizetype(4096)}) {
        if (bytes.size() > 20000 && piece == 1) {
            continue;
        }
        const Run split = feed(session, bytes, piece);
        check(split.status == whole.status);
        check(split.out == whole.out);
    }
    if (!valueInInput) {
        check(!whole.out.contains("VALUE-OF-OTHER"));
        check(!whole.reply.contains("VALUE-OF-"));
    }
    return 0;
}
