#include "review/textdiff.h"

#include <QByteArrayView>
#include <QCoreApplication>
#include <QHash>
#include <QStringDecoder>

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

namespace zeus {

namespace {

// Past this much work (diagonals visited plus snake steps) the boxes still waiting are shown as replaced whole:
// an adversarial pair of large files is bounded in time, everything ordinary finishes far below it.
constexpr qint64 kWorkBudget = 500'000'000;
// A box whose edit cost reaches max(this, √(N+M)) is split at its furthest-reaching point instead of its middle
// snake (the diff stays correct, not necessarily minimal); below it the script is minimal.
constexpr int kMinCostCap = 256;

std::vector<QByteArrayView> linesOf(const QByteArray& data) {
    std::vector<QByteArrayView> lines;
    const QByteArrayView all(data);
    qsizetype start = 0;
    while (start < all.size()) {
        qsizetype end = all.indexOf('\n', start);
        end = end < 0 ? all.size() : end + 1;
        lines.push_back(all.sliced(start, end - start));
        start = end;
    }
    return lines;
}

// Myers' O(ND) difference algorithm in linear space: the middle snake of each box splits it in two, boxes wait on an
// explicit stack. Works on line ids; marks the lines of each side that are not in the common subsequence.
class MyersDiff {
public:
    MyersDiff(const std::vector<int>& a, const std::vector<int>& b, std::vector<char>& changedA,
              std::vector<char>& changedB)
        : m_a(a), m_b(b), m_changedA(changedA), m_changedB(changedB) {
        const int n = int(a.size());
        const int m = int(b.size());
        m_offset = m + 1;
        m_forward.assign(size_t(n) + size_t(m) + 3, 0);
        m_backward.assign(size_t(n) + size_t(m) + 3, 0);
        m_costCap = std::max(kMinCostCap, int(std::sqrt(double(n) + double(m))));
    }

    void run() {
        std::vector<Box> boxes{{0, int(m_a.size()), 0, int(m_b.size()), false}};
        while (!boxes.empty()) {
            Box box = boxes.back();
            boxes.pop_back();
            while (box.x0 < box.x1 && box.y0 < box.y1 && m_a[size_t(box.x0)] == m_b[size_t(box.y0)]) {
                ++box.x0;
                ++box.y0;
            }
            while (box.x0 < box.x1 && box.y0 < box.y1 && m_a[size_t(box.x1) - 1] == m_b[size_t(box.y1) - 1]) {
                --box.x1;
                --box.y1;
            }
            if (box.x0 == box.x1 || box.y0 == box.y1 || m_work > kWorkBudget) {
                markChanged(box);
                continue;
            }
            const Split split = middleSnake(box);
            const bool inside = split.x >= box.x0 && split.x <= box.x1 && split.y >= box.y0 && split.y <= box.y1;
            const bool corner = (split.x == box.x0 && split.y == box.y0) || (split.x == box.x1 && split.y == box.y1);
            if (!inside || corner) {
                markChanged(box);  // cannot happen by the algorithm; never loop on it
                continue;
            }
            boxes.push_back({split.x, box.x1, split.y, box.y1, split.minimalHigh});
            boxes.push_back({box.x0, split.x, box.y0, split.y, split.minimalLow});
        }
    }

private:
    struct Box {
        int x0, x1, y0, y1;
        bool needMinimal;
    };
    struct Split {
        int x, y;
        bool minimalLow, minimalHigh;
    };

    int& forward(int k) { return m_forward[static_cast<size_t>(k) + static_cast<size_t>(m_offset)]; }
    int& backward(int k) { return m_backward[static_cast<size_t>(k) + static_cast<size_t>(m_offset)]; }

    void markChanged(const Box& box) {
        std::fill(m_changedA.begin() + box.x0, m_changedA.begin() + box.x1, char(1));
        std::fill(m_changedB.begin() + box.y0, m_changedB.begin() + box.y1, char(1));
    }

    // The box has lines on both sides and differs at both ends. Diagonal k holds the points with x - y == k; the
    // forward search starts at (x0, y0), the backward one at (x1, y1), each extending its furthest-reaching paths
    // by one edit per round until they overlap.
    Split middleSnake(const Box& box) {
        const int kMin = box.x0 - box.y1;
        const int kMax = box.x1 - box.y0;
        const int forwardMid = box.x0 - box.y0;
        const int backwardMid = box.x1 - box.y1;
        const bool odd = ((forwardMid - backwardMid) & 1) != 0;
        int fMin = forwardMid;
        int fMax = forwardMid;
        int bMin = backwardMid;
        int bMax = backwardMid;
        forward(forwardMid) = box.x0;
        backward(backwardMid) = box.x1;
        for (int cost = 1;; ++cost) {
            // Widen the range of diagonals by one each side, or narrow it where it meets the box's edge (keeping
            // its parity); the sentinels outside make the two ends take the only move they have.
            if (fMin > kMin) {
                forward(--fMin - 1) = -1;
            } else {
                ++fMin;
            }
            if (fMax < kMax) {
                forward(++fMax + 1) = -1;
            } else {
                --fMax;
            }
            for (int k = fMax; k >= fMin; k -= 2) {
                int x = forward(k - 1) >= forward(k + 1) ? forward(k - 1) + 1 : forward(k + 1);
                int y = x - k;
                const int from = x;
                while (x < box.x1 && y < box.y1 && m_a[size_t(x)] == m_b[size_t(y)]) {
                    ++x;
                    ++y;
                }
                m_work += 1 + (x - from);
                forward(k) = x;
                if (odd && bMin <= k && k <= bMax && backward(k) <= x) {
                    return {x, y, true, true};
                }
            }
            if (bMin > kMin) {
                backward(--bMin - 1) = INT_MAX;
            } else {
                ++bMin;
            }
            if (bMax < kMax) {
                backward(++bMax + 1) = INT_MAX;
            } else {
                --bMax;
            }
            for (int k = bMax; k >= bMin; k -= 2) {
                int x = backward(k - 1) < backward(k + 1) ? backward(k - 1) : backward(k + 1) - 1;
                int y = x - k;
                const int from = x;
                while (x > box.x0 && y > box.y0 && m_a[size_t(x) - 1] == m_b[size_t(y) - 1]) {
                    --x;
                    --y;
                }
                m_work += 1 + (from - x);
                backward(k) = x;
                if (!odd && fMin <= k && k <= fMax && x <= forward(k)) {
                    return {x, y, true, true};
                }
            }
            if (!box.needMinimal && cost >= m_costCap) {
                return furthestReaching(box, fMin, fMax, bMin, bMax);
            }
        }
    }

    // Too costly: split where one of the two searches got furthest from its corner. The part that search covered
    // is known to have a short script (searched minimally again); the rest may be split the same way.
    Split furthestReaching(const Box& box, int fMin, int fMax, int bMin, int bMax) {
        int forwardBest = -1;
        int forwardX = box.x0;
        for (int k = fMax; k >= fMin; k -= 2) {
            int x = std::min(forward(k), box.x1);
            int y = x - k;
            if (y > box.y1) {
                x = box.y1 + k;
                y = box.y1;
            }
            if (x + y > forwardBest) {
                forwardBest = x + y;
                forwardX = x;
            }
        }
        int backwardBest = INT_MAX;
        int backwardX = box.x1;
        for (int k = bMax; k >= bMin; k -= 2) {
            int x = std::max(backward(k), box.x0);
            int y = x - k;
            if (y < box.y0) {
                x = box.y0 + k;
                y = box.y0;
            }
            if (x + y < backwardBest) {
                backwardBest = x + y;
                backwardX = x;
            }
        }
        if ((box.x1 + box.y1) - backwardBest < forwardBest - (box.x0 + box.y0)) {
            return {forwardX, forwardBest - forwardX, true, false};
        }
        return {backwardX, backwardBest - backwardX, false, true};
    }

    const std::vector<int>& m_a;
    const std::vector<int>& m_b;
    std::vector<char>& m_changedA;
    std::vector<char>& m_changedB;
    std::vector<int> m_forward;
    std::vector<int> m_backward;
    int m_offset = 0;
    int m_costCap = kMinCostCap;
    qint64 m_work = 0;
};

// Marks the changed lines of both sides (1 = removed from `a` / added in `b`), minimal up to the cost cap.
void diffIds(const std::vector<int>& a, const std::vector<int>& b, std::vector<char>& changedA,
             std::vector<char>& changedB) {
    const int n = int(a.size());
    const int m = int(b.size());
    int prefix = 0;
    while (prefix < n && prefix < m && a[size_t(prefix)] == b[size_t(prefix)]) {
        ++prefix;
    }
    int suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix && a[size_t(n - 1 - suffix)] == b[size_t(m - 1 - suffix)]) {
        ++suffix;
    }
    // A line that the other side does not hold at all is changed whatever the script: leave it out of the search.
    // The longest common subsequence of what remains is that of the whole, so the result stays minimal.
    int maxId = 0;
    for (const int id : a) {
        maxId = std::max(maxId, id);
    }
    for (const int id : b) {
        maxId = std::max(maxId, id);
    }
    std::vector<char> inA(size_t(maxId) + 1, 0);
    std::vector<char> inB(size_t(maxId) + 1, 0);
    for (int i = prefix; i < n - suffix; ++i) {
        inA[size_t(a[size_t(i)])] = 1;
    }
    for (int j = prefix; j < m - suffix; ++j) {
        inB[size_t(b[size_t(j)])] = 1;
    }
    std::vector<int> keptA;
    std::vector<int> indexA;
    for (int i = prefix; i < n - suffix; ++i) {
        if (inB[size_t(a[size_t(i)])]) {
            keptA.push_back(a[size_t(i)]);
            indexA.push_back(i);
        } else {
            changedA[size_t(i)] = 1;
        }
    }
    std::vector<int> keptB;
    std::vector<int> indexB;
    for (int j = prefix; j < m - suffix; ++j) {
        if (inA[size_t(b[size_t(j)])]) {
            keptB.push_back(b[size_t(j)]);
            indexB.push_back(j);
        } else {
            changedB[size_t(j)] = 1;
        }
    }
    std::vector<char> keptChangedA(keptA.size(), 0);
    std::vector<char> keptChangedB(keptB.size(), 0);
    MyersDiff(keptA, keptB, keptChangedA, keptChangedB).run();
    for (size_t i = 0; i < keptA.size(); ++i) {
        if (keptChangedA[i]) {
            changedA[size_t(indexA[i])] = 1;
        }
    }
    for (size_t j = 0; j < keptB.size(); ++j) {
        if (keptChangedB[j]) {
            changedB[size_t(indexB[j])] = 1;
        }
    }
}

// Whether the other side has changed lines in each gap between its unchanged lines (gap p lies before the p-th).
std::vector<char> changedGaps(const std::vector<char>& changed) {
    std::vector<char> gaps(1, 0);
    for (const char c : changed) {
        if (c) {
            gaps.back() = 1;
        } else {
            gaps.push_back(0);
        }
    }
    return gaps;
}

// Among equally short scripts, shows a run of changed lines the way diff does: each group slid as far down as
// repeated lines allow, unless some place on the way lines it up with a change on the other side, where it stays
// (a replaced block then reads as one). Sliding keeps the unchanged lines' contents, so the diff stays valid.
void compact(const std::vector<int>& ids, std::vector<char>& changed, const std::vector<char>& otherGaps) {
    const int n = int(ids.size());
    int start = 0;
    size_t gap = 0;  // unchanged lines before `start`
    for (;;) {
        while (start < n && !changed[size_t(start)]) {
            ++start;
            ++gap;
        }
        if (start == n) {
            return;
        }
        int end = start;
        while (end < n && changed[size_t(end)]) {
            ++end;
        }
        int alignedEnd = -1;
        int size = 0;
        do {
            size = end - start;
            while (start > 0 && !changed[size_t(start) - 1] && ids[size_t(start) - 1] == ids[size_t(end) - 1]) {
                changed[size_t(--start)] = 1;
                changed[size_t(--end)] = 0;
                --gap;
                while (start > 0 && changed[size_t(start) - 1]) {
                    --start;
                }
            }
            alignedEnd = otherGaps[gap] ? end : -1;
            while (end < n && !changed[size_t(end)] && ids[size_t(start)] == ids[size_t(end)]) {
                changed[size_t(start++)] = 0;
                changed[size_t(end++)] = 1;
                ++gap;
                while (end < n && changed[size_t(end)]) {
                    ++end;
                }
                if (otherGaps[gap]) {
                    alignedEnd = end;
                }
            }
        } while (size != end - start);
        while (alignedEnd >= 0 && end > alignedEnd) {
            changed[size_t(--start)] = 1;
            changed[size_t(--end)] = 0;
            --gap;
        }
        start = end;
    }
}

struct Block {
    int a0, a1, b0, b1;  // removed a[a0, a1), added b[b0, b1)
};

void appendRange(QByteArray& out, int start, int count) {
    if (count == 0) {
        // diff names the line before an empty range (0 before the first line).
        out += QByteArray::number(start) + ",0";
    } else if (count == 1) {
        out += QByteArray::number(start + 1);
    } else {
        out += QByteArray::number(start + 1) + ',' + QByteArray::number(count);
    }
}

void appendLine(QByteArray& out, char prefix, QByteArrayView line) {
    out += prefix;
    out.append(line);
    if (!line.endsWith('\n')) {
        out += "\n\\ No newline at end of file\n";
    }
}

}  // namespace

bool TextDiff::looksBinary(const QByteArray& data) {
    if (data.left(8000).contains('\0')) {
        return true;
    }
    // Stateless: a sequence cut off at the end is an error, not input kept for a next call. The decoded text must be
    // materialised; decode() alone converts nothing.
    QStringDecoder decoder(QStringDecoder::Utf8, QStringConverter::Flag::Stateless);
    const QString text = decoder.decode(data);
    return decoder.hasError();
}

TextDiff::Result TextDiff::unified(const QByteArray& before, const QByteArray& after, const QString& path, int context,
                                   int maxLines) {
    Result result;
    const std::vector<QByteArrayView> a = linesOf(before);
    const std::vector<QByteArrayView> b = linesOf(after);
    if (qsizetype(a.size()) > maxLines || qsizetype(b.size()) > maxLines) {
        result.tooLarge = true;
        result.text = QCoreApplication::translate("zeus::TextDiff",
                                                  "Not shown: a side has more than %n line(s); "
                                                  "compare the files with a diff tool.",
                                                  nullptr, maxLines)
                      + QLatin1Char('\n');
        return result;
    }
    context = std::max(0, context);
    const int n = int(a.size());
    const int m = int(b.size());

    QHash<QByteArrayView, int> idOf;
    idOf.reserve(qsizetype(n) + m);
    const auto idsOf = [&idOf](const std::vector<QByteArrayView>& lines) {
        std::vector<int> ids;
        ids.reserve(lines.size());
        for (const QByteArrayView line : lines) {
            auto it = idOf.constFind(line);
            if (it == idOf.cend()) {
                it = idOf.insert(line, int(idOf.size()));
            }
            ids.push_back(*it);
        }
        return ids;
    };
    const std::vector<int> idsA = idsOf(a);
    const std::vector<int> idsB = idsOf(b);
    std::vector<char> changedA(size_t(n), 0);
    std::vector<char> changedB(size_t(m), 0);
    diffIds(idsA, idsB, changedA, changedB);
    compact(idsA, changedA, changedGaps(changedB));
    compact(idsB, changedB, changedGaps(changedA));

    std::vector<Block> blocks;
    int i = 0;
    int j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && !changedA[size_t(i)] && !changedB[size_t(j)]) {
            ++i;
            ++j;
            continue;
        }
        Block block{i, i, j, j};
        while (block.a1 < n && changedA[size_t(block.a1)]) {
            ++block.a1;
        }
        while (block.b1 < m && changedB[size_t(block.b1)]) {
            ++block.b1;
        }
        if (block.a1 == i && block.b1 == j) {
            // Unchanged lines left on one side only: cannot happen; show the rest as replaced rather than loop.
            block.a1 = n;
            block.b1 = m;
        }
        i = block.a1;
        j = block.b1;
        result.removed += block.a1 - block.a0;
        result.added += block.b1 - block.b0;
        blocks.push_back(block);
    }
    if (blocks.empty()) {
        return result;
    }

    QByteArray out;
    const QByteArray oldName = before.isNull() ? QByteArrayLiteral("/dev/null") : QByteArray("a/" + path.toUtf8());
    const QByteArray newName = after.isNull() ? QByteArrayLiteral("/dev/null") : QByteArray("b/" + path.toUtf8());
    out += "--- " + oldName + "\n+++ " + newName + '\n';
    size_t first = 0;
    while (first < blocks.size()) {
        // Blocks whose unchanged lines between them would all be shown as context share one hunk.
        size_t last = first;
        while (last + 1 < blocks.size() && blocks[last + 1].a0 - blocks[last].a1 <= 2 * context) {
            ++last;
        }
        const int lead = std::min(context, blocks[first].a0);
        const int trail = std::min(context, n - blocks[last].a1);
        const int aStart = blocks[first].a0 - lead;
        const int bStart = blocks[first].b0 - lead;
        out += "@@ -";
        appendRange(out, aStart, blocks[last].a1 + trail - aStart);
        out += " +";
        appendRange(out, bStart, blocks[last].b1 + trail - bStart);
        out += " @@\n";
        int shown = aStart;
        for (size_t k = first; k <= last; ++k) {
            const Block& block = blocks[k];
            for (; shown < block.a0; ++shown) {
                appendLine(out, ' ', a[size_t(shown)]);
            }
            for (int x = block.a0; x < block.a1; ++x) {
                appendLine(out, '-', a[size_t(x)]);
            }
            for (int y = block.b0; y < block.b1; ++y) {
                appendLine(out, '+', b[size_t(y)]);
            }
            shown = block.a1;
        }
        for (; shown < blocks[last].a1 + trail; ++shown) {
            appendLine(out, ' ', a[size_t(shown)]);
        }
        first = last + 1;
    }
    result.text = QString::fromUtf8(out);
    return result;
}

}  // namespace zeus
