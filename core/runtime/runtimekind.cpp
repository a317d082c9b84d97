#include "runtime/runtimekind.h"

#include "support/vocabulary.h"

namespace zeus {

QString runtimeKindToString(RuntimeKind kind) {
    return wordOf(kind);
}

std::optional<RuntimeKind> runtimeKindFromString(QStringView name) {
    return fromWord<RuntimeKind>(name.trimmed(), Qt::CaseInsensitive);
}

QString runtimeDisplayName(RuntimeKind kind) {
    switch (kind) {
        case RuntimeKind::Apple:
            return QStringLiteral("Apple Containerization");
        case RuntimeKind::Docker:
            return QStringLiteral("Docker");
        case RuntimeKind::Podman:
            return QStringLiteral("Podman");
    }
    return {};
}

QString runtimeProgram(RuntimeKind kind) {
    switch (kind) {
        case RuntimeKind::Apple:
            return QStringLiteral("container");
        case RuntimeKind::Docker:
            return QStringLiteral("docker");
        case RuntimeKind::Podman:
            return QStringLiteral("podman");
    }
    return {};
}

QList<RuntimeKind> runtimePriorityOrder() {
    return {RuntimeKind::Apple, RuntimeKind::Docker, RuntimeKind::Podman};
}

QString runtimePreferenceToString(RuntimePreference preference) {
    return wordOf(preference);
}

std::optional<RuntimePreference> runtimePreferenceFromString(QStringView name) {
    const QStringView trimmed = name.trimmed();
    if (trimmed.isEmpty()) {
        return RuntimePreference::Auto;
    }
    return fromWord<RuntimePreference>(trimmed, Qt::CaseInsensitive);
}

std::optional<RuntimeKind> preferredRuntime(RuntimePreference preference) {
    switch (preference) {
        case RuntimePreference::Auto:
            return std::nullopt;
        case RuntimePreference::Apple:
            return RuntimeKind::Apple;
        case RuntimePreference::Docker:
            return RuntimeKind::Docker;
        case RuntimePreference::Podman:
            return RuntimeKind::Podman;
    }
    return std::nullopt;
}

}  // namespace zeus
