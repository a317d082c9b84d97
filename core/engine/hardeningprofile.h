#pragma once

#include <QString>

#include <optional>

namespace zeus {

// How tightly a session's container is locked down (SPEC §3). Standard keeps the network
// open so package managers work; Hardened adds a read-only root and no network.
enum class HardeningProfile { Standard, Hardened };

// "standard" / "hardened".
QString hardeningProfileName(HardeningProfile profile);
// Parses a profile name (case-insensitive); nullopt for anything else.
std::optional<HardeningProfile> parseHardeningProfile(const QString& name);

}  // namespace zeus
