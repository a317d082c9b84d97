#include <QProcess>

void runOne() {
    QProcess process;
    process.start(QStringLiteral("true"), {});
}
