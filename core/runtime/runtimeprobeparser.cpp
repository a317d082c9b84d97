#include "runtime/runtimeprobeparser.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace zeus {

namespace {

// The first meaningful line of an error text, bounded, for a reason sentence.
QString firstLine(const QString& text) {
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        const QString trimmed = line.trimmed();
        if (!trimmed.isEmpty()) {
            return trimmed.size() > 300 ? trimmed.left(300) + QStringLiteral("...") : trimmed;
        }
    }
    return {};
}

RuntimeProbe baseProbe(RuntimeKind kind, const ProcessResult& result) {
    RuntimeProbe probe;
    probe.kind = kind;
    probe.binaryPath = result.resolvedPath;
    probe.steps.append(ProbeStep::fromProcessResult(result));
    return probe;
}

// Not started, timed out, crashed: the same meaning for every CLI. True when it decided.
bool classifyProcessFailure(const ProcessResult& result, RuntimeProbe& probe) {
    const QString program = result.program;
    if (!result.started) {
        probe.state = RuntimeProbe::State::NotInstalled;
        probe.reason =
            QCoreApplication::translate("zeus::RuntimeProbe",
                                        "%1 is not installed (%2 was not found on PATH or could not be started).")
                .arg(runtimeDisplayName(probe.kind), program);
        return true;
    }
    if (result.timedOut) {
        probe.state = RuntimeProbe::State::TimedOut;
        probe.reason =
            QCoreApplication::translate("zeus::RuntimeProbe", "`%1` did not answer within %2 ms and was stopped.")
                .arg(result.argv().join(QLatin1Char(' ')))
                .arg(result.durationMs);
        return true;
    }
    if (result.crashed) {
        probe.state = RuntimeProbe::State::Unparseable;
        probe.reason = QCoreApplication::translate("zeus::RuntimeProbe", "`%1` crashed: %2")
                           .arg(result.argv().join(QLatin1Char(' ')), result.errorString);
        return true;
    }
    return false;
}

bool containsAny(const QString& text, std::initializer_list<const char*> needles) {
    for (const char* needle : needles) {
        if (text.contains(QLatin1String(needle), Qt::CaseInsensitive)) {
            return true;
        }
    }
    return false;
}

QString stringAt(const QJsonObject& object, std::initializer_list<const char*> path) {
    QJsonValue value = object;
    for (const char* key : path) {
        value = value.toObject().value(QLatin1String(key));
    }
    return value.isString() ? value.toString() : QString();
}

void applyRuncCheck(RuntimeProbe& probe, const QString& engineName) {
    const RuncCheck check = checkRuncVersion(probe.runcVersion);
    if (!check.acceptable) {
        probe.state = RuntimeProbe::State::Unsupported;
        probe.reason =
            QCoreApplication::translate("zeus::RuntimeProbe",
                                        "%1 uses runc %2, older than %3 (CVE-2024-21626); upgrade the engine and runc.")
                .arg(engineName, check.version.toString(), minimumRuncVersion().toString());
    }
}

}  // namespace

QVersionNumber minimumRuncVersion() {
    return QVersionNumber(1, 1, 12);
}

RuncCheck checkRuncVersion(const QString& reported) {
    RuncCheck check;
    static const QRegularExpression versionPattern(QStringLiteral("(\\d+)\\.(\\d+)\\.(\\d+)"));
    const QRegularExpressionMatch match = versionPattern.match(reported);
    if (!match.hasMatch()) {
        return check;  // empty, "N/A" or a bare commit hash: nothing to prove
    }
    check.known = true;
    check.version = QVersionNumber(match.captured(1).toInt(), match.captured(2).toInt(), match.captured(3).toInt());
    if (check.version >= minimumRuncVersion()) {
        return check;
    }
    // Distributions backport the fix without moving the upstream version. Only builds whose
    // changelog names CVE-2024-21626 are listed; add others with the same evidence.
    struct PatchedBuild {
        QVersionNumber upstream;
        const char* pattern;  // the first capture is the revision; the fix is in revision >= minimum
        int minimumRevision;
    };
    static const PatchedBuild patchedBuilds[] = {
        // Debian 12 bookworm-security: runc 1.1.5+ds1-1+deb12u1 (DSA-5615-1, 2024-02-02).
        {QVersionNumber(1, 1, 5), R"(\+ds1-1\+deb12u(\d+))", 1},
    };
    for (const PatchedBuild& build : patchedBuilds) {
        if (check.version != build.upstream) {
            continue;
        }
        const QRegularExpressionMatch revision = QRegularExpression(QLatin1String(build.pattern)).match(reported);
        if (revision.hasMatch() && revision.captured(1).toInt() >= build.minimumRevision) {
            check.patchedBuild = true;
            return check;
        }
    }
    check.acceptable = false;
    return check;
}

std::optional<QJsonObject> parseJsonObjectTolerant(const QByteArray& output) {
    const QByteArray trimmed = output.trimmed();
    if (trimmed.isEmpty()) {
        return std::nullopt;
    }
    QJsonParseError error{};
    const QJsonDocument whole = QJsonDocument::fromJson(trimmed, &error);
    if (error.error == QJsonParseError::NoError) {
        if (whole.isObject()) {
            return whole.object();
        }
        if (whole.isArray() && !whole.array().isEmpty() && whole.array().first().isObject()) {
            return whole.array().first().toObject();
        }
        return std::nullopt;
    }
    const QList<QByteArray> lines = trimmed.split('\n');
    for (const QByteArray& line : lines) {
        const QByteArray candidate = line.trimmed();
        if (!candidate.startsWith('{')) {
            continue;
        }
        const QJsonDocument document = QJsonDocument::fromJson(candidate, &error);
        if (error.error == QJsonParseError::NoError && document.isObject()) {
            return document.object();
        }
    }
    return std::nullopt;
}

RuntimeProbe classifyDockerInfo(const ProcessResult& info) {
    RuntimeProbe probe = baseProbe(RuntimeKind::Docker, info);
    if (classifyProcessFailure(info, probe)) {
        return probe;
    }

    const std::optional<QJsonObject> json = parseJsonObjectTolerant(info.standardOutput);
    if (json) {
        probe.clientVersion = stringAt(*json, {"ClientInfo", "Version"});
    }

    // Client 20.10 exits 0 and reports an unreachable daemon in ServerErrors; client 23+
    // exits 1 with the message on stderr. Read both.
    QStringList errors;
    if (json) {
        const QJsonArray serverErrors = json->value(QLatin1String("ServerErrors")).toArray();
        for (const QJsonValue error : serverErrors) {
            errors.append(error.toString());
        }
    }
    const QString standardError = QString::fromUtf8(info.standardError).trimmed();
    if (!standardError.isEmpty()) {
        errors.append(standardError);
    }
    const QString errorText = errors.join(QLatin1Char('\n'));
    const QString serverVersion = json ? json->value(QLatin1String("ServerVersion")).toString() : QString();

    if (serverVersion.isEmpty() || info.exitCode != 0) {
        if (containsAny(errorText, {"permission denied", "access is denied"})) {
            probe.state = RuntimeProbe::State::PermissionDenied;
            probe.reason = QCoreApplication::translate(
                               "zeus::RuntimeProbe",
                               "Permission denied while connecting to the Docker daemon: this user may not use its "
                               "socket (%1)")
                               .arg(firstLine(errorText));
            return probe;
        }
        if (containsAny(errorText,
                        {"Cannot connect to the Docker daemon", "Is the docker daemon running", "error during connect",
                         "docker daemon is not running", "The system cannot find the file specified"})) {
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason = QCoreApplication::translate("zeus::RuntimeProbe",
                                                       "Docker is installed but its daemon is not running (%1)")
                               .arg(firstLine(errorText));
            return probe;
        }
        if (!errorText.isEmpty() && (info.exitCode != 0 || json)) {
            // An error we do not know by name (a broken context, a TLS problem): the engine
            // is not reachable, and the reason carries the CLI's own words.
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason = QCoreApplication::translate("zeus::RuntimeProbe",
                                                       "The Docker daemon is not reachable (exit code %1): %2")
                               .arg(info.exitCode)
                               .arg(firstLine(errorText));
            return probe;
        }
        // Exit 0 with something that is not docker info, or a failure that says nothing.
        probe.state = RuntimeProbe::State::Unparseable;
        probe.reason =
            json ? QCoreApplication::translate("zeus::RuntimeProbe", "`docker info` answered without a server version.")
                 : QCoreApplication::translate("zeus::RuntimeProbe",
                                               "`docker info` printed no readable JSON (exit code %1).")
                       .arg(info.exitCode);
        return probe;
    }

    probe.serverVersion = serverVersion;
    probe.os = json->value(QLatin1String("OperatingSystem")).toString();
    if (probe.os.isEmpty()) {
        probe.os = json->value(QLatin1String("OSType")).toString();
    }
    probe.arch = json->value(QLatin1String("Architecture")).toString();
    const QJsonArray securityOptions = json->value(QLatin1String("SecurityOptions")).toArray();
    bool rootless = false;
    for (const QJsonValue option : securityOptions) {
        if (option.toString().split(QLatin1Char(',')).contains(QLatin1String("name=rootless"))) {
            rootless = true;
        }
    }
    probe.rootless = rootless;
    // Docker reads these from its cgroup mounts; false means it would drop the flag with a warning.
    const auto flag = [&json](const char* key) -> std::optional<bool> {
        const QJsonValue value = json->value(QLatin1String(key));
        return value.isBool() ? std::optional<bool>(value.toBool()) : std::nullopt;
    };
    probe.limits.memory = flag("MemoryLimit");
    probe.limits.pids = flag("PidsLimit");
    probe.limits.cpus = flag("CpuCfsQuota");
    probe.runcVersion = stringAt(*json, {"RuncCommit", "ID"});
    probe.state = RuntimeProbe::State::Ready;
    applyRuncCheck(probe, QStringLiteral("Docker %1").arg(serverVersion));
    return probe;
}

RuntimeProbe classifyPodmanInfo(const ProcessResult& info) {
    RuntimeProbe probe = baseProbe(RuntimeKind::Podman, info);
    if (classifyProcessFailure(info, probe)) {
        return probe;
    }
    const QString errorText = QString::fromUtf8(info.standardError).trimmed();
    if (info.exitCode != 0) {
        if (containsAny(errorText, {"permission denied", "operation not permitted", "access is denied"})) {
            probe.state = RuntimeProbe::State::PermissionDenied;
            probe.reason = QCoreApplication::translate("zeus::RuntimeProbe", "Podman may not be used by this user (%1)")
                               .arg(firstLine(errorText));
        } else if (containsAny(errorText, {"Cannot connect to Podman", "unable to connect to Podman",
                                           "podman machine start", "connection refused"})) {
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason =
                QCoreApplication::translate("zeus::RuntimeProbe",
                                            "Podman is installed but its service or machine is not running (%1)")
                    .arg(firstLine(errorText));
        } else {
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason = QCoreApplication::translate("zeus::RuntimeProbe", "`podman info` failed (exit code %1): %2")
                               .arg(info.exitCode)
                               .arg(firstLine(errorText));
        }
        return probe;
    }

    const std::optional<QJsonObject> json = parseJsonObjectTolerant(info.standardOutput);
    const QJsonObject host = json ? json->value(QLatin1String("host")).toObject() : QJsonObject();
    const QString version = json ? stringAt(*json, {"version", "Version"}) : QString();
    if (!json || host.isEmpty() || version.isEmpty()) {
        probe.state = RuntimeProbe::State::Unparseable;
        probe.reason = QCoreApplication::translate("zeus::RuntimeProbe", "`podman info` printed no readable JSON.");
        return probe;
    }
    probe.serverVersion = version;
    // Local Podman is one binary: client and engine are the same version. Remote, the
    // answer describes the service only.
    if (!host.value(QLatin1String("serviceIsRemote")).toBool()) {
        probe.clientVersion = version;
    }
    probe.os = host.value(QLatin1String("os")).toString();
    const QJsonObject distribution = host.value(QLatin1String("distribution")).toObject();
    const QString distributionName = distribution.value(QLatin1String("distribution")).toString();
    if (!distributionName.isEmpty()) {
        probe.os = QStringLiteral("%1 (%2 %3)")
                       .arg(probe.os, distributionName, distribution.value(QLatin1String("version")).toString())
                       .trimmed();
    }
    probe.arch = host.value(QLatin1String("arch")).toString();
    const QJsonValue rootless = host.value(QLatin1String("security")).toObject().value(QLatin1String("rootless"));
    if (rootless.isBool()) {
        probe.rootless = rootless.toBool();
    }
    // The controllers this user may use: rootless Podman on cgroup v1 gets none (limits are ignored), and on
    // cgroup v2 only those systemd delegates to the user.
    const QJsonValue controllers = host.value(QLatin1String("cgroupControllers"));
    if (controllers.isArray()) {
        QStringList names;
        for (const QJsonValue controller : controllers.toArray()) {
            names.append(controller.toString());
        }
        probe.limits.memory = names.contains(QLatin1String("memory"));
        probe.limits.pids = names.contains(QLatin1String("pids"));
        probe.limits.cpus = names.contains(QLatin1String("cpu"));
    }
    const QJsonObject ociRuntime = host.value(QLatin1String("ociRuntime")).toObject();
    probe.state = RuntimeProbe::State::Ready;
    // The runc rule concerns runc; crun and others are not judged by it.
    if (ociRuntime.value(QLatin1String("name")).toString() == QLatin1String("runc")) {
        probe.runcVersion = ociRuntime.value(QLatin1String("version")).toString();
        applyRuncCheck(probe, QStringLiteral("Podman %1").arg(version));
    }
    return probe;
}

QString parseAppleCliVersion(const QByteArray& output) {
    static const QRegularExpression pattern(QStringLiteral("container CLI version (\\S+)"));
    const QRegularExpressionMatch match = pattern.match(QString::fromUtf8(output));
    return match.hasMatch() ? match.captured(1) : QString();
}

bool appleVersionStepPasses(const ProcessResult& version) {
    return version.succeeded() && !parseAppleCliVersion(version.standardOutput).isEmpty();
}

QStringList appleStatusArguments(const QString& cliVersion) {
    QStringList arguments{QStringLiteral("system"), QStringLiteral("status")};
    if (QVersionNumber::fromString(cliVersion) >= QVersionNumber(0, 10, 0)) {
        arguments << QStringLiteral("--format") << QStringLiteral("json");
    }
    return arguments;
}

RuntimeProbe classifyApple(const ProcessResult& version, const std::optional<ProcessResult>& status) {
    RuntimeProbe probe = baseProbe(RuntimeKind::Apple, version);
    if (classifyProcessFailure(version, probe)) {
        return probe;
    }
    // Apple's containers run in VMs of this Mac, which share its folders: never remote.
    probe.location.kind = EngineLocation::Kind::Local;
    probe.clientVersion = parseAppleCliVersion(version.standardOutput);
    if (version.exitCode != 0 || probe.clientVersion.isEmpty()) {
        probe.state = RuntimeProbe::State::Unparseable;
        probe.reason = QCoreApplication::translate("zeus::RuntimeProbe",
                                                   "`container --version` gave no version (exit code %1): %2")
                           .arg(version.exitCode)
                           .arg(firstLine(QString::fromUtf8(version.standardOutput + version.standardError)));
        return probe;
    }
    if (!status) {
        probe.state = RuntimeProbe::State::Unparseable;
        probe.reason = QCoreApplication::translate("zeus::RuntimeProbe", "`container system status` was not run.");
        return probe;
    }
    probe.steps.append(ProbeStep::fromProcessResult(*status));
    if (classifyProcessFailure(*status, probe)) {
        return probe;
    }

    const QString output = QString::fromUtf8(status->standardOutput + status->standardError);
    const std::optional<QJsonObject> json = parseJsonObjectTolerant(status->standardOutput);
    if (json && json->value(QLatin1String("status")).isString()) {
        // 0.10.0+: the JSON decides. (Never grep for "running": it matches "not running".)
        const QString value = json->value(QLatin1String("status")).toString();
        probe.serverVersion = json->value(QLatin1String("apiServerVersion")).toString();
        if (probe.serverVersion.isEmpty()) {
            probe.serverVersion = stringAt(*json, {"server", "version"});  // reported 1.4 shape
        }
        if (value == QLatin1String("running")) {
            probe.state = RuntimeProbe::State::Ready;
        } else if (value == QLatin1String("not running")) {
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason = QCoreApplication::translate(
                "zeus::RuntimeProbe", "Apple Containerization is installed but its service is not running.");
        } else if (value == QLatin1String("unregistered")) {
            probe.state = RuntimeProbe::State::NotRunning;
            probe.reason = QCoreApplication::translate(
                "zeus::RuntimeProbe",
                "Apple Containerization is installed but its service is not registered with launchd "
                "(never started).");
        } else {
            probe.state = RuntimeProbe::State::Unparseable;
            probe.reason = QCoreApplication::translate("zeus::RuntimeProbe",
                                                       "`container system status` reported an unknown status: %1")
                               .arg(value);
        }
        return probe;
    }

    // Before 0.10.0 there is no JSON: the exit code decides (0 running, 1 not running).
    if (status->exitCode == 0) {
        probe.state = RuntimeProbe::State::Ready;
        static const QRegularExpression serverVersionPattern(
            QStringLiteral("^(?:container-apiserver version:|apiserver\\.version)\\s+(\\S+)"),
            QRegularExpression::MultilineOption);
        const QRegularExpressionMatch match = serverVersionPattern.match(output);
        if (match.hasMatch()) {
            probe.serverVersion = match.captured(1);
        }
        return probe;
    }
    if (status->exitCode == 1) {
        probe.state = RuntimeProbe::State::NotRunning;
        probe.reason =
            QCoreApplication::translate("zeus::RuntimeProbe",
                                        "Apple Containerization is installed but its service is not running (%1)")
                .arg(firstLine(output));
        return probe;
    }
    probe.state = RuntimeProbe::State::Unparseable;
    probe.reason =
        QCoreApplication::translate("zeus::RuntimeProbe", "`container system status` failed (exit code %1): %2")
            .arg(status->exitCode)
            .arg(firstLine(output));
    return probe;
}

}  // namespace zeus
