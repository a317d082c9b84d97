#!/usr/bin/env python3
"""One word table per enum (docs/architecture.md, STYLE.md "One word table per enum").

The stable words of the settings enums (the runtime preference, the hardening profile, the exec, workspace,
network and approval modes, the egress preset) exist once: as the enums' Q_ENUM_NS keys, read through
core/support/vocabulary.h. In the product's sources (core/, app/, ui/) this fails when one of the distinctive
words below is written as a whole string literal ("hardened", u"ask-all", QLatin1String("review")): such a
copy is how a combo box, an option and a settings file come to disagree. Comments are not read, and a word
inside a longer literal ("review mode", "--network-preset") is prose, not a copy.

Generic words are left out: "auto", "docker", "podman", "agent", "exec", "none", "open", "dev" are also
program names, engine arguments (`exec`, `--network none`), call ids and JSON keys, so a literal of them says
nothing about the table.

  checkvocabulary.py SOURCE_DIR ALLOWLIST

The allowlist names a file and a word a line (relative to SOURCE_DIR), then its reason; `#` starts a comment.
An entry whose file no longer writes the word is named as one to remove (the list may only shrink); an entry
for a file that is not in the tree is skipped.
"""

import os
import re
import sys

from sourcetext import allowlist_entries, sources

ROOTS = ("core", "app", "ui")
WORDS = ("allowlist", "ask-unsafe", "ask-all", "hardened", "standard", "review", "direct", "locked", "apple")

# An ordinary string literal from its opening quote (an encoding prefix, u"" or L"", changes nothing); raw
# strings are prose (JSON, help) and are skipped.
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def literals(text):
    """(line, content) of every ordinary string literal outside comments and character literals."""
    found = []
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i + m.end()) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            if not m:
                j = i + 1
            line += text.count("\n", i, j)
            i = j
        elif c == "'":
            if i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                i += 1  # a digit separator (1'000'000)
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = min(j + 1, n)
        elif c == '"':
            m = LITERAL.match(text, i)
            if not m:
                i += 1
                continue
            found.append((line, m.group(1)))
            i = m.end()
        elif c == "\n":
            line += 1
            i += 1
        else:
            i += 1
    return found


def read_allowlist(path, problems):
    """{(file, word): line number} of the allowlist; an entry without a reason is a problem."""
    allowed = {}
    for number, line, _ in allowlist_entries(path):
        parts = line.split(None, 2)
        if len(parts) < 3:
            problems.append(f"{os.path.basename(path)}:{number}: {line}: an entry needs a file, a word and a reason")
            continue
        if parts[1] not in WORDS:
            problems.append(f"{os.path.basename(path)}:{number}: {parts[1]} is not one of the checked words")
            continue
        allowed[(parts[0], parts[1])] = number
    return allowed


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source_dir, allowlist = argv[1], argv[2]
    problems = []
    allowed = read_allowlist(allowlist, problems)
    used = set()
    present = set()
    for relative, path in sources(source_dir, ROOTS):
        present.add(relative)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, content in literals(text):
            if content not in WORDS:
                continue
            if (relative, content) in allowed:
                used.add((relative, content))
                continue
            problems.append(
                f'{relative}:{line}: writes the word "{content}": use the enum and support/vocabulary.h '
                f"(wordOf, fromWord, wordsOf) instead"
            )
    for (relative, word), number in sorted(allowed.items()):
        if relative in present and (relative, word) not in used:
            problems.append(
                f"{os.path.basename(allowlist)}:{number}: {relative} no longer writes \"{word}\": remove the entry"
            )
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problems")
        return 1
    print(f"vocabulary: {len(WORDS)} words, no copy outside the enums' tables")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
