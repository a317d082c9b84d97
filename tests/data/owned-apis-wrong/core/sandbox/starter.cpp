#include <QProcess>

void startOwn() {
    QProcess process;
    process.start(QStringLiteral("docker"), {QStringLiteral("ps")});
}
