#include "review/ignorematcher.h"

#include <algorithm>
#include <cctype>

namespace zeus {

namespace {

constexpr int kDefaultDepth = -1;

// Git matches bytes; one QChar per UTF-8 byte keeps `?` and bracket ranges byte-wise, as git's wildmatch does.
QString byteForm(const QString& text) {
    return QString::fromLatin1(text.toUtf8());
}

QString hexChar(uchar c) {
    return QStringLiteral("\\x{%1}").arg(static_cast<int>(c), 2, 16, QLatin1Char('0'));
}

// Git's trim_trailing_spaces: unescaped trailing spaces go, a backslash keeps the space after it.
QByteArray trimTrailingSpaces(const QByteArray& line) {
    qsizetype lastSpace = -1;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char c = line.at(i);
        if (c == ' ') {
            if (lastSpace < 0) {
                lastSpace = i;
            }
        } else if (c == '\\') {
            ++i;
            if (i >= line.size()) {
                return line;
            }
            lastSpace = -1;
        } else {
            lastSpace = -1;
        }
    }
    return lastSpace < 0 ? line : line.left(lastSpace);
}

// The members of one POSIX class inside a bracket, as regex class items; empty for an unknown class.
QString posixClass(const QByteArray& name) {
    static const QList<QPair<QByteArray, QString>> classes = {
        {"alnum", QStringLiteral("a-zA-Z0-9")},
        {"alpha", QStringLiteral("a-zA-Z")},
        {"blank", QStringLiteral(" \\t")},
        {"cntrl", QStringLiteral("\\x{00}-\\x{1f}\\x{7f}")},
        {"digit", QStringLiteral("0-9")},
        {"graph", QStringLiteral("\\x{21}-\\x{7e}")},
        {"lower", QStringLiteral("a-z")},
        {"print", QStringLiteral("\\x{20}-\\x{7e}")},
        {"punct", QStringLiteral("\\x{21}-\\x{2f}\\x{3a}-\\x{40}\\x{5b}-\\x{60}\\x{7b}-\\x{7e}")},
        {"space", QStringLiteral("\\t\\n\\x{0b}\\f\\r ")},
        {"upper", QStringLiteral("A-Z")},
        {"xdigit", QStringLiteral("0-9a-fA-F")},
    };
    for (const auto& entry : classes) {
        if (entry.first == name) {
            return entry.second;
        }
    }
    return {};
}

// Translates one gitignore pattern (escapes still in) into a regular expression with git's wildmatch rules under
// WM_PATHNAME: `*` and `?` and brackets never match '/', `**` between slashes (or at an end) matches across them.
// Returns false for a pattern git would abort on (a dangling backslash, an open bracket, an unknown class): such a
// pattern never matches, in git as here.
bool translate(const QByteArray& pattern, QString& regex) {
    regex.clear();
    const qsizetype n = pattern.size();
    bool afterSlash = true;  // at the start, or right after an unescaped '/'
    for (qsizetype i = 0; i < n; ++i) {
        const auto c = static_cast<uchar>(pattern.at(i));
        if (c == '\\') {
            if (i + 1 >= n) {
                return false;
            }
            ++i;
            regex += hexChar(static_cast<uchar>(pattern.at(i)));
            afterSlash = false;
            continue;
        }
        if (c == '*') {
            qsizetype stars = 1;
            while (i + 1 < n && pattern.at(i + 1) == '*') {
                ++i;
                ++stars;
            }
            const bool atEnd = i + 1 >= n;
            const bool slashNext = !atEnd && pattern.at(i + 1) == '/';
            if (stars >= 2 && afterSlash && (atEnd || slashNext)) {
                if (slashNext) {
                    regex += QStringLiteral("(?:.*/)?");
                    ++i;  // the slash is part of `**/`
                    afterSlash = true;
                } else {
                    regex += QStringLiteral(".*");
                    afterSlash = false;
                }
                continue;
            }
            regex += QStringLiteral("[^/]*");
            afterSlash = false;
            continue;
        }
        if (c == '?') {
            regex += QStringLiteral("[^/]");
            afterSlash = false;
            continue;
        }
        if (c == '[') {
            qsizetype p = i + 1;
            if (p >= n) {
                return false;
            }
            bool negated = false;
            if (pattern.at(p) == '!' || pattern.at(p) == '^') {
                negated = true;
                ++p;
            }
            QString items;
            int previous = -1;  // the last single character, the start of a possible range
            bool first = true;
            while (true) {
                if (p >= n) {
                    return false;
                }
                auto ch = static_cast<uchar>(pattern.at(p));
                if (ch == ']' && !first) {
                    break;
                }
                first = false;
                if (ch == '\\') {
                    ++p;
                    if (p >= n) {
                        return false;
                    }
                    ch = static_cast<uchar>(pattern.at(p));
                    items += hexChar(ch);
                    previous = ch;
                } else if (ch == '-' && previous >= 0 && p + 1 < n && pattern.at(p + 1) != ']') {
                    ++p;
                    auto last = static_cast<uchar>(pattern.at(p));
                    if (last == '\\') {
                        ++p;
                        if (p >= n) {
                            return false;
                        }
                        last = static_cast<uchar>(pattern.at(p));
                    }
                    if (previous <= last) {
                        items += hexChar(static_cast<uchar>(previous)) + QLatin1Char('-') + hexChar(last);
                    }
                    previous = -1;
                } else if (ch == '[' && p + 1 < n && pattern.at(p + 1) == ':') {
                    const qsizetype nameStart = p + 2;
                    qsizetype close = nameStart;
                    while (close < n && pattern.at(close) != ']') {
                        ++close;
                    }
                    if (close >= n) {
                        return false;
                    }
                    if (close - 1 < nameStart || pattern.at(close - 1) != ':') {
                        // No ":]": a plain '[' in the set, as git reads it.
                        items += hexChar(ch);
                        previous = ch;
                    } else {
                        const QString members = posixClass(pattern.mid(nameStart, close - 1 - nameStart));
                        if (members.isEmpty()) {
                            return false;
                        }
                        items += members;
                        previous = -1;
                        p = close;
                    }
                } else {
                    items += hexChar(ch);
                    previous = ch;
                }
                ++p;
            }
            if (negated) {
                regex += QStringLiteral("[^/") + items + QLatin1Char(']');
            } else if (items.isEmpty()) {
                regex += QStringLiteral("(?!)");
            } else {
                regex += QStringLiteral("(?!/)[") + items + QLatin1Char(']');
            }
            i = p;
            afterSlash = false;
            continue;
        }
        regex += (std::isalnum(c) != 0) ? QString(QLatin1Char(static_cast<char>(c))) : hexChar(c);
        afterSlash = c == '/';
    }
    return true;
}

int depthOf(const QString& folder) {
    return folder.isEmpty() ? 0 : static_cast<int>(folder.count(QLatin1Char('/'))) + 1;
}

}  // namespace

const QList<IgnoreMatcher::DefaultExclusion>& IgnoreMatcher::defaultExclusions() {
    // Keep in step with docs/review-mode.md, which gives each line's reason to the user.
    static const QList<DefaultExclusion> list = {
        {QStringLiteral(".env"), QStringLiteral("dotenv files hold API keys and database passwords")},
        {QStringLiteral(".env.*"), QStringLiteral("their per-environment variants (.env.local, .env.production)")},
        {QStringLiteral(".envrc"), QStringLiteral("direnv files usually export tokens")},
        {QStringLiteral("*.pem"), QStringLiteral("private keys and certificates with their keys")},
        {QStringLiteral("*.key"), QStringLiteral("private keys")},
        {QStringLiteral("id_rsa*"), QStringLiteral("SSH private keys")},
        {QStringLiteral("id_dsa*"), QStringLiteral("SSH private keys")},
        {QStringLiteral("id_ecdsa*"), QStringLiteral("SSH private keys")},
        {QStringLiteral("id_ed25519*"), QStringLiteral("SSH private keys")},
        {QStringLiteral("*.p12"), QStringLiteral("PKCS#12 bundles: a certificate with its private key")},
        {QStringLiteral("*.pfx"), QStringLiteral("PKCS#12 bundles: a certificate with its private key")},
        {QStringLiteral("*.jks"), QStringLiteral("Java keystores (signing keys)")},
        {QStringLiteral("*.keystore"), QStringLiteral("Java and Android keystores (signing keys)")},
        {QStringLiteral("*.kdbx"), QStringLiteral("KeePass password databases")},
        {QStringLiteral(".npmrc"), QStringLiteral("npm registry tokens")},
        {QStringLiteral(".pypirc"), QStringLiteral("PyPI upload credentials")},
        {QStringLiteral(".netrc"), QStringLiteral("passwords curl, git and ftp use per machine")},
        {QStringLiteral("_netrc"), QStringLiteral("the Windows name of .netrc")},
        {QStringLiteral(".git-credentials"), QStringLiteral("git's plain-text credential store")},
        {QStringLiteral(".pgpass"), QStringLiteral("PostgreSQL passwords")},
        {QStringLiteral(".my.cnf"), QStringLiteral("MySQL client passwords")},
        {QStringLiteral(".s3cfg"), QStringLiteral("s3cmd access keys")},
        {QStringLiteral(".boto"), QStringLiteral("boto (AWS, GCS) access keys")},
        {QStringLiteral(".vault-token"), QStringLiteral("a HashiCorp Vault token")},
        {QStringLiteral(".terraformrc"), QStringLiteral("Terraform Cloud tokens")},
        {QStringLiteral("*.tfstate"), QStringLiteral("Terraform state holds resource secrets in plain text")},
        {QStringLiteral("*.tfstate.*"), QStringLiteral("Terraform state backups")},
        {QStringLiteral(".htpasswd"), QStringLiteral("web server password hashes")},
        {QStringLiteral(".aws/"), QStringLiteral("AWS credentials")},
        {QStringLiteral(".azure/"), QStringLiteral("Azure CLI tokens")},
        {QStringLiteral(".ssh/"), QStringLiteral("SSH keys and known hosts")},
        {QStringLiteral(".gnupg/"), QStringLiteral("GPG private keys")},
        {QStringLiteral(".kube/"), QStringLiteral("Kubernetes cluster credentials")},
        {QStringLiteral("**/.docker/config.json"), QStringLiteral("container registry logins")},
        {QStringLiteral("**/.config/gcloud/"), QStringLiteral("Google Cloud credentials")},
        {QStringLiteral("**/.gem/credentials"), QStringLiteral("RubyGems API keys")},
        {QStringLiteral("**/.cargo/credentials"), QStringLiteral("crates.io tokens")},
        {QStringLiteral("**/.cargo/credentials.toml"), QStringLiteral("crates.io tokens")},
    };
    return list;
}

IgnoreMatcher::IgnoreMatcher(bool withDefaults) {
    if (withDefaults) {
        for (const DefaultExclusion& exclusion : defaultExclusions()) {
            addLine(QStringLiteral("(default)"), QString(), exclusion.pattern.toUtf8(), true);
        }
    }
}

void IgnoreMatcher::addPatterns(const QString& folder, const QByteArray& text, Qt::CaseSensitivity sensitivity) {
    QByteArray body = text;
    if (body.startsWith("\xEF\xBB\xBF")) {
        body.remove(0, 3);
    }
    const QString base = folder.isEmpty() ? QString() : byteForm(folder) + QLatin1Char('/');
    const int depth = depthOf(folder);
    const qsizetype before = m_patterns.size();
    for (QByteArray line : body.split('\n')) {
        if (line.endsWith('\r')) {
            line.chop(1);
        }
        addLine(folder, base, line, sensitivity == Qt::CaseInsensitive);
    }
    for (qsizetype i = before; i < m_patterns.size(); ++i) {
        m_patterns[i].depth = depth;
    }
    // Deeper files win over shallower ones: keep the list ordered by depth, file order within one depth.
    std::stable_sort(m_patterns.begin(), m_patterns.end(),
                     [](const Pattern& a, const Pattern& b) { return a.depth < b.depth; });
}

void IgnoreMatcher::addLine(const QString& source, const QString& base, const QByteArray& rawLine,
                            bool caseInsensitive) {
    if (rawLine.isEmpty() || rawLine.startsWith('#')) {
        return;
    }
    QByteArray line = trimTrailingSpaces(rawLine);
    Pattern pattern;
    pattern.text = QString::fromUtf8(line);
    pattern.source = source;
    pattern.base = base;
    pattern.depth = kDefaultDepth;
    if (line.startsWith('!')) {
        pattern.negative = true;
        line.remove(0, 1);
    }
    if (line.endsWith('/')) {
        pattern.directoryOnly = true;
        line.chop(1);
    }
    pattern.basenameOnly = !line.contains('/');
    if (!pattern.basenameOnly && line.startsWith('/')) {
        line.remove(0, 1);
    }
    if (line.isEmpty()) {
        return;
    }
    QString regex;
    if (!translate(line, regex)) {
        regex = QStringLiteral("(?!)");
    }
    QRegularExpression::PatternOptions options = QRegularExpression::DotMatchesEverythingOption;
    if (caseInsensitive) {
        options |= QRegularExpression::CaseInsensitiveOption;
    }
    pattern.regex = QRegularExpression(QRegularExpression::anchoredPattern(regex), options);
    pattern.regex.optimize();
    m_patterns.append(pattern);
}

IgnoreMatcher::Match IgnoreMatcher::matchEntry(const QString& relativePath, bool isDirectory) const {
    const QString path = byteForm(relativePath);
    for (auto it = m_patterns.crbegin(); it != m_patterns.crend(); ++it) {
        const Pattern& pattern = *it;
        if (pattern.directoryOnly && !isDirectory) {
            continue;
        }
        if (!pattern.base.isEmpty() && !path.startsWith(pattern.base)) {
            continue;
        }
        QString subject = path.mid(pattern.base.size());
        if (pattern.basenameOnly) {
            subject = subject.mid(subject.lastIndexOf(QLatin1Char('/')) + 1);
        }
        if (pattern.regex.match(subject).hasMatch()) {
            return Match{!pattern.negative, pattern.text, pattern.source};
        }
    }
    return {};
}

IgnoreMatcher::Match IgnoreMatcher::match(const QString& relativePath, bool isDirectory) const {
    // Nothing inside an excluded folder comes back (git does not even look inside one).
    qsizetype slash = relativePath.indexOf(QLatin1Char('/'));
    while (slash > 0) {
        Match folder = matchEntry(relativePath.left(slash), true);
        if (folder.ignored) {
            return folder;
        }
        slash = relativePath.indexOf(QLatin1Char('/'), slash + 1);
    }
    return matchEntry(relativePath, isDirectory);
}

}  // namespace zeus
