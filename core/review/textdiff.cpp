#include "review/textdiff.h"

#include <QList>
#include <QStringDecoder>

#include <algorithm>
#include <vector>

namespace zeus {

namespace {

QList<QByteArray> linesOf(const QByteArray& data) {
    QList<QByteArray> lines;
    qsizetype start = 0;
    while (start < data.size()) {
        const qsizetype end = data.indexOf('\n', start);
        if (end < 0) {
            lines.append(data.mid(start));
            break;
        }
        lines.append(data.mid(start, end - start + 1));
        start = end + 1;
    }
    return lines;
}

}  // namespace

bool TextDiff::looksBinary(const QByteArray& data) {
    if (data.left(8000).contains('\0')) {
        return true;
    }
    QStringDecoder decoder(QStringDecoder::Utf8);
    (void)decoder.decode(data);
    return decoder.hasError();
}

TextDiff::Result TextDiff::unified(const QByteArray& before, const QByteArray& after, const QString& path, int context,
                                   int maxLines) {
    Result result;
    const QList<QByteArray> a = linesOf(before);
    const QList<QByteArray> b = linesOf(after);
    if (a.size() > maxLines || b.size() > maxLines) {
        result.tooLarge = true;
        result.text = QStringLiteral("(too large to show)\n");
        return result;
    }
    const int n = int(a.size());
    const int m = int(b.size());
    // ops: 0 same, 1 removed, 2 added; by LCS when small enough, else the whole file replaced.
    std::vector<std::pair<int, int>> ops;  // (op, index)
    if (qint64(n) * m <= 4000000) {
        std::vector<std::vector<int>> lcs(size_t(n) + 1, std::vector<int>(size_t(m) + 1, 0));
        for (int i = n - 1; i >= 0; --i) {
            for (int j = m - 1; j >= 0; --j) {
                lcs[size_t(i)][size_t(j)] =
                    a[i] == b[j] ? lcs[size_t(i) + 1][size_t(j) + 1] + 1
                                 : std::max(lcs[size_t(i) + 1][size_t(j)], lcs[size_t(i)][size_t(j) + 1]);
            }
        }
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && a[i] == b[j]) {
                ops.emplace_back(0, i++);
                ++j;
            } else if (j < m && (i == n || lcs[size_t(i)][size_t(j) + 1] >= lcs[size_t(i) + 1][size_t(j)])) {
                ops.emplace_back(2, j++);
            } else {
                ops.emplace_back(1, i++);
            }
        }
    } else {
        for (int i = 0; i < n; ++i) {
            ops.emplace_back(1, i);
        }
        for (int j = 0; j < m; ++j) {
            ops.emplace_back(2, j);
        }
    }
    QString text = QStringLiteral("--- %1\n+++ %2\n")
                       .arg(before.isNull() ? QStringLiteral("/dev/null") : QStringLiteral("a/") + path,
                            after.isNull() ? QStringLiteral("/dev/null") : QStringLiteral("b/") + path);
    const auto lineText = [](char prefix, const QByteArray& line) {
        QString out =
            QLatin1Char(prefix) + QString::fromUtf8(line.endsWith('\n') ? line.chopped(1) : line) + QLatin1Char('\n');
        if (!line.endsWith('\n')) {
            out += QStringLiteral("\\ No newline at end of file\n");
        }
        return out;
    };
    const int count = int(ops.size());
    int k = 0;
    bool any = false;
    while (k < count) {
        if (ops[size_t(k)].first == 0) {
            ++k;
            continue;
        }
        any = true;
        int start = std::max(0, k - context);
        int end = k;
        // Extend while changes are within 2*context of each other.
        int lastChange = k;
        while (end < count) {
            if (ops[size_t(end)].first != 0) {
                lastChange = end;
            } else if (end - lastChange > 2 * context) {
                break;
            }
            ++end;
        }
        end = std::min(count, lastChange + context + 1);
        int aStart = 0;
        int bStart = 0;
        for (int x = 0; x < start; ++x) {
            aStart += ops[size_t(x)].first != 2 ? 1 : 0;
            bStart += ops[size_t(x)].first != 1 ? 1 : 0;
        }
        int aCount = 0;
        int bCount = 0;
        QString body;
        for (int x = start; x < end; ++x) {
            const auto& op = ops[size_t(x)];
            if (op.first == 0) {
                body += lineText(' ', a[op.second]);
                ++aCount;
                ++bCount;
            } else if (op.first == 1) {
                body += lineText('-', a[op.second]);
                ++aCount;
                ++result.removed;
            } else {
                body += lineText('+', b[op.second]);
                ++bCount;
                ++result.added;
            }
        }
        text += QStringLiteral("@@ -%1,%2 +%3,%4 @@\n")
                    .arg(aCount == 0 ? aStart : aStart + 1)
                    .arg(aCount)
                    .arg(bCount == 0 ? bStart : bStart + 1)
                    .arg(bCount)
                + body;
        k = end;
    }
    result.text = any ? text : QString();
    return result;
}

}  // namespace zeus
