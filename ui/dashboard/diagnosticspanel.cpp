#include "dashboard/diagnosticspanel.h"

#include "diagnosticsections.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFontDatabase>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScrollArea>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>

#include <algorithm>

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

    // The checklist: what support staff read first.
    m_checksHeading = new QLabel(this);
    m_checksHeading->setObjectName(QStringLiteral("checksHeading"));
    m_checksHeading->setTextFormat(Qt::RichText);
    m_checklist = new QWidget;
    m_checklist->setObjectName(QStringLiteral("diagnosticsChecklist"));
    m_checklist->setAccessibleName(tr("Checks"));
    m_checkRows = new QGridLayout(m_checklist);
    m_checkRows->setContentsMargins(4, 4, 4, 4);
    m_checkRows->setHorizontalSpacing(10);
    m_checkRows->setVerticalSpacing(10);
    m_checkRows->setColumnStretch(1, 1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_checklist);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_checklistScroll = scroll;
    auto* top = new QWidget;
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_checksHeading);
    topLayout->addWidget(scroll, 1);
    auto* reportHeading = new QLabel(QStringLiteral("<b>%1</b>").arg(tr("Full report")), this);
    auto* bottom = new QWidget;
    auto* bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(reportHeading);
    bottomLayout->addWidget(m_view, 1);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->setObjectName(QStringLiteral("diagnosticsSplitter"));
    m_splitter->addWidget(top);
    m_splitter->addWidget(bottom);
    m_splitter->setChildrenCollapsible(false);
    // The checklist keeps the height its rows need; the full report takes the rest.
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);

    auto* refreshButton = new QPushButton(tr("&Refresh"), this);
    refreshButton->setObjectName(QStringLiteral("refreshReport"));
    auto* recheck = new QPushButton(tr("Re-&check Runtimes"), this);
    recheck->setObjectName(QStringLiteral("recheckRuntimes"));
    auto* buildImage = new QPushButton(tr("Build &Image…"), this);
    buildImage->setObjectName(QStringLiteral("buildImage"));
    buildImage->setAccessibleDescription(tr("Build the sandbox image with the container runtime in use"));
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
    buttons->addWidget(buildImage);
    buttons->addWidget(copy);
    buttons->addWidget(save);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_splitter, 1);
    layout->addLayout(buttons);

    connect(refreshButton, &QPushButton::clicked, this, &DiagnosticsPanel::refresh);
    connect(recheck, &QPushButton::clicked, this, &DiagnosticsPanel::recheckRequested);
    connect(buildImage, &QPushButton::clicked, this, &DiagnosticsPanel::buildImageRequested);
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
        for (const QJsonValue item : value.toArray()) {
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
    showReport(m_source ? m_source() : DiagnosticsReport());
}

void DiagnosticsPanel::showReport(const DiagnosticsReport& report) {
    m_text = redact(report.toText(), m_secrets);
    m_json = redactJson(report.toJson(), m_secrets).toObject();
    m_checks = report.checks();
    for (DiagnosticCheck& check : m_checks) {
        check.summary = redact(check.summary, m_secrets);
        check.action = redact(check.action, m_secrets);
    }
    m_view->setPlainText(m_text);
    showChecks();
}

QPixmap DiagnosticsPanel::levelPixmap(DiagnosticCheck::Level level, int size, qreal devicePixelRatio) {
    QPixmap pixmap(QSize(size, size) * devicePixelRatio);
    pixmap.setDevicePixelRatio(devicePixelRatio);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor fill = level == DiagnosticCheck::Level::Ok        ? QColor(0x2e, 0x9d, 0x4b)
                        : level == DiagnosticCheck::Level::Warning ? QColor(0xe0, 0x9b, 0x16)
                                                                   : QColor(0xd0, 0x35, 0x2b);
    painter.setPen(Qt::NoPen);
    painter.setBrush(fill);
    const qreal s = size;
    painter.drawEllipse(QRectF(0.5, 0.5, s - 1.0, s - 1.0));
    QPen pen(Qt::white, s * 0.13, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    if (level == DiagnosticCheck::Level::Ok) {
        QPainterPath tick;
        tick.moveTo(s * 0.28, s * 0.52);
        tick.lineTo(s * 0.44, s * 0.68);
        tick.lineTo(s * 0.72, s * 0.34);
        painter.drawPath(tick);
    } else if (level == DiagnosticCheck::Level::Warning) {
        painter.drawLine(QPointF(s * 0.5, s * 0.26), QPointF(s * 0.5, s * 0.56));
        painter.drawPoint(QPointF(s * 0.5, s * 0.74));
    } else {
        painter.drawLine(QPointF(s * 0.33, s * 0.33), QPointF(s * 0.67, s * 0.67));
        painter.drawLine(QPointF(s * 0.67, s * 0.33), QPointF(s * 0.33, s * 0.67));
    }
    return pixmap;
}

void DiagnosticsPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitChecklist();
}

void DiagnosticsPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    fitChecklist();
}

void DiagnosticsPanel::fitChecklist() {
    // Every row without scrolling where it fits (the failed ones are often the last), at most
    // three fifths of the height; the full report takes the rest. Word-wrapped rows are as tall
    // as the width makes them, so this follows the panel's size.
    const int total = m_splitter->height();
    if (total <= 0) {
        return;
    }
    const int width = m_checklistScroll->width();
    const int rows =
        m_checklist->hasHeightForWidth() ? m_checklist->heightForWidth(width) : m_checklist->sizeHint().height();
    const int wanted = rows + m_checksHeading->sizeHint().height() + 8;
    const int top = std::min(wanted, total * 3 / 5);
    m_splitter->setSizes({top, total - top});
}

void DiagnosticsPanel::showChecks() {
    while (QLayoutItem* item = m_checkRows->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    int counts[3] = {0, 0, 0};
    const int glyph = fontMetrics().height() + 4;
    QFont actionFont = font();
    actionFont.setPointSizeF(actionFont.pointSizeF() * 0.9);
    // Muted but readable: the text colour two thirds of the way from the background (the disabled
    // colour is too faint for instructions people must follow).
    QPalette actionPalette = palette();
    const QColor textColor = palette().color(QPalette::WindowText);
    const QColor background = palette().color(QPalette::Window);
    actionPalette.setColor(QPalette::WindowText,
                           QColor::fromRgbF(textColor.redF() * 0.7F + background.redF() * 0.3F,
                                            textColor.greenF() * 0.7F + background.greenF() * 0.3F,
                                            textColor.blueF() * 0.7F + background.blueF() * 0.3F));
    int row = 0;
    for (const DiagnosticCheck& check : m_checks) {
        ++counts[int(check.level)];
        auto* icon = new QLabel(m_checklist);
        icon->setPixmap(levelPixmap(check.level, glyph, devicePixelRatioF()));
        icon->setFixedSize(glyph, glyph);
        icon->setAccessibleName(DiagnosticCheck::levelLabel(check.level));
        icon->setToolTip(DiagnosticCheck::levelLabel(check.level));

        auto* text = new QWidget(m_checklist);
        text->setObjectName(QStringLiteral("check_") + check.id);
        auto* lines = new QVBoxLayout(text);
        lines->setContentsMargins(0, 0, 0, 0);
        lines->setSpacing(2);
        auto* summary = new QLabel(
            QStringLiteral("<b>%1</b>&nbsp;&nbsp;%2")
                .arg(DiagnosticSections::checkTitle(check.id).toHtmlEscaped(), check.summary.toHtmlEscaped()),
            text);
        summary->setObjectName(QStringLiteral("checkSummary"));
        summary->setTextFormat(Qt::RichText);
        summary->setWordWrap(true);
        summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
        summary->setAccessibleName(DiagnosticCheck::levelLabel(check.level) + QStringLiteral(": ")
                                   + DiagnosticSections::checkTitle(check.id) + QStringLiteral(": ") + check.summary);
        lines->addWidget(summary);
        if (!check.action.isEmpty()) {
            auto* action = new QLabel(check.action, text);
            action->setObjectName(QStringLiteral("checkAction"));
            action->setTextFormat(Qt::PlainText);
            action->setWordWrap(true);
            action->setFont(actionFont);
            action->setPalette(actionPalette);
            action->setTextInteractionFlags(Qt::TextSelectableByMouse);
            lines->addWidget(action);
        }
        m_checkRows->addWidget(icon, row, 0, Qt::AlignTop | Qt::AlignHCenter);
        m_checkRows->addWidget(text, row, 1);
        ++row;
    }
    m_checkRows->setRowStretch(row, 1);
    // Not now: a row added to a visible panel is shown by its layout later (a queued call), and until then it
    // counts as empty, so the checklist would measure as no rows at all.
    QMetaObject::invokeMethod(this, &DiagnosticsPanel::fitChecklist, Qt::QueuedConnection);
    const int problems = counts[int(DiagnosticCheck::Level::Warning)] + counts[int(DiagnosticCheck::Level::Failed)];
    m_checksHeading->setText(
        QStringLiteral("<b>%1</b>&nbsp;&nbsp;%2")
            .arg(tr("Checks"), problems == 0 ? tr("all %1 passed").arg(counts[int(DiagnosticCheck::Level::Ok)])
                                             : tr("%1 failed, %2 warning(s), %3 ok")
                                                   .arg(counts[int(DiagnosticCheck::Level::Failed)])
                                                   .arg(counts[int(DiagnosticCheck::Level::Warning)])
                                                   .arg(counts[int(DiagnosticCheck::Level::Ok)])));
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
