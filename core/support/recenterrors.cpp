#include "support/recenterrors.h"

namespace zeus {

void RecentErrors::record(const QString& error, const QDateTime& when) {
    if (error.isEmpty() || m_limit <= 0) {
        return;
    }
    m_lines.append(when.toUTC().toString(Qt::ISODate) + QStringLiteral("  ") + error);
    while (m_lines.size() > m_limit) {
        m_lines.removeFirst();
    }
}

}  // namespace zeus
