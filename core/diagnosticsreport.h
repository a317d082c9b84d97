#pragma once

#include "diagnosticcheck.h"
#include "runtime/detectionresult.h"
#include "runtime/installguidance.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

namespace zeus {

struct DiagnosticSection;

// The support report: a checklist first (one row per check: ok / warning / failed, a line and what
// to do), then app, Qt and OS facts, the runtime detection with every probe's raw evidence and the
// guidance for it, and the sections the builders of diagnosticsections.h make (image, limits,
// folders, keychain, connection history, sessions, recent errors). One model, two renderings: JSON
// for tools (the rows under "checks") and a readable text.
//
// It only formats what it is given; it never runs a probe, never reads settings, and must
// never receive a token (callers redact before addSection()).
class DiagnosticsReport {
public:
    // Fills the app/Qt/OS facts of this process and the current OS family.
    DiagnosticsReport();

    void setDetection(const DetectionResult& detection);
    // The OS family used for guidance (defaults to InstallGuidance::currentOs(); tests set it).
    void setGuidanceOs(InstallGuidance::Os os) { m_guidanceOs = os; }

    // Adds (or replaces) a top-level section. text: its readable form; when empty, the
    // text report shows the JSON value indented.
    void addSection(const QString& key, const QJsonValue& value, const QString& title, const QString& text = {});
    // Adds (or replaces) a builder's section and its check rows.
    void addSection(const DiagnosticSection& section);
    // Adds (or replaces, by id) one check row.
    void addCheck(const DiagnosticCheck& check);

    // Every row, in DiagnosticSections::checkOrder() (unknown ids after, as added); the runtime and
    // engine rows come from the detection (or say it has not finished).
    QList<DiagnosticCheck> checks() const;
    // "Checks: 4 ok, 2 warnings, 1 failed" and one line per row, the action indented below it.
    static QString checklistText(const QList<DiagnosticCheck>& checks);

    QJsonObject toJson() const;
    QString toText() const;

    // Pieces, for other views (the diagnostics panel) that lay them out themselves.
    static QJsonObject appInfo();
    static QJsonObject osInfo();
    static QJsonObject probeToJson(const RuntimeProbe& probe, InstallGuidance::Os os);
    static QJsonObject guidanceToJson(const InstallGuidance& guidance);
    // The guidance for the whole result: none when usable; the preferred runtime's when a
    // preference failed; otherwise what to install on this OS.
    static std::optional<InstallGuidance> overallGuidance(const DetectionResult& detection, InstallGuidance::Os os);

private:
    struct Section {
        QString key;
        QString title;
        QJsonValue value;
        QString text;
    };

    QJsonObject m_app;
    QJsonObject m_os;
    std::optional<DetectionResult> m_detection;
    InstallGuidance::Os m_guidanceOs;
    QList<Section> m_sections;
    QList<DiagnosticCheck> m_checks;
};

}  // namespace zeus
