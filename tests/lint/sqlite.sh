#!/bin/bash
# Only store/ speaks SQLite: outside it, no file of a source folder names
# sqlite3 (the header sqlite3.h, a sqlite3_ call, the struct sqlite3 handle)
# or takes the raw handle with db_sqlite, comments included; the renderers of
# reports/ and the console read and write the results through store/'s
# functions and structs. A unit test of a store/ module (tests/unit/test_NAME.c
# with NAME.c in store/) may reach the database directly to set up what it
# tests; no other test, fuzz target, tool or benchmark may.
#   tests/lint/sqlite.sh     prints FILE:LINE for each use at fault, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

files=()
for d in common proto worker agent reports record console tests/fuzz tests/tools tests/target bench; do
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] && files+=("$f")
  done
done
for t in tests/unit/*.c tests/unit/*.h; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .c)
  name=${name#test_}
  [ -e "store/$name.c" ] || files+=("$t")
done
bad=0
while IFS=: read -r f line text; do
  echo "$f:$line: only store/ speaks SQLite: ${text#"${text%%[![:space:]]*}"}"
  bad=1
done < <(grep -nE '\bsqlite3|\bdb_sqlite\b' "${files[@]}")
exit $bad
