#pragma once

#include "runtime/runtimeprobe.h"
#include "support/processresult.h"

#include <QByteArray>
#include <QJsonObject>
#include <QStringList>
#include <QVersionNumber>

#include <optional>

namespace zeus {

// Pure classifiers: from what a probe command printed (a ProcessResult) to a RuntimeProbe.
// No process is started here; the detector runs the commands and hands the results over,
// and the tests feed captured outputs (tests/data/probes). The verdict comes from the exit
// code and the parsed JSON first; stderr patterns only name the specific failure.

// The oldest runc the app accepts: 1.1.12 fixed CVE-2024-21626 ("Leaky Vessels").
QVersionNumber minimumRuncVersion();

// What a runc version string (Docker's RuncCommit.ID such as "v1.1.12-0-g51d5e94", or
// Podman's ociRuntime.version "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1 ...")
// says about the fix.
struct RuncCheck {
    bool known = false;         // a version could be read (a bare commit hash is not one)
    QVersionNumber version;     // upstream version, when known
    bool patchedBuild = false;  // an older upstream version with the fix backported by a distribution
    bool acceptable = true;     // unknown versions are not refused: we refuse only what we can prove old
};
RuncCheck checkRuncVersion(const QString& reported);

// Tolerant JSON: a whole object, the first element of an array (Podman prints arrays for
// some commands), or the first line that is a JSON object (a CLI may print a warning line
// first). nullopt when none parses.
std::optional<QJsonObject> parseJsonObjectTolerant(const QByteArray& output);

// `docker info --format '{{json .}}'`
RuntimeProbe classifyDockerInfo(const ProcessResult& info);

// `podman info --format json`
RuntimeProbe classifyPodmanInfo(const ProcessResult& info);

// `container --version`: "container CLI version 0.10.0 (build: release, commit: 9fd15f0)".
QString parseAppleCliVersion(const QByteArray& output);
// True when the version step allows going on to `container system status`.
bool appleVersionStepPasses(const ProcessResult& version);
// `container system status`, with `--format json` from CLI 0.10.0 on (older CLIs reject it).
QStringList appleStatusArguments(const QString& cliVersion);
// `container --version` and, when that passed, `container system status [--format json]`.
RuntimeProbe classifyApple(const ProcessResult& version, const std::optional<ProcessResult>& status);

}  // namespace zeus
