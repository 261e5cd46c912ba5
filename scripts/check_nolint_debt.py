#!/usr/bin/env python3
"""Fails when HACKING.md's complexity debt table and the code disagree.

Every function that turns off clang-tidy's cognitive complexity gate
(NOLINTNEXTLINE(readability-function-cognitive-complexity), or NOLINT /
NOLINTBEGIN of that check) must be a row of the table under
"### Complexity debt" in HACKING.md, with its file and a reason, and every
row must name such a function. The NOLINT comment itself must give a reason
after the check's name ("...complexity): why").
Usage: check_nolint_debt.py [REPO_ROOT [TABLE_FILE]]
(TABLE_FILE: the Markdown holding the table, HACKING.md of REPO_ROOT unless
named; tests/data/nolint_debt is a checkout where the two disagree.)
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
TABLE = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "HACKING.md")
CHECK = "readability-function-cognitive-complexity"
NOLINT = re.compile(r"//\s*NOLINT(NEXTLINE|BEGIN)?\(([^)]*)\)(.*)")
# The function a declaration line names: the (qualified) identifier before
# its first parenthesis.
FUNCTION = re.compile(r"([A-Za-z_]\w*(?:::[A-Za-z_~]\w*)*)\s*\(")
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*([^|]+?)\s*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$")


def nolint_functions():
    """(file, function) -> the NOLINT comment's reason, for every exemption in src/."""
    found = {}
    problems = []
    src = os.path.join(ROOT, "src")
    for folder, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith((".cc", ".h")):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            for i, line in enumerate(lines):
                match = NOLINT.search(line)
                if not match or CHECK not in match.group(2):
                    continue
                kind, reason = match.group(1), match.group(3).lstrip(":").strip()
                # NOLINTNEXTLINE and NOLINTBEGIN name the function on the next
                # line; a plain NOLINT sits on the declaration line itself.
                declaration = lines[i + 1] if kind and i + 1 < len(lines) else line[: match.start()]
                function = FUNCTION.search(declaration)
                if not function:
                    problems.append(f"{rel}:{i + 1}: no function declared after the NOLINT({CHECK})")
                    continue
                if not reason:
                    problems.append(f"{rel}:{i + 1}: NOLINT({CHECK}) without a reason after ':'")
                found[(rel, function.group(1))] = reason
    return found, problems


def debt_table():
    """(file, function) -> (complexity, reason) from HACKING.md's table."""
    rows = {}
    in_section = False
    with open(TABLE, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                in_section = line.strip() == "### Complexity debt"
                continue
            if not in_section:
                continue
            match = ROW.match(line.strip())
            if match:
                function, path, complexity, reason = match.groups()
                rows[(path, function)] = (complexity, reason)
    return rows


def same_function(table_name, code_name):
    # A row may qualify a member the code defines inside its class.
    return table_name == code_name or table_name.endswith("::" + code_name)


def main():
    code, problems = nolint_functions()
    table = debt_table()
    if not table:
        problems.append("HACKING.md: no table rows under '### Complexity debt'")
    for (path, function), (complexity, reason) in sorted(table.items()):
        if not any(p == path and same_function(function, f) for p, f in code):
            problems.append(
                f"HACKING.md: `{function}` ({path}) is listed as complexity debt, but carries no "
                f"NOLINT({CHECK}) there: remove its row")
        if not reason:
            problems.append(f"HACKING.md: `{function}` ({path}) has no reason in the table")
        if not complexity:
            problems.append(f"HACKING.md: `{function}` ({path}) has no complexity in the table")
    for path, function in sorted(code):
        if not any(p == path and same_function(f, function) for p, f in table):
            problems.append(
                f"{path}: `{function}` carries NOLINT({CHECK}) but is not in HACKING.md's "
                "'Complexity debt' table: add a row (function, file, complexity, why it stays)")
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} disagreement(s) between HACKING.md's complexity debt and src/")
        return 1
    print(f"complexity debt: {len(code)} exemption(s), each in HACKING.md's table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
