#pragma once

namespace zeus {

// stdout or stderr of a command: the one word the executor, the session log, the UI and the
// protocol codec share for it.
enum class OutputStream { Stdout, Stderr };

}  // namespace zeus
