// zeus-desktop --set-secret NAME | --delete-secret NAME | --list-secrets: the secrets of SPEC §9 from the command line.
// A value is read from stdin (without echo on a terminal), goes to the OS keychain and nowhere else; the settings keep
// the name only. Exit 0 done, 1 the keychain failed (its message on stderr), 2 a bad name or value.
#include "appsettings.h"
#include "modes.h"
#include "secrets/secretstore.h"

#include <QCoreApplication>
#include <QFile>
#include <QTextStream>
#include <QTimer>

#include <cstdio>

#ifdef Q_OS_UNIX
#include <termios.h>
#include <unistd.h>
#endif

namespace zeus {

namespace {

// The value from stdin: on a terminal one line typed without echo; otherwise all of stdin. One trailing newline
// (what `echo` and a typed line add) is not part of the value.
QByteArray readValue(const QString& name) {
    QByteArray value;
#ifdef Q_OS_UNIX
    if (::isatty(STDIN_FILENO)) {
        QTextStream(stderr) << QCoreApplication::translate("main", "Value of %1 (not shown): ").arg(name) << Qt::flush;
        termios saved{};
        const bool haveTerminal = ::tcgetattr(STDIN_FILENO, &saved) == 0;
        if (haveTerminal) {
            termios quiet = saved;
            quiet.c_lflag &= ~tcflag_t(ECHO);
            ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        }
        char buffer[4096];
        while (std::fgets(buffer, sizeof buffer, stdin)) {
            value += buffer;
            if (value.endsWith('\n')) {
                break;
            }
        }
        if (haveTerminal) {
            ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
        }
        QTextStream(stderr) << "\n";
    } else
#endif
    {
        QFile input;
        if (input.open(stdin, QIODevice::ReadOnly)) {
            value = input.readAll();
        }
    }
    if (value.endsWith("\r\n")) {
        value.chop(2);
    } else if (value.endsWith('\n')) {
        value.chop(1);
    }
    return value;
}

}  // namespace

int runSecretsMode(const AppOptions& options) {
    QTextStream err(stderr);
    AppSettings settings;
    SecretIndex& secrets = settings.secrets();
    if (options.secretAction == AppOptions::SecretAction::List) {
        QTextStream out(stdout);
        const QStringList names = secrets.names();
        for (const QString& name : names) {
            const QDateTime used = secrets.lastUsed(name);
            out << name << '\t' << (used.isValid() ? used.toUTC().toString(Qt::ISODate) : QStringLiteral("never used"))
                << '\n';
        }
        if (names.isEmpty()) {
            err << QCoreApplication::translate("main", "zeus-desktop: no secrets are stored.") << '\n';
        }
        return 0;
    }

    SecretStore store;
    const QString name = options.secretName;
    QByteArray value;
    if (options.secretAction == AppOptions::SecretAction::Set) {
        value = readValue(name);
        const QString problem = SecretStore::valueProblem(value);
        if (!problem.isEmpty()) {
            err << "zeus-desktop: " << problem << '\n';
            return 2;
        }
    }
    int exitCode = 1;
    QObject::connect(&store, &SecretStore::finished, &store,
                     [&](SecretStore::Operation operation, const QString&, const SecretStore::Result& result) {
                         QTextStream errors(stderr);
                         if (result.status == SecretStore::Status::Invalid) {
                             errors << "zeus-desktop: " << result.message << '\n';
                             exitCode = 2;
                         } else if (result.status != SecretStore::Status::Ok) {
                             errors << "zeus-desktop: " << result.message << '\n';
                             exitCode = 1;
                         } else if (operation == SecretStore::Operation::Write) {
                             secrets.addName(name);
                             settings.sync();
                             errors << QCoreApplication::translate("main",
                                                                   "zeus-desktop: secret %1 stored in the "
                                                                   "keychain.")
                                           .arg(name)
                                    << '\n';
                             exitCode = 0;
                         } else {
                             secrets.removeName(name);
                             settings.sync();
                             errors << QCoreApplication::translate("main", "zeus-desktop: secret %1 deleted.").arg(name)
                                    << '\n';
                             exitCode = 0;
                         }
                         QCoreApplication::exit(exitCode);
                     });
    // Started from the event loop, so the answer (which may come at once) always finds it running.
    QTimer::singleShot(0, &store, [&store, &options, name, value] {
        if (options.secretAction == AppOptions::SecretAction::Set) {
            store.write(name, value);
        } else {
            store.remove(name);
        }
    });
    const int code = QCoreApplication::exec();
    value.fill('\0');
    return code;
}

}  // namespace zeus
