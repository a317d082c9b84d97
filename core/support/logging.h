#pragma once

#include <QLoggingCategory>

// One logging category per area. Never log a token or a full command environment.
Q_DECLARE_LOGGING_CATEGORY(lcRuntime)   // zeus.runtime: detection and container engines
Q_DECLARE_LOGGING_CATEGORY(lcSession)   // zeus.session: sessions and containers
Q_DECLARE_LOGGING_CATEGORY(lcExec)      // zeus.exec: command execution
Q_DECLARE_LOGGING_CATEGORY(lcBackend)   // zeus.backend: WebSocket connection and protocol
Q_DECLARE_LOGGING_CATEGORY(lcSecrets)   // zeus.secrets: keychain access (never the secret)
Q_DECLARE_LOGGING_CATEGORY(lcApp)       // zeus.app: start-up, command line
Q_DECLARE_LOGGING_CATEGORY(lcApproval)  // zeus.approval: command approval decisions (never the environment)
