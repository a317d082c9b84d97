#pragma once

#include "engine/ocicliruntime.h"

namespace zeus {

// Podman's CLI: `ps --format json` prints one JSON array with labels as an object; the
// died event is `died`; rootless Podman maps the user with --userns=keep-id.
class PodmanRuntime : public OciCliRuntime {
public:
    PodmanRuntime() { m_program = QStringLiteral("podman"); }
    RuntimeKind kind() const override { return RuntimeKind::Podman; }
    QStringList listArguments(const QString& ownerId) const override;
    QList<ContainerInfo> parseList(const QByteArray& output) const override;
    // Podman copies the host's proxy variables (often with passwords in them) into every container unless told not
    // to: --http-proxy=false (SPEC §3).
    QStringList runArguments(const ContainerSpec& spec) const override;

protected:
    QStringList userArguments(const ContainerSpec& spec) const override;
};

}  // namespace zeus
