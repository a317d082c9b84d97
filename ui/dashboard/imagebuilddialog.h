#pragma once

#include "engine/imagebuilder.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace zeus {

// The sandbox image build of the Diagnostics page's "Build Image…" (the same pipeline as --build-image and
// docker/ensure-image.sh: the Dockerfile, else the host distribution's package archive; nothing when the tag
// already carries the recipe's revision), with its engine log streaming in and a Cancel that really stops it.
//
// Owns the ImageBuilder of one build. It never decides which engine or image to use: the caller passes the
// request. Closing the window while the build runs cancels it.
class ImageBuildDialog : public QDialog {
    Q_OBJECT
public:
    // Lines kept in the log view: a distribution build prints tens of thousands.
    static constexpr int kMaxLogLines = 5000;

    ImageBuildDialog(ImageBuilder::Request request, const QString& engineName, QWidget* parent = nullptr);
    ~ImageBuildDialog() override;

    // Starts the build (once).
    void start();
    ImageBuilder::State state() const { return m_builder.state(); }
    QString logText() const;

    // The user-facing line for a finished build. Pure.
    static QString outcomeText(bool success, const QString& builtWay, const QString& error);

    // Close, Escape or the window's close button: a running build is cancelled first.
    void reject() override;

Q_SIGNALS:
    // The build is over; on success the image is there (built or already current).
    void buildFinished(bool success);

private:
    void onFinished(bool success, int exitCode, const QString& error);

    ImageBuilder::Request m_request;
    ImageBuilder m_builder;
    bool m_started = false;
    QLabel* m_heading = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QPushButton* m_cancel = nullptr;
};

}  // namespace zeus
