#include "support/logging.h"

Q_LOGGING_CATEGORY(lcRuntime, "zeus.runtime", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSession, "zeus.session", QtInfoMsg)
Q_LOGGING_CATEGORY(lcExec, "zeus.exec", QtInfoMsg)
Q_LOGGING_CATEGORY(lcBackend, "zeus.backend", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSecrets, "zeus.secrets", QtInfoMsg)
Q_LOGGING_CATEGORY(lcApp, "zeus.app", QtInfoMsg)
Q_LOGGING_CATEGORY(lcApproval, "zeus.approval", QtInfoMsg)
