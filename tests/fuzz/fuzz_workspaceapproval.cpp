// libFuzzer target for the approval matcher (SPEC §3 "Approvals are exact strings"). The input is a script: each
// byte picks a fragment ("/", "\\", "..", ".", "//", names close to the approved ones, other cases, control
// characters, non-ASCII) or, above the table, is itself. The path built from it is matched against a fixed set of
// approvals on both the POSIX and the Windows rules, case-sensitive and not. What must hold:
//   - a match is one of the approvals, never anything else;
//   - a second, independent normaliser (components, "." dropped, ".." popped, never above the root) says the
//     working directory is that approval's folder: no spelling reaches a folder outside the set;
//   - a network path (\\server, //host), a control character or a relative path never matches.
#include "sandbox/workspaceapproval.h"

#include <cstdint>
#include <cstdlib>

using namespace zeus;

namespace {

const QStringList& approvals() {
    static const QStringList list = {
        QStringLiteral("/home/alice/proj"), QStringLiteral("/home/alice/proj2/sub"), QStringLiteral("/tmp/a b,c"),
        QStringLiteral("/srv/项目"),        QStringLiteral("C:/Users/bob/src"),
    };
    return list;
}

const QStringList& fragments() {
    static const QStringList list = {
        QStringLiteral("/"),      QStringLiteral("\\"),    QStringLiteral(".."),          QStringLiteral("."),
        QStringLiteral("//"),     QStringLiteral("home"),  QStringLiteral("alice"),       QStringLiteral("proj"),
        QStringLiteral("proj2"),  QStringLiteral("sub"),   QStringLiteral("Proj"),        QStringLiteral("HOME"),
        QStringLiteral("tmp"),    QStringLiteral("a b,c"), QStringLiteral("srv"),         QStringLiteral("项目"),
        QStringLiteral("C:"),     QStringLiteral("c:"),    QStringLiteral("Users"),       QStringLiteral("bob"),
        QStringLiteral("src"),    QStringLiteral("SRC"),   QStringLiteral("\n"),          QStringLiteral("\t"),
        QStringLiteral("\x7f"),   QString(QChar(0x85)),    QStringLiteral("?"),           QStringLiteral("%2e"),
        QStringLiteral("server"), QStringLiteral("share"), QStringLiteral("/home/alice"), QStringLiteral("proj/.."),
    };
    return list;
}

bool hasControl(const QString& s) {
    for (const QChar c : s) {
        if (c.unicode() < 0x20 || (c.unicode() >= 0x7f && c.unicode() <= 0x9f)) {
            return true;
        }
    }
    return false;
}

// The independent oracle: the folder a path names, as a list of components; nullopt when it is not absolute.
std::optional<QStringList> folderOf(QString path, bool windows) {
    QString root;
    if (windows) {
        path.replace(QLatin1Char('\\'), QLatin1Char('/'));
        if (path.size() < 3 || !path.at(0).isLetter() || path.at(0).unicode() > 0x7f || path.at(1) != QLatin1Char(':')
            || path.at(2) != QLatin1Char('/')) {
            return std::nullopt;
        }
        root = path.left(2);
        path = path.mid(2);
    } else if (!path.startsWith(QLatin1Char('/'))) {
        return std::nullopt;
    }
    QStringList parts{root};
    for (const QString& part : path.split(QLatin1Char('/'))) {
        if (part.isEmpty() || part == QLatin1String(".")) {
            continue;
        }
        if (part == QLatin1String("..")) {
            if (parts.size() > 1) {
                parts.removeLast();
            }
            continue;
        }
        parts << part;
    }
    return parts;
}

bool sameFolder(const QStringList& a, const QStringList& b, Qt::CaseSensitivity cs) {
    if (a.size() != b.size()) {
        return false;
    }
    for (qsizetype i = 0; i < a.size(); ++i) {
        if (a.at(i).compare(b.at(i), cs) != 0) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    QString path;
    for (size_t i = 0; i < size; ++i) {
        const qsizetype pick = data[i];
        if (pick < fragments().size()) {
            path += fragments().at(pick);
        } else {
            path += QChar(char16_t(data[i]));
        }
    }
    for (const bool windows : {false, true}) {
        for (const Qt::CaseSensitivity cs : {Qt::CaseSensitive, Qt::CaseInsensitive}) {
            const QString matched = WorkspaceApproval::match(path, approvals(), cs, windows);
            if (matched.isEmpty()) {
                continue;
            }
            if (!approvals().contains(matched)) {
                std::abort();  // a match that is not an approval
            }
            if (hasControl(path) || WorkspaceApproval::isNetworkPath(path)) {
                std::abort();  // refused outright, whatever it cleans to
            }
            const std::optional<QStringList> wanted = folderOf(path, windows);
            const std::optional<QStringList> approved = folderOf(matched, windows);
            if (!wanted || !approved || !sameFolder(*wanted, *approved, cs)) {
                std::abort();  // the spelling names another folder than the approval it matched
            }
        }
    }
    return 0;
}
