#!/usr/bin/env python3
"""APIs with one owner (docs/architecture.md, "Tooling that keeps it so").

Some APIs are spoken to by one class only, so their rules (timeouts, error wording, versions) exist once.
In the product's sources (core/, app/, ui/) this fails when
  - QtKeychain (`QKeychain::`, `<qt6keychain/...>`) appears outside core/support/keychainjob.*;
  - `ContainerRuntime::create` is called outside core/sandboxsetup.cpp (its definition in
    core/engine/containerruntime.* aside): the composition makes every adapter;
  - `QProcess` appears in a file that the allowlist does not name, or the allowlist names a file that
    no longer uses it (the list may only shrink: the goal is one process class in core/support);
  - a file of core/ includes a GUI header (QtWidgets, QtGui, QWidget...): core/approval/ decides what a
    dialog asks, and only ui/ shows it.
Comments and string literals are not read, so a comment may name what a file must not use.

  checkownedapis.py SOURCE_DIR ALLOWLIST

The allowlist has one file a line (relative to SOURCE_DIR), then its reason; `#` starts a comment.
"""

import os
import re
import sys

from sourcetext import allowlist_entries, sources, strip_code

ROOTS = ("core", "app", "ui")
KEYCHAIN_OWNER = ("core/support/keychainjob.h", "core/support/keychainjob.cpp")
ADAPTER_MAKERS = ("core/sandboxsetup.cpp", "core/engine/containerruntime.h", "core/engine/containerruntime.cpp")
KEYCHAIN = re.compile(r"\bQKeychain::|qt6keychain/")
CREATE = re.compile(r"\bContainerRuntime::create\b")
PROCESS = re.compile(r"\bQProcess\b")
GUI_INCLUDE = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*<(QtWidgets|QtGui|QWidget|QApplication|QGuiApplication|QIcon|QPixmap|QImage"
    r"|QPainter|QColor|QFont|QSystemTrayIcon|QDialog|QMessageBox)[/>][^\n]*",
    re.M,
)


def read_allowlist(path, problems):
    allowed = {}
    for number, line, _ in allowlist_entries(path):
        parts = line.split(None, 1)
        if len(parts) < 2:
            problems.append(f"{os.path.basename(path)}:{number}: {parts[0]}: an entry needs a reason")
        allowed[parts[0]] = number
    return allowed


def main(argv):
    if len(argv) != 3:
        print("usage: checkownedapis.py SOURCE_DIR ALLOWLIST", file=sys.stderr)
        return 2
    source_dir, allowlist = argv[1], argv[2]
    problems = []
    allowed = read_allowlist(allowlist, problems)
    starters = set()
    count = 0
    for relpath, path in sources(source_dir, ROOTS):
        count += 1
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        code = strip_code(text)
        if relpath not in KEYCHAIN_OWNER and KEYCHAIN.search(code):
            problems.append(f"{relpath}: uses QtKeychain: only core/support/keychainjob.* may (use KeychainJob)")
        if relpath not in ADAPTER_MAKERS and CREATE.search(code):
            problems.append(
                f"{relpath}: calls ContainerRuntime::create: only core/sandboxsetup.cpp makes adapters "
                "(SandboxSetup::adapterFor, a RuntimeFactory or ContainerRuntime::clone)"
            )
        if PROCESS.search(code):
            starters.add(relpath)
            if relpath not in allowed:
                problems.append(
                    f"{relpath}: uses QProcess but is not in the allowlist: start processes through ProcessRunner"
                )
        if relpath.startswith("core/"):
            for match in GUI_INCLUDE.finditer(text):
                problems.append(f"{relpath}: core/ includes a GUI header: {match.group(0).strip()}")
    for relpath, number in sorted(allowed.items(), key=lambda item: item[1]):
        if relpath not in starters:
            problems.append(
                f"{os.path.basename(allowlist)}:{number}: {relpath}: no longer uses QProcess: remove its entry"
            )
    for problem in problems:
        print(problem)
    if problems:
        print(f"owned APIs: {len(problems)} problems in {count} files")
        return 1
    print(f"owned APIs: {count} files, {len(starters)} allowed QProcess users, no other use")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
