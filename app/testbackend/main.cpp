// zeus-testbackend: a local backend for trying Zeus Desktop and for end-to-end tests (docs/headless.md).
#include "testbackend.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSocketNotifier>
#include <QStandardPaths>
#include <QTextStream>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace {

// The token goes to the app through a file only its owner can read: created afresh with 0600 (an old file is
// removed first, so its permissions or a symlink planted in its place are never reused).
bool writeTokenFile(const QString& path, const QString& token, QTextStream& err) {
    const QByteArray native = QFile::encodeName(path);
    ::unlink(native.constData());
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        err << "zeus-testbackend: cannot create the token file " << path << ": " << std::strerror(errno) << Qt::endl;
        return false;
    }
    const QByteArray data = token.toUtf8();
    const bool written = ::write(fd, data.constData(), size_t(data.size())) == ssize_t(data.size());
    ::close(fd);
    if (!written) {
        err << "zeus-testbackend: cannot write the token file " << path << Qt::endl;
        ::unlink(native.constData());
    }
    return written;
}

// This run's token is worthless after it; the file goes with it.
struct TokenFileRemover {
    QString path;
    ~TokenFileRemover() { QFile::remove(path); }
};

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("zeus-testbackend"));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("A local backend on 127.0.0.1: sends each input line to Zeus Desktop as a tool call and "
                       "prints the output and results.\n\n")
        + zeus::TestBackend::help());
    parser.addHelpOption();
    const QCommandLineOption port(QStringLiteral("port"), QStringLiteral("Port on 127.0.0.1 (0: any free port)."),
                                  QStringLiteral("port"), QStringLiteral("0"));
    const QCommandLineOption script(
        QStringLiteral("script"), QStringLiteral("Read the lines from FILE instead of stdin."), QStringLiteral("file"));
    const QCommandLineOption session(QStringLiteral("session"), QStringLiteral("session_id of the calls."),
                                     QStringLiteral("id"), QStringLiteral("local"));
    const QCommandLineOption workspace(QStringLiteral("workspace"),
                                       QStringLiteral("working_directory of the calls (default: current folder)."),
                                       QStringLiteral("dir"));
    const QCommandLineOption timeout(QStringLiteral("timeout"), QStringLiteral("timeout_s of the calls."),
                                     QStringLiteral("seconds"), QStringLiteral("0"));
    const QCommandLineOption exitAfter(QStringLiteral("exit-after-results"),
                                       QStringLiteral("Exit once N distinct results have arrived."),
                                       QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption tokenFile(
        QStringLiteral("token-file"),
        QStringLiteral("Write this run's random token to FILE (created 0600; default: a file in the runtime folder, "
                       "named on the first lines). The app must send it: ZEUS_DESKTOP_TOKEN=\"$(cat FILE)\"."),
        QStringLiteral("file"));
    const QCommandLineOption stay(QStringLiteral("stay"),
                                  QStringLiteral("Keep running after the input has ended (until killed)."));
    parser.addOptions({port, script, session, workspace, timeout, exitAfter, tokenFile, stay});
    parser.process(app);

    QTextStream out(stdout);
    QTextStream err(stderr);
    zeus::TestBackend::Options options;
    options.port = quint16(parser.value(port).toUInt());
    options.sessionId = parser.value(session);
    options.workspace = parser.isSet(workspace) ? parser.value(workspace) : QDir::currentPath();
    options.workspace = QDir(options.workspace).absolutePath();
    options.timeoutSeconds = parser.value(timeout).toInt();
    options.exitAfterResults = parser.value(exitAfter).toInt();
    options.token = zeus::TestBackend::randomToken();
    options.exitAtEnd = !parser.isSet(stay);

    zeus::TestBackend backend(options, out, err);
    if (!backend.listen()) {
        return 1;
    }
    const QString tokenPath = parser.isSet(tokenFile)
                                  ? parser.value(tokenFile)
                                  : QDir(QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation))
                                        .filePath(QStringLiteral("zeus-testbackend-%1.token").arg(backend.port()));
    if (!writeTokenFile(tokenPath, options.token, err)) {
        return 1;
    }
    const TokenFileRemover remover{tokenPath};
    // The first line names the address; the token file exists by then.
    out << "listening on ws://127.0.0.1:" << backend.port() << Qt::endl;
    out << "token in " << tokenPath << " (connections without it are refused)" << Qt::endl;
    QObject::connect(&backend, &zeus::TestBackend::finished, &app, &QCoreApplication::exit);

    std::unique_ptr<QSocketNotifier> stdinNotifier;
    QByteArray pending;
    if (parser.isSet(script)) {
        QFile file(parser.value(script));
        if (!file.open(QIODevice::ReadOnly)) {
            err << "zeus-testbackend: cannot read " << file.fileName() << ": " << file.errorString() << Qt::endl;
            return 1;
        }
        const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
        for (const QString& line : lines) {
            backend.addLine(line);
        }
        backend.endOfInput();
    } else {
        stdinNotifier = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
        QObject::connect(stdinNotifier.get(), &QSocketNotifier::activated, &backend, [&] {
            char buffer[4096];
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n <= 0) {
                stdinNotifier->setEnabled(false);
                if (!pending.isEmpty()) {
                    backend.addLine(QString::fromUtf8(pending));
                    pending.clear();
                }
                backend.endOfInput();
                return;
            }
            pending.append(buffer, int(n));
            for (int newline = int(pending.indexOf('\n')); newline >= 0; newline = int(pending.indexOf('\n'))) {
                backend.addLine(QString::fromUtf8(pending.left(newline)));
                pending.remove(0, newline + 1);
            }
        });
    }
    return QCoreApplication::exec();
}
