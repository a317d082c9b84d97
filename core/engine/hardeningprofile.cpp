#include "engine/hardeningprofile.h"

namespace zeus {

QString hardeningProfileName(HardeningProfile profile) {
    return profile == HardeningProfile::Hardened ? QStringLiteral("hardened") : QStringLiteral("standard");
}

std::optional<HardeningProfile> parseHardeningProfile(const QString& name) {
    const QString n = name.trimmed().toLower();
    if (n == QLatin1String("standard")) {
        return HardeningProfile::Standard;
    }
    if (n == QLatin1String("hardened")) {
        return HardeningProfile::Hardened;
    }
    return std::nullopt;
}

}  // namespace zeus
