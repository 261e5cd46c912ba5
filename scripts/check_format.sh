#!/bin/sh
# Fails when a tracked C++ file differs from what clang-format (.clang-format,
# Google style, 100 columns) makes of it, naming each file. ctest runs it as
# `format_check`; `clang-format -i $(git ls-files '*.cc' '*.h')` fixes them.
# Exit 77 (ctest: skipped) without clang-format or outside a git checkout.
cd "$(dirname "$0")/.." || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
files=$(git ls-files '*.cc' '*.h' 2>/dev/null) || { echo "not a git checkout: skipped"; exit 77; }
[ -n "$files" ] || { echo "no tracked C++ files: skipped"; exit 77; }
bad=0
for f in $files; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    bad=$((bad + 1))
  fi
done
[ "$bad" -eq 0 ] || { echo "$bad file(s) not clang-formatted; run: clang-format -i \$(git ls-files '*.cc' '*.h')"; exit 1; }
echo "format ok"
