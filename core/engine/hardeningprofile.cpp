#include "engine/hardeningprofile.h"

#include "support/vocabulary.h"

namespace zeus {

QString hardeningProfileName(HardeningProfile profile) {
    return wordOf(profile);
}

std::optional<HardeningProfile> parseHardeningProfile(const QString& name) {
    return fromWord<HardeningProfile>(QStringView(name).trimmed(), Qt::CaseInsensitive);
}

}  // namespace zeus
