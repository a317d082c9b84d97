#include "diagnosticsreport.h"

#include "diagnosticsections.h"

#include <zeus/buildinfo.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSysInfo>

#include <algorithm>

namespace zeus {

namespace {

constexpr const char* kContext = "zeus::DiagnosticsReport";

QJsonValue stringOrNull(const QString& value) {
    return value.isEmpty() ? QJsonValue() : QJsonValue(value);
}

QString orDash(const QString& value) {
    return value.isEmpty() ? QStringLiteral("-") : value;
}

QString indent(const QString& text, const QString& prefix) {
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& line : lines) {
        line.prepend(prefix);
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace

DiagnosticsReport::DiagnosticsReport() : m_app(appInfo()), m_os(osInfo()), m_guidanceOs(InstallGuidance::currentOs()) {}

void DiagnosticsReport::setDetection(const DetectionResult& detection) {
    m_detection = detection;
}

void DiagnosticsReport::addSection(const QString& key, const QJsonValue& value, const QString& title,
                                   const QString& text) {
    for (Section& section : m_sections) {
        if (section.key == key) {
            section = Section{key, title, value, text};
            return;
        }
    }
    m_sections.append(Section{key, title, value, text});
}

void DiagnosticsReport::addSection(const DiagnosticSection& section) {
    addSection(section.key, section.value, section.title, section.text);
    for (const DiagnosticCheck& check : section.checks) {
        addCheck(check);
    }
}

void DiagnosticsReport::addCheck(const DiagnosticCheck& check) {
    for (DiagnosticCheck& existing : m_checks) {
        if (existing.id == check.id) {
            existing = check;
            return;
        }
    }
    m_checks.append(check);
}

QList<DiagnosticCheck> DiagnosticsReport::checks() const {
    QList<DiagnosticCheck> all = DiagnosticSections::runtimeChecks(m_detection, m_guidanceOs);
    for (const DiagnosticCheck& check : m_checks) {
        // A caller's own runtime rows win over the computed ones.
        bool replaced = false;
        for (DiagnosticCheck& existing : all) {
            if (existing.id == check.id) {
                existing = check;
                replaced = true;
            }
        }
        if (!replaced) {
            all.append(check);
        }
    }
    const QStringList order = DiagnosticSections::checkOrder();
    const auto rank = [&order](const DiagnosticCheck& check) {
        const qsizetype index = order.indexOf(check.id);
        return index < 0 ? order.size() : index;
    };
    std::stable_sort(all.begin(), all.end(),
                     [&rank](const DiagnosticCheck& a, const DiagnosticCheck& b) { return rank(a) < rank(b); });
    return all;
}

QString DiagnosticsReport::checklistText(const QList<DiagnosticCheck>& checks) {
    int counts[3] = {0, 0, 0};
    for (const DiagnosticCheck& check : checks) {
        ++counts[int(check.level)];
    }
    QStringList out;
    out << QCoreApplication::translate("zeus::DiagnosticsReport", "Checks: %1 ok, %2 warning(s), %3 failed")
               .arg(counts[int(DiagnosticCheck::Level::Ok)])
               .arg(counts[int(DiagnosticCheck::Level::Warning)])
               .arg(counts[int(DiagnosticCheck::Level::Failed)]);
    for (const DiagnosticCheck& check : checks) {
        out << QStringLiteral("%1 %2: %3")
                   .arg(DiagnosticCheck::levelMarker(check.level), DiagnosticSections::checkTitle(check.id),
                        check.summary);
        if (!check.action.isEmpty()) {
            out << indent(check.action, QStringLiteral("       "));
        }
    }
    return out.join(QLatin1Char('\n'));
}

QJsonObject DiagnosticsReport::appInfo() {
    QJsonObject app;
    app.insert(QStringLiteral("name"), QStringLiteral(ZEUS_APP_NAME));
    app.insert(QStringLiteral("id"), QStringLiteral(ZEUS_APP_ID));
    app.insert(QStringLiteral("version"), QStringLiteral(ZEUS_VERSION));
    app.insert(QStringLiteral("qt"), QString::fromLatin1(qVersion()));
    app.insert(QStringLiteral("qt_build"), QStringLiteral(QT_VERSION_STR));
    app.insert(QStringLiteral("default_image"), QStringLiteral(ZEUS_DEFAULT_IMAGE));
    return app;
}

QJsonObject DiagnosticsReport::osInfo() {
    QJsonObject os;
    os.insert(QStringLiteral("name"), QSysInfo::prettyProductName());
    os.insert(QStringLiteral("type"), QSysInfo::productType());
    os.insert(QStringLiteral("version"), QSysInfo::productVersion());
    os.insert(QStringLiteral("kernel"), QString(QSysInfo::kernelType() + QLatin1Char(' ') + QSysInfo::kernelVersion()));
    os.insert(QStringLiteral("arch"), QSysInfo::currentCpuArchitecture());
    os.insert(QStringLiteral("build_abi"), QSysInfo::buildAbi());
    os.insert(QStringLiteral("family"), InstallGuidance::osToString(InstallGuidance::currentOs()));
    return os;
}

QJsonObject DiagnosticsReport::guidanceToJson(const InstallGuidance& guidance) {
    QJsonObject object;
    object.insert(QStringLiteral("summary"), guidance.summary);
    object.insert(QStringLiteral("commands"), QJsonArray::fromStringList(guidance.commands));
    object.insert(QStringLiteral("verify"), guidance.verify);
    return object;
}

QJsonObject DiagnosticsReport::probeToJson(const RuntimeProbe& probe, InstallGuidance::Os os) {
    QJsonObject object;
    object.insert(QStringLiteral("runtime"), runtimeKindToString(probe.kind));
    object.insert(QStringLiteral("state"), RuntimeProbe::stateToString(probe.state));
    object.insert(QStringLiteral("usable"), probe.isUsable());
    // The deciding step (the last one run) at the top level; every step under "steps".
    const ProbeStep last = probe.steps.isEmpty() ? ProbeStep() : probe.steps.constLast();
    qint64 totalMs = 0;
    QJsonArray steps;
    for (const ProbeStep& step : probe.steps) {
        totalMs += step.durationMs;
        steps.append(step.toJson());
    }
    object.insert(QStringLiteral("argv"), QJsonArray::fromStringList(last.argv));
    object.insert(QStringLiteral("exit_code"),
                  last.started && !last.crashed ? QJsonValue(last.exitCode) : QJsonValue());
    object.insert(QStringLiteral("duration_ms"), totalMs);
    object.insert(QStringLiteral("stdout"), last.standardOutput);
    object.insert(QStringLiteral("stderr"), last.standardError);
    object.insert(QStringLiteral("path"), stringOrNull(probe.binaryPath));
    object.insert(QStringLiteral("version"), stringOrNull(probe.clientVersion));
    object.insert(QStringLiteral("server_version"), stringOrNull(probe.serverVersion));
    object.insert(QStringLiteral("os"), stringOrNull(probe.os));
    object.insert(QStringLiteral("arch"), stringOrNull(probe.arch));
    object.insert(QStringLiteral("rootless"), probe.rootless ? QJsonValue(*probe.rootless) : QJsonValue());
    object.insert(QStringLiteral("runc"), stringOrNull(probe.runcVersion));
    object.insert(QStringLiteral("location"), EngineLocation::kindToString(probe.location.kind));
    object.insert(QStringLiteral("host"), stringOrNull(probe.location.host));
    const auto optionalBool = [](const std::optional<bool>& value) {
        return value ? QJsonValue(*value) : QJsonValue();
    };
    object.insert(QStringLiteral("limits"), QJsonObject{{QStringLiteral("memory"), optionalBool(probe.limits.memory)},
                                                        {QStringLiteral("pids"), optionalBool(probe.limits.pids)},
                                                        {QStringLiteral("cpus"), optionalBool(probe.limits.cpus)}});
    object.insert(QStringLiteral("reason"), stringOrNull(probe.reason));
    object.insert(QStringLiteral("guidance"), guidanceToJson(InstallGuidance::lookup(probe.kind, probe.state, os)));
    object.insert(QStringLiteral("steps"), steps);
    return object;
}

std::optional<InstallGuidance> DiagnosticsReport::overallGuidance(const DetectionResult& detection,
                                                                  InstallGuidance::Os os) {
    if (detection.isUsable()) {
        return std::nullopt;
    }
    const std::optional<RuntimeKind> preferred = preferredRuntime(detection.preference);
    if (preferred) {
        const RuntimeProbe* probe = detection.probe(*preferred);
        return InstallGuidance::lookup(*preferred, probe ? probe->state : RuntimeProbe::State::NotInstalled, os);
    }
    // A runtime that is installed but stuck is closer to working than installing another.
    for (const RuntimeProbe& probe : detection.probes) {
        if (probe.state != RuntimeProbe::State::NotInstalled) {
            return InstallGuidance::lookup(probe.kind, probe.state, os);
        }
    }
    return InstallGuidance::noRuntime(os);
}

QJsonObject DiagnosticsReport::toJson() const {
    QJsonObject report;
    report.insert(QStringLiteral("report_version"), 1);
    report.insert(QStringLiteral("generated_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate));
    report.insert(QStringLiteral("app"), m_app);
    report.insert(QStringLiteral("os"), m_os);
    QJsonArray checkRows;
    for (const DiagnosticCheck& check : checks()) {
        checkRows.append(check.toJson());
    }
    report.insert(QStringLiteral("checks"), checkRows);

    QJsonObject runtime;
    QJsonArray probes;
    QJsonValue guidance;
    if (m_detection) {
        const DetectionResult& detection = *m_detection;
        const RuntimeProbe* chosen = detection.chosenProbe();
        runtime.insert(QStringLiteral("kind"),
                       detection.chosen ? QJsonValue(runtimeKindToString(*detection.chosen)) : QJsonValue());
        runtime.insert(QStringLiteral("usable"), detection.isUsable());
        runtime.insert(QStringLiteral("version"), chosen ? stringOrNull(chosen->clientVersion) : QJsonValue());
        runtime.insert(QStringLiteral("server_version"), chosen ? stringOrNull(chosen->serverVersion) : QJsonValue());
        runtime.insert(QStringLiteral("location"),
                       chosen ? QJsonValue(EngineLocation::kindToString(chosen->location.kind)) : QJsonValue());
        runtime.insert(QStringLiteral("host"), chosen ? stringOrNull(chosen->location.host) : QJsonValue());
        runtime.insert(QStringLiteral("reason"), stringOrNull(detection.reason));
        runtime.insert(QStringLiteral("preference"), runtimePreferenceToString(detection.preference));
        runtime.insert(QStringLiteral("checked_at"), detection.finishedAt.toString(Qt::ISODate));
        runtime.insert(QStringLiteral("detection_ms"), detection.durationMs);
        for (const RuntimeProbe& probe : detection.probes) {
            probes.append(probeToJson(probe, m_guidanceOs));
        }
        const std::optional<InstallGuidance> overall = overallGuidance(detection, m_guidanceOs);
        if (overall) {
            guidance = guidanceToJson(*overall);
        }
    } else {
        runtime.insert(QStringLiteral("kind"), QJsonValue());
        runtime.insert(QStringLiteral("usable"), false);
        runtime.insert(QStringLiteral("version"), QJsonValue());
        runtime.insert(QStringLiteral("server_version"), QJsonValue());
        runtime.insert(QStringLiteral("reason"), QCoreApplication::translate(kContext, "Detection has not run yet."));
    }
    report.insert(QStringLiteral("runtime"), runtime);
    report.insert(QStringLiteral("probes"), probes);
    report.insert(QStringLiteral("guidance"), guidance);
    for (const Section& section : m_sections) {
        report.insert(section.key, section.value);
    }
    return report;
}

QString DiagnosticsReport::toText() const {
    const QJsonObject json = toJson();
    QStringList out;
    const auto tr = [](const char* text) { return QCoreApplication::translate(kContext, text); };
    // Support staff read the top first: what is wrong and what to do, before the evidence.
    out << checklistText(checks()) << QString();
    out << QStringLiteral("%1 %2 (Qt %3)")
               .arg(m_app.value(QLatin1String("name")).toString(), m_app.value(QLatin1String("version")).toString(),
                    m_app.value(QLatin1String("qt")).toString());
    out << tr("OS: %1, %2, %3")
               .arg(m_os.value(QLatin1String("name")).toString(), m_os.value(QLatin1String("kernel")).toString(),
                    m_os.value(QLatin1String("arch")).toString());
    out << tr("Report generated: %1").arg(json.value(QLatin1String("generated_at")).toString());
    out << QString();

    const QJsonObject runtime = json.value(QLatin1String("runtime")).toObject();
    out << tr("== Container runtime ==");
    if (runtime.value(QLatin1String("usable")).toBool()) {
        const RuntimeProbe* chosen = m_detection ? m_detection->chosenProbe() : nullptr;
        out << tr("Using: %1 (server %2)")
                   .arg(chosen ? runtimeDisplayName(chosen->kind) : QString(),
                        orDash(runtime.value(QLatin1String("server_version")).toString()));
        out << tr("Engine: %1").arg(chosen ? chosen->location.label() : QStringLiteral("-"));
    } else {
        out << tr("Using: none");
        out << tr("Reason: %1").arg(runtime.value(QLatin1String("reason")).toString());
    }
    if (m_detection) {
        out << tr("Preference: %1; detection took %2 ms")
                   .arg(runtimePreferenceToString(m_detection->preference))
                   .arg(m_detection->durationMs);
        const std::optional<InstallGuidance> overall = overallGuidance(*m_detection, m_guidanceOs);
        if (overall) {
            out << QString() << tr("What to do:") << indent(overall->toText(), QStringLiteral("  "));
        }
        out << QString();
        for (const RuntimeProbe& probe : m_detection->probes) {
            out << QStringLiteral("-- %1: %2 --")
                       .arg(runtimeDisplayName(probe.kind), RuntimeProbe::stateLabel(probe.state));
            out << tr("  binary: %1").arg(orDash(probe.binaryPath));
            out << tr("  client version: %1, server version: %2")
                       .arg(orDash(probe.clientVersion), orDash(probe.serverVersion));
            out << tr("  engine OS: %1, arch: %2, rootless: %3")
                       .arg(orDash(probe.os), orDash(probe.arch),
                            probe.rootless ? (*probe.rootless ? tr("yes") : tr("no")) : QStringLiteral("-"));
            out << tr("  location: %1").arg(probe.location.label());
            if (!probe.runcVersion.isEmpty()) {
                out << tr("  runc: %1").arg(probe.runcVersion.split(QLatin1Char('\n')).join(QStringLiteral("; ")));
            }
            if (!probe.reason.isEmpty()) {
                out << tr("  reason: %1").arg(probe.reason);
            }
            if (!probe.isUsable()) {
                out << tr("  guidance:")
                    << indent(InstallGuidance::lookup(probe.kind, probe.state, m_guidanceOs).toText(),
                              QStringLiteral("    "));
            }
            for (const ProbeStep& step : probe.steps) {
                const QString ending = !step.started   ? tr("not started: %1").arg(step.errorString)
                                       : step.timedOut ? tr("timed out")
                                       : step.crashed  ? tr("crashed")
                                                       : tr("exit %1").arg(step.exitCode);
                out << QStringLiteral("  $ %1    [%2, %3 ms]")
                           .arg(step.argv.join(QLatin1Char(' ')), ending)
                           .arg(step.durationMs);
                if (!step.standardOutput.trimmed().isEmpty()) {
                    out << tr("    stdout:") << indent(step.standardOutput.trimmed(), QStringLiteral("      "));
                }
                if (!step.standardError.trimmed().isEmpty()) {
                    out << tr("    stderr:") << indent(step.standardError.trimmed(), QStringLiteral("      "));
                }
            }
            out << QString();
        }
    }
    for (const Section& section : m_sections) {
        out << QStringLiteral("== %1 ==").arg(section.title.isEmpty() ? section.key : section.title);
        if (!section.text.isEmpty()) {
            out << section.text;
        } else if (section.value.isObject() || section.value.isArray()) {
            const QJsonDocument document = section.value.isObject() ? QJsonDocument(section.value.toObject())
                                                                    : QJsonDocument(section.value.toArray());
            out << QString::fromUtf8(document.toJson(QJsonDocument::Indented)).trimmed();
        } else {
            out << section.value.toVariant().toString();
        }
        out << QString();
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace zeus
