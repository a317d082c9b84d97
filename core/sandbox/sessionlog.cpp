#include "sandbox/sessionlog.h"

namespace zeus {

void SessionLog::append(const SessionLogEntry& entry) {
    m_entries.append(entry);
    while (m_entries.size() > m_limit) {
        m_entries.removeFirst();
    }
}

}  // namespace zeus
