#include "sandboxsettings.h"

#include "engine/containerruntime.h"
#include "engine/hardeningprofile.h"
#include "runtime/runtimekind.h"
#include "sandbox/sandboxconfig.h"
#include "support/vocabulary.h"

#include <zeus/buildinfo.h>

#include <QSettings>

#include <cmath>

namespace zeus {

const QLatin1String SandboxSettings::kRuntimePreference("runtime/preference");
const QLatin1String SandboxSettings::kImage("sandbox/image");
const QLatin1String SandboxSettings::kHardeningProfile("sandbox/profile");
const QLatin1String SandboxSettings::kExecMode("sandbox/execMode");
const QLatin1String SandboxSettings::kPidsLimit("sandbox/pidsLimit");
const QLatin1String SandboxSettings::kMemoryMiB("sandbox/memoryMiB");
const QLatin1String SandboxSettings::kCpus("sandbox/cpus");
const QLatin1String SandboxSettings::kIdleTimeoutMinutes("sessions/idleTimeoutMinutes");
const QLatin1String SandboxSettings::kMaxContainers("sessions/maxContainers");
const QLatin1String SandboxSettings::kMaxCallsPerSession("sessions/maxCallsPerSession");
const QLatin1String SandboxSettings::kMaxCallsTotal("sessions/maxCallsTotal");
const QLatin1String SandboxSettings::kMaxQueuedPerSession("sessions/maxQueuedPerSession");
const QLatin1String SandboxSettings::kMaxQueuedTotal("sessions/maxQueuedTotal");
const QLatin1String SandboxSettings::kEngineWaitSeconds("sessions/engineWaitSeconds");

SandboxSettings::SandboxSettings(QSettings& store, QObject* parent) : QObject(parent), m_store(store) {}

QStringList SandboxSettings::runtimePreferences() {
    return wordsOf<RuntimePreference>();
}

QStringList SandboxSettings::hardeningProfiles() {
    return wordsOf<HardeningProfile>();
}

bool SandboxSettings::isValidRuntimePreference(const QString& value) {
    return runtimePreferences().contains(value);
}

bool SandboxSettings::isValidHardeningProfile(const QString& value) {
    return hardeningProfiles().contains(value);
}

QString SandboxSettings::runtimePreference() const {
    const QString value = m_store.value(kRuntimePreference).toString();
    return isValidRuntimePreference(value) ? value : wordOf(RuntimePreference::Auto);
}

bool SandboxSettings::setRuntimePreference(const QString& value) {
    if (!isValidRuntimePreference(value)) {
        return false;
    }
    if (runtimePreference() != value) {
        m_store.setValue(kRuntimePreference, value);
        Q_EMIT runtimePreferenceChanged(value);
    }
    return true;
}

QString SandboxSettings::image() const {
    const QString value = m_store.value(kImage).toString().trimmed();
    // A hand-edited store is read like a typed value: "--privileged" must never reach `run` as a flag.
    return ContainerRuntime::isSafeImageReference(value) ? value : QStringLiteral(ZEUS_DEFAULT_IMAGE);
}

bool SandboxSettings::setImage(const QString& reference) {
    const QString trimmed = reference.trimmed();
    // An image reference is one word; whitespace or a leading dash would be read as
    // something else by the engine's command line.
    if (!trimmed.isEmpty() && !ContainerRuntime::isSafeImageReference(trimmed)) {
        return false;
    }
    const QString effective = trimmed.isEmpty() ? QStringLiteral(ZEUS_DEFAULT_IMAGE) : trimmed;
    if (effective == image() && m_store.contains(kImage) == !trimmed.isEmpty()) {
        return true;
    }
    if (trimmed.isEmpty()) {
        m_store.remove(kImage);
    } else {
        m_store.setValue(kImage, trimmed);
    }
    Q_EMIT imageChanged(effective);
    return true;
}

QString SandboxSettings::hardeningProfile() const {
    const QString value = m_store.value(kHardeningProfile).toString();
    return isValidHardeningProfile(value) ? value : wordOf(HardeningProfile::Standard);
}

bool SandboxSettings::setHardeningProfile(const QString& value) {
    if (!isValidHardeningProfile(value)) {
        return false;
    }
    if (hardeningProfile() != value) {
        m_store.setValue(kHardeningProfile, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

QString SandboxSettings::execMode() const {
    const QString value = m_store.value(kExecMode).toString();
    return wordOf(fromWord<ExecMode>(value).value_or(ExecMode::Agent));
}

bool SandboxSettings::setExecMode(const QString& value) {
    if (!fromWord<ExecMode>(value)) {
        return false;
    }
    if (execMode() != value) {
        m_store.setValue(kExecMode, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

int SandboxSettings::boundedInt(const QLatin1String& key, int min, int max, int fallback) const {
    bool ok = false;
    const int value = m_store.value(key).toInt(&ok);
    return ok && value >= min && value <= max ? value : fallback;
}

bool SandboxSettings::setBoundedInt(const QLatin1String& key, int value, int min, int max, int fallback) {
    if (value < min || value > max) {
        return false;
    }
    if (boundedInt(key, min, max, fallback) != value) {
        m_store.setValue(key, value);
        Q_EMIT hardeningChanged();  // the sandbox is rebuilt with the new limit
    }
    return true;
}

int SandboxSettings::pidsLimit() const {
    return boundedInt(kPidsLimit, kMinPidsLimit, kMaxPidsLimit, kDefaultPidsLimit);
}

bool SandboxSettings::setPidsLimit(int value) {
    return setBoundedInt(kPidsLimit, value, kMinPidsLimit, kMaxPidsLimit, kDefaultPidsLimit);
}

int SandboxSettings::memoryMiB() const {
    return boundedInt(kMemoryMiB, kMinMemoryMiB, kMaxMemoryMiB, kDefaultMemoryMiB);
}

bool SandboxSettings::setMemoryMiB(int value) {
    return setBoundedInt(kMemoryMiB, value, kMinMemoryMiB, kMaxMemoryMiB, kDefaultMemoryMiB);
}

double SandboxSettings::cpus() const {
    bool ok = false;
    const double value = m_store.value(kCpus).toDouble(&ok);
    return ok && std::isfinite(value) && value >= kMinCpus && value <= kMaxCpus ? value : kDefaultCpus;
}

bool SandboxSettings::setCpus(double value) {
    if (!std::isfinite(value) || value < kMinCpus || value > kMaxCpus) {
        return false;
    }
    if (!qFuzzyCompare(cpus(), value)) {
        m_store.setValue(kCpus, value);
        Q_EMIT hardeningChanged();
    }
    return true;
}

int SandboxSettings::idleTimeoutMinutes() const {
    return boundedInt(kIdleTimeoutMinutes, kMinIdleTimeoutMinutes, kMaxIdleTimeoutMinutes, kDefaultIdleTimeoutMinutes);
}

bool SandboxSettings::setIdleTimeoutMinutes(int minutes) {
    if (minutes < kMinIdleTimeoutMinutes || minutes > kMaxIdleTimeoutMinutes) {
        return false;
    }
    if (idleTimeoutMinutes() != minutes) {
        m_store.setValue(kIdleTimeoutMinutes, minutes);
        Q_EMIT idleTimeoutMinutesChanged(minutes);
    }
    return true;
}

int SandboxSettings::maxContainers() const {
    return boundedInt(kMaxContainers, 1, kMaxLimit, kDefaultMaxContainers);
}

bool SandboxSettings::setMaxContainers(int value) {
    return setBoundedInt(kMaxContainers, value, 1, kMaxLimit, kDefaultMaxContainers);
}

int SandboxSettings::maxCallsPerSession() const {
    return boundedInt(kMaxCallsPerSession, 1, kMaxLimit, kDefaultMaxCallsPerSession);
}

bool SandboxSettings::setMaxCallsPerSession(int value) {
    return setBoundedInt(kMaxCallsPerSession, value, 1, kMaxLimit, kDefaultMaxCallsPerSession);
}

int SandboxSettings::maxCallsTotal() const {
    return boundedInt(kMaxCallsTotal, 1, kMaxLimit, kDefaultMaxCallsTotal);
}

bool SandboxSettings::setMaxCallsTotal(int value) {
    return setBoundedInt(kMaxCallsTotal, value, 1, kMaxLimit, kDefaultMaxCallsTotal);
}

int SandboxSettings::maxQueuedPerSession() const {
    return boundedInt(kMaxQueuedPerSession, 1, kMaxQueueLimit, kDefaultMaxQueuedPerSession);
}

bool SandboxSettings::setMaxQueuedPerSession(int value) {
    return setBoundedInt(kMaxQueuedPerSession, value, 1, kMaxQueueLimit, kDefaultMaxQueuedPerSession);
}

int SandboxSettings::maxQueuedTotal() const {
    return boundedInt(kMaxQueuedTotal, 1, kMaxQueueLimit, kDefaultMaxQueuedTotal);
}

bool SandboxSettings::setMaxQueuedTotal(int value) {
    return setBoundedInt(kMaxQueuedTotal, value, 1, kMaxQueueLimit, kDefaultMaxQueuedTotal);
}

int SandboxSettings::engineWaitSeconds() const {
    return boundedInt(kEngineWaitSeconds, kMinEngineWaitSeconds, kMaxEngineWaitSeconds, kDefaultEngineWaitSeconds);
}

bool SandboxSettings::setEngineWaitSeconds(int value) {
    return setBoundedInt(kEngineWaitSeconds, value, kMinEngineWaitSeconds, kMaxEngineWaitSeconds,
                         kDefaultEngineWaitSeconds);
}

}  // namespace zeus
