#!/usr/bin/env python3
"""Prints what each failed test of a ctest run said, from BUILD_DIR/Testing/Temporary/LastTest.log:
every QtTest FAIL!/XPASS line with the lines after it, then the last lines of the test's output.
The end of a CI log is what is read first; a failed test's name alone says nothing.
    failed-test-output.py BUILD_DIR [TAIL_LINES]"""
import pathlib
import re
import sys


def outputs(log_text):
    """Yields (test name, output lines) for each test in LastTest.log."""
    name, lines, inside = None, [], False
    for line in log_text.splitlines():
        header = re.match(r"^\d+/\d+ Test: (.+)$", line)
        if header:
            name, lines, inside = header.group(1), [], False
        elif name and line.startswith("Output:"):
            inside = True
        elif inside and line == "<end of output>":
            yield name, lines
            name, inside = None, False
        elif inside and not line.startswith("-" * 20):
            lines.append(line)


def main():
    build = pathlib.Path(sys.argv[1])
    tail = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    temporary = build / "Testing" / "Temporary"
    failed_file = temporary / "LastTestsFailed.log"
    log_file = temporary / "LastTest.log"
    if not failed_file.exists() or not log_file.exists():
        return 0
    failed = {line.split(":", 1)[1].strip() for line in failed_file.read_text().splitlines() if ":" in line}
    for name, lines in outputs(log_file.read_text(errors="replace")):
        if name not in failed:
            continue
        print(f"---- {name}: what it said ----")
        for index, line in enumerate(lines):
            if line.startswith(("FAIL!", "XPASS", "QFATAL")) or "Received a fatal error" in line:
                print("\n".join(lines[max(0, index - 2):index + 4]))
        print(f"---- {name}: its last {tail} lines ----")
        print("\n".join(lines[-tail:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
