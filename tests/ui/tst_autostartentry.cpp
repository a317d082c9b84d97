// Start at login on XDG desktops: the autostart entry's content (Exec quoting per the
// Desktop Entry specification) and writing / removing it.
#include "autostartentry.h"

#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using zeus::AutostartEntry;

class TestAutostartEntry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void quoting_data();
    void quoting();
    void entryContent();
    void writesAndRemoves();
    void reportsUnwritableLocation();
};

void TestAutostartEntry::quoting_data() {
    QTest::addColumn<QString>("executable");
    QTest::addColumn<QString>("exec");
    QTest::newRow("plain") << QStringLiteral("/usr/bin/zeus-desktop") << QStringLiteral("\"/usr/bin/zeus-desktop\"");
    QTest::newRow("space") << QStringLiteral("/opt/Zeus Desktop/zeus-desktop")
                           << QStringLiteral("\"/opt/Zeus Desktop/zeus-desktop\"");
    QTest::newRow("double quote") << QStringLiteral("/opt/a\"b/z") << QStringLiteral("\"/opt/a\\\\\"b/z\"");
    QTest::newRow("dollar and backtick") << QStringLiteral("/opt/$HOME/`x`")
                                         << QStringLiteral("\"/opt/\\\\$HOME/\\\\`x\\\\`\"");
    QTest::newRow("backslash") << QStringLiteral("/opt/a\\b") << QStringLiteral("\"/opt/a\\\\\\\\b\"");
    QTest::newRow("percent") << QStringLiteral("/opt/100%/z") << QStringLiteral("\"/opt/100%%/z\"");
}

void TestAutostartEntry::quoting() {
    QFETCH(QString, executable);
    QFETCH(QString, exec);
    QCOMPARE(AutostartEntry::quoteExecArgument(executable), exec);
}

void TestAutostartEntry::entryContent() {
    const QString entry = AutostartEntry::desktopEntry(QStringLiteral("/opt/Zeus Desktop/zeus-desktop"));
    QVERIFY(entry.startsWith(QStringLiteral("[Desktop Entry]\n")));
    QVERIFY(entry.contains(QStringLiteral("\nType=Application\n")));
    QVERIFY(entry.contains(QStringLiteral("\nExec=\"/opt/Zeus Desktop/zeus-desktop\"\n")));
    QVERIFY(entry.contains(QStringLiteral("\nName=Zeus Desktop\n")));
    QVERIFY(entry.contains(QStringLiteral("\nIcon=io.zeusdesktop.ZeusDesktop\n")));
    QVERIFY(entry.contains(QStringLiteral("\nTerminal=false\n")));
    // Every line is key=value or the group header.
    for (const QString& line : entry.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        QVERIFY2(line.startsWith(QLatin1Char('[')) || line.contains(QLatin1Char('=')), qPrintable(line));
    }
}

void TestAutostartEntry::writesAndRemoves() {
#ifdef Q_OS_MACOS
    QSKIP("macOS login items are managed by the system");
#endif
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("autostart/zeus-desktop.desktop"));
    QVERIFY(!AutostartEntry::isEnabled(path));
    QString error;
    QVERIFY2(AutostartEntry::setEnabled(true, QStringLiteral("/usr/bin/zeus-desktop"), &error, path),
             qPrintable(error));
    QVERIFY(AutostartEntry::isEnabled(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), AutostartEntry::desktopEntry(QStringLiteral("/usr/bin/zeus-desktop")));
    file.close();
    // It is a valid desktop file for an INI reader as well.
    QSettings ini(path, QSettings::IniFormat);
    QCOMPARE(ini.value(QStringLiteral("Desktop Entry/Type")).toString(), QStringLiteral("Application"));

    QVERIFY(AutostartEntry::setEnabled(false, QString(), &error, path));
    QVERIFY(!AutostartEntry::isEnabled(path));
    QVERIFY(!QFile::exists(path));
    // Removing what is not there is fine.
    QVERIFY(AutostartEntry::setEnabled(false, QString(), &error, path));
}

void TestAutostartEntry::reportsUnwritableLocation() {
#if defined(Q_OS_MACOS) || defined(Q_OS_WIN)
    QSKIP("XDG autostart only");
#endif
    QTemporaryDir dir;
    // A file where the autostart folder should be: the entry cannot be written.
    QFile blocker(dir.filePath(QStringLiteral("autostart")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    QString error;
    QVERIFY(!AutostartEntry::setEnabled(true, QStringLiteral("/usr/bin/zeus-desktop"), &error,
                                        dir.filePath(QStringLiteral("autostart/zeus-desktop.desktop"))));
    QVERIFY2(error.startsWith(QStringLiteral("Could not")), qPrintable(error));
}

QTEST_MAIN(TestAutostartEntry)
#include "tst_autostartentry.moc"
