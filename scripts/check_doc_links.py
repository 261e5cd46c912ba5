#!/usr/bin/env python3
"""Fails when a Markdown file of the repository points at a file that is not there.

Checked in every *.md outside build trees:
- relative links, [text](path) or [text](path#anchor), resolved from the
  Markdown file's folder;
- repository paths written as text or code (docs/x.md, src/a/b.cc,
  scripts/x.sh, ...), resolved from the repository root, the way the docs
  cite files. A glob (src/analysis/motif_*) or a path inside a code block
  that names an output (build/..., /tmp/...) is not a repository path.
Usage: check_doc_links.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
SKIP_DIRS = {".git", "build", "node_modules", "corpus"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A repository path cited as text: a top-level folder of the repository, then
# a path ending in a file extension the repository uses.
REPO_PATH = re.compile(
    r"(?<![\w./-])((?:docs|src|tests|scripts|data|bench|fuzz|cmake)/[\w./-]*\w\.(?:md|cc|h|sh|py|tsv|txt|js|cmake|json))(?![\w*{])")


def markdown_files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        for name in files:
            if name.endswith(".md"):
                yield os.path.join(folder, name)


def problems_in(path):
    folder = os.path.dirname(path)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL or an anchor on the same page
                file_part = target.split("#", 1)[0]
                if not os.path.exists(os.path.normpath(os.path.join(folder, file_part))):
                    yield number, target
            for cited in REPO_PATH.findall(line):
                if not os.path.exists(os.path.join(ROOT, cited)):
                    yield number, cited


def main():
    bad = 0
    for path in sorted(markdown_files()):
        for number, target in problems_in(path):
            print(f"{os.path.relpath(path, ROOT)}:{number}: {target} does not exist")
            bad += 1
    if bad:
        print(f"{bad} link(s) in Markdown files point at nothing")
        return 1
    print("doc links ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
