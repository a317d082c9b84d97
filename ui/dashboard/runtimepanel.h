#pragma once

#include "runtime/detectionresult.h"
#include "runtime/installguidance.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;

namespace zeus {

class RuntimeDetector;

// The container runtime at a glance: which runtime is used (kind, version, state), every
// probe's state and reason, and when nothing is usable the install guidance for this OS
// with copyable commands, plus Re-check.
//
// Owns its widgets. It shows what the RuntimeDetector found and asks it to re-check; it
// must never run a probe or any guidance command itself.
class RuntimePanel : public QWidget {
    Q_OBJECT
public:
    explicit RuntimePanel(RuntimeDetector* detector, QWidget* parent = nullptr);

    // The OS whose guidance is shown (tests set it; defaults to this one).
    void setGuidanceOs(InstallGuidance::Os os);
    // Shows a result (also called for every detectionFinished()).
    void showResult(const DetectionResult& result);
    void showChecking();
    // Why the sandbox is not ready although the runtime is (no sandbox agent it can use), or empty: the headline
    // says so with a warning instead of a plain "ready".
    void setReadinessProblem(const QString& problem);

    // Pure: the one-line headline for a result ("Docker 20.10.24 is ready." ...).
    static QString headline(const DetectionResult& result);

Q_SIGNALS:
    void recheckRequested();

private:
    void copyCommands();

    QPointer<RuntimeDetector> m_detector;
    InstallGuidance::Os m_os;
    DetectionResult m_result;
    bool m_haveResult = false;
    QString m_readinessProblem;

    QLabel* m_headline = nullptr;
    QLabel* m_limitsWarning = nullptr;
    QLabel* m_icon = nullptr;
    QTreeWidget* m_probes = nullptr;
    QWidget* m_guidanceBox = nullptr;
    QLabel* m_guidanceSummary = nullptr;
    QPlainTextEdit* m_guidanceCommands = nullptr;
    QLabel* m_guidanceVerify = nullptr;
    QPushButton* m_copy = nullptr;
    QPushButton* m_recheck = nullptr;
};

}  // namespace zeus
