// --diagnose [--json] [--runtime NAME]: detect the container runtimes, print the support
// report, exit 0 when a runtime is usable and 1 when none is. Needs no display.
#include "diagnosticsreport.h"
#include "modes.h"
#include "runtime/runtimedetector.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

namespace zeus {

int runDiagnoseMode(const AppOptions& options) {
    const std::optional<RuntimePreference> preference = runtimePreferenceFromString(options.runtime);
    if (!preference) {
        QTextStream(stderr) << "zeus-desktop: unknown runtime '" << options.runtime << "'\n";
        return 2;
    }

    RuntimeDetector detector;
    detector.setPreference(*preference);
    int exitCode = 1;
    QObject::connect(&detector, &RuntimeDetector::detectionFinished, &detector,
                     [&options, &exitCode](const DetectionResult& result) {
                         DiagnosticsReport report;
                         report.setDetection(result);
                         QTextStream out(stdout);
                         if (options.json) {
                             out << QString::fromUtf8(QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented));
                         } else {
                             out << report.toText();
                         }
                         out.flush();
                         exitCode = result.isUsable() ? 0 : 1;
                         QCoreApplication::exit(exitCode);
                     });
    QTimer::singleShot(0, &detector, &RuntimeDetector::recheck);
    const int loopResult = QCoreApplication::exec();
    return loopResult == 0 ? exitCode : loopResult;
}

}  // namespace zeus
