// libFuzzer target for Redactor, the matcher between a command's output and everything that shows it. The input is
// a script: a byte below 0x20 inserts one of the known forms of a secret, any other byte is itself. The text is fed
// whole and in random splits. It checks what SPEC §9 promises: no known form of a secret ever comes out, however the
// output is split, the result does not depend on the split, and nothing is held back beyond the bound.
#include "secrets/redactor.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

const QList<SecretValue>& secrets() {
    static const QList<SecretValue> list = {
        SecretValue{QStringLiteral("FUZZ_ONE"), QByteArrayLiteral("Zeus-fuzz-secret/1!")},
        SecretValue{QStringLiteral("FUZZ_TWO"), QByteArrayLiteral("an0ther+TOKEN=42")},
    };
    return list;
}

const QList<QByteArray>& allForms() {
    static const QList<QByteArray> forms = [] {
        QList<QByteArray> list;
        for (const SecretValue& secret : secrets()) {
            list += Redactor::formsOf(secret.value);
        }
        return list;
    }();
    return forms;
}

QByteArray run(const QByteArray& text, const uint8_t* splits, size_t splitCount) {
    Redactor redactor(secrets());
    QByteArray out;
    qsizetype at = 0;
    size_t next = 0;
    while (at < text.size()) {
        const qsizetype step = splitCount == 0 ? text.size() : 1 + splits[next++ % splitCount] % 40;
        out += redactor.feed(text.mid(at, step));
        if (redactor.heldBack() >= redactor.maxFormLength()) {
            std::abort();
        }
        at += step;
    }
    out += redactor.flush();
    if (redactor.heldBack() != 0) {
        std::abort();
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) {
        return 0;
    }
    // The first 8 bytes (when there are more) give the chunk sizes; the rest is the script.
    const size_t splitCount = size > 16 ? 8 : 1;
    const uint8_t* splits = data;
    QByteArray text;
    for (size_t i = splitCount; i < size; ++i) {
        const uint8_t byte = data[i];
        if (byte < 0x20) {
            text += allForms().at(byte % allForms().size());
        } else {
            text += char(byte);
        }
    }
    const QByteArray whole = run(text, nullptr, 0);
    const QByteArray split = run(text, splits, splitCount);
    if (whole != split) {
        std::abort();
    }
    for (const SecretValue& secret : secrets()) {
        if (split.contains(secret.value) || split.contains(secret.value.toHex())
            || split.contains(secret.value.toBase64()) || split.contains(secret.value.toPercentEncoding())) {
            std::abort();
        }
    }
    return 0;
}
