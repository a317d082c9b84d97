// libFuzzer target for TextDiff::unified. The first byte picks the context (0–7), which sides are missing and whether
// a small line limit applies; the rest is a script: a byte below 0x10 other than '\n' and '\r' is one of a few whole
// lines (so the two sides share lines and the search has work to do), the first 0x10 ends `before` and starts
// `after`, any other byte is itself. What must hold:
//   - over the line limit: tooLarge, no counts, no hunk;
//   - for two sides that are not binary (what the Changes view diffs), the diff applies back to `before` by an
//     independent patcher and gives `after` exactly, "/dev/null" names exactly the missing sides, added and
//     removed count the diff's lines, and no change means no text;
//   - for anything else, no crash.
#include "review/textdiff.h"
#include "unifiedpatch.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

// Picked by the bytes 0x00–0x0f except '\n' (0x0a) and '\r' (0x0d), in order.
const QList<QByteArray>& lines() {
    static const QList<QByteArray> list = {
        "a\n",        "b\n", "a\r\n", "\n",   "}\n",  "{\n",  "\\ No newline at end of file\n",
        "\xc3\xa9\n", "a",   "\r\n",  " a\n", "-a\n", "+a\n", QByteArray("\0\n", 2),
    };
    return list;
}

qsizetype lineIndex(uint8_t byte) {
    return byte < '\n' ? byte : byte < '\r' ? byte - 1 : byte - 2;
}

int countLines(const QByteArray& text) {
    return int(text.count('\n')) + (text.isEmpty() || text.endsWith('\n') ? 0 : 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) {
        return 0;
    }
    const uint8_t flags = data[0];
    const int context = flags & 7;
    const int maxLines = (flags & 0x40) != 0 ? 8 : 200000;
    QByteArray sides[2];
    int side = 0;
    for (size_t i = 1; i < size; ++i) {
        const uint8_t byte = data[i];
        if (byte == 0x10 && side == 0) {
            side = 1;
        } else if (byte < 0x10 && byte != '\n' && byte != '\r') {
            sides[side] += lines().at(lineIndex(byte));
        } else {
            sides[side] += char(byte);
        }
    }
    // An empty side is a missing file when its flag says so, else an empty one.
    const auto sideOf = [&sides, flags](int index, uint8_t missing) {
        if (!sides[index].isEmpty()) {
            return sides[index];
        }
        return (flags & missing) != 0 ? QByteArray() : QByteArray("");
    };
    const QByteArray before = sideOf(0, 0x08);
    const QByteArray after = sideOf(1, 0x10);
    const QString path = QStringLiteral("dir/file.txt");
    const TextDiff::Result result = TextDiff::unified(before, after, path, context, maxLines);
    if (countLines(before) > maxLines || countLines(after) > maxLines) {
        if (!result.tooLarge || result.added != 0 || result.removed != 0 || result.text.contains(QLatin1String("@@"))) {
            std::abort();
        }
        return 0;
    }
    if (result.tooLarge) {
        std::abort();
    }
    if (TextDiff::looksBinary(before) || TextDiff::looksBinary(after)) {
        return 0;
    }
    const std::optional<QByteArray> applied = test::applyUnified(before, result.text);
    if (!applied || *applied != after) {
        std::abort();  // the diff does not turn `before` into `after`
    }
    const std::optional<test::UnifiedPatch> patch = test::parseUnified(result.text);
    if (before == after) {
        if (!result.text.isEmpty() || result.added != 0 || result.removed != 0) {
            std::abort();
        }
        return 0;
    }
    if (patch->hunks.isEmpty() || (patch->oldName == "/dev/null") != before.isNull()
        || (patch->newName == "/dev/null") != after.isNull()) {
        std::abort();
    }
    int added = 0;
    int removed = 0;
    for (const test::UnifiedHunk& hunk : patch->hunks) {
        for (const QByteArray& line : hunk.lines) {
            added += line.startsWith('+') ? 1 : 0;
            removed += line.startsWith('-') ? 1 : 0;
        }
    }
    if (added != result.added || removed != result.removed
        || countLines(before) - removed + added != countLines(after)) {
        std::abort();
    }
    return 0;
}
