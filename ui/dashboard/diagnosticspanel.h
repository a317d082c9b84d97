#pragma once

#include "diagnosticsreport.h"

#include <QJsonObject>
#include <QPixmap>
#include <QWidget>

#include <functional>

class QGridLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSplitter;

namespace zeus {

// The support view: the checklist on top (one row per check: a glyph by level, the check's
// name and one-line summary, and what to do in smaller text), then the full diagnostics report
// (app, Qt and OS versions, every runtime probe with argv, exit, duration and raw output, image
// and profile, connection history, recent errors, sessions) with Refresh, Copy and Save Report…
// (JSON or readable text).
//
// Owns its widgets and the last rendered report. Everything it shows, copies or saves goes
// through redact(): known secrets (the token) and anything shaped like an Authorization
// header or a token parameter. It never runs a probe; the source callback builds the report.
class DiagnosticsPanel : public QWidget {
    Q_OBJECT
public:
    using ReportSource = std::function<DiagnosticsReport()>;

    explicit DiagnosticsPanel(ReportSource source, QWidget* parent = nullptr);

    // Values that must never appear (the sign-in token); also redacted by pattern.
    void setSecrets(const QStringList& secrets);

    // Asks the source for a fresh report and shows it.
    void refresh();
    // Shows a finished report (checklist and full text), redacted like everything else here.
    void showReport(const DiagnosticsReport& report);
    // The rows on show, redacted.
    QList<DiagnosticCheck> checks() const { return m_checks; }
    QString reportText() const { return m_text; }
    QJsonObject reportJson() const { return m_json; }
    // Writes JSON when the file name ends in .json, text otherwise.
    bool saveReport(const QString& path, QString* error) const;
    void copyReport() const;

    // Pure: `text` with every secret and every bearer/token-looking value replaced.
    static QString redact(const QString& text, const QStringList& secrets);
    static QJsonValue redactJson(const QJsonValue& value, const QStringList& secrets);
    // The glyph of a level: a filled circle (green tick, amber "!", red cross), drawn here so it
    // looks the same under every style and platform theme.
    static QPixmap levelPixmap(DiagnosticCheck::Level level, int size, qreal devicePixelRatio = 1.0);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

Q_SIGNALS:
    // The user asked for fresh probes (the report refreshes when they finish).
    void recheckRequested();
    // The user asked to build the sandbox image (the composition root knows the engine and the image).
    void buildImageRequested();

private:
    void openSaveDialog();
    void showChecks();
    void fitChecklist();

    ReportSource m_source;
    QStringList m_secrets;
    QString m_text;
    QJsonObject m_json;
    QList<DiagnosticCheck> m_checks;
    QPlainTextEdit* m_view = nullptr;
    QLabel* m_checksHeading = nullptr;
    QWidget* m_checklist = nullptr;
    QWidget* m_checklistScroll = nullptr;
    QGridLayout* m_checkRows = nullptr;
    QSplitter* m_splitter = nullptr;
};

}  // namespace zeus
