#include "diagnosticsections.h"

#include "diagnosticsreport.h"
#include "engine/containerspec.h"
#include "sandbox/hostcertificates.h"
#include "support/vocabulary.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QMetaEnum>

namespace zeus {

namespace {

constexpr const char* kContext = "zeus::DiagnosticSections";

QString tr(const char* text) {
    return QCoreApplication::translate(kContext, text);
}

using Level = DiagnosticCheck::Level;

DiagnosticCheck row(const char* id, Level level, const QString& summary, const QString& action = QString()) {
    return DiagnosticCheck{QString::fromLatin1(id), level, summary, level == Level::Ok ? QString() : action};
}

// What to do, from install guidance: the advice, then the command(s) to run.
QString actionFrom(const InstallGuidance& guidance) {
    QStringList lines{guidance.summary};
    lines << guidance.commands;
    return lines.join(QLatin1Char('\n')).trimmed();
}

QJsonValue optionalBool(const std::optional<bool>& value) {
    return value ? QJsonValue(*value) : QJsonValue();
}

// The probe the report leads with when nothing is usable: the preferred runtime's, else the first that is
// installed (closer to working than installing another). Null when nothing is installed.
const RuntimeProbe* decidingProbe(const DetectionResult& detection) {
    if (const RuntimeProbe* chosen = detection.chosenProbe()) {
        return chosen;
    }
    if (const std::optional<RuntimeKind> preferred = preferredRuntime(detection.preference)) {
        return detection.probe(*preferred);
    }
    for (const RuntimeProbe& probe : detection.probes) {
        if (probe.state != RuntimeProbe::State::NotInstalled) {
            return &probe;
        }
    }
    return nullptr;
}

QString versioned(const RuntimeProbe& probe) {
    return probe.clientVersion.isEmpty() ? runtimeDisplayName(probe.kind)
                                         : runtimeDisplayName(probe.kind) + QLatin1Char(' ') + probe.clientVersion;
}

}  // namespace

QStringList DiagnosticSections::checkOrder() {
    return {QStringLiteral("runtime"),  QStringLiteral("engine"),          QStringLiteral("image"),
            QStringLiteral("agent"),    QStringLiteral("resource_limits"), QStringLiteral("workspaces"),
            QStringLiteral("keychain"), QStringLiteral("bound_secrets"),   QStringLiteral("backend")};
}

QString DiagnosticSections::checkTitle(const QString& id) {
    static const QHash<QString, const char*> titles = {
        {QStringLiteral("runtime"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Container runtime")},
        {QStringLiteral("engine"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Engine reachable")},
        {QStringLiteral("image"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Sandbox image")},
        {QStringLiteral("agent"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Sandbox agent")},
        {QStringLiteral("resource_limits"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Resource limits")},
        {QStringLiteral("workspaces"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Approved folders")},
        {QStringLiteral("keychain"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Keychain")},
        {QStringLiteral("bound_secrets"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Host-bound secrets")},
        {QStringLiteral("backend"), QT_TRANSLATE_NOOP("zeus::DiagnosticSections", "Backend connection")},
    };
    const char* title = titles.value(id);
    return title ? tr(title) : id;
}

QList<DiagnosticCheck> DiagnosticSections::runtimeChecks(const std::optional<DetectionResult>& detection,
                                                         InstallGuidance::Os os) {
    if (!detection) {
        return {row("runtime", Level::Warning, tr("Container runtime detection has not finished yet."),
                    tr("Wait a few seconds, or press Re-check Runtimes.")),
                row("engine", Level::Warning, tr("Not checked: runtime detection has not finished."),
                    tr("Wait a few seconds, or press Re-check Runtimes."))};
    }
    QList<DiagnosticCheck> checks;
    const RuntimeProbe* probe = decidingProbe(*detection);
    const std::optional<InstallGuidance> guidance = DiagnosticsReport::overallGuidance(*detection, os);
    const QString overallAction = guidance ? actionFrom(*guidance) : QString();
    if (!probe || probe->state == RuntimeProbe::State::NotInstalled) {
        checks << row("runtime", Level::Failed, detection->reason, overallAction);
        checks << row("engine", Level::Warning, tr("Not checked: no container runtime is installed."),
                      tr("Install a container runtime first (see the runtime check)."));
        return checks;
    }
    const QString where = probe->binaryPath.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(probe->binaryPath);
    if (probe->state == RuntimeProbe::State::Unsupported) {
        checks << row("runtime", Level::Failed, probe->reason,
                      actionFrom(InstallGuidance::lookup(probe->kind, probe->state, os)));
    } else if (detection->isUsable()) {
        checks << row("runtime", Level::Ok, tr("Using %1%2.").arg(versioned(*probe), where));
    } else {
        checks << row("runtime", Level::Ok, tr("%1 is installed%2.").arg(versioned(*probe), where));
    }
    switch (probe->state) {
        case RuntimeProbe::State::Ready:
        case RuntimeProbe::State::Unsupported: {
            QStringList facts;
            if (!probe->serverVersion.isEmpty()) {
                facts << tr("server %1").arg(probe->serverVersion);
            }
            if (!probe->os.isEmpty()) {
                facts << probe->os;
            }
            if (!probe->arch.isEmpty()) {
                facts << probe->arch;
            }
            if (probe->rootless) {
                facts << (*probe->rootless ? tr("rootless") : tr("rootful"));
            }
            if (probe->location.kind != EngineLocation::Kind::Unknown) {
                facts << probe->location.label();
            }
            checks << row("engine", Level::Ok,
                          facts.isEmpty()
                              ? tr("The %1 engine answers.").arg(runtimeDisplayName(probe->kind))
                              : tr("The %1 engine answers: %2.")
                                    .arg(runtimeDisplayName(probe->kind), facts.join(QStringLiteral(", "))));
            break;
        }
        default:
            checks << row("engine", Level::Failed, probe->reason,
                          actionFrom(InstallGuidance::lookup(probe->kind, probe->state, os)));
            break;
    }
    return checks;
}

DiagnosticSection DiagnosticSections::sandbox(const SandboxFacts& facts) {
    QJsonObject sandbox;
    sandbox.insert(QStringLiteral("image"), facts.image);
    sandbox.insert(QStringLiteral("profile"), facts.profile);
    sandbox.insert(QStringLiteral("pids_limit"), facts.pidsLimit);
    sandbox.insert(QStringLiteral("memory_mib"), facts.memoryMiB);
    sandbox.insert(QStringLiteral("cpus"), facts.cpus);
    sandbox.insert(QStringLiteral("idle_timeout_minutes"), facts.idleTimeoutMinutes);
    sandbox.insert(QStringLiteral("runtime_preference"), facts.runtimePreference);
    sandbox.insert(QStringLiteral("approved_workspaces"), QJsonArray::fromStringList(facts.approvedWorkspaces));
    sandbox.insert(QStringLiteral("workspace_for_this_run"), facts.workspaceForThisRun);
    sandbox.insert(QStringLiteral("settings_file"), facts.settingsFile);
    sandbox.insert(QStringLiteral("bounds"),
                   QJsonObject{{QStringLiteral("containers"), facts.maxContainers},
                               {QStringLiteral("running_per_session"), facts.maxCallsPerSession},
                               {QStringLiteral("running_total"), facts.maxCallsTotal},
                               {QStringLiteral("queued_per_session"), facts.maxQueuedPerSession},
                               {QStringLiteral("queued_total"), facts.maxQueuedTotal},
                               {QStringLiteral("engine_wait_seconds"), facts.engineWaitSeconds}});
    if (facts.load) {
        const SandboxFacts::Load& load = *facts.load;
        sandbox.insert(QStringLiteral("load"), QJsonObject{{QStringLiteral("running"), load.running},
                                                           {QStringLiteral("queued"), load.queued},
                                                           {QStringLiteral("containers"), load.containers},
                                                           {QStringLiteral("peak_running"), load.peakRunning},
                                                           {QStringLiteral("peak_queued"), load.peakQueued},
                                                           {QStringLiteral("peak_containers"), load.peakContainers}});
    }
    // No text of its own: the report shows these fields as they are (the JSON), for support staff.
    return DiagnosticSection{QStringLiteral("sandbox"), tr("Sandbox"), sandbox, QString(), {}};
}

void DiagnosticSections::setBounds(SandboxFacts& facts, const SandboxConfig& config) {
    facts.maxContainers = config.maxContainers;
    facts.maxCallsPerSession = config.maxCallsPerSession;
    facts.maxCallsTotal = config.maxCallsTotal;
    facts.maxQueuedPerSession = config.maxQueuedPerSession;
    facts.maxQueuedTotal = config.maxQueuedTotal;
    facts.engineWaitSeconds = config.engineWaitMs / 1000;
}

QString DiagnosticSections::sandboxImageTitle() {
    return QStringLiteral("Zeus Desktop sandbox");
}

QString DiagnosticSections::offlineTestImageTitle() {
    return QStringLiteral("zeus-desktop-sandbox-offline-test");
}

DiagnosticSections::ImageKind DiagnosticSections::classifyImage(const ImageInspection& inspection) {
    const QString title = inspection.labels.value(QStringLiteral("org.opencontainers.image.title"));
    // docker/ensure-image.sh's last resort (neither a registry nor the distribution's archive answered) says so.
    if (inspection.labels.value(QStringLiteral("zeus.image.source")) == QLatin1String("busybox-fallback")) {
        return ImageKind::OfflineTest;
    }
    if (title == sandboxImageTitle()) {
        return ImageKind::Sandbox;
    }
    if (title == offlineTestImageTitle()) {
        return ImageKind::OfflineTest;
    }
    // The test harness imports the test image with no labels at all; the real image is always built, never
    // imported, and always carries its title.
    if (inspection.labels.isEmpty() && inspection.comment.startsWith(QLatin1String("imported"), Qt::CaseInsensitive)) {
        return ImageKind::OfflineTest;
    }
    return ImageKind::Custom;
}

QString DiagnosticSections::imageKindToString(ImageKind kind) {
    switch (kind) {
        case ImageKind::Sandbox:
            return QStringLiteral("sandbox");
        case ImageKind::OfflineTest:
            return QStringLiteral("offline_test");
        case ImageKind::Custom:
            return QStringLiteral("custom");
    }
    return QStringLiteral("custom");
}

DiagnosticSection DiagnosticSections::image(const ImageFacts& facts) {
    QJsonObject value;
    value.insert(QStringLiteral("image"), facts.image);
    QStringList text{tr("Image: %1").arg(facts.image)};
    DiagnosticCheck check;
    if (facts.runtimeName.isEmpty()) {
        value.insert(QStringLiteral("outcome"), QStringLiteral("not_checked"));
        check = row("image", Level::Warning, tr("Not checked: no usable container runtime."),
                    tr("Fix the container runtime first (see the checks above)."));
    } else if (!facts.inspection) {
        value.insert(QStringLiteral("outcome"), QStringLiteral("not_checked"));
        check = row("image", Level::Warning, tr("The image %1 has not been inspected yet.").arg(facts.image),
                    tr("Press Refresh in a moment."));
    } else {
        const ImageInspection& inspection = *facts.inspection;
        switch (inspection.outcome) {
            case ImageInspection::Outcome::Missing:
                value.insert(QStringLiteral("outcome"), QStringLiteral("missing"));
                value.insert(QStringLiteral("error"), inspection.error);
                check = row(
                    "image", Level::Failed, tr("%1 has no image %2.").arg(facts.runtimeName, facts.image),
                    tr("Build it (once, a few minutes): zeus-desktop --build-image\nor: %1").arg(facts.buildCommand));
                break;
            case ImageInspection::Outcome::Failed:
                value.insert(QStringLiteral("outcome"), QStringLiteral("failed"));
                value.insert(QStringLiteral("error"), inspection.error);
                check = row(
                    "image", Level::Failed,
                    tr("Could not ask %1 about the image %2: %3").arg(facts.runtimeName, facts.image, inspection.error),
                    tr("Check that the engine answers (Re-check Runtimes), then Refresh."));
                break;
            case ImageInspection::Outcome::Present: {
                const ImageKind kind = classifyImage(inspection);
                const QString version = inspection.labels.value(QStringLiteral("org.opencontainers.image.version"));
                value.insert(QStringLiteral("outcome"), QStringLiteral("present"));
                value.insert(QStringLiteral("kind"), imageKindToString(kind));
                value.insert(QStringLiteral("id"), inspection.id);
                value.insert(QStringLiteral("created"), inspection.created);
                value.insert(QStringLiteral("comment"), inspection.comment);
                QJsonObject labels;
                for (auto it = inspection.labels.constBegin(); it != inspection.labels.constEnd(); ++it) {
                    labels.insert(it.key(), it.value());
                }
                value.insert(QStringLiteral("labels"), labels);
                if (!inspection.id.isEmpty()) {
                    text << tr("Id: %1").arg(inspection.id);
                }
                if (!inspection.created.isEmpty()) {
                    text << tr("Created: %1").arg(inspection.created);
                }
                if (!inspection.comment.isEmpty()) {
                    text << tr("Comment: %1").arg(inspection.comment);
                }
                // How it was built (zeus.image.source: dockerfile, debootstrap) and from which recipe revision.
                const QString source = inspection.labels.value(QStringLiteral("zeus.image.source"));
                const QString revision = inspection.labels.value(QStringLiteral("zeus.image.revision"));
                if (!source.isEmpty()) {
                    value.insert(QStringLiteral("source"), source);
                    value.insert(QStringLiteral("revision"), revision);
                    text << (source == QLatin1String("debootstrap")
                                 ? tr("Built from the distribution's package archive (%1), revision %2")
                                       .arg(inspection.labels.value(QStringLiteral("zeus.image.distribution")),
                                            revision)
                                 : tr("Built by: %1, revision %2").arg(source, revision));
                }
                if (kind == ImageKind::Sandbox) {
                    check = row("image", Level::Ok,
                                version.isEmpty()
                                    ? tr("%1 is the Zeus sandbox image.").arg(facts.image)
                                    : tr("%1 is the Zeus sandbox image (version %2).").arg(facts.image, version));
                } else if (kind == ImageKind::OfflineTest) {
                    check = row("image", Level::Warning,
                                tr("%1 is only the minimal offline test image (busybox and bash): no Python, Node.js, "
                                   "git or compilers.")
                                    .arg(facts.image),
                                tr("Build the real image (from a registry, or else from the distribution's package "
                                   "archive): remove this one, then run zeus-desktop --build-image"));
                } else {
                    check = row(
                        "image", Level::Ok,
                        tr("%1 is present (a custom image, not built from the app's Dockerfile).").arg(facts.image));
                }
                break;
            }
        }
    }
    text.prepend(check.summary);
    return DiagnosticSection{
        QStringLiteral("image"), tr("Sandbox image"), value, text.join(QLatin1Char('\n')), {check}};
}

DiagnosticSection DiagnosticSections::agent(const AgentFacts& facts) {
    QJsonObject value;
    value.insert(QStringLiteral("mode"), wordOf(facts.forcedExec ? ExecMode::Exec : ExecMode::Agent));
    value.insert(QStringLiteral("host_path"), facts.hostPath);
    const QString version = facts.versionOutput.trimmed().section(QLatin1Char(' '), -1);
    value.insert(QStringLiteral("version"), version);
    value.insert(QStringLiteral("sessions"), QJsonArray::fromStringList(facts.sessions));
    DiagnosticCheck check;
    if (facts.forcedExec) {
        check = row("agent", Level::Ok, tr("Not used (exec mode chosen); each command is a plain exec."));
    } else if (!facts.runtime) {
        check = row("agent", Level::Warning, tr("Not checked: no usable container runtime."),
                    tr("Fix the container runtime first (see the checks above)."));
    } else if (*facts.runtime == RuntimeKind::Apple) {
        check = row(
            "agent", Level::Ok,
            tr("From the sandbox image (%1); a session without it runs plain exec and says so.").arg(imageAgentPath()));
    } else if (facts.hostPath.isEmpty()) {
        check = row("agent", Level::Warning,
                    tr("Not found beside the app; sessions use the image's copy if it has one, else plain "
                       "exec (slower: one engine exec per command)."),
                    tr("Reinstall Zeus Desktop, or build the project's agent target."));
    } else if (facts.versionOutput.isEmpty()) {
        check = row("agent", Level::Ok,
                    tr("Found at %1; each session checks its version when it starts.").arg(facts.hostPath));
    } else if (version != QStringLiteral(ZEUS_VERSION)) {
        check = row("agent", Level::Warning,
                    tr("%1 answered \"%2\", not version %3.")
                        .arg(facts.hostPath, facts.versionOutput.trimmed().left(80), QStringLiteral(ZEUS_VERSION)),
                    tr("Reinstall Zeus Desktop so the app and its agent match."));
    } else {
        check = row("agent", Level::Ok, tr("ok (version %1, %2)").arg(version, facts.hostPath));
    }
    QString text = check.summary;
    for (const QString& session : facts.sessions) {
        text += QLatin1Char('\n') + session;
    }
    return DiagnosticSection{QStringLiteral("agent"), tr("Sandbox agent"), value, text, {check}};
}

namespace {
// The roots a container gets only from this computer, a few by name: why HTTPS works in the sandbox and not in a
// plain container of the image.
QString imageRootsText(const DiagnosticSections::ImageRootsFacts& imageRoots) {
    constexpr int kNamed = DiagnosticSections::kMissingRootsInText;
    if (!imageRoots.checked) {
        return {};
    }
    if (!imageRoots.error.isEmpty()) {
        return QLatin1Char('\n') + tr("The image's own certificate bundle could not be read: %1").arg(imageRoots.error);
    }
    if (imageRoots.missing.isEmpty()) {
        return QLatin1Char('\n') + tr("The image's own certificate bundle has all of them.");
    }
    QString names = imageRoots.missing.mid(0, kNamed).join(QStringLiteral(", "));
    if (imageRoots.missing.size() > kNamed) {
        names = tr("%1 and %2 more").arg(names).arg(imageRoots.missing.size() - kNamed);
    }
    return QLatin1Char('\n')
           + tr("%1 of them are not in the image's own bundle: %2.").arg(imageRoots.missing.size()).arg(names);
}
}  // namespace

DiagnosticSection DiagnosticSections::network(const SandboxConfig& config) {
    return network(config, ImageRootsFacts());
}

DiagnosticSection DiagnosticSections::network(const SandboxConfig& config, const ImageRootsFacts& imageRoots) {
    const NetworkMode mode = config.effectiveNetworkMode();
    const EgressPolicy& policy = config.egress;
    const auto texts = [](const QList<HostRule>& rules) {
        QStringList out;
        for (const HostRule& rule : rules) {
            out << rule.text;
        }
        return out;
    };
    QStringList overrides;
    for (const ResolveOverride& o : policy.overrides) {
        overrides << QStringLiteral("%1:%2:%3").arg(o.host).arg(o.port).arg(o.address.toString());
    }
    QJsonObject value;
    value.insert(QStringLiteral("mode"), networkModeName(mode));
    value.insert(QStringLiteral("chosen_by"),
                 config.networkMode ? QStringLiteral("setting") : QStringLiteral("profile"));
    value.insert(QStringLiteral("preset"), wordOf(policy.preset));
    value.insert(QStringLiteral("preset_hosts"), QJsonArray::fromStringList(EgressPolicy::presetRules(policy.preset)));
    value.insert(QStringLiteral("allow"), QJsonArray::fromStringList(texts(policy.allow)));
    value.insert(QStringLiteral("deny"), QJsonArray::fromStringList(texts(policy.deny)));
    value.insert(QStringLiteral("resolve"), QJsonArray::fromStringList(overrides));
    QString text;
    switch (mode) {
        case NetworkMode::Open:
            text =
                tr("open: the container has the engine's whole network (the local network, cloud metadata, any "
                   "host). Nothing is filtered.");
            break;
        case NetworkMode::None:
            text = tr("none: the container has no network at all.");
            break;
        case NetworkMode::Allowlist:
            text = tr("allowlist: no network but the app's proxy; preset %1 (%2 hosts), %3 allow and %4 deny rules "
                      "of your own.")
                       .arg(wordOf(policy.preset))
                       .arg(EgressPolicy::presetRules(policy.preset).size())
                       .arg(policy.allow.size())
                       .arg(policy.deny.size());
            if (config.execMode == ExecMode::Exec) {
                text += QLatin1Char('\n')
                        + tr("Commands run with plain exec: without the sandbox agent nothing gets out at all.");
            }
            break;
    }
    if (mode == NetworkMode::Allowlist) {
        if (!policy.allow.isEmpty()) {
            text += QLatin1Char('\n') + tr("Allow: %1").arg(texts(policy.allow).join(QStringLiteral(", ")));
        }
        if (!policy.deny.isEmpty()) {
            text += QLatin1Char('\n') + tr("Deny: %1").arg(texts(policy.deny).join(QStringLiteral(", ")));
        }
        if (!overrides.isEmpty()) {
            text += QLatin1Char('\n') + tr("Resolve: %1").arg(overrides.join(QStringLiteral(", ")));
        }
    }
    // SPEC §8 "Certificates": how many of this computer's roots each container gets.
    const HostCertificates::Bundle& bundle = HostCertificates::system();
    QJsonObject certificates;
    certificates.insert(QStringLiteral("passed"), config.wantsHostCertificates());
    certificates.insert(QStringLiteral("setting"), config.hostCertificates);
    certificates.insert(QStringLiteral("roots"), bundle.count);
    certificates.insert(QStringLiteral("test_roots"), QJsonArray::fromStringList(bundle.extra));
    if (imageRoots.checked) {
        if (imageRoots.error.isEmpty()) {
            certificates.insert(QStringLiteral("not_in_image"),
                                QJsonArray::fromStringList(imageRoots.missing.mid(0, kMissingRootsInJson)));
            certificates.insert(QStringLiteral("not_in_image_count"), int(imageRoots.missing.size()));
        } else {
            certificates.insert(QStringLiteral("image_bundle_error"), imageRoots.error);
        }
    }
    value.insert(QStringLiteral("host_certificates"), certificates);
    routes(config, value, text);
    if (config.wantsHostCertificates()) {
        text += QLatin1Char('\n')
                + tr("This computer's %1 trusted root certificates go into each container (%2).")
                      .arg(bundle.count)
                      .arg(containerCaBundlePath());
        text += imageRootsText(imageRoots);
    } else if (!config.hostCertificates) {
        text += QLatin1Char('\n')
                + tr(
                    "This computer's trusted certificates are not passed (--no-host-ca or the setting): on a "
                    "network that inspects HTTPS, HTTPS from the sandbox fails.");
    }
    return DiagnosticSection{QStringLiteral("network"), tr("Network"), value, text, {}};
}

DiagnosticSection DiagnosticSections::workspaceModes(SandboxConfig config, const QStringList& approved,
                                                     const std::optional<DetectionResult>& detection) {
    const RuntimeProbe* probe = detection ? detection->chosenProbe() : nullptr;
    const EngineLocation location = probe ? probe->location : EngineLocation();
    config.engineRemote = location.isRemote();
    config.engineHost = location.host;
    QJsonObject value;
    value.insert(QStringLiteral("engine"), EngineLocation::kindToString(location.kind));
    value.insert(QStringLiteral("engine_host"), location.host.isEmpty() ? QJsonValue() : QJsonValue(location.host));
    value.insert(QStringLiteral("default"), workspaceModeName(config.workspaceMode));
    value.insert(QStringLiteral("from_command_line"), config.workspaceModeForced);
    QStringList text{tr("Engine: %1").arg(probe ? location.label() : tr("none"))};
    text << (config.workspaceModeForced ? tr("Every folder of this run: %1 (--workspace-mode)")
                                        : tr("Default: %1 (each folder may set its own)"))
                .arg(workspaceModeName(config.workspaceMode));
    QJsonArray folders;
    QStringList refused;
    for (const QString& folder : approved) {
        const WorkspaceMode mode = config.workspaceModeFor(folder);
        const QString refusal = probe ? config.workspaceModeRefusal(folder) : QString();
        QJsonObject item{{QStringLiteral("path"), folder}, {QStringLiteral("mode"), workspaceModeName(mode)}};
        if (!refusal.isEmpty()) {
            item.insert(QStringLiteral("refused"), refusal);
            refused << folder;
        }
        folders.append(item);
        text << QStringLiteral("%1  %2").arg(workspaceModeName(mode), folder);
        if (!refusal.isEmpty()) {
            text << QStringLiteral("    ") + refusal;
        }
    }
    value.insert(QStringLiteral("folders"), folders);
    if (!refused.isEmpty()) {
        text << tr("Commands in %1 folder(s) will be refused, for the reasons above.").arg(refused.size());
    }
    // Facts only, no checklist row: the engine row already says local or remote, and a folder's mode is the
    // user's choice, not a fault.
    return DiagnosticSection{QStringLiteral("workspace_mode"), tr("Workspace mode"), value, text.join(u'\n'), {}};
}

DiagnosticSection DiagnosticSections::resourceLimits(const std::optional<DetectionResult>& detection, int pidsLimit,
                                                     int memoryMiB, double cpus) {
    QJsonObject value;
    value.insert(QStringLiteral("pids_limit"), pidsLimit);
    value.insert(QStringLiteral("memory_mib"), memoryMiB);
    value.insert(QStringLiteral("cpus"), cpus);
    const RuntimeProbe* probe = detection ? detection->chosenProbe() : nullptr;
    DiagnosticCheck check;
    const QString wanted = tr("memory %1 MiB, %2 processes, %3 CPUs").arg(memoryMiB).arg(pidsLimit).arg(cpus);
    if (!probe) {
        check = row("resource_limits", Level::Warning, tr("Not checked: no usable container runtime."),
                    tr("Fix the container runtime first (see the checks above)."));
    } else if (probe->kind == RuntimeKind::Apple) {
        value.insert(QStringLiteral("engine"), runtimeKindToString(probe->kind));
        check = row("resource_limits", Level::Ok,
                    tr("Each container is its own VM, sized by the limits (%1); this engine has no process-count "
                       "limit, the VM bounds it.")
                        .arg(wanted));
    } else {
        const RuntimeProbe::LimitSupport& limits = probe->limits;
        QJsonObject enforced;
        enforced.insert(QStringLiteral("memory"), optionalBool(limits.memory));
        enforced.insert(QStringLiteral("pids"), optionalBool(limits.pids));
        enforced.insert(QStringLiteral("cpus"), optionalBool(limits.cpus));
        value.insert(QStringLiteral("engine"), runtimeKindToString(probe->kind));
        value.insert(QStringLiteral("enforced"), enforced);
        QStringList dropped;
        QStringList unknown;
        const auto sort = [&dropped, &unknown](const std::optional<bool>& known, const char* flag) {
            if (!known) {
                unknown << QString::fromLatin1(flag);
            } else if (!*known) {
                dropped << QString::fromLatin1(flag);
            }
        };
        sort(limits.memory, "--memory");
        sort(limits.pids, "--pids-limit");
        sort(limits.cpus, "--cpus");
        const QString engine = runtimeDisplayName(probe->kind);
        if (!dropped.isEmpty()) {
            const bool rootlessPodman = probe->kind == RuntimeKind::Podman && probe->rootless.value_or(false);
            check = row("resource_limits", Level::Warning,
                        tr("%1 will not enforce %2: a runaway command can use up this machine's memory or "
                           "processes.")
                            .arg(engine, dropped.join(QStringLiteral(", "))),
                        rootlessPodman
                            ? tr("Rootless Podman needs cgroup v2 with the memory, pids and cpu controllers "
                                 "delegated to your user (systemd: Delegate=yes for user@.service), or run Podman "
                                 "rootful.")
                            : tr("Enable the memory, pids and cpu cgroup controllers (use cgroup v2, or boot with "
                                 "cgroup_enable=memory), then restart the engine."));
        } else if (!unknown.isEmpty()) {
            check = row("resource_limits", Level::Warning,
                        tr("%1 does not say whether it enforces %2.").arg(engine, unknown.join(QStringLiteral(", "))),
                        tr("Update the engine, or check its own info output for cgroup warnings."));
        } else {
            check = row("resource_limits", Level::Ok, tr("%1 enforces the limits (%2).").arg(engine, wanted));
        }
    }
    return DiagnosticSection{QStringLiteral("resource_limits"),
                             tr("Resource limits"),
                             value,
                             check.summary + QLatin1Char('\n') + tr("Configured: %1").arg(wanted),
                             {check}};
}

QList<DiagnosticSections::FolderFacts> DiagnosticSections::checkFolders(
    const QStringList& approved, const QString& forThisRun, const WorkspaceGuard::Environment& environment) {
    QList<FolderFacts> folders;
    for (const QString& path : approved) {
        folders.append(FolderFacts{path, WorkspaceGuard::check(path, environment), false});
    }
    if (!forThisRun.isEmpty() && !approved.contains(forThisRun)) {
        folders.append(FolderFacts{forThisRun, WorkspaceGuard::check(forThisRun, environment), true});
    }
    return folders;
}

DiagnosticSection DiagnosticSections::workspaces(const QList<FolderFacts>& folders) {
    QJsonArray value;
    QStringList text;
    QStringList unusable;
    for (const FolderFacts& folder : folders) {
        QString problem;
        QString status = QStringLiteral("active");
        if (!folder.verdict.accepted()) {
            problem = folder.verdict.message;
            status = WorkspaceGuard::ruleName(folder.verdict.rule);
        } else if (QDir::cleanPath(folder.verdict.canonicalPath) != QDir::cleanPath(folder.path)) {
            // SPEC §3: an approval that no longer resolves to itself is inactive until approved again.
            problem = tr("changed since approval: it now resolves to %1").arg(folder.verdict.canonicalPath);
            status = QStringLiteral("changed_since_approval");
        }
        QJsonObject item;
        item.insert(QStringLiteral("path"), folder.path);
        item.insert(QStringLiteral("status"), status);
        item.insert(QStringLiteral("for_this_run_only"), folder.forThisRunOnly);
        if (!problem.isEmpty()) {
            item.insert(QStringLiteral("problem"), problem);
            unusable << QStringLiteral("%1 (%2)").arg(folder.path, problem);
        }
        value.append(item);
        text << QStringLiteral("%1  %2%3")
                    .arg(problem.isEmpty() ? tr("active") : tr("inactive"), folder.path,
                         problem.isEmpty() ? QString() : QStringLiteral(": ") + problem);
    }
    DiagnosticCheck check;
    const QString again = tr("Approve the folder again in the dashboard, or revoke it.");
    if (folders.isEmpty()) {
        check = row("workspaces", Level::Warning, tr("No folder is approved: the agent cannot run any command."),
                    tr("Choose a working directory in the dashboard."));
    } else if (unusable.isEmpty()) {
        check = row("workspaces", Level::Ok, tr("%1 approved folder(s), all usable.").arg(folders.size()));
    } else if (unusable.size() == folders.size()) {
        check = row("workspaces", Level::Failed,
                    tr("No approved folder can be used: %1").arg(unusable.join(QStringLiteral("; "))), again);
    } else {
        check = row("workspaces", Level::Warning,
                    tr("%1 of %2 approved folders cannot be used: %3")
                        .arg(unusable.size())
                        .arg(folders.size())
                        .arg(unusable.join(QStringLiteral("; "))),
                    again);
    }
    return DiagnosticSection{QStringLiteral("workspaces"),
                             tr("Approved folders"),
                             value,
                             text.isEmpty() ? tr("none") : text.join(QLatin1Char('\n')),
                             {check}};
}

DiagnosticSections::KeychainFacts DiagnosticSections::KeychainFacts::from(const CredentialStore::Result& result,
                                                                          const QString& backendUrl) {
    KeychainFacts facts;
    facts.checked = true;
    facts.status = result.status;
    facts.message = result.message;
    facts.fromEnvironment = result.fromEnvironment;
    facts.backendUrl = backendUrl;
    return facts;
}

DiagnosticSection DiagnosticSections::keychain(const KeychainFacts& facts) {
    QJsonObject value;
    value.insert(QStringLiteral("checked"), facts.checked);
    value.insert(QStringLiteral("from_environment"), facts.fromEnvironment);
    value.insert(QStringLiteral("message"), facts.message);
    DiagnosticCheck check;
    if (!facts.checked) {
        value.insert(QStringLiteral("status"), QJsonValue());
        check = facts.backendUrl.isEmpty()
                    ? row("keychain", Level::Ok, tr("No backend is set up, so no sign-in token is needed yet."))
                    : row("keychain", Level::Warning, tr("The keychain has not answered yet."),
                          tr("If this stays, the keychain may be locked: unlock it, then Refresh."));
    } else {
        value.insert(QStringLiteral("status"),
                     QString::fromLatin1(QMetaEnum::fromType<CredentialStore::Status>().valueToKey(int(facts.status))));
        switch (facts.status) {
            case CredentialStore::Status::Ok:
                check = row("keychain", Level::Ok,
                            facts.fromEnvironment
                                ? tr("The sign-in token comes from the ZEUS_DESKTOP_TOKEN environment variable.")
                                : tr("A sign-in token is stored in the keychain."));
                break;
            case CredentialStore::Status::SignedOut:
                check = facts.backendUrl.isEmpty()
                            ? row("keychain", Level::Ok, tr("The keychain works; no backend is set up yet."))
                            : row("keychain", Level::Warning,
                                  tr("The keychain works but holds no sign-in token for %1.").arg(facts.backendUrl),
                                  tr("Sign in: Settings, Sign-in token."));
                break;
            case CredentialStore::Status::NoKeyring:
                check = row("keychain", Level::Failed, tr("No keychain service is reachable: %1").arg(facts.message),
                            tr("Start the desktop's keyring (GNOME Keyring, KWallet) in this session, or set "
                               "ZEUS_DESKTOP_TOKEN for headless use. The app never stores the token in a file."));
                break;
            case CredentialStore::Status::AccessDenied:
            case CredentialStore::Status::TimedOut:
                check = row("keychain", Level::Failed,
                            tr("The keychain is locked or refused access: %1").arg(facts.message),
                            tr("Unlock the keychain (and allow Zeus Desktop when asked), then Refresh."));
                break;
            case CredentialStore::Status::Failed:
                check = row("keychain", Level::Failed, tr("The keychain failed: %1").arg(facts.message),
                            tr("Restart the keyring service or sign out and in again; the message above names the "
                               "error."));
                break;
        }
    }
    return DiagnosticSection{QStringLiteral("keychain"), tr("Keychain"), value, check.summary, {check}};
}

DiagnosticSection DiagnosticSections::connection(const ConnectionFacts& facts) {
    QJsonObject connection;
    connection.insert(QStringLiteral("url"), facts.url);
    connection.insert(QStringLiteral("url_from_command_line"), facts.urlFromCommandLine);
    // The JSON says the state's stable word ("signed-out"); the text below says it in the reader's language.
    connection.insert(QStringLiteral("state"), wordOf(facts.state));
    connection.insert(QStringLiteral("last_error"), facts.lastError);
    connection.insert(QStringLiteral("attempts"), facts.attempts);
    connection.insert(QStringLiteral("signed_in"), facts.signedIn);
    QJsonArray history;
    QStringList historyText;
    for (const BackendConnection::HistoryEntry& entry : facts.history) {
        QJsonObject item;
        item.insert(QStringLiteral("time"), entry.when.toUTC().toString(Qt::ISODateWithMs));
        item.insert(QStringLiteral("state"), wordOf(entry.state));
        item.insert(QStringLiteral("event"), entry.event);
        if (entry.closeCode >= 0) {
            item.insert(QStringLiteral("close_code"), entry.closeCode);
        }
        history.append(item);
        historyText.append(
            QStringLiteral("%1  %2  %3%4")
                .arg(entry.when.toUTC().toString(Qt::ISODate), BackendConnection::stateName(entry.state), entry.event,
                     entry.closeCode >= 0 ? QStringLiteral(" (close %1)").arg(entry.closeCode) : QString()));
    }
    connection.insert(QStringLiteral("history"), history);

    DiagnosticCheck check;
    // In brackets, never after a colon: the panel's redaction would take "token: <word>" for a credential.
    const QString because = facts.lastError.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(facts.lastError);
    if (facts.url.isEmpty()) {
        check = row("backend", Level::Warning, tr("No backend URL is set."), tr("Enter the backend URL in Settings."));
    } else {
        switch (facts.state) {
            case BackendConnection::State::Connected:
                check = row("backend", Level::Ok, tr("Connected to %1.").arg(facts.url));
                break;
            case BackendConnection::State::Connecting:
                check = row("backend", Level::Warning, tr("Connecting to %1…").arg(facts.url),
                            tr("Wait a moment; if it stays, check the network and the URL."));
                break;
            case BackendConnection::State::Reconnecting:
                check = row("backend", Level::Warning, tr("Not connected to %1, retrying%2.").arg(facts.url, because),
                            tr("Check the network, the URL in Settings and that the backend is up."));
                break;
            case BackendConnection::State::SignedOut:
                check = row("backend", Level::Warning, tr("Signed out: no sign-in token for %1.").arg(facts.url),
                            tr("Sign in: Settings, Sign-in token."));
                break;
            case BackendConnection::State::Disconnected:
                check = row("backend", Level::Warning, tr("Disconnected from %1.").arg(facts.url),
                            tr("Connect from the tray menu."));
                break;
            case BackendConnection::State::AuthFailed:
                check = row("backend", Level::Failed, tr("The backend refused the sign-in token%1.").arg(because),
                            tr("Get a new token from the backend and enter it in Settings."));
                break;
            case BackendConnection::State::Error:
                check = row("backend", Level::Failed, tr("The backend settings cannot be used%1.").arg(because),
                            tr("Correct the backend URL in Settings (wss://, or ws:// to this machine only)."));
                break;
        }
    }
    return DiagnosticSection{QStringLiteral("connection"),
                             tr("Backend connection"),
                             connection,
                             tr("URL: %1\nState: %2\nLast error: %3\nHistory:\n%4")
                                 .arg(facts.url, BackendConnection::stateName(facts.state), facts.lastError,
                                      historyText.join(QLatin1Char('\n'))),
                             {check}};
}

DiagnosticSection DiagnosticSections::recentErrors(const QStringList& errors) {
    return DiagnosticSection{QStringLiteral("recent_errors"),
                             tr("Recent errors"),
                             QJsonArray::fromStringList(errors),
                             errors.isEmpty() ? tr("none") : errors.join(QLatin1Char('\n')),
                             {}};
}

}  // namespace zeus
