#pragma once

#include "sandbox/sandboxconfig.h"

#include <QLatin1String>
#include <QObject>
#include <QString>
#include <QStringList>

class QSettings;

namespace zeus {

// The sandbox the user configured: which engine, which image, how hardened and how bounded (SPEC §3, §7), and
// how long an idle session lives. A view on the store AppSettings owns: it keeps the keys below and nothing else.
//
// Must never: let a hand-edited value through (readers fall back to the default, so "--privileged" never reaches
// `run` as an image), or act on a running sandbox itself (SandboxHost rebuilds it on hardeningChanged).
class SandboxSettings : public QObject {
    Q_OBJECT
public:
    static const QLatin1String kRuntimePreference;
    static const QLatin1String kImage;
    static const QLatin1String kHardeningProfile;
    static const QLatin1String kExecMode;
    static const QLatin1String kPidsLimit;
    static const QLatin1String kMemoryMiB;
    static const QLatin1String kCpus;
    static const QLatin1String kIdleTimeoutMinutes;
    static const QLatin1String kMaxContainers;
    static const QLatin1String kMaxCallsPerSession;
    static const QLatin1String kMaxCallsTotal;
    static const QLatin1String kMaxQueuedPerSession;
    static const QLatin1String kMaxQueuedTotal;
    static const QLatin1String kEngineWaitSeconds;

    static constexpr int kDefaultPidsLimit = sandboxdefaults::kPidsLimit;
    static constexpr int kMinPidsLimit = 16;
    static constexpr int kMaxPidsLimit = 65536;
    static constexpr int kDefaultMemoryMiB = sandboxdefaults::kMemoryMiB;
    static constexpr int kMinMemoryMiB = 64;
    static constexpr int kMaxMemoryMiB = 1024 * 1024;
    static constexpr double kDefaultCpus = sandboxdefaults::kCpus;
    static constexpr double kMinCpus = 0.1;
    static constexpr double kMaxCpus = 256.0;
    static constexpr int kDefaultIdleTimeoutMinutes = 30;
    static constexpr int kMinIdleTimeoutMinutes = 1;
    static constexpr int kMaxIdleTimeoutMinutes = 24 * 60;
    // SPEC §3 "Bounded": containers alive at once, calls per session and in total.
    static constexpr int kDefaultMaxContainers = 8;
    static constexpr int kDefaultMaxCallsPerSession = 4;
    static constexpr int kDefaultMaxCallsTotal = 8;
    static constexpr int kMaxLimit = 64;
    // SPEC §3 "queued rather than refused": calls that may wait, per session and in all.
    static constexpr int kDefaultMaxQueuedPerSession = 64;
    static constexpr int kDefaultMaxQueuedTotal = 256;
    static constexpr int kMaxQueueLimit = 4096;
    // How long waiting calls wait for an engine that stopped answering.
    static constexpr int kDefaultEngineWaitSeconds = 120;
    static constexpr int kMinEngineWaitSeconds = 5;
    static constexpr int kMaxEngineWaitSeconds = 3600;

    explicit SandboxSettings(QSettings& store, QObject* parent = nullptr);

    static bool isValidRuntimePreference(const QString& value);  // auto|apple|docker|podman
    static bool isValidHardeningProfile(const QString& value);   // standard|hardened
    static QStringList runtimePreferences();
    static QStringList hardeningProfiles();

    QString runtimePreference() const;
    bool setRuntimePreference(const QString& value);

    QString image() const;
    bool setImage(const QString& reference);  // empty restores the default image

    QString hardeningProfile() const;
    bool setHardeningProfile(const QString& value);

    // "agent" (default) or "exec" (SPEC §7).
    QString execMode() const;
    bool setExecMode(const QString& value);

    int pidsLimit() const;
    bool setPidsLimit(int value);
    int memoryMiB() const;
    bool setMemoryMiB(int value);
    double cpus() const;
    bool setCpus(double value);

    int idleTimeoutMinutes() const;
    bool setIdleTimeoutMinutes(int minutes);

    // The bounds of SPEC §3, each 1..kMaxLimit (a hand-edited value outside gives the default).
    int maxContainers() const;
    bool setMaxContainers(int value);
    int maxCallsPerSession() const;
    bool setMaxCallsPerSession(int value);
    int maxCallsTotal() const;
    bool setMaxCallsTotal(int value);
    // The queue bounds of SPEC §3 ("queued rather than refused"), each 1..kMaxQueueLimit.
    int maxQueuedPerSession() const;
    bool setMaxQueuedPerSession(int value);
    int maxQueuedTotal() const;
    bool setMaxQueuedTotal(int value);
    // How long queued calls wait for an engine that does not answer, kMinEngineWaitSeconds..kMaxEngineWaitSeconds.
    int engineWaitSeconds() const;
    bool setEngineWaitSeconds(int value);

Q_SIGNALS:
    void runtimePreferenceChanged(const QString& value);
    void imageChanged(const QString& image);
    // The profile, one of the limits or the exec mode changed (the sandbox is rebuilt).
    void hardeningChanged();
    void idleTimeoutMinutesChanged(int minutes);

private:
    // An int within [min, max] read from `key`, else `fallback`.
    int boundedInt(const QLatin1String& key, int min, int max, int fallback) const;
    // Stores `value` and announces a rebuild when it is within [min, max] and differs; false when outside.
    bool setBoundedInt(const QLatin1String& key, int value, int min, int max, int fallback);

    QSettings& m_store;
};

}  // namespace zeus
