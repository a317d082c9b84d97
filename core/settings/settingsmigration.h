#pragma once

#include <QLatin1String>

class QSettings;

namespace zeus {

// Brings a settings store an earlier version wrote to today's format, once, when AppSettings opens it, and
// records the format it left (kFormatVersion), so the next opening does nothing.
//
//   1  (no kFormatVersion) - each per-folder store was one value: JSON text under workspaces/modes and
//      approval/folders, a map under network/folderAllow;
//   2  - those are settings arrays of {folder, ...} (FolderPolicies, NetworkSettings): readable and editable in
//      the file like every other key.
//
// Must never: interpret what it moves (the views' readers sanitise, so a damaged entry reads after the migration
// exactly as it read before), or touch a store already at (or past) kCurrentFormat.
class SettingsMigration {
public:
    static const QLatin1String kFormatVersion;
    static constexpr int kCurrentFormat = 2;

    // Version 1's keys, replaced in version 2.
    static const QLatin1String kVersion1WorkspaceModes;    // JSON text: {"<folder>": "review"}
    static const QLatin1String kVersion1ApprovalPolicies;  // JSON text: {"<folder>": {"mode", "allow", ...}}
    static const QLatin1String kVersion1FolderAllow;       // a map in one value: folder -> rules

    // Migrates `store` to kCurrentFormat; returns the format it found.
    static int run(QSettings& store);

private:
    // Each moves one of version 1's keys, if the store has it (true), and removes it.
    static bool moveWorkspaceModes(QSettings& store);
    static bool moveApprovalPolicies(QSettings& store);
    static bool moveFolderAllow(QSettings& store);
};

}  // namespace zeus
