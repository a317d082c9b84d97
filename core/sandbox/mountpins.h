#pragma once

#include "engine/containerspec.h"
#include "sandbox/workspaceapproval.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace zeus {

// Every bind mount's source pinned on the host before `run` and checked in the container after it (SPEC §3
// "Every mount source is pinned"). The engine resolves a mount source again when it creates the container, after
// the app looked at it: a session that swaps `.git` (or anything on the way to it) for a symbolic link in a loop
// would otherwise get another host folder mounted into the next container. So each source is opened here one
// component at a time without following a symbolic link (a link anywhere is refused, not followed), its device and
// inode are recorded, and the container's view of each target is compared with them. Whatever does not match, and
// any failure to check, removes the container (fail closed).
//
// Pure apart from pin(), which reads the host's file system and never writes it. Linux and other POSIX hosts; on
// an engine in a virtual machine (another kernel: boot ids differ) device and inode numbers of a shared folder mean
// nothing on the host, and verify() says so instead of comparing.
class MountPins {
public:
    struct Pin {
        QString target;  // inside the container (/workspace, /workspace/.git, /run/zeus/agent, /run/zeus/lane)
        QString source;  // on the host, for messages
        WorkspaceApproval::Identity identity;
        bool operator==(const Pin& other) const {
            return target == other.target && source == other.source && identity == other.identity;
        }
    };

    // The identity of `path` reached without following any symbolic link on the way (each component opened with
    // O_PATH|O_NOFOLLOW below the previous one). `directory`: the last component must be a directory, else a
    // regular file. nullopt (and *error) when a component is a link, missing, or of the wrong type.
    static std::optional<WorkspaceApproval::Identity> pinPath(const QString& path, bool directory, QString* error);

    // The pins of every bind mount `spec` asks for: the workspace, each overlay, the agent, the lane. Empty with *error
    // set when one cannot be pinned; empty without an error for a review copy (no bind mount of the folder).
    static QList<Pin> pin(const ContainerSpec& spec, QString* error);

    // The one fixed command that prints, in the container, its kernel's boot id, then `device inode` of each
    // target, one per line, then a line `--` and the container's /proc/self/mountinfo. The targets are arguments
    // of `sh`, never part of its script.
    //
    // Why the mount table too: a mount sits on a directory entry, not on a name. A command of another container of
    // the same folder can rename the entry a new container's `.git` is mounted on (a rename in another mount
    // namespace is allowed) and put the genuine `.git` under that name while the check stats it. The mount table
    // cannot be fooled that way: every mount below /workspace must come from the folder itself (same device, root
    // at or below the folder's), whatever name its mount point has now.
    static QStringList checkCommand(const QList<Pin>& pins);

    struct Verdict {
        enum class Outcome {
            Match,        // every target is its pinned source
            Mismatch,     // a target is something else: remove the container
            Unusable,     // the check printed something else: remove the container (fail closed)
            OtherKernel,  // the engine runs in a VM: no comparison is possible (said, the mount stands)
        };
        Outcome outcome = Outcome::Unusable;
        QString problem;  // for Mismatch and Unusable: what, in words for the log and the call's error
    };
    // Compares checkCommand()'s output with the pins; `hostBootId` is this kernel's boot id.
    static Verdict verify(const QList<Pin>& pins, const QByteArray& output, const QString& hostBootId);
    // The first mount of /proc/self/mountinfo text the sandbox never asks for ("" when there is none): below
    // /workspace, anything not from the folder mounted there (same device, root at or below the folder's);
    // elsewhere, anything but the engine's own files (/etc/hosts, …, the agent) and kernel file systems (proc,
    // sysfs, the container's own tmpfs, …) under /proc, /sys, /dev, /run, /tmp, /var/tmp and HOME. A mount target
    // inside the folder is resolved by the engine in the container, so a link there can put a mount anywhere.
    static QString foreignMount(const QByteArray& mountinfo);
    // This kernel's boot id (Linux), empty elsewhere.
    static QString hostBootId();
};

}  // namespace zeus
