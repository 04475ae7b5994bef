#!/bin/bash
# tests/unit mirrors the tree: each tests/unit/test_NAME.c tests the file
# NAME.c of one of the source folders, so a module's tests are found from its
# name (and a renamed module takes its test file along).
#   tests/lint/mirror.sh     prints each test file with no NAME.c, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

bad=0
for t in tests/unit/test_*.c; do
  [ -e "$t" ] || continue
  name=$(basename "$t" .c)
  name=${name#test_}
  found=0
  for d in "${SRC_DIRS[@]}"; do
    [ -e "$d/$name.c" ] && found=1
  done
  if [ $found = 0 ]; then
    echo "$t: no $name.c in ${SRC_DIRS[*]}"
    bad=1
  fi
done
exit $bad
