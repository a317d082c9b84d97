#include "modes.h"

#include <QTextStream>

namespace zeus {

int runDiagnoseMode(const AppOptions& /*options*/) {
    QTextStream(stderr) << "zeus-desktop: this mode is not built yet\n";
    return 2;
}

}  // namespace zeus
