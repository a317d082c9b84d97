// --diagnose [--json] [--runtime NAME] [--image REF]: detect the container runtimes, inspect the sandbox image
// in the chosen one, print the checklist and then the support report, exit 0 when a runtime is usable and 1
// when none is. Needs no display. Reads the settings (image, limits, approved folders) and never writes them;
// never touches the keychain or the backend (the GUI's Diagnostics panel reports those).
#include "appsettings.h"
#include "diagnosticsections.h"
#include "diagnosticsreport.h"
#include "engine/containerruntime.h"
#include "engine/imageinspector.h"
#include "modes.h"
#include "runtime/runtimedetector.h"
#include "sandbox/hostcertificates.h"
#include "sandboxsetup.h"
#include "support/processrunner.h"
#include "support/vocabulary.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <memory>

namespace zeus {

namespace {

void printReport(const AppOptions& options, AppSettings& settings, const DetectionResult& detection,
                 const std::optional<ImageInspection>& inspection, const QString& image, const QString& buildCommand,
                 const DiagnosticSections::AgentFacts& agent, const DiagnosticSections::ImageRootsFacts& imageRoots) {
    DiagnosticsReport report;
    report.setDetection(detection);

    DiagnosticSections::SandboxFacts sandbox;
    sandbox.image = image;
    sandbox.profile = options.hardeningProfile ? wordOf(*options.hardeningProfile) : settings.hardeningProfile();
    sandbox.pidsLimit = settings.pidsLimit();
    sandbox.memoryMiB = settings.memoryMiB();
    sandbox.cpus = settings.cpus();
    sandbox.idleTimeoutMinutes = settings.idleTimeoutMinutes();
    sandbox.runtimePreference = settings.runtimePreference();
    sandbox.approvedWorkspaces = settings.approvedWorkspaces();
    sandbox.settingsFile = settings.fileName();
    DiagnosticSections::setBounds(sandbox, SandboxSetup::configFrom(settings, sandboxOverridesOf(options)));
    report.addSection(DiagnosticSections::sandbox(sandbox));

    DiagnosticSections::ImageFacts imageFacts;
    imageFacts.image = image;
    const RuntimeProbe* chosen = detection.chosenProbe();
    imageFacts.runtimeName = chosen ? runtimeDisplayName(chosen->kind) : QString();
    imageFacts.inspection = inspection;
    imageFacts.buildCommand = buildCommand;
    report.addSection(DiagnosticSections::image(imageFacts));
    report.addSection(DiagnosticSections::agent(agent));
    report.addSection(
        DiagnosticSections::network(SandboxSetup::configFrom(settings, sandboxOverridesOf(options)), imageRoots));
    report.addSection(
        DiagnosticSections::resourceLimits(detection, settings.pidsLimit(), settings.memoryMiB(), settings.cpus()));
    report.addSection(
        DiagnosticSections::workspaces(DiagnosticSections::checkFolders(settings.approvedWorkspaces(), QString())));
    report.addSection(DiagnosticSections::workspaceModes(
        SandboxSetup::configFrom(settings, sandboxOverridesOf(options)), settings.approvedWorkspaces(), detection));
    // The bindings; the CA is the keychain's, which this mode never reads (the tray's Diagnostics page shows it).
    report.addSection(DiagnosticSections::secrets(DiagnosticSections::SecretsFacts::from(
        settings.secretNames(), SandboxSetup::configFrom(settings, sandboxOverridesOf(options)))));

    QTextStream out(stdout);
    if (options.json) {
        out << QString::fromUtf8(QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
    } else {
        out << report.toText();
    }
    out.flush();
}

// What the image's own bundle lacks of this computer's roots, said as a failure when it could not be read.
DiagnosticSections::ImageRootsFacts imageRootsFrom(const ProcessResult& result) {
    DiagnosticSections::ImageRootsFacts facts;
    facts.checked = true;
    if (!result.succeeded()) {
        QString why = ContainerRuntime::errorLine(result.standardError);
        if (result.timedOut) {
            why = QStringLiteral("no answer in time");
        } else if (!result.errorString.isEmpty()) {
            why = result.errorString;
        } else if (why.isEmpty()) {
            why = QStringLiteral("exit code %1").arg(result.exitCode);
        }
        facts.error = why;
        return facts;
    }
    facts.missing = HostCertificates::missingFrom(HostCertificates::system(), result.standardOutput);
    return facts;
}

}  // namespace

int runDiagnoseMode(const AppOptions& options) {
    AppSettings settings;
    const QString image = options.image.isEmpty() ? settings.image() : options.image;
    RuntimeDetector detector;
    detector.setPreference(options.runtimePreference.value_or(RuntimePreference::Auto));
    ImageInspector inspector;
    std::unique_ptr<ContainerRuntime> runtime;
    DetectionResult detection;
    DiagnosticSections::AgentFacts agent;
    ProcessRunner agentVersion;
    agentVersion.setTimeoutMs(5000);
    // SPEC §8 "Certificates": the image's own bundle, read in one throwaway container without network.
    ProcessRunner imageBundle;
    imageBundle.setTimeoutMs(30000);
    imageBundle.setOutputLimit(8 * 1024 * 1024);
    imageBundle.setEnvironment(ProcessRunner::childEnvironment());
    int exitCode = 1;

    // The last step: the image's roots when this computer's are passed and the image is there, then the report.
    const auto finish = [&](const ImageInspection& inspection) {
        const bool passed = SandboxSetup::configFrom(settings, sandboxOverridesOf(options)).wantsHostCertificates();
        if (!passed || inspection.outcome != ImageInspection::Outcome::Present) {
            printReport(options, settings, detection, inspection, image, runtime->buildImageCommand(image), agent, {});
            QCoreApplication::exit(exitCode);
            return;
        }
        QObject::connect(&imageBundle, &ProcessRunner::finished, &detector, [&, inspection](const ProcessResult& r) {
            printReport(options, settings, detection, inspection, image, runtime->buildImageCommand(image), agent,
                        imageRootsFrom(r));
            QCoreApplication::exit(exitCode);
        });
        imageBundle.setProgram(runtime->program().isEmpty() ? runtimeProgram(runtime->kind()) : runtime->program());
        imageBundle.setArguments(runtime->runOnceArguments(image, HostCertificates::imageBundleCommand()));
        imageBundle.start();
    };

    QObject::connect(&inspector, &ImageInspector::finished, &detector, [&](const ImageInspection& inspection) {
        if (agent.hostPath.isEmpty() || agent.forcedExec) {
            finish(inspection);
            return;
        }
        // The agent the sessions would mount: does it run, and is it this app's version?
        QObject::connect(&agentVersion, &ProcessRunner::finished, &detector, [&, inspection](const ProcessResult& r) {
            agent.versionOutput = r.succeeded() ? QString::fromUtf8(r.standardOutput).trimmed()
                                                : QStringLiteral("(did not run: %1)")
                                                      .arg(r.errorString.isEmpty()
                                                               ? QString::fromUtf8(r.standardError.trimmed().left(200))
                                                               : r.errorString);
            finish(inspection);
        });
        agentVersion.setProgram(agent.hostPath);
        agentVersion.setArguments({QStringLiteral("--version")});
        agentVersion.start();
    });
    QObject::connect(&detector, &RuntimeDetector::detectionFinished, &detector, [&](const DetectionResult& result) {
        detection = result;
        exitCode = result.isUsable() ? 0 : 1;
        // The same setup every mode uses: the detected CLI path and, for Apple, its version.
        SandboxOverrides overrides = sandboxOverridesOf(options);
        SandboxSetup setup = SandboxSetup::from(result, settings, overrides);
        runtime = std::move(setup.runtime);
        agent.runtime = result.chosen;
        agent.forcedExec = setup.config.execMode == ExecMode::Exec;
        agent.hostPath = setup.config.agentHostPath;
        if (!runtime) {
            printReport(options, settings, detection, std::nullopt, image, QString(), agent, {});
            QCoreApplication::exit(exitCode);
            return;
        }
        // The image check belongs in the report: ask the chosen engine before printing.
        inspector.inspect(*runtime, image);
    });
    QTimer::singleShot(0, &detector, &RuntimeDetector::recheck);
    const int loopResult = QCoreApplication::exec();
    return loopResult == 0 ? exitCode : loopResult;
}

}  // namespace zeus
