// The Diagnostics page's image build window: the engine's log streams in, the outcome is said in words, Cancel
// really stops the build and closing a running build cancels it. The engine is a small script standing in for
// `docker build` (the real builds are tests/engine/tst_imagebuilder.cpp and tst_distroimage.cpp).
#include "dashboard/imagebuilddialog.h"

#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using zeus::ImageBuildDialog;
using zeus::ImageBuilder;

class TestImageBuildDialog : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // A Dockerfile that is not the sandbox recipe (one `build`), and an engine that runs `script` for it.
    ImageBuilder::Request requestWith(const QByteArray& script) {
        const QString program = m_dir.filePath(QStringLiteral("engine-%1").arg(++m_engines));
        QFile engine(program);
        if (!engine.open(QIODevice::WriteOnly)) {
            return {};
        }
        engine.write("#!/bin/sh\n" + script + "\n");
        engine.close();
        engine.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QFile dockerfile(m_dir.filePath(QStringLiteral("Dockerfile")));
        if (dockerfile.open(QIODevice::WriteOnly)) {
            dockerfile.write("FROM scratch\n");
        }
        ImageBuilder::Request request;
        request.program = program;
        request.tag = QStringLiteral("zeus-desktop-sandbox:latest");
        request.dockerfile = dockerfile.fileName();
        request.contextDir = m_dir.path();
        request.version = QStringLiteral("0.1.0");
        return request;
    }
    int m_engines = 0;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void streamsTheLogAndSaysTheOutcome_data() {
        QTest::addColumn<QByteArray>("script");
        QTest::addColumn<bool>("success");
        QTest::addColumn<QString>("status");
        QTest::newRow("built") << QByteArray("echo 'Step 1/2 : FROM scratch'; echo 'Step 2/2 : done' >&2; exit 0")
                               << true << QStringLiteral("The image is built.");
        QTest::newRow("failed") << QByteArray("echo 'Step 1/2 : FROM scratch'; echo 'no space left' >&2; exit 3")
                                << false << QStringLiteral("The build failed:");
    }

    void streamsTheLogAndSaysTheOutcome() {
        QFETCH(QByteArray, script);
        QFETCH(bool, success);
        QFETCH(QString, status);
        ImageBuildDialog dialog(requestWith(script), QStringLiteral("Docker"));
        dialog.show();
        QVERIFY(dialog.findChild<QLabel*>(QStringLiteral("imageBuildHeading"))
                    ->text()
                    .contains(QStringLiteral("zeus-desktop-sandbox:latest with Docker")));
        auto* close = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Close);
        QVERIFY(!close->isEnabled());  // a running build is stopped with Cancel, not left behind
        QSignalSpy finished(&dialog, &ImageBuildDialog::buildFinished);
        dialog.start();
        QVERIFY(finished.wait(15000));
        QCOMPARE(finished.first().first().toBool(), success);
        QVERIFY2(dialog.logText().contains(QStringLiteral("Step 1/2 : FROM scratch")), qPrintable(dialog.logText()));
        const QString said = dialog.findChild<QLabel*>(QStringLiteral("imageBuildStatus"))->text();
        QVERIFY2(said.startsWith(status), qPrintable(said));
        QVERIFY(close->isEnabled());
        QVERIFY(!dialog.findChild<QPushButton*>(QStringLiteral("cancelImageBuild"))->isVisible());
    }

    void cancelStopsTheBuild() {
        ImageBuildDialog dialog(requestWith("echo started; exec sleep 60"), QStringLiteral("Podman"));
        dialog.show();
        QSignalSpy finished(&dialog, &ImageBuildDialog::buildFinished);
        dialog.start();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.logText().contains(QStringLiteral("started")), 10000);
        QElapsedTimer timer;
        timer.start();
        dialog.findChild<QPushButton*>(QStringLiteral("cancelImageBuild"))->click();
        QVERIFY(finished.wait(15000));
        QCOMPARE(finished.first().first().toBool(), false);
        QCOMPARE(dialog.state(), ImageBuilder::State::Cancelled);
        QVERIFY2(timer.elapsed() < 12000, "the build was stopped, not waited for");
    }

    void closingARunningBuildCancelsIt() {
        ImageBuildDialog dialog(requestWith("echo started; exec sleep 60"), QStringLiteral("Docker"));
        dialog.show();
        QSignalSpy finished(&dialog, &ImageBuildDialog::buildFinished);
        dialog.start();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.logText().contains(QStringLiteral("started")), 10000);
        dialog.reject();
        QVERIFY(finished.wait(15000));
        QCOMPARE(dialog.state(), ImageBuilder::State::Cancelled);
    }

    void outcomeInWords() {
        QCOMPARE(ImageBuildDialog::outcomeText(true, QStringLiteral("cached"), QString()),
                 QStringLiteral("The image is current: nothing needed building."));
        QVERIFY(ImageBuildDialog::outcomeText(true, QStringLiteral("debootstrap"), QString())
                    .contains(QStringLiteral("distribution archive")));
        QCOMPARE(ImageBuildDialog::outcomeText(false, QString(), QStringLiteral("exit 3")),
                 QStringLiteral("The build failed: exit 3"));
    }

    void screenshot() {
        const QString shots = qEnvironmentVariable("ZEUS_SCREENSHOT_DIR");
        if (shots.isEmpty()) {
            QSKIP("set ZEUS_SCREENSHOT_DIR to save screenshots");
        }
        ImageBuildDialog dialog(
            requestWith("for i in 1 2 3 4 5 6; do echo \"Step $i/14 : RUN apt-get install -y nodejs npm\"; done; "
                        "echo 'Successfully tagged zeus-desktop-sandbox:latest'; exit 0"),
            QStringLiteral("Docker"));
        dialog.show();
        QSignalSpy finished(&dialog, &ImageBuildDialog::buildFinished);
        dialog.start();
        QVERIFY(finished.wait(15000));
        QVERIFY(dialog.grab().save(shots + QStringLiteral("/image-build.png")));
    }
};

QTEST_MAIN(TestImageBuildDialog)
#include "tst_imagebuilddialog.moc"
