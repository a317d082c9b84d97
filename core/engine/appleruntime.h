#pragma once

#include "engine/containerruntime.h"

#include <QVersionNumber>

namespace zeus {

// Apple's `container` CLI (macOS 26, one VM per container). It owns the version gates of
// the flags (reference/apple-container-cli.md): a flag is only emitted by a CLI version
// that accepts it, and a profile that needs a missing flag is refused, never weakened.
// There is no --pids-limit or --security-opt: the VM boundary takes their place.
class AppleRuntime : public ContainerRuntime {
public:
    AppleRuntime() { m_program = QStringLiteral("container"); }
    RuntimeKind kind() const override { return RuntimeKind::Apple; }

    // The CLI's version (from `container --version`); unknown = assume the newest.
    void setVersion(const QVersionNumber& version) { m_version = version; }
    QVersionNumber version() const { return m_version; }

    QString unsupportedReason(const ContainerSpec& spec) const override;
    QStringList runArguments(const ContainerSpec& spec) const override;
    QStringList execArguments(const QString& container, const QStringList& command) const override;
    QStringList execWithStdinArguments(const QString& container, const QStringList& command) const override;
    QStringList execWithStdinArguments(const QString& container, const QStringList& command,
                                       const QStringList& inheritedNames) const override;
    QStringList logsArguments(const QString& container, int lines) const override;
    QStringList removeArguments(const QStringList& containers) const override;
    // `list --all --format json` cannot filter by label: the caller filters by the owner label.
    QStringList listArguments(const QString& ownerId) const override;
    QList<ContainerInfo> parseList(const QByteArray& output) const override;
    QStringList inspectArguments(const QString& container) const override;
    QList<ContainerInfo> parseInspectAll(const QByteArray& output) const override;
    QStringList imageExistsArguments(const QString& image) const override;

    // The server refuses less than 200 MiB; smaller limits are raised to it.
    static QString memoryArgument(const QString& memory);

private:
    bool atLeast(int major, int minor) const;
    QVersionNumber m_version;
};

}  // namespace zeus
