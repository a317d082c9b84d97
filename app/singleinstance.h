#pragma once

#include <QLockFile>
#include <QObject>

#include <functional>
#include <memory>

class QLocalServer;

namespace zeus {

// One tray app per user: the first instance holds a lock file and listens on a local
// socket; a second launch finds the lock, asks the first to show its dashboard, and exits.
//
// Owns the lock and the server. It must never block: the second instance's request is
// asynchronous with a timeout, and a lock left by a crashed instance is taken over
// (QLockFile checks whether its owner still runs).
class SingleInstance : public QObject {
    Q_OBJECT
public:
    // key: unique per user and app (defaultKey()); tests use their own.
    explicit SingleInstance(QString key = defaultKey(), QObject* parent = nullptr);
    ~SingleInstance() override;

    static QString defaultKey();

    // True when this is the first instance (it then listens for activation requests).
    bool claim();
    // In a second instance: asks the first to activate; done(true) once it received the request.
    void activateRunningInstance(const std::function<void(bool)>& done, int timeoutMs = 3000);

    QString lockFilePath() const;
    // Where the instance listens: a socket in the user's runtime folder (a named pipe on Windows).
    QString serverName() const;

Q_SIGNALS:
    // Another launch asked this instance to show itself.
    void activationRequested();

private:
    QString m_key;
    std::unique_ptr<QLockFile> m_lock;
    QLocalServer* m_server = nullptr;
};

}  // namespace zeus
