#include "sandbox/workspaceapproval.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace zeus {

namespace {

bool hasControlCharacter(const QString& path) {
    for (const QChar c : path) {
        if (c.category() == QChar::Other_Control || c == QChar::LineSeparator || c == QChar::ParagraphSeparator) {
            return true;
        }
    }
    return false;
}

bool isSameOrInside(const QString& path, const QString& base, Qt::CaseSensitivity cs) {
    if (path.compare(base, cs) == 0) {
        return true;
    }
    const QString prefix = base.endsWith(QLatin1Char('/')) ? base : base + QLatin1Char('/');
    return path.startsWith(prefix, cs);
}

}  // namespace

WorkspaceApproval::Resolver WorkspaceApproval::hostResolver() {
    Resolver resolver;
    resolver.canonicalDirectory = [](const QString& path) {
        const QFileInfo info(path);
        if (!info.isDir()) {
            return QString();
        }
        return QDir::cleanPath(info.canonicalFilePath());
    };
    return resolver;
}

std::optional<WorkspaceApproval::Identity> WorkspaceApproval::hostIdentity(const QString& path) {
#ifdef Q_OS_UNIX
    struct stat buffer {};
    if (::stat(QFile::encodeName(path).constData(), &buffer) != 0 || !S_ISDIR(buffer.st_mode)) {
        return std::nullopt;
    }
    return Identity{quint64(buffer.st_dev), quint64(buffer.st_ino)};
#else
    Q_UNUSED(path);
    return std::nullopt;
#endif
}

std::optional<WorkspaceApproval::Identity> WorkspaceApproval::parseIdentity(const QString& text) {
    const QStringList parts = text.trimmed().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (parts.size() != 2) {
        return std::nullopt;
    }
    bool deviceOk = false;
    bool inodeOk = false;
    const Identity identity{parts.at(0).toULongLong(&deviceOk), parts.at(1).toULongLong(&inodeOk)};
    if (!deviceOk || !inodeOk) {
        return std::nullopt;
    }
    return identity;
}

bool WorkspaceApproval::isNetworkPath(const QString& path) {
    // Both spellings of a UNC path, the \\?\ and \\.\ device forms, and a POSIX "//host" (implementation-defined,
    // and a network path on Cygwin-like hosts): refused before any cleaning could turn them into something else.
    const auto isSeparator = [](QChar c) { return c == QLatin1Char('/') || c == QLatin1Char('\\'); };
    return path.size() >= 2 && isSeparator(path.at(0)) && isSeparator(path.at(1));
}

QString WorkspaceApproval::lexicalForm(const QString& path, bool windows) {
    if (path.isEmpty() || hasControlCharacter(path) || isNetworkPath(path)) {
        return {};
    }
    QString p = path;
    if (windows) {
        p.replace(QLatin1Char('\\'), QLatin1Char('/'));
        static const QRegularExpression drive(QStringLiteral("^[A-Za-z]:/"));
        if (!drive.match(p).hasMatch()) {
            return {};
        }
    } else if (!p.startsWith(QLatin1Char('/'))) {
        return {};
    }
    // Cleaning must never climb above the root ("/../x", "C:/../C:/x"), and on Windows no component after the
    // drive may hold a ':' (an alternate data stream, or a second drive spelled inside the path): such spellings
    // are refused, not cleaned into something that looks approved.
    const QStringList components = p.split(QLatin1Char('/'));
    int depth = 0;
    for (qsizetype i = windows ? 1 : 0; i < components.size(); ++i) {
        const QString& component = components.at(i);
        if (component.isEmpty() || component == QLatin1String(".")) {
            continue;
        }
        if (windows && component.contains(QLatin1Char(':'))) {
            return {};
        }
        if (component == QLatin1String("..")) {
            if (depth == 0) {
                return {};
            }
            --depth;
        } else {
            ++depth;
        }
    }
    p = QDir::cleanPath(p);
    if (isNetworkPath(p)) {
        return {};
    }
    return p;
}

QString WorkspaceApproval::match(const QString& workingDirectory, const QStringList& approved, Qt::CaseSensitivity cs,
                                 bool windows) {
    const QString wanted = lexicalForm(workingDirectory, windows);
    if (wanted.isEmpty()) {
        return {};
    }
    for (const QString& approval : approved) {
        const QString stored = lexicalForm(approval, windows);
        if (!stored.isEmpty() && stored.compare(wanted, cs) == 0) {
            return approval;
        }
    }
    return {};
}

WorkspaceApproval::State WorkspaceApproval::stateOf(const QString& approved, const Resolver& resolver,
                                                    Qt::CaseSensitivity cs) {
    const QString canonical = resolver.canonicalDirectory ? resolver.canonicalDirectory(approved) : QString();
    if (canonical.isEmpty()) {
        return State::Missing;
    }
    // The exact string: a folder reached through a symlink is another folder, even if it looks the same.
    return QDir::cleanPath(canonical).compare(QDir::cleanPath(approved), cs) == 0 ? State::Active : State::Changed;
}

WorkspaceApproval::State WorkspaceApproval::stateAmong(const QString& approved, const QStringList& all,
                                                       const Resolver& resolver, Qt::CaseSensitivity cs) {
    QStringList others;
    const QString self = QDir::cleanPath(approved);
    for (const QString& other : all) {
        if (QDir::cleanPath(other).compare(self, cs) != 0) {
            others << QDir::cleanPath(other);
        }
    }
    if (!overlapping(self, others, cs).isEmpty()) {
        return State::Nested;
    }
    return stateOf(approved, resolver, cs);
}

QString WorkspaceApproval::stateName(State state) {
    switch (state) {
        case State::Active:
            return QStringLiteral("active");
        case State::Missing:
            return QStringLiteral("missing");
        case State::Changed:
            return QStringLiteral("changed");
        case State::Nested:
            return QStringLiteral("nested");
    }
    return QStringLiteral("changed");
}

QString WorkspaceApproval::overlapping(const QString& candidate, const QStringList& approved, Qt::CaseSensitivity cs) {
    const QString wanted = QDir::cleanPath(QDir::fromNativeSeparators(candidate));
    for (const QString& approval : approved) {
        const QString stored = QDir::cleanPath(QDir::fromNativeSeparators(approval));
        if (isSameOrInside(wanted, stored, cs) || isSameOrInside(stored, wanted, cs)) {
            return approval;
        }
    }
    return {};
}

}  // namespace zeus
