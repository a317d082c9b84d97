#include "autostartentry.h"

#include <zeus/buildinfo.h>

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#ifdef Q_OS_WIN
#include <QSettings>
#endif

namespace zeus {

namespace {

#ifdef Q_OS_WIN
const QLatin1String kRunKey("HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run");
const QLatin1String kRunValue("ZeusDesktop");
#endif

}  // namespace

bool AutostartEntry::isSupported() {
#if defined(Q_OS_MACOS)
    return false;
#else
    return true;
#endif
}

QString AutostartEntry::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
           + QStringLiteral("/autostart/zeus-desktop.desktop");
}

QString AutostartEntry::currentExecutable() {
    QString appImage = qEnvironmentVariable("APPIMAGE");
    if (!appImage.isEmpty() && QFileInfo(appImage).isExecutable()) {
        return appImage;
    }
    return QCoreApplication::applicationFilePath();
}

QString AutostartEntry::quoteExecArgument(const QString& executable) {
    // Desktop Entry spec: inside double quotes, " ` $ \ are escaped with a backslash; the
    // string-value escaping then doubles every backslash again; a literal % is %%.
    QString quoted;
    quoted.reserve(executable.size() + 8);
    for (const QChar c : executable) {
        if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('$')) {
            quoted += QStringLiteral("\\\\") + c;
        } else if (c == QLatin1Char('\\')) {
            quoted += QStringLiteral("\\\\\\\\");
        } else if (c == QLatin1Char('%')) {
            quoted += QStringLiteral("%%");
        } else {
            quoted += c;
        }
    }
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString AutostartEntry::desktopEntry(const QString& executable) {
    QString entry;
    entry += QStringLiteral("[Desktop Entry]\n");
    entry += QStringLiteral("Type=Application\n");
    entry += QStringLiteral("Name=%1\n").arg(QStringLiteral(ZEUS_APP_NAME));
    entry += QStringLiteral("Comment=Runs an AI agent's shell commands in a container that sees one folder\n");
    entry += QStringLiteral("Exec=%1\n").arg(quoteExecArgument(executable));
    entry += QStringLiteral("Icon=%1\n").arg(QStringLiteral(ZEUS_APP_ID));
    entry += QStringLiteral("Terminal=false\n");
    entry += QStringLiteral("Categories=Utility;Development;\n");
    entry += QStringLiteral("X-GNOME-Autostart-enabled=true\n");
    // The tray host (panel) should be up before the icon is created.
    entry += QStringLiteral("X-GNOME-Autostart-Delay=3\n");
    entry += QStringLiteral("X-KDE-autostart-after=panel\n");
    return entry;
}

bool AutostartEntry::isEnabled(const QString& path) {
#if defined(Q_OS_MACOS)
    Q_UNUSED(path);
    return false;
#elif defined(Q_OS_WIN)
    Q_UNUSED(path);
    return QSettings(kRunKey, QSettings::NativeFormat).contains(kRunValue);
#else
    return QFileInfo::exists(path);
#endif
}

bool AutostartEntry::setEnabled(bool enabled, const QString& executable, QString* error, const QString& path) {
#if defined(Q_OS_MACOS)
    Q_UNUSED(enabled);
    Q_UNUSED(executable);
    Q_UNUSED(path);
    if (error) {
        *error =
            tr("On macOS, add %1 under System Settings › General › Login Items.").arg(QStringLiteral(ZEUS_APP_NAME));
    }
    return false;
#elif defined(Q_OS_WIN)
    Q_UNUSED(path);
    QSettings run(kRunKey, QSettings::NativeFormat);
    if (enabled) {
        run.setValue(kRunValue, QLatin1Char('"') + QDir::toNativeSeparators(executable) + QLatin1Char('"'));
    } else {
        run.remove(kRunValue);
    }
    run.sync();
    if (run.status() != QSettings::NoError) {
        if (error) {
            *error = tr("Could not change the Windows start-up entry.");
        }
        return false;
    }
    return true;
#else
    if (!enabled) {
        if (QFileInfo::exists(path) && !QFile::remove(path)) {
            if (error) {
                *error = tr("Could not remove %1.").arg(QDir::toNativeSeparators(path));
            }
            return false;
        }
        return true;
    }
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        if (error) {
            *error =
                tr("Could not create the folder %1.").arg(QDir::toNativeSeparators(QFileInfo(path).absolutePath()));
        }
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(desktopEntry(executable).toUtf8()) < 0 || !file.commit()) {
        if (error) {
            *error = tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
        }
        return false;
    }
    return true;
#endif
}

}  // namespace zeus
