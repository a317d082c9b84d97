#include "dashboard/runtimepanel.h"

#include "diagnosticsreport.h"
#include "runtime/runtimedetector.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStyle>
#include <QTextDocument>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace zeus {

namespace {

QString versionOf(const RuntimeProbe& probe) {
    return probe.serverVersion.isEmpty() ? probe.clientVersion : probe.serverVersion;
}

}  // namespace

RuntimePanel::RuntimePanel(RuntimeDetector* detector, QWidget* parent)
    : QWidget(parent), m_detector(detector), m_os(InstallGuidance::currentOs()) {
    setObjectName(QStringLiteral("RuntimePanel"));
    m_icon = new QLabel(this);
    m_icon->setFixedSize(24, 24);
    m_headline = new QLabel(this);
    m_headline->setObjectName(QStringLiteral("runtimeHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_headline->font();
    bold.setBold(true);
    m_headline->setFont(bold);
    m_recheck = new QPushButton(tr("Re-&check"), this);
    m_recheck->setObjectName(QStringLiteral("recheck"));
    m_recheck->setAccessibleDescription(tr("Probe Apple Containerization, Docker and Podman again"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_icon, 0, Qt::AlignTop);
    top->addWidget(m_headline, 1);
    top->addWidget(m_recheck, 0, Qt::AlignTop);

    // Said here as well as in Diagnostics: an engine that drops --memory/--pids-limit/--cpus leaves the machine
    // unprotected from a runaway command (rootless Podman on cgroup v1 does, silently).
    m_limitsWarning = new QLabel(this);
    m_limitsWarning->setObjectName(QStringLiteral("limitsWarning"));
    m_limitsWarning->setWordWrap(true);
    m_limitsWarning->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_limitsWarning->setVisible(false);

    m_probes = new QTreeWidget(this);
    m_probes->setObjectName(QStringLiteral("probes"));
    m_probes->setAccessibleName(tr("Runtime probes"));
    m_probes->setRootIsDecorated(false);
    m_probes->setUniformRowHeights(true);
    m_probes->setHeaderLabels({tr("Runtime"), tr("State"), tr("Version"), tr("Engine"), tr("Details")});
    m_probes->header()->setStretchLastSection(true);

    m_guidanceBox = new QGroupBox(tr("What to do"), this);
    m_guidanceBox->setObjectName(QStringLiteral("guidance"));
    m_guidanceSummary = new QLabel(m_guidanceBox);
    m_guidanceSummary->setObjectName(QStringLiteral("guidanceSummary"));
    m_guidanceSummary->setWordWrap(true);
    m_guidanceSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_guidanceCommands = new QPlainTextEdit(m_guidanceBox);
    m_guidanceCommands->setObjectName(QStringLiteral("guidanceCommands"));
    m_guidanceCommands->setAccessibleName(tr("Commands to run"));
    m_guidanceCommands->setReadOnly(true);
    m_guidanceCommands->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_guidanceCommands->setTabChangesFocus(true);
    m_guidanceVerify = new QLabel(m_guidanceBox);
    m_guidanceVerify->setObjectName(QStringLiteral("guidanceVerify"));
    m_guidanceVerify->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_guidanceVerify->setWordWrap(true);
    m_copy = new QPushButton(tr("Cop&y Commands"), m_guidanceBox);
    m_copy->setObjectName(QStringLiteral("copyCommands"));
    auto* guidanceLayout = new QVBoxLayout(m_guidanceBox);
    guidanceLayout->addWidget(m_guidanceSummary);
    guidanceLayout->addWidget(m_guidanceCommands);
    auto* verifyRow = new QHBoxLayout;
    verifyRow->addWidget(m_guidanceVerify, 1);
    verifyRow->addWidget(m_copy);
    guidanceLayout->addLayout(verifyRow);
    m_guidanceBox->setVisible(false);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_limitsWarning);
    layout->addWidget(m_guidanceBox);
    layout->addWidget(m_probes);

    connect(m_copy, &QPushButton::clicked, this, &RuntimePanel::copyCommands);
    connect(m_recheck, &QPushButton::clicked, this, [this] {
        showChecking();
        Q_EMIT recheckRequested();
        if (m_detector) {
            m_detector->recheck();
        }
    });
    if (m_detector) {
        connect(m_detector, &RuntimeDetector::detectionStarted, this, &RuntimePanel::showChecking);
        connect(m_detector, &RuntimeDetector::detectionFinished, this, &RuntimePanel::showResult);
        if (m_detector->hasResult()) {
            showResult(m_detector->result());
        } else {
            showChecking();
        }
    } else {
        showChecking();
    }
}

void RuntimePanel::setGuidanceOs(InstallGuidance::Os os) {
    m_os = os;
    if (m_haveResult) {
        showResult(m_result);
    }
}

QString RuntimePanel::headline(const DetectionResult& result) {
    if (const RuntimeProbe* probe = result.chosenProbe()) {
        const QString version = versionOf(*probe);
        const QString name = runtimeDisplayName(probe->kind);
        if (probe->location.kind == EngineLocation::Kind::Unknown) {
            return version.isEmpty() ? tr("%1 is ready.").arg(name) : tr("%1 %2 is ready.").arg(name, version);
        }
        // Where it runs decides what direct mode can do (SPEC §10): say it where the user looks first.
        return version.isEmpty() ? tr("%1 is ready (%2).").arg(name, probe->location.label())
                                 : tr("%1 %2 is ready (%3).").arg(name, version, probe->location.label());
    }
    return result.unusableReason();
}

void RuntimePanel::setReadinessProblem(const QString& problem) {
    if (problem == m_readinessProblem) {
        return;
    }
    m_readinessProblem = problem;
    if (m_haveResult) {
        showResult(m_result);
    }
}

void RuntimePanel::showChecking() {
    m_recheck->setEnabled(false);
    m_headline->setText(tr("Checking for a container runtime…"));
    m_icon->setPixmap(style()->standardIcon(QStyle::SP_BrowserReload).pixmap(24, 24));
}

void RuntimePanel::showResult(const DetectionResult& result) {
    m_result = result;
    m_haveResult = true;
    m_recheck->setEnabled(true);
    const bool notReady = result.isUsable() && !m_readinessProblem.isEmpty();
    m_headline->setText(
        notReady ? tr("%1 Commands cannot run yet: no sandbox agent (see the banner above).").arg(headline(result))
                 : headline(result));
    m_headline->setAccessibleName(m_headline->text());
    m_icon->setPixmap(
        style()
            ->standardIcon(result.isUsable() && !notReady ? QStyle::SP_DialogApplyButton : QStyle::SP_MessageBoxWarning)
            .pixmap(24, 24));

    const RuntimeProbe* chosen = result.chosenProbe();
    const QStringList dropped = chosen ? chosen->unenforcedLimits() : QStringList();
    if (dropped.isEmpty()) {
        m_limitsWarning->clear();
    } else {
        const QString engine = runtimeDisplayName(chosen->kind);
        m_limitsWarning->setText(
            chosen->kind == RuntimeKind::Podman && chosen->rootless.value_or(false)
                ? tr("Warning: %1 will not enforce %2 (rootless Podman without cgroup v2 delegation): a runaway "
                     "command can use up this machine's memory or processes. Use cgroup v2 with the controllers "
                     "delegated to your user, or run Podman rootful.")
                      .arg(engine, dropped.join(QStringLiteral(", ")))
                : tr("Warning: %1 will not enforce %2: a runaway command can use up this machine's memory or "
                     "processes. Enable the memory, pids and cpu cgroup controllers, then restart the engine.")
                      .arg(engine, dropped.join(QStringLiteral(", "))));
    }
    m_limitsWarning->setVisible(!dropped.isEmpty());

    m_probes->clear();
    for (const RuntimeProbe& probe : result.probes) {
        auto* item = new QTreeWidgetItem(m_probes);
        QString name = runtimeDisplayName(probe.kind);
        if (result.chosen == probe.kind) {
            name += QLatin1Char(' ') + tr("(in use)");
        }
        item->setText(0, name);
        item->setText(1, RuntimeProbe::stateLabel(probe.state));
        item->setText(2, versionOf(probe));
        item->setText(3, probe.location.kind == EngineLocation::Kind::Unknown ? QString() : probe.location.label());
        item->setText(4, probe.isUsable() ? probe.binaryPath : probe.reason);
        item->setToolTip(4, item->text(4));
    }
    for (int column = 0; column < 4; ++column) {
        m_probes->resizeColumnToContents(column);
    }
    // As tall as its rows: one per runtime, no empty band below them.
    const int rows = qMax(1, m_probes->topLevelItemCount());
    const int rowHeight =
        m_probes->topLevelItemCount() > 0 ? m_probes->sizeHintForRow(0) : m_probes->fontMetrics().height() + 4;
    m_probes->setFixedHeight(m_probes->header()->sizeHint().height() + rows * rowHeight + 2 * m_probes->frameWidth()
                             + 2);

    const std::optional<InstallGuidance> guidance = DiagnosticsReport::overallGuidance(result, m_os);
    m_guidanceBox->setVisible(guidance.has_value() && !guidance->isEmpty());
    if (guidance && !guidance->isEmpty()) {
        m_guidanceSummary->setText(guidance->summary);
        m_guidanceCommands->setPlainText(guidance->commands.join(QLatin1Char('\n')));
        // As tall as the commands (up to six lines), so one command is not a large empty box.
        const int lines = qBound(1, int(guidance->commands.size()), 6);
        const QFontMetrics metrics(m_guidanceCommands->font());
        m_guidanceCommands->setFixedHeight(lines * metrics.lineSpacing()
                                           + 2 * int(m_guidanceCommands->document()->documentMargin())
                                           + 2 * m_guidanceCommands->frameWidth() + 4);
        m_guidanceCommands->setVisible(!guidance->commands.isEmpty());
        m_copy->setVisible(!guidance->commands.isEmpty());
        m_guidanceVerify->setText(guidance->verify.isEmpty() ? QString()
                                                             : tr("To check it worked, run: %1").arg(guidance->verify));
    }
}

void RuntimePanel::copyCommands() {
    QApplication::clipboard()->setText(m_guidanceCommands->toPlainText());
}

}  // namespace zeus
