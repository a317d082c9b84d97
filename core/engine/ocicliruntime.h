#pragma once

#include "engine/containerruntime.h"

namespace zeus {

// What Docker and Podman share: the same run/exec/rm/inspect flags (SPEC §3 profiles).
// It owns the hardening flags; subclasses only differ in list output, events and the
// rootless user mapping. It must never emit --privileged, an engine socket mount, a host
// namespace or seccomp=unconfined.
class OciCliRuntime : public ContainerRuntime {
public:
    QStringList runArguments(const ContainerSpec& spec) const override;
    QStringList execArguments(const QString& container, const QStringList& command) const override;
    QStringList execWithStdinArguments(const QString& container, const QStringList& command) const override;
    QStringList execWithStdinArguments(const QString& container, const QStringList& command,
                                       const QStringList& inheritedNames) const override;
    QStringList removeArguments(const QStringList& containers) const override;
    QStringList execAsRootArguments(const QString& container, const QStringList& command) const override;
    QStringList inspectArguments(const QString& container) const override;
    QList<ContainerInfo> parseInspectAll(const QByteArray& output) const override;
    QStringList eventsArguments(const QString& ownerId, const QDateTime& since = {}) const override;
    std::optional<ContainerEvent> parseEvent(const QByteArray& line) const override;
    QStringList statsArguments(const QStringList& containerIds) const override;
    QList<ContainerStats> parseStats(const QByteArray& output) const override;
    QStringList imageExistsArguments(const QString& image) const override;

    // The --mount value; a source holding a comma or a double quote is CSV-quoted, because
    // both engines read --mount as one CSV record.
    static QString bindMountValue(const QString& source, const QString& target);

protected:
    // The flags that map the host user into the container.
    virtual QStringList userArguments(const ContainerSpec& spec) const;
};

}  // namespace zeus
