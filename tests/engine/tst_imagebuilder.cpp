// ImageBuilder against real engines: builds small Dockerfiles FROM the offline test image with Docker and Podman,
// checks the streamed log, the resulting image and its version label, a broken Dockerfile, cancel and timeout.
// The pure parts (argument list, lookup order, validation) are checked without an engine.
#include "engine/imagebuilder.h"
#include "testenvironment.h"

#include <zeus/buildinfo.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using zeus::ImageBuilder;
using zeus::test::runProgram;

class TestImageBuilder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void buildArguments_data();
    void buildArguments();
    void validate_data();
    void validate();
    void dockerDirectoryCandidates();
    void locateDockerDirectoryFindsOverride();
    void missingProgramFails();

    void buildsImage_data();
    void buildsImage();
    void brokenDockerfileFails_data();
    void brokenDockerfileFails();
    void cancelStopsBuild_data();
    void cancelStopsBuild();
    void timeoutStopsBuild();
    void bundledDockerfileIsStaged();
    void ensureImageFallsBackToTestImage_data();
    void ensureImageFallsBackToTestImage();

private:
    static void addEngineRows();
    QString writeDockerfile(QTemporaryDir& dir, const QByteArray& text);
    QString uniqueTag() const;
    static bool sleepRunning(const QByteArray& marker);
    static void removeImage(const QString& engine, const QString& tag);
    static QStringList leftovers(const QString& engine);
    static void removeNewLeftovers(const QString& engine, const QStringList& before);
};

void TestImageBuilder::buildArguments_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("version");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QStringList>("expected");

    const QStringList appleHead{QStringLiteral("build"), QStringLiteral("-t"), QStringLiteral("img:1"),
                                QStringLiteral("-f"), QStringLiteral("/d/Dockerfile")};
    const QStringList head = appleHead + QStringList{QStringLiteral("--force-rm")};
    const QStringList context{QStringLiteral("/ctx dir")};
    const QStringList version{QStringLiteral("--build-arg"), QStringLiteral("ZEUS_VERSION=0.1.0")};

    QTest::newRow("docker") << "docker"
                            << "0.1.0" << QStringList() << head + version + context;
    QTest::newRow("podman, no version") << "podman"
                                        << "" << QStringList() << head + context;
    QTest::newRow("podman by path") << "/usr/bin/podman"
                                    << "" << QStringList() << head + context;
    QTest::newRow("docker.exe") << "C:/Program Files/Docker/docker.EXE"
                                << "" << QStringList() << head + context;
    QTest::newRow("apple: no --force-rm") << "container"
                                          << "0.1.0" << QStringList() << appleHead + version + context;
    QTest::newRow("extra args") << "docker"
                                << "0.1.0" << QStringList{QStringLiteral("A=1"), QStringLiteral("B=x y")}
                                << head + version
                                       + QStringList{QStringLiteral("--build-arg"), QStringLiteral("A=1"),
                                                     QStringLiteral("--build-arg"), QStringLiteral("B=x y")}
                                       + context;
}

void TestImageBuilder::buildArguments() {
    QFETCH(QString, program);
    QFETCH(QString, version);
    QFETCH(QStringList, extra);
    QFETCH(QStringList, expected);
    ImageBuilder::Request request;
    request.program = program;
    request.tag = QStringLiteral("img:1");
    request.dockerfile = QStringLiteral("/d/Dockerfile");
    request.contextDir = QStringLiteral("/ctx dir");
    request.version = version;
    request.extraBuildArgs = extra;
    QCOMPARE(ImageBuilder::buildArguments(request), expected);
}

void TestImageBuilder::validate_data() {
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("tag");
    QTest::addColumn<bool>("dockerfileExists");
    QTest::addColumn<bool>("contextExists");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("errorContains");  // empty: valid

    QTest::newRow("valid") << "docker"
                           << "a/b:c" << true << true << QStringList() << "";
    QTest::newRow("no program") << ""
                                << "a:b" << true << true << QStringList() << "engine";
    QTest::newRow("empty tag") << "docker"
                               << "" << true << true << QStringList() << "tag";
    QTest::newRow("tag is an option") << "docker"
                                      << "--rm" << true << true << QStringList() << "tag";
    QTest::newRow("tag with space") << "docker"
                                    << "a b" << true << true << QStringList() << "tag";
    QTest::newRow("tag with newline") << "docker"
                                      << "a\nb" << true << true << QStringList() << "tag";
    QTest::newRow("no Dockerfile") << "podman"
                                   << "a:b" << false << true << QStringList() << "Dockerfile";
    QTest::newRow("no context") << "podman"
                                << "a:b" << true << false << QStringList() << "context";
    QTest::newRow("bad build arg") << "podman"
                                   << "a:b" << true << true << QStringList{QStringLiteral("NOEQUALS")} << "KEY=VALUE";
    QTest::newRow("empty build arg key") << "podman"
                                         << "a:b" << true << true << QStringList{QStringLiteral("=x")} << "KEY=VALUE";
}

void TestImageBuilder::validate() {
    QFETCH(QString, program);
    QFETCH(QString, tag);
    QFETCH(bool, dockerfileExists);
    QFETCH(bool, contextExists);
    QFETCH(QStringList, extra);
    QFETCH(QString, errorContains);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString dockerfile = writeDockerfile(dir, "FROM scratch\n");
    ImageBuilder::Request request;
    request.program = program;
    request.tag = tag;
    request.dockerfile = dockerfileExists ? dockerfile : dir.filePath(QStringLiteral("missing/Dockerfile"));
    request.contextDir = contextExists ? dir.path() : dir.filePath(QStringLiteral("missing"));
    request.extraBuildArgs = extra;
    const QString error = ImageBuilder::validate(request);
    if (errorContains.isEmpty()) {
        QVERIFY2(error.isEmpty(), qPrintable(error));
    } else {
        QVERIFY2(error.contains(errorContains), qPrintable(error));
    }
}

void TestImageBuilder::dockerDirectoryCandidates() {
    const QStringList withOverride = ImageBuilder::dockerDirectoryCandidates(
        QStringLiteral("/usr/bin"), QStringLiteral("/opt/mine"),
        {QStringLiteral("/usr/local/share"), QStringLiteral("/usr/share"), QString()});
    const QStringList expected{QStringLiteral("/opt/mine"), QStringLiteral("/usr/share/zeus-desktop/docker"),
                               QStringLiteral("/usr/Resources/docker"), QStringLiteral("/usr/bin/docker"),
                               QStringLiteral("/usr/local/share/zeus-desktop/docker")};
    // /usr/share/zeus-desktop/docker appears once although two rules produce it.
    QCOMPARE(withOverride, expected);

    const QStringList bundle = ImageBuilder::dockerDirectoryCandidates(
        QStringLiteral("/Applications/Zeus Desktop.app/Contents/MacOS"), QString(), {});
    QCOMPARE(bundle.value(1), QStringLiteral("/Applications/Zeus Desktop.app/Contents/Resources/docker"));
    QCOMPARE(bundle.value(0), QStringLiteral("/Applications/Zeus Desktop.app/Contents/share/zeus-desktop/docker"));
    QVERIFY(ImageBuilder::dockerDirectoryCandidates(QString(), QString(), {}).isEmpty());
}

void TestImageBuilder::locateDockerDirectoryFindsOverride() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeDockerfile(dir, "FROM scratch\n");
    const QByteArray previous = qgetenv("ZEUS_DOCKER_DIR");
    qputenv("ZEUS_DOCKER_DIR", QFile::encodeName(dir.path()));
    const QString found = ImageBuilder::locateDockerDirectory();
    qputenv("ZEUS_DOCKER_DIR", previous);
    QCOMPARE(found, QDir::cleanPath(dir.path()));
}

void TestImageBuilder::missingProgramFails() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ImageBuilder builder;
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = dir.filePath(QStringLiteral("no-such-engine"));
    request.tag = QStringLiteral("x:y");
    request.dockerfile = writeDockerfile(dir, "FROM scratch\n");
    request.contextDir = dir.path();
    QVERIFY(builder.start(request));
    QVERIFY(finished.wait(10000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(finished.first().at(1).toInt(), -1);
    QVERIFY2(finished.first().at(2).toString().contains(QStringLiteral("Could not start")),
             qPrintable(finished.first().at(2).toString()));
    QCOMPARE(builder.state(), ImageBuilder::State::Failed);
}

void TestImageBuilder::addEngineRows() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("docker") << QStringLiteral("docker");
    QTest::newRow("podman") << QStringLiteral("podman");
}

void TestImageBuilder::buildsImage_data() {
    addEngineRows();
}

void TestImageBuilder::buildsImage() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QStringList before = leftovers(engine);
    const auto removeLeftovers = qScopeGuard([&] { removeNewLeftovers(engine, before); });
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray marker = "zeus-build-" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces).left(8);
    const QString dockerfile = writeDockerfile(
        dir, "FROM " + zeus::test::testImage().toUtf8()
                 + "\nARG ZEUS_VERSION=dev\n"
                   "LABEL org.opencontainers.image.version=$ZEUS_VERSION\n"
                   "RUN echo "
                 + marker + "-said-\xc3\xa9t\xc3\xa9 && echo " + marker + " > /built.txt\n");

    ImageBuilder builder;
    QSignalSpy lines(&builder, &ImageBuilder::logLine);
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    QSignalSpy states(&builder, &ImageBuilder::stateChanged);
    ImageBuilder::Request request;
    request.program = engine;
    request.tag = uniqueTag();
    request.dockerfile = dockerfile;
    request.contextDir = dir.path();
    request.version = QStringLiteral("9.8.7");
    QVERIFY(builder.start(request));
    QCOMPARE(builder.state(), ImageBuilder::State::Running);
    QVERIFY(builder.isRunning());
    QVERIFY(finished.wait(120000));
    const auto cleanup = qScopeGuard([&] { removeImage(engine, request.tag); });

    QStringList log;
    for (const QList<QVariant>& args : std::as_const(lines)) {
        log << args.at(0).toString();
    }
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(log.join(QLatin1Char('\n'))));
    QCOMPARE(finished.first().at(1).toInt(), 0);
    QCOMPARE(builder.state(), ImageBuilder::State::Succeeded);
    QCOMPARE(states.last().at(0).value<ImageBuilder::State>(), ImageBuilder::State::Succeeded);

    // The log came line by line: the RUN step's own output is one whole line, decoded as UTF-8, no line breaks.
    QVERIFY2(log.contains(QString::fromUtf8(marker) + QStringLiteral("-said-\u00e9t\u00e9")),
             qPrintable(log.join(QLatin1Char('\n'))));
    for (const QString& line : std::as_const(log)) {
        QVERIFY(!line.contains(QLatin1Char('\n')));
        QVERIFY(!line.endsWith(QLatin1Char('\r')));
    }
    QVERIFY(log.size() >= 3);

    // The image exists, carries the version label from the build argument and has the file the RUN step wrote.
    const zeus::test::ProcessOutput inspect =
        runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), request.tag});
    QCOMPARE(inspect.exitCode, 0);
    const QJsonDocument doc = QJsonDocument::fromJson(inspect.out);
    QVERIFY(doc.isArray());
    const QJsonObject config = doc.array().first().toObject().value(QStringLiteral("Config")).toObject();
    QCOMPARE(config.value(QStringLiteral("Labels"))
                 .toObject()
                 .value(QStringLiteral("org.opencontainers.image.version"))
                 .toString(),
             QStringLiteral("9.8.7"));
    const zeus::test::ProcessOutput run =
        runProgram(engine, {QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"),
                            QStringLiteral("none"), request.tag, QStringLiteral("cat"), QStringLiteral("/built.txt")});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out.trimmed(), marker);
}

void TestImageBuilder::brokenDockerfileFails_data() {
    addEngineRows();
}

void TestImageBuilder::brokenDockerfileFails() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QStringList before = leftovers(engine);
    const auto removeLeftovers = qScopeGuard([&] { removeNewLeftovers(engine, before); });
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A step that fails, after one that prints: the failure must be reported with the engine's exit code.
    const QString dockerfile = writeDockerfile(
        dir, "FROM " + zeus::test::testImage().toUtf8() + "\nRUN echo before-the-failure\nRUN exit 7\n");
    ImageBuilder builder;
    QSignalSpy lines(&builder, &ImageBuilder::logLine);
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = engine;
    request.tag = uniqueTag();
    request.dockerfile = dockerfile;
    request.contextDir = dir.path();
    QVERIFY(builder.start(request));
    QVERIFY(finished.wait(120000));
    const auto cleanup = qScopeGuard([&] { removeImage(engine, request.tag); });
    QCOMPARE(finished.first().at(0).toBool(), false);
    const int exitCode = finished.first().at(1).toInt();
    QVERIFY2(exitCode > 0, qPrintable(QString::number(exitCode)));
    QCOMPARE(builder.exitCode(), exitCode);
    const QString error = finished.first().at(2).toString();
    QVERIFY2(error.contains(QStringLiteral("exit code %1").arg(exitCode)), qPrintable(error));
    QCOMPARE(builder.state(), ImageBuilder::State::Failed);
    bool sawEcho = false;
    for (const QList<QVariant>& args : std::as_const(lines)) {
        sawEcho = sawEcho || args.at(0).toString() == QLatin1String("before-the-failure");
    }
    QVERIFY(sawEcho);
    QCOMPARE(runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), request.tag}).exitCode == 0,
             false);

    // A Dockerfile the engine cannot parse fails too.
    const QString unparsable = writeDockerfile(dir, "THIS IS NOT AN INSTRUCTION\n");
    request.dockerfile = unparsable;
    finished.clear();
    QVERIFY(builder.start(request));
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(finished.first().at(1).toInt() != 0);
}

void TestImageBuilder::cancelStopsBuild_data() {
    addEngineRows();
}

void TestImageBuilder::cancelStopsBuild() {
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    const QStringList before = leftovers(engine);
    const auto removeLeftovers = qScopeGuard([&] { removeNewLeftovers(engine, before); });
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // A sleep of a length nothing else on this machine uses, so the check below finds only this build's.
    const int seconds = 100 + QRandomGenerator::global()->bounded(800);
    const QByteArray marker = "sleep " + QByteArray::number(seconds);
    const QString dockerfile =
        writeDockerfile(dir, "FROM " + zeus::test::testImage().toUtf8() + "\nRUN echo started && " + marker + "\n");
    ImageBuilder builder;
    builder.setKillGrace(2000);
    QSignalSpy lines(&builder, &ImageBuilder::logLine);
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = engine;
    request.tag = uniqueTag();
    request.dockerfile = dockerfile;
    request.contextDir = dir.path();
    QVERIFY(builder.start(request));
    const auto cleanup = qScopeGuard([&] { removeImage(engine, request.tag); });

    // Wait until the RUN step is really running.
    QElapsedTimer waited;
    waited.start();
    bool started = false;
    while (!started && waited.elapsed() < 60000 && finished.isEmpty()) {
        QTest::qWait(100);
        for (const QList<QVariant>& args : std::as_const(lines)) {
            started = started || args.at(0).toString() == QLatin1String("started");
        }
    }
    QVERIFY2(started, "the RUN step never started");
    QTRY_VERIFY_WITH_TIMEOUT(sleepRunning(marker), 10000);

    QElapsedTimer stopping;
    stopping.start();
    builder.cancel();
    QCOMPARE(builder.state(), ImageBuilder::State::Cancelling);
    QVERIFY(finished.wait(15000));
    const qint64 stopMs = stopping.elapsed();
    qInfo("%s build stopped %lld ms after cancel", qPrintable(engine), stopMs);
    QVERIFY2(stopMs < 10000, qPrintable(QString::number(stopMs)));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(builder.state(), ImageBuilder::State::Cancelled);
    QVERIFY(finished.first().at(2).toString().contains(QStringLiteral("cancelled")));
    // The engine's own RUN process is gone too, not only the CLI.
    QTRY_VERIFY_WITH_TIMEOUT(!sleepRunning(marker), 10000);
    QCOMPARE(runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), request.tag}).exitCode == 0,
             false);
    builder.cancel();  // nothing runs: a no-op
    QCOMPARE(builder.state(), ImageBuilder::State::Cancelled);
}

void TestImageBuilder::timeoutStopsBuild() {
    ZEUS_REQUIRE_ENGINE(QStringLiteral("docker"));
    const QStringList before = leftovers(QStringLiteral("docker"));
    const auto removeLeftovers = qScopeGuard([&] { removeNewLeftovers(QStringLiteral("docker"), before); });
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const int seconds = 1000 + QRandomGenerator::global()->bounded(800);
    const QByteArray marker = "sleep " + QByteArray::number(seconds);
    const QString dockerfile =
        writeDockerfile(dir, "FROM " + zeus::test::testImage().toUtf8() + "\nRUN " + marker + "\n");
    ImageBuilder builder;
    builder.setTimeout(4000);
    builder.setKillGrace(1000);
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = QStringLiteral("docker");
    request.tag = uniqueTag();
    request.dockerfile = dockerfile;
    request.contextDir = dir.path();
    QElapsedTimer elapsed;
    elapsed.start();
    QVERIFY(builder.start(request));
    QVERIFY(finished.wait(30000));
    QVERIFY2(elapsed.elapsed() < 15000, qPrintable(QString::number(elapsed.elapsed())));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QCOMPARE(builder.state(), ImageBuilder::State::Failed);
    QVERIFY2(finished.first().at(2).toString().contains(QStringLiteral("timed out")),
             qPrintable(finished.first().at(2).toString()));
    QTRY_VERIFY_WITH_TIMEOUT(!sleepRunning(marker), 10000);
}

void TestImageBuilder::bundledDockerfileIsStaged() {
    // The build tree stages docker/ next to the binary as an install would; the real Dockerfile carries the
    // version argument and the OCI labels the builder relies on.
    const QString staged = QFileInfo(QStringLiteral(ZEUS_APP_BINARY)).absolutePath()
                           + QStringLiteral("/../share/zeus-desktop/docker/Dockerfile");
    QFile file(staged);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(staged));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("ARG ZEUS_VERSION"));
    QVERIFY(text.contains("org.opencontainers.image.version=\"${ZEUS_VERSION}\""));
    QVERIFY(text.contains("WORKDIR /workspace"));
    QFile source(QStringLiteral(ZEUS_SOURCE_DIR "/docker/Dockerfile"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QCOMPARE(text, source.readAll());
}

void TestImageBuilder::ensureImageFallsBackToTestImage_data() {
    addEngineRows();
}

void TestImageBuilder::ensureImageFallsBackToTestImage() {
    // docker/ensure-image.sh ENGINE TAG: a recipe that cannot be built (as the real one offline) makes it import
    // the offline test image under TAG and say so; a second call finds TAG and does nothing.
    QFETCH(QString, engine);
    ZEUS_REQUIRE_ENGINE(engine);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeDockerfile(dir, "FROM zeus-desktop-sandbox-no-such-base:none\n");
    const QString script = QStringLiteral(ZEUS_SOURCE_DIR "/docker/ensure-image.sh");
    const QString tag = uniqueTag();
    const QStringList before = leftovers(engine);
    const auto cleanup = qScopeGuard([&] {
        removeImage(engine, tag);
        removeNewLeftovers(engine, before);
    });

    QProcess first;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("ZEUS_DOCKER_DIR"), dir.path());
    first.setProcessEnvironment(env);
    first.start(QStringLiteral("sh"), {script, engine, tag});
    QVERIFY(first.waitForFinished(180000));
    const QString firstOutput = QString::fromUtf8(first.readAllStandardOutput() + first.readAllStandardError());
    QVERIFY2(first.exitStatus() == QProcess::NormalExit && first.exitCode() == 0, qPrintable(firstOutput));
    QVERIFY2(firstOutput.contains(QStringLiteral("MINIMAL OFFLINE TEST IMAGE")), qPrintable(firstOutput));

    const zeus::test::ProcessOutput inspect =
        runProgram(engine, {QStringLiteral("image"), QStringLiteral("inspect"), tag});
    QCOMPARE(inspect.exitCode, 0);
    const QJsonObject config =
        QJsonDocument::fromJson(inspect.out).array().first().toObject().value(QStringLiteral("Config")).toObject();
    QCOMPARE(config.value(QStringLiteral("WorkingDir")).toString(), QStringLiteral("/workspace"));
    QCOMPARE(config.value(QStringLiteral("Labels"))
                 .toObject()
                 .value(QStringLiteral("org.opencontainers.image.version"))
                 .toString(),
             QStringLiteral(ZEUS_VERSION));
    const zeus::test::ProcessOutput run = runProgram(
        engine, {QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("--network"), QStringLiteral("none"),
                 tag, QStringLiteral("bash"), QStringLiteral("-c"), QStringLiteral("pwd")});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out.trimmed(), QByteArray("/workspace"));

    QProcess second;
    second.setProcessEnvironment(env);
    second.start(QStringLiteral("sh"), {script, engine, tag});
    QVERIFY(second.waitForFinished(60000));
    const QString secondOutput = QString::fromUtf8(second.readAllStandardOutput() + second.readAllStandardError());
    QCOMPARE(second.exitCode(), 0);
    QVERIFY2(secondOutput.contains(QStringLiteral("already has")), qPrintable(secondOutput));

    QProcess usage;
    usage.start(QStringLiteral("sh"), {script, QStringLiteral("lxc")});
    QVERIFY(usage.waitForFinished(10000));
    QCOMPARE(usage.exitCode(), 2);
}

QString TestImageBuilder::writeDockerfile(QTemporaryDir& dir, const QByteArray& text) {
    const QString path = dir.filePath(QStringLiteral("Dockerfile"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    file.write(text);
    return path;
}

QString TestImageBuilder::uniqueTag() const {
    return QStringLiteral("zeus-imagebuilder-test:") + QUuid::createUuid().toString(QUuid::WithoutBraces).left(12);
}

bool TestImageBuilder::sleepRunning(const QByteArray& marker) {
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& entry : entries) {
        QFile cmdline(QStringLiteral("/proc/") + entry + QStringLiteral("/cmdline"));
        if (cmdline.open(QIODevice::ReadOnly)) {
            QByteArray args = cmdline.readAll();
            args.replace('\0', ' ');
            if (args.trimmed() == marker) {
                return true;
            }
        }
    }
    return false;
}

void TestImageBuilder::removeImage(const QString& engine, const QString& tag) {
    runProgram(engine, {QStringLiteral("rmi"), QStringLiteral("-f"), tag});
}

// What a build can leave behind in a shared engine: the unnamed layers of a failed or cancelled build and, with
// Podman, the build's "working container" when the build was stopped by a signal.
QStringList TestImageBuilder::leftovers(const QString& engine) {
    QStringList ids;
    const zeus::test::ProcessOutput images =
        runProgram(engine, {QStringLiteral("images"), QStringLiteral("-q"), QStringLiteral("--no-trunc"),
                            QStringLiteral("--filter"), QStringLiteral("dangling=true")});
    for (const QByteArray& id : images.out.split('\n')) {
        if (!id.trimmed().isEmpty()) {
            ids << QStringLiteral("image ") + QString::fromUtf8(id.trimmed());
        }
    }
    if (engine == QLatin1String("podman")) {
        const zeus::test::ProcessOutput containers =
            runProgram(engine, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--external"),
                                QStringLiteral("--format"), QStringLiteral("{{.ID}} {{.Names}}")});
        for (const QByteArray& line : containers.out.split('\n')) {
            const QList<QByteArray> fields = line.trimmed().split(' ');
            if (fields.size() == 2 && fields.at(1).contains("-working-container")) {
                ids << QStringLiteral("container ") + QString::fromUtf8(fields.at(0));
            }
        }
    }
    return ids;
}

void TestImageBuilder::removeNewLeftovers(const QString& engine, const QStringList& before) {
    const QStringList now = leftovers(engine);
    for (const QString& item : now) {
        if (before.contains(item)) {
            continue;
        }
        const QStringList kindAndId = item.split(QLatin1Char(' '));
        if (kindAndId.at(0) == QLatin1String("container")) {
            runProgram(engine, {QStringLiteral("rm"), QStringLiteral("-f"), kindAndId.at(1)});
        }
    }
    for (const QString& item : now) {
        const QStringList kindAndId = item.split(QLatin1Char(' '));
        if (!before.contains(item) && kindAndId.at(0) == QLatin1String("image")) {
            runProgram(engine, {QStringLiteral("rmi"), kindAndId.at(1)});  // not -f: never one in use
        }
    }
}

QTEST_GUILESS_MAIN(TestImageBuilder)
#include "tst_imagebuilder.moc"
