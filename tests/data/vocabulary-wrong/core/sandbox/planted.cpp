// A comment may say "hardened" and "ask-all": it is not code.
#include <QString>

namespace zeus {

/* Nor a block comment: "review" */
QString copied() {
    return QStringLiteral("ask-unsafe");
}

QString prose() {
    return QStringLiteral("review mode keeps a copy") + QStringLiteral("--network-preset");
}

QString raw() {
    return QString::fromUtf8(R"({"mode": "direct"})");
}

QString generic() {
    const char quote = '"';
    return QStringLiteral("none") + QLatin1Char(quote) + QStringLiteral("open");
}

QString prefixed() {
    return QString::fromUtf16(u"locked");
}

}  // namespace zeus
