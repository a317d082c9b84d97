#include "dashboard/imagebuilddialog.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <utility>

namespace zeus {

ImageBuildDialog::ImageBuildDialog(ImageBuilder::Request request, const QString& engineName, QWidget* parent)
    : QDialog(parent), m_request(std::move(request)) {
    setObjectName(QStringLiteral("imageBuildDialog"));
    setWindowTitle(tr("Build the Sandbox Image"));
    m_heading = new QLabel(tr("Building %1 with %2.").arg(m_request.tag, engineName), this);
    m_heading->setObjectName(QStringLiteral("imageBuildHeading"));
    m_heading->setWordWrap(true);
    auto* hint = new QLabel(tr("Where no container registry answers, the image is made from this computer's "
                               "distribution archive instead; the first build can take ten minutes or more. An "
                               "image that is already current is kept."),
                            this);
    hint->setWordWrap(true);
    m_status = new QLabel(tr("Starting…"), this);
    m_status->setObjectName(QStringLiteral("imageBuildStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName(QStringLiteral("imageBuildLog"));
    m_log->setReadOnly(true);
    m_log->setAccessibleName(tr("Build log"));
    m_log->setMaximumBlockCount(kMaxLogLines);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_cancel = m_buttons->addButton(tr("&Cancel Build"), QDialogButtonBox::ActionRole);
    m_cancel->setObjectName(QStringLiteral("cancelImageBuild"));
    m_buttons->button(QDialogButtonBox::Close)->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_heading);
    layout->addWidget(hint);
    layout->addWidget(m_log, 1);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);

    connect(&m_builder, &ImageBuilder::logLine, m_log, &QPlainTextEdit::appendPlainText);
    connect(&m_builder, &ImageBuilder::finished, this, &ImageBuildDialog::onFinished);
    connect(m_cancel, &QPushButton::clicked, &m_builder, &ImageBuilder::cancel);
    connect(&m_builder, &ImageBuilder::stateChanged, this, [this](ImageBuilder::State state) {
        if (state == ImageBuilder::State::Running) {
            m_status->setText(tr("Building…"));
        } else if (state == ImageBuilder::State::Cancelling) {
            m_status->setText(tr("Stopping the build…"));
            m_cancel->setEnabled(false);
        }
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ImageBuildDialog::reject);
    resize(720, 480);
}

ImageBuildDialog::~ImageBuildDialog() {
    m_builder.disconnect(this);
    m_builder.cancel();
}

void ImageBuildDialog::start() {
    if (m_started) {
        return;
    }
    m_started = true;
    m_builder.start(m_request);  // an invalid request emits finished() with the reason
}

QString ImageBuildDialog::logText() const {
    return m_log->toPlainText();
}

QString ImageBuildDialog::outcomeText(bool success, const QString& builtWay, const QString& error) {
    if (!success) {
        return tr("The build failed: %1").arg(error);
    }
    if (builtWay == QLatin1String("cached")) {
        return tr("The image is current: nothing needed building.");
    }
    if (builtWay == QLatin1String("debootstrap")) {
        return tr("The image is built, from this computer's distribution archive (no registry answered).");
    }
    return tr("The image is built.");
}

void ImageBuildDialog::onFinished(bool success, int exitCode, const QString& error) {
    Q_UNUSED(exitCode)
    m_status->setText(outcomeText(success, m_builder.builtWay(), error));
    m_cancel->setEnabled(false);
    m_cancel->hide();
    QPushButton* close = m_buttons->button(QDialogButtonBox::Close);
    close->setEnabled(true);
    close->setDefault(true);
    close->setFocus();
    Q_EMIT buildFinished(success);
}

void ImageBuildDialog::reject() {
    // Closing a running build cancels it: a build nobody watches must not go on taking the machine.
    if (m_builder.isRunning()) {
        m_builder.cancel();
    }
    QDialog::reject();
}

}  // namespace zeus
