#pragma once

#include <QByteArray>
#include <QByteArrayMatcher>
#include <QList>
#include <QString>

#include <array>

namespace zeus {

// A secret's name and value, as the redactor and the injection need them. The value never leaves the app's memory
// except into the one command's environment that asked for it.
struct SecretValue {
    QString name;
    QByteArray value;
};

// Removes secrets from one output stream (SPEC §9 "Redaction"): every occurrence of a value, and of its base64,
// base64url (padded and not, at any alignment), URL-encoded and hex (lower and upper case) forms, becomes
// `[REDACTED:NAME]`. It is streaming and pure: feed() takes the chunks as they come and returns what may be passed
// on; a form split over two chunks is still caught because it holds back the tail that begins a form, at most
// maxFormLength()-1 bytes (only while secrets are set, and only bytes that could begin one: other output passes at
// once), and flush() hands those back at the end. At one position the longest form wins; a match is
// committed only once no longer form could still complete there.
// It must never pass on a byte of a form it knows, whatever the split; it does not stop a command that transforms the
// value otherwise (reversed, encrypted): docs/security.md says that limit.
class Redactor {
public:
    // Shorter values would redact noise (and their encodings would match by chance); refused at entry.
    static constexpr int kMinValueBytes = 8;
    // An environment string holds far more, but a secret is a token or a key, and the longest form is held back.
    static constexpr int kMaxValueBytes = 16 * 1024;

    // What a found form becomes: `[REDACTED:NAME]` (output the user and the backend read), or as many '*' as it
    // has bytes (Masked: an HTTP answer on its way into the sandbox, whose stated lengths must stay true).
    enum class Marker { Name, Masked };

    Redactor() = default;
    explicit Redactor(const QList<SecretValue>& secrets, Marker marker = Marker::Name);

    // Whether a value may be a secret at all (length within the limits, no NUL byte: it goes into an environment).
    static bool acceptable(const QByteArray& value);
    // Adds a secret (ignored, and false, when not acceptable or already there with this value).
    bool add(const SecretValue& secret);
    bool isEmpty() const { return m_forms.isEmpty(); }
    QStringList names() const;
    const QList<SecretValue>& secrets() const { return m_secrets; }

    QByteArray feed(const QByteArray& chunk);
    QByteArray flush();
    // How many forms were replaced so far.
    qint64 count() const { return m_count; }
    // Bytes held back now (never more than maxFormLength() - 1).
    qsizetype heldBack() const { return m_pending.size(); }
    qsizetype maxFormLength() const { return m_maxLength; }

    // Every form a value is searched for (pure; for tests and docs).
    static QList<QByteArray> formsOf(const QByteArray& value);
    static QByteArray marker(const QString& name);
    // One-shot redaction of a whole text (messages, log lines, the session log); count may be null.
    QByteArray redacted(const QByteArray& text, qint64* count = nullptr) const;
    QString redacted(const QString& text, qint64* count = nullptr) const;
    // One-shot redaction of two streams that arrived interleaved: `segments` are (stream, bytes) in arrival order.
    // A form is caught where it is contiguous in the combined text (a value split between stdout and stderr) and
    // where it is contiguous within one stream although the other stream's bytes came in between; such a form
    // becomes one marker where it began, and the other stream's bytes stay. count may be null.
    struct Segment {
        int stream = 0;
        QByteArray bytes;
    };
    QByteArray redactedInterleaved(const QList<Segment>& segments, qint64* count = nullptr) const;
    // The same, ignoring ASCII case: for host names, which resolvers, proxies and URL parsers lower-case, so a
    // value put into a name would otherwise slip through in another case (SPEC §8).
    QString redactedIgnoringCase(const QString& text, qint64* count = nullptr) const;

private:
    struct Form {
        QByteArray bytes;
        QByteArrayMatcher matcher;
        QByteArray marker;
    };
    QByteArray drain(bool final);
    // The first position at or after `from` where the rest of the pending bytes could still begin a form (they are
    // a proper prefix of one); the end of the pending bytes when there is none.
    qsizetype firstPossibleStart(qsizetype from) const;
    // Whether a form longer than the `matched` bytes found at `at` may still complete there with more output.
    bool longerFormMayFollow(qsizetype at, qsizetype matched) const;
    // Where the forms are in a whole text: (start, length, form index), left to right, the longest at a position.
    struct Found {
        qsizetype start;
        qsizetype length;
        int form;
    };
    QList<Found> find(const QByteArray& text) const;

    Marker m_marker = Marker::Name;
    QList<Form> m_forms;  // longest first, so at one position the longest wins
    QList<SecretValue> m_secrets;
    QByteArray m_pending;
    qsizetype m_maxLength = 0;
    std::array<bool, 256> m_firstBytes{};  // the bytes a form begins with
    qint64 m_count = 0;
};

}  // namespace zeus
