#pragma once

#include <QObject>
#include <QString>

namespace zeus {

class KeychainJob;

// The bearer token of the MCP HTTP transport (docs/mcp.md "The token"), kept in the OS keychain under the app's
// service: made once (32 random bytes, base64url), read back on every later run, made anew only when asked. It
// owns no copy beyond the one it hands out in ready().
// It must never fall back to plain-text storage, never log the token, and never block while the keychain answers.
class McpHttpToken : public QObject {
    Q_OBJECT
public:
    static constexpr int kTokenBytes = 32;
    static constexpr const char* kKey = "mcp-http-token";

    enum class Status {
        Existing,  // read from the keychain
        Created,   // made and stored by this run: the only run that may show it
        Failed,    // the keychain could not read or store it; `problem` says why
    };
    Q_ENUM(Status)

    // `service` other than the app's is for tests, so they never touch the user's real entry.
    explicit McpHttpToken(QObject* parent = nullptr);
    McpHttpToken(QString service, QObject* parent);

    // Reads the token; when there is none, or `reset`, makes one and stores it. ready() follows, once.
    void obtain(bool reset);

    // A new token: kTokenBytes from the system's generator, base64url without padding (43 characters).
    static QString generate();

Q_SIGNALS:
    void ready(zeus::McpHttpToken::Status status, const QString& token, const QString& problem);

private:
    void create();

    QString m_service;
};

}  // namespace zeus
