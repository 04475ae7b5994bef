#!/bin/bash
# Only store/ speaks SQLite: outside it, no file of a source folder names
# sqlite3 (the header sqlite3.h, a sqlite3_ call, the struct sqlite3 handle)
# or takes the raw handle with db_sqlite, comments included; the renderers of
# reports/ and the console read and write the results through store/'s
# functions and structs. A unit test of a store/ module (tests/unit/test_NAME.c
# with NAME.c in store/) may reach the database directly to set up what it
# tests, and so may a shared file of tests/unit that only such tests include;
# no other test, fuzz target, tool or benchmark may.
#   tests/lint/sqlite.sh     prints FILE:LINE for each use at fault, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

files=()
for d in "${SRC_DIRS[@]}" tests/fuzz tests/tools tests/target bench; do
  [ "$d" = store ] && continue # the database's own folder
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] && files+=("$f")
  done
done
# store_test FILE: FILE is the unit test of a store/ module.
store_test() {
  local name
  name=$(basename "$1" .c)
  case $name in test_*) [ -e "store/${name#test_}.c" ] ;; *) return 1 ;; esac
}
for t in tests/unit/*.c tests/unit/*.h; do
  [ -e "$t" ] || continue
  case $(basename "$t") in
  test_*) store_test "$t" && continue ;;
  *)
    # a shared file: allowed when every test that includes it is a store/ one
    users=$(grep -l "#include \"tests/unit/$(basename "${t%.*}").h\"" tests/unit/test_*.c 2>/dev/null)
    ok=${users:+1}
    for u in $users; do store_test "$u" || ok=; done
    [ -n "$ok" ] && continue
    ;;
  esac
  files+=("$t")
done
bad=0
while IFS=: read -r f line text; do
  echo "$f:$line: only store/ speaks SQLite: ${text#"${text%%[![:space:]]*}"}"
  bad=1
done < <(grep -nE '\bsqlite3|\bdb_sqlite\b' "${files[@]}")
exit $bad
