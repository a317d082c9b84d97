#pragma once

#include "diagnosticsreport.h"

#include <QJsonObject>
#include <QWidget>

#include <functional>

class QPlainTextEdit;
class QPushButton;

namespace zeus {

// The support view: the full diagnostics report (app, Qt and OS versions, every runtime
// probe with argv, exit, duration and raw output, image and profile, connection history,
// recent errors, sessions) with Refresh, Copy and Save Report… (JSON or readable text).
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

    void refresh();
    QString reportText() const { return m_text; }
    QJsonObject reportJson() const { return m_json; }
    // Writes JSON when the file name ends in .json, text otherwise.
    bool saveReport(const QString& path, QString* error) const;
    void copyReport() const;

    // Pure: `text` with every secret and every bearer/token-looking value replaced.
    static QString redact(const QString& text, const QStringList& secrets);
    static QJsonValue redactJson(const QJsonValue& value, const QStringList& secrets);

Q_SIGNALS:
    // The user asked for fresh probes (the report refreshes when they finish).
    void recheckRequested();

private:
    void openSaveDialog();

    ReportSource m_source;
    QStringList m_secrets;
    QString m_text;
    QJsonObject m_json;
    QPlainTextEdit* m_view = nullptr;
};

}  // namespace zeus
