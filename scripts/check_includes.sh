#!/bin/sh
# Every src/ file compiles on its own. The presets CI builds compile src/ in
# unity batches, where a file can lean on what an earlier file of its batch
# included and still build; a developer's default build (one file at a
# time) would then fail. This parses each file alone, syntax only, with the
# ci preset's flags from a per-file compile DB (build/ci-files,
# scripts/per_file_db.sh; nothing is built). ~1.6 s a file with GCC, on all cores.
#   scripts/check_includes.sh
set -eu
cd "$(dirname "$0")/.."
db=$(scripts/per_file_db.sh)
jobs=$(nproc 2>/dev/null || echo 2)
commands=$db/syntax_commands.txt
log=$db/includes.log
# compile_commands.json holds one "command" line an entry: the object's
# -o and -c become -fsyntax-only; the DB's \" become the quotes they stand for.
# The files generated from data/ are left out: they exist once built.
sed -n 's/^ *"command": "\(.*\)",$/\1/p' "$db/compile_commands.json" |
  grep -v ' -c [^ ]*/generated/[^ ]*$' |
  sed 's/\\"/"/g; s/ -o [^ ]* / /; s/ -c / -fsyntax-only /' >"$commands"
count=$(wc -l <"$commands")
[ "$count" -gt 0 ] || { echo "includes: no commands in $db/compile_commands.json"; exit 1; }
if tr '\n' '\0' <"$commands" | (cd "$db" && xargs -0 -n 1 -P "$jobs" sh -c) >"$log" 2>&1; then
  echo "includes: $count files each compile on their own"
else
  grep -E "(error|warning): " "$log" | sort -u | head -40
  echo "includes: a file above does not compile on its own (full log: $log)"
  exit 1
fi
