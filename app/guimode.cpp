#include "modes.h"

#include <QApplication>
#include <QMessageBox>

namespace zeus {

int runGuiMode(const AppOptions& /*options*/) {
    QMessageBox::information(nullptr, QStringLiteral("Zeus Desktop"), QStringLiteral("The tray app is not built yet."));
    return 0;
}

}  // namespace zeus
