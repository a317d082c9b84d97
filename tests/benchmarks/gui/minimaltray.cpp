// The smallest tray app Qt Widgets allows: the baseline bench_gui compares the real app
// with. It prints the same "tray ready" marker as the app once its icon is shown.
#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QSystemTrayIcon>
#include <QTextStream>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setQuitOnLastWindowClosed(false);
    QPixmap pixmap(32, 32);
    pixmap.fill(Qt::transparent);
    {
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setBrush(QColor(0x2e, 0x9e, 0x5b));
        painter.setPen(Qt::NoPen);
        painter.drawRoundedRect(2, 2, 28, 28, 6, 6);
    }
    QMenu menu;
    menu.addAction(QStringLiteral("Open"));
    menu.addSeparator();
    QObject::connect(menu.addAction(QStringLiteral("Quit")), &QAction::triggered, &app, &QApplication::quit);
    const QIcon icon(pixmap);
    QSystemTrayIcon tray(icon);
    tray.setContextMenu(&menu);
    tray.setToolTip(QStringLiteral("baseline"));
    tray.show();
    QTextStream(stderr) << (QSystemTrayIcon::isSystemTrayAvailable() ? "tray ready\n" : "no system tray\n");
    return QApplication::exec();
}
