#pragma once

#include "runtime/detectionresult.h"
#include "runtime/installguidance.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

namespace zeus {

// The support report: app, Qt and OS facts, the runtime detection with every probe's raw
// evidence and the guidance for it, and any sections later parts add (connection history,
// sessions, recent errors). One model, two renderings: JSON for tools and a readable text.
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
};

}  // namespace zeus
