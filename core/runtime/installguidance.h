#pragma once

#include "runtime/runtimekind.h"
#include "runtime/runtimeprobe.h"

#include <QString>
#include <QStringList>

namespace zeus {

// What a user should do about a runtime's state on their OS: what to install or start, the
// exact command(s), and how to check it worked.
//
// Data, not prose scattered through the code: one table row per runtime and OS family
// (installguidance.cpp) and one rule per state choosing from that row. Texts are marked for
// translation (context "zeus::InstallGuidance") and translated at lookup. It never runs any
// of the commands it names.
class InstallGuidance {
public:
    // The OS families we write guidance for. Other Linux distributions get the Debian text
    // unless ID_LIKE names a known family.
    enum class Os { MacOS, Windows, Debian, Fedora, Arch };

    QString summary;       // one or two sentences: what is wrong and what to do
    QStringList commands;  // the exact command(s), in order
    QString verify;        // a command that shows it worked

    bool isEmpty() const { return summary.isEmpty(); }
    // Readable multi-line form: summary, "Run:" commands, "Check:" verify.
    QString toText() const;

    static InstallGuidance lookup(RuntimeKind kind, RuntimeProbe::State state, Os os);
    // Guidance when nothing is usable at all: the best runtime to install on this OS.
    static InstallGuidance noRuntime(Os os);

    static Os currentOs();
    // Linux family from the text of /etc/os-release (ID, then ID_LIKE); Debian when unknown.
    static Os osFromOsRelease(const QString& osReleaseText);
    static QString osToString(Os os);  // "macos", "windows", "debian", "fedora", "arch"
    static QList<Os> allOses();
};

}  // namespace zeus
