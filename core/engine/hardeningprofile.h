#pragma once

#include <QObject>
#include <QString>

#include <optional>

namespace zeus {

// The enum's own namespace holds its word table (support/vocabulary.h); zeus uses it by its name.
namespace hardeningwords {
Q_NAMESPACE

// How tightly a session's container is locked down (SPEC §3). Standard keeps the network
// open so package managers work; Hardened adds a read-only root and no network.
// Words: standard, hardened (settings, --profile).
enum class HardeningProfile { Standard, Hardened };
Q_ENUM_NS(HardeningProfile)

}  // namespace hardeningwords

using hardeningwords::HardeningProfile;

// Its word.
QString hardeningProfileName(HardeningProfile profile);
// Parses a profile's word (case-insensitive, surrounding blanks ignored); nullopt for anything else.
std::optional<HardeningProfile> parseHardeningProfile(const QString& name);

}  // namespace zeus
