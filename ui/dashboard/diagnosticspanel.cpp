#include "dashboard/diagnosticspanel.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace zeus {

namespace {

const QString kRedacted = QStringLiteral("[redacted]");

}  // namespace

DiagnosticsPanel::DiagnosticsPanel(ReportSource source, QWidget* parent)
    : QWidget(parent), m_source(std::move(source)) {
    setObjectName(QStringLiteral("DiagnosticsPanel"));
    m_view = new QPlainTextEdit(this);
    m_view->setObjectName(QStringLiteral("diagnosticsText"));
    m_view->setAccessibleName(tr("Diagnostics report"));
    m_view->setReadOnly(true);
    m_view->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_view->setTabChangesFocus(true);

    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshReport"));
    auto* recheck = new QPushButton(tr("Re-&check Runtimes"), this);
    recheck->setObjectName(QStringLiteral("recheckRuntimes"));
    auto* copy = new QPushButton(tr("&Copy"), this);
    copy->setObjectName(QStringLiteral("copyReport"));
    copy->setAccessibleDescription(tr("Copy the report as text; tokens are redacted"));
    auto* save = new QPushButton(tr("&Save Report…"), this);
    save->setObjectName(QStringLiteral("saveReport"));
    auto* note = new QLabel(tr("Tokens are never included."), this);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(note, 1);
    buttons->addWidget(refreshButton);
    buttons->addWidget(recheck);
    buttons->addWidget(copy);
    buttons->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);

    connect(refreshButton, &QPushButton::clicked, this, &DiagnosticsPanel::refresh);
    connect(recheck, &QPushButton::clicked, this, &DiagnosticsPanel::recheckRequested);
    connect(copy, &QPushButton::clicked, this, &DiagnosticsPanel::copyReport);
    connect(save, &QPushButton::clicked, this, &DiagnosticsPanel::openSaveDialog);
}

void DiagnosticsPanel::setSecrets(const QStringList& secrets) {
    m_secrets.clear();
    for (const QString& secret : secrets) {
        // Very short values would redact ordinary words; a real token is never that short.
        if (secret.size() >= 6) {
            m_secrets.append(secret);
        }
    }
}

QString DiagnosticsPanel::redact(const QString& text, const QStringList& secrets) {
    QString out = text;
    for (const QString& secret : secrets) {
        if (!secret.isEmpty()) {
            out.replace(secret, kRedacted);
        }
    }
    // Shapes of credentials, whatever their value: an Authorization header, a bearer
    // token, token-like URL parameters or JSON fields.
    static const QRegularExpression authorization(QStringLiteral(R"((Authorization\s*[:=]\s*)(\S+(\s+\S+)?))"),
                                                  QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression bearer(QStringLiteral(R"((Bearer\s+)[A-Za-z0-9._~+/=-]+)"),
                                           QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression parameter(
        QStringLiteral(R"(((?:access_|refresh_|id_)?token|password|secret)(["']?\s*[:=]\s*["']?)([^"'\s&,}]+))"),
        QRegularExpression::CaseInsensitiveOption);
    out.replace(authorization, QStringLiteral("\\1") + kRedacted);
    out.replace(bearer, QStringLiteral("\\1") + kRedacted);
    out.replace(parameter, QStringLiteral("\\1\\2") + kRedacted);
    return out;
}

QJsonValue DiagnosticsPanel::redactJson(const QJsonValue& value, const QStringList& secrets) {
    if (value.isString()) {
        return redact(value.toString(), secrets);
    }
    if (value.isArray()) {
        QJsonArray out;
        for (const QJsonValue& item : value.toArray()) {
            out.append(redactJson(item, secrets));
        }
        return out;
    }
    if (value.isObject()) {
        QJsonObject out;
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString key = it.key().toLower();
            const bool secretKey = key == QLatin1String("token") || key.endsWith(QLatin1String("_token"))
                                   || key == QLatin1String("authorization") || key == QLatin1String("password");
            out.insert(it.key(),
                       secretKey && !it.value().isNull() ? QJsonValue(kRedacted) : redactJson(it.value(), secrets));
        }
        return out;
    }
    return value;
}

void DiagnosticsPanel::refresh() {
    const DiagnosticsReport report = m_source ? m_source() : DiagnosticsReport();
    m_text = redact(report.toText(), m_secrets);
    m_json = redactJson(report.toJson(), m_secrets).toObject();
    m_view->setPlainText(m_text);
}

void DiagnosticsPanel::copyReport() const {
    QApplication::clipboard()->setText(m_text);
}

bool DiagnosticsPanel::saveReport(const QString& path, QString* error) const {
    QSaveFile file(path);
    const QByteArray data = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                                ? QJsonDocument(m_json).toJson(QJsonDocument::Indented)
                                : m_text.toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        if (error) {
            *error = file.errorString();
        }
        return false;
    }
    return true;
}

void DiagnosticsPanel::openSaveDialog() {
    auto* dialog = new QFileDialog(this, tr("Save Diagnostics Report"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilters({tr("Readable text (*.txt)"), tr("JSON (*.json)")});
    dialog->setDirectory(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation));
    dialog->selectFile(QStringLiteral("zeus-desktop-diagnostics.txt"));
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog](const QString& filter) {
        dialog->setDefaultSuffix(filter.contains(QLatin1String("json")) ? QStringLiteral("json")
                                                                        : QStringLiteral("txt"));
    });
    dialog->setDefaultSuffix(QStringLiteral("txt"));
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& path) {
        QString error;
        if (!saveReport(path, &error)) {
            m_view->appendPlainText(QLatin1Char('\n') + tr("Could not save the report to %1: %2").arg(path, error));
        }
    });
    dialog->open();
}

}  // namespace zeus
