#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QStringView>

#include <optional>

namespace zeus {

// The enums' own namespace holds their word tables (support/vocabulary.h); zeus uses them by their names.
namespace runtimewords {
Q_NAMESPACE

// The container runtimes the app can drive, in detection priority order.
// Their words (apple, docker, podman) are part of the backend protocol (hello.runtime.kind),
// settings and the command line: never rename a key.
enum class RuntimeKind { Apple, Docker, Podman };
Q_ENUM_NS(RuntimeKind)

// A user's choice: Auto follows the priority order, the others force one runtime. Words: auto, apple, docker,
// podman (settings, --runtime).
enum class RuntimePreference { Auto, Apple, Docker, Podman };
Q_ENUM_NS(RuntimePreference)

}  // namespace runtimewords

using runtimewords::RuntimeKind;
using runtimewords::RuntimePreference;

QString runtimeKindToString(RuntimeKind kind);
std::optional<RuntimeKind> runtimeKindFromString(QStringView name);
// For people: "Apple Containerization", "Docker", "Podman".
QString runtimeDisplayName(RuntimeKind kind);
// The CLI that drives it: "container", "docker", "podman".
QString runtimeProgram(RuntimeKind kind);
// Apple > Docker > Podman.
QList<RuntimeKind> runtimePriorityOrder();

QString runtimePreferenceToString(RuntimePreference preference);
// Accepts "auto", "apple", "docker", "podman" (case-insensitive, surrounding blanks
// ignored); an empty string means Auto. Anything else: nullopt.
std::optional<RuntimePreference> runtimePreferenceFromString(QStringView name);
// The runtime a preference forces, or nullopt for Auto.
std::optional<RuntimeKind> preferredRuntime(RuntimePreference preference);

}  // namespace zeus
