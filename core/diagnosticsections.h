#pragma once

#include "backend/backendconnection.h"
#include "backend/credentialstore.h"
#include "diagnosticcheck.h"
#include "engine/imageinspection.h"
#include "runtime/detectionresult.h"
#include "runtime/installguidance.h"
#include "sandbox/sandboxconfig.h"
#include "sandbox/workspaceguard.h"

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// One part of the support report and the checklist rows it yields.
struct DiagnosticSection {
    QString key;    // the report's JSON key ("image", "connection")
    QString title;  // the text report's heading
    QJsonValue value;
    QString text;  // readable form; empty: the text report prints the JSON
    QList<DiagnosticCheck> checks;
};

// The report's sections as pure functions from plain inputs (a detection result, settings values, an image
// inspection, keychain and connection facts) to a section and its check rows. Every mode that reports
// (the Diagnostics panel, --diagnose) calls the same builders, so the rows mean the same everywhere.
//
// Nothing here runs a process, reads settings or touches the keychain; only checkFolders() reads the file
// system (through the WorkspaceGuard). No builder may receive a token: the keychain facts carry a status only.
class DiagnosticSections {
public:
    DiagnosticSections() = delete;

    // Check ids, in the order the checklist shows them. Part of the JSON report: never rename.
    static QStringList checkOrder();
    // The checklist's name for a check id ("Sandbox image"), translated; the id itself when unknown.
    static QString checkTitle(const QString& id);

    // "runtime" (is a container CLI installed and recent enough) and "engine" (does it answer): the rows of
    // the report's runtime part. nullopt: detection has not finished.
    static QList<DiagnosticCheck> runtimeChecks(const std::optional<DetectionResult>& detection,
                                                InstallGuidance::Os os);

    // The sandbox settings as the user set them (no check row).
    struct SandboxFacts {
        QString image;
        QString profile;
        int pidsLimit = 0;
        int memoryMiB = 0;
        double cpus = 0;
        int idleTimeoutMinutes = 0;
        QString runtimePreference;
        QStringList approvedWorkspaces;
        QString workspaceForThisRun;
        QString settingsFile;
        // SPEC §3's bounds in force, and (where a sandbox serves: the tray app) how close the load came to them.
        int maxContainers = 0;
        int maxCallsPerSession = 0;
        int maxCallsTotal = 0;
        int maxQueuedPerSession = 0;
        int maxQueuedTotal = 0;
        int engineWaitSeconds = 0;
        struct Load {
            int running = 0;
            int queued = 0;
            int containers = 0;
            int peakRunning = 0;
            int peakQueued = 0;
            int peakContainers = 0;
        };
        std::optional<Load> load;
    };
    static DiagnosticSection sandbox(const SandboxFacts& facts);
    // The bounds of SPEC §3 from a config (the rest of the facts are the caller's).
    static void setBounds(SandboxFacts& facts, const SandboxConfig& config);

    // Which image `image inspect` found: the sandbox the app's Dockerfile builds (its title label), the
    // offline test image (ensure-image.sh's title label, or an unlabelled `import`), or another image.
    enum class ImageKind { Sandbox, OfflineTest, Custom };
    static ImageKind classifyImage(const ImageInspection& inspection);
    static QString imageKindToString(ImageKind kind);  // "sandbox", "offline_test", "custom"
    // The labels that tell them apart (org.opencontainers.image.title).
    static QString sandboxImageTitle();      // "Zeus Desktop sandbox"
    static QString offlineTestImageTitle();  // "zeus-desktop-sandbox-offline-test"

    struct ImageFacts {
        QString image;
        QString runtimeName;  // for people ("Docker"); empty: no usable runtime, the image is not checked
        std::optional<ImageInspection> inspection;  // nullopt: not inspected (yet)
        QString buildCommand;                       // what builds it (for a missing image)
    };
    // "image".
    static DiagnosticSection image(const ImageFacts& facts);

    // "agent": the sandbox agent the sessions use (SPEC §7).
    struct AgentFacts {
        std::optional<RuntimeKind> runtime;  // the chosen runtime; nullopt: none
        bool forcedExec = false;             // --exec-mode exec or the setting
        QString hostPath;                    // the host's agent, mounted into containers; empty: none found
        QString versionOutput;               // what `agent --version` printed; empty: not run
        QStringList sessions;                // live sessions' exec paths ("s1: agent 0.1.0"), GUI only
    };
    static DiagnosticSection agent(const AgentFacts& facts);

    // What --diagnose read of the image's own trusted roots (one throwaway container, SPEC §8 "Certificates").
    struct ImageRootsFacts {
        bool checked = false;  // false: not looked at (the GUI's panel; no engine or no image; roots not passed)
        QString error;         // the look failed: why
        QStringList missing;   // the names of this computer's roots the image's bundle lacks
    };
    static constexpr int kMissingRootsInText = 5;   // named in the text, then "and N more"
    static constexpr int kMissingRootsInJson = 50;  // named in the JSON, with the whole count beside them

    // "network": the egress policy in force (SPEC §8) -- mode, preset, the user's rules and overrides, and the
    // host certificates passed (with the roots the image lacks when `imageRoots` was checked).
    static DiagnosticSection network(const SandboxConfig& config);
    static DiagnosticSection network(const SandboxConfig& config, const ImageRootsFacts& imageRoots);

    // "workspace_mode" (SPEC §10): where the chosen engine runs and each approved folder's workspace mode, with
    // the refusal a call in it would get under `config` (engine location taken from the detection).
    static DiagnosticSection workspaceModes(SandboxConfig config, const QStringList& approved,
                                            const std::optional<DetectionResult>& detection);

    // "resource_limits": whether the chosen engine will enforce --memory, --pids-limit and --cpus (from its
    // probe's cgroup facts; Apple's VM bounds memory and CPUs itself).
    static DiagnosticSection resourceLimits(const std::optional<DetectionResult>& detection, int pidsLimit,
                                            int memoryMiB, double cpus);

    // One approved folder and what the WorkspaceGuard says about it now.
    struct FolderFacts {
        QString path;                    // the approval as stored
        WorkspaceGuard::Result verdict;  // check(path) now
        bool forThisRunOnly = false;     // approved with --workspace for this run, not stored
    };
    // Runs the guard on each folder (reads the file system; no other side effect).
    static QList<FolderFacts> checkFolders(
        const QStringList& approved, const QString& forThisRun,
        const WorkspaceGuard::Environment& environment = WorkspaceGuard::hostEnvironment());
    // "workspaces": a folder is usable when the guard accepts it and it still resolves to itself.
    static DiagnosticSection workspaces(const QList<FolderFacts>& folders);

    // What the keychain said on the last token read; never the token.
    struct KeychainFacts {
        bool checked = false;  // false: no read has finished yet
        CredentialStore::Status status = CredentialStore::Status::Failed;
        QString message;
        bool fromEnvironment = false;  // ZEUS_DESKTOP_TOKEN was used instead of the keychain
        QString backendUrl;            // the account the token is for; empty: no backend configured

        static KeychainFacts from(const CredentialStore::Result& result, const QString& backendUrl);
    };
    // "keychain".
    static DiagnosticSection keychain(const KeychainFacts& facts);

    struct ConnectionFacts {
        QString url;
        bool urlFromCommandLine = false;
        BackendConnection::State state = BackendConnection::State::Disconnected;
        QString lastError;
        int attempts = 0;
        bool signedIn = false;
        QList<BackendConnection::HistoryEntry> history;
    };
    // "connection" with the check "backend".
    static DiagnosticSection connection(const ConnectionFacts& facts);

    // Host-bound secrets (SPEC §9): which stored secrets are bound to hosts and which still go into a command's
    // environment, and the interception CA their TLS is ended with (its fingerprint, never its key).
    struct SecretsFacts {
        enum class Ca {
            NotRead,  // not asked for (--diagnose never touches the keychain; nothing is bound)
            Loading,  // asked for; the keychain has not answered
            Loaded,
            Failed,
        };
        QStringList stored;                 // the names in Settings → Secrets
        QHash<QString, QStringList> bound;  // name -> the host rules in force (presets expanded)
        Ca ca = Ca::NotRead;
        QString caFingerprint;  // Loaded: SHA-256 "AB:CD:…"
        QString caError;        // Failed: what the keychain said

        // The bindings in force in `config` (settings and this run's --bind-secret), the CA from its interceptCa.
        static SecretsFacts from(const QStringList& stored, const SandboxConfig& config);
    };
    // "secrets" with the check "bound_secrets" (diagnosticsectionssecrets.cpp).
    static DiagnosticSection secrets(const SecretsFacts& facts);

    // "recent_errors" (no check row: the errors are evidence, the checks above say what is wrong now).
    static DiagnosticSection recentErrors(const QStringList& errors);

private:
    // The network section's upstream proxy and exposed host services (diagnosticsectionsroutes.cpp).
    static void routes(const SandboxConfig& config, QJsonObject& value, QString& text);
};

}  // namespace zeus
