#pragma once

// The project's distribution-archive image, built (or found current) for engine tests that need real clients:
// the recipe as an installed docker folder has it, then ImageBuilder's DistroArchive way.
#include "engine/imagebuilder.h"
#include "testenvironment.h"
#include "zeus/buildinfo.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QStringList>
#include <QtDebug>

namespace zeus::test {

struct DistroImage {
    QString failure;     // set when the image could not be had for a reason that is a failure
    QByteArray skipWhy;  // set when the Debian archive is unreachable (nothing to build from)
    QString revision;    // the recipe's revision the image carries
};

// Builds `tag` with `engine` in `workDir` (a scratch folder), or finds it current. `aptPackages`: extra packages,
// as the ZEUS_TEST_DISTRO_APT_PACKAGES knob gives them.
inline DistroImage ensureDistroImage(const QString& engine, const QString& tag, const QString& workDir,
                                     const QString& aptPackages = {}) {
    DistroImage image;
    // The recipe as an installed docker folder has it: the Dockerfile with the agent's sources beside it.
    const QString context = workDir + QStringLiteral("/context");
    QDir().mkpath(context + QStringLiteral("/agent"));
    bool copied =
        QFile::copy(QStringLiteral(ZEUS_SOURCE_DIR "/docker/Dockerfile"), context + QStringLiteral("/Dockerfile"));
    const QDir agentDir(QStringLiteral(ZEUS_SOURCE_DIR "/agent"));
    for (const QString& name : agentDir.entryList({QStringLiteral("*.c"), QStringLiteral("*.h")}, QDir::Files)) {
        copied = copied && QFile::copy(agentDir.filePath(name), context + QStringLiteral("/agent/") + name);
    }
    if (!copied) {
        image.failure = QStringLiteral("could not copy the recipe");
        return image;
    }
    ImageBuilder builder;
    builder.setTimeout(30 * 60 * 1000);
    QStringList log;
    QObject::connect(&builder, &ImageBuilder::logLine, &builder, [&log](const QString& line) {
        log << line;
        if (log.size() > 400) {
            log.removeFirst();
        }
    });
    QSignalSpy finished(&builder, &ImageBuilder::finished);
    ImageBuilder::Request request;
    request.program = engine;
    request.tag = tag;
    request.dockerfile = context + QStringLiteral("/Dockerfile");
    request.contextDir = context;
    request.version = QStringLiteral(ZEUS_VERSION);
    request.way = ImageBuilder::Way::DistroArchive;
    request.aptPackages = aptPackages;
    QElapsedTimer clock;
    clock.start();
    builder.start(request);
    if (!finished.wait(30 * 60 * 1000)) {
        image.failure = QStringLiteral("the image build did not end in 30 minutes");
        return image;
    }
    image.revision = builder.revision();
    qInfo().noquote() << "distribution image" << tag << "with" << engine << ":" << builder.builtWay() << "revision"
                      << image.revision << "in" << clock.elapsed() / 1000 << "s";
    if (finished.first().at(0).toBool()) {
        return image;
    }
    // Only an unreachable archive is a reason to skip; anything else is a failure.
    const ProcessOutput probe = runProgram(QStringLiteral("curl"),
                                           {QStringLiteral("-sSfI"), QStringLiteral("-m"), QStringLiteral("20"),
                                            QStringLiteral("http://deb.debian.org/debian/dists/bookworm/Release")},
                                           30000);
    if (probe.exitCode != 0) {
        image.skipWhy =
            "the Debian archive (deb.debian.org) is unreachable, so the distribution image cannot be built: "
            + probe.err.trimmed();
        return image;
    }
    image.failure = finished.first().at(2).toString() + QLatin1Char('\n') + log.join(QLatin1Char('\n'));
    return image;
}

}  // namespace zeus::test
