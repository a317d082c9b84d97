#include "runtime/runtimekind.h"

namespace zeus {

QString runtimeKindToString(RuntimeKind kind) {
    switch (kind) {
        case RuntimeKind::Apple:
            return QStringLiteral("apple");
        case RuntimeKind::Docker:
            return QStringLiteral("docker");
        case RuntimeKind::Podman:
            return QStringLiteral("podman");
    }
    return {};
}

std::optional<RuntimeKind> runtimeKindFromString(QStringView name) {
    const QStringView trimmed = name.trimmed();
    for (const RuntimeKind kind : runtimePriorityOrder()) {
        if (trimmed.compare(runtimeKindToString(kind), Qt::CaseInsensitive) == 0) {
            return kind;
        }
    }
    return std::nullopt;
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
    const std::optional<RuntimeKind> kind = preferredRuntime(preference);
    return kind ? runtimeKindToString(*kind) : QStringLiteral("auto");
}

std::optional<RuntimePreference> runtimePreferenceFromString(QStringView name) {
    const QStringView trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed.compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0) {
        return RuntimePreference::Auto;
    }
    const std::optional<RuntimeKind> kind = runtimeKindFromString(trimmed);
    if (!kind) {
        return std::nullopt;
    }
    switch (*kind) {
        case RuntimeKind::Apple:
            return RuntimePreference::Apple;
        case RuntimeKind::Docker:
            return RuntimePreference::Docker;
        case RuntimeKind::Podman:
            return RuntimePreference::Podman;
    }
    return std::nullopt;
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
