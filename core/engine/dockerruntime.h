#pragma once

#include "engine/ocicliruntime.h"

namespace zeus {

// Docker's CLI: `ps --format '{{json .}}'` prints JSON lines with labels as one
// "k=v,k=v" string; the died event is `die`.
class DockerRuntime : public OciCliRuntime {
public:
    DockerRuntime() { m_program = QStringLiteral("docker"); }
    RuntimeKind kind() const override { return RuntimeKind::Docker; }
    QStringList listArguments(const QString& ownerId) const override;
    QList<ContainerInfo> parseList(const QByteArray& output) const override;
};

}  // namespace zeus
