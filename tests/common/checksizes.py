#!/usr/bin/env python3
"""Files of a readable size (docs/architecture.md, "Size budget").

Fails when a .cpp or .c file of the product (app/, core/, ui/, agent/) passes 800 lines or a function
body passes 120 lines, unless tests/common/size-budget.txt names that file or function with a size at
least as large: the allowlist holds the offenders that existed when the budget was set, each with its
size then and a reason, and may only shrink. An allowlist entry that is no longer needed, or whose
size is larger than what the tree now has, is also a failure, so the list follows every split.

  checksizes.py [--file-limit N] [--function-limit N] SOURCE_DIR [ALLOWLIST]

A function is a top-level brace block whose opening follows a parameter list, outside class, struct,
enum and union bodies (namespace and extern "C" blocks are transparent); its size is counted from
the line of its opening brace to the line of its closing brace, as clang-tidy's
readability-function-size counts lines. Strings, character literals, raw strings and comments are
skipped, so braces inside them do not count. The tree is clang-formatted, which this relies on only
for one thing: a definition's name is on the line where its parameter list starts.
"""

import os
import re
import sys

from sourcetext import allowlist_entries, strip_code

FILE_LIMIT = 800
FUNCTION_LIMIT = 120
ROOTS = ("app", "core", "ui", "agent")
TYPE_KEYWORDS = re.compile(r"\b(class|struct|enum|union)\b")
TRANSPARENT = re.compile(r"^\s*(namespace\b[^{(]*|extern\s+\"C\"\s*)$", re.S)


def strip_preprocessor(code):
    """Preprocessor lines (with their continuations) become blank: a #define's braces are not code."""
    lines = code.split("\n")
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def functions(text):
    """[(name, first_line, brace_line, end_line)] of the function definitions in a C/C++ source text."""
    code = strip_preprocessor(strip_code(text))
    found = []
    # Each open block: (kind, name, brace_line); kind is "ns" (transparent), "type", "fn" or "block".
    stack = []
    head_start = 0  # offset where the current declaration's text starts (after the last ; { or } at scope)
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
            continue
        if c not in "{};":
            continue
        in_function = any(kind == "fn" for kind, _, _ in stack)
        if c == ";":
            if not in_function:
                head_start = i + 1
            continue
        if c == "}":
            if stack:
                kind, name, brace_line = stack.pop()
                if kind == "fn":
                    found.append((name, brace_line, line))
            if not any(kind == "fn" for kind, _, _ in stack):
                head_start = i + 1
            continue
        # c == "{"
        if in_function:
            stack.append(("block", "", line))
            continue
        head = code[head_start:i]
        stripped = head.strip()
        if TRANSPARENT.match(stripped):
            stack.append(("ns", "", line))
        elif stripped.endswith("=") or re.search(r"=\s*$", stripped) or not stripped:
            stack.append(("block", "", line))  # an initialiser: a table, not a function
        elif TYPE_KEYWORDS.search(stripped.split("(")[0]):
            stack.append(("type", "", line))
        elif "(" in stripped:
            stack.append(("fn", function_name(stripped), line))
        else:
            stack.append(("block", "", line))
        head_start = i + 1
    return found


def function_name(head):
    """The qualified name of a definition from its head text (the signature before the brace)."""
    # Paren groups at depth 0; the parameter list is the last one that is not noexcept(...)/decltype(...),
    # once a constructor's initialiser list (after a top-level single ':') is cut off.
    depth = 0
    groups = []
    k = 0
    text = head
    while k < len(text):
        ch = text[k]
        if ch == "(":
            if depth == 0:
                groups.append(k)
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == ":" and depth == 0 and groups and text[k - 1 : k + 1] != "::" and text[k : k + 2] != "::":
            text = text[:k]
            break
        k += 1
    for start in reversed(groups):
        if start >= len(text):
            continue
        words = re.findall(r"(?:operator\s*[^\s(]+|[~A-Za-z_][A-Za-z0-9_:~]*)", text[:start])
        if words and words[-1] not in ("noexcept", "decltype", "throw", "alignas", "__attribute__"):
            return words[-1]
    return "?"


def measure(source_dir):
    """{path: lines} of files over the file limit and {path::function: lines} over the function limit."""
    big_files, big_functions = {}, {}
    for root in ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(source_dir, root)):
            dirnames[:] = sorted(d for d in dirnames if d not in ("tests",))
            for filename in sorted(filenames):
                if not filename.endswith((".cpp", ".c")):
                    continue
                path = os.path.join(dirpath, filename)
                rel = os.path.relpath(path, source_dir).replace(os.sep, "/")
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
                count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                if count > FILE_LIMIT:
                    big_files[rel] = count
                for name, first, last in functions(text):
                    size = last - first + 1
                    if size > FUNCTION_LIMIT:
                        key = f"{rel}::{name}"
                        big_functions[key] = max(size, big_functions.get(key, 0))
    return big_files, big_functions


def read_allowlist(path):
    allowed = {}
    if not path or not os.path.exists(path):
        return allowed
    for number, line, raw in allowlist_entries(path):
        parts = line.split()
        if len(parts) < 2 or not parts[1].isdigit():
            sys.exit(f"{path}:{number}: expected 'PATH[::FUNCTION] LINES  # reason'")
        if "#" not in raw:
            sys.exit(f"{path}:{number}: every entry says why it is allowed (a '# reason')")
        allowed[parts[0]] = int(parts[1])
    return allowed


def main(argv):
    global FILE_LIMIT, FUNCTION_LIMIT
    args = argv[1:]
    while args and args[0] in ("--file-limit", "--function-limit") and len(args) > 1:
        if args[0] == "--file-limit":
            FILE_LIMIT = int(args[1])
        else:
            FUNCTION_LIMIT = int(args[1])
        args = args[2:]
    if not args:
        sys.exit("usage: checksizes.py [--file-limit N] [--function-limit N] SOURCE_DIR [ALLOWLIST]")
    source_dir = args[0]
    allowlist = args[1] if len(args) > 1 else None
    allowed = read_allowlist(allowlist)
    big_files, big_functions = measure(source_dir)
    problems = []
    for kind, limit, measured in (("file", FILE_LIMIT, big_files), ("function", FUNCTION_LIMIT, big_functions)):
        for key, size in sorted(measured.items()):
            if key not in allowed:
                problems.append(f"{key}: {kind} of {size} lines passes the budget of {limit}")
            elif size > allowed[key]:
                problems.append(f"{key}: {kind} of {size} lines grew past its allowance of {allowed[key]}")
    for key, size in sorted(allowed.items()):
        now = big_files.get(key) if "::" not in key else big_functions.get(key)
        if now is None:
            problems.append(f"{key}: within the budget now; remove it from the allowlist")
        elif now < size:
            problems.append(f"{key}: now {now} lines; lower its allowance from {size} to {now}")
    for problem in problems:
        print(problem)
    print(f"size budget: {len(big_files)} files over {FILE_LIMIT} lines, {len(big_functions)} functions over "
          f"{FUNCTION_LIMIT} lines, {len(allowed)} allowed, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
