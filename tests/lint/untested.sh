#!/bin/bash
# Every module of the source folders has its unit test, tests/unit/test_NAME.c,
# or a line in tests/lint/untested.txt saying why not yet ("NAME.c reason").
# The list only shrinks: a listed module that has a test now fails too, so its
# line goes when its test comes.
#   tests/lint/untested.sh     prints each module at fault, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

list=tests/lint/untested.txt
bad=0
# the allowlist's modules: first word of each line, comments and blanks skipped
declare -A listed=()
while read -r name _; do
  case $name in '' | '#'*) continue ;; esac
  listed[$name]=1
done <"$list"

declare -A seen=()
for d in "${SRC_DIRS[@]}"; do
  for c in "$d"/*.c; do
    [ -e "$c" ] || continue
    name=$(basename "$c" .c)
    seen[$name.c]=1
    if [ -e "tests/unit/test_$name.c" ]; then
      if [ -n "${listed[$name.c]:-}" ]; then
        echo "$list: $name.c has tests/unit/test_$name.c now: remove its line"
        bad=1
      fi
    elif [ -z "${listed[$name.c]:-}" ]; then
      echo "$c: no tests/unit/test_$name.c (write one, or add \"$name.c reason\" to $list)"
      bad=1
    fi
  done
done
for name in "${!listed[@]}"; do
  if [ -z "${seen[$name]:-}" ]; then
    echo "$list: $name is in no source folder: remove its line"
    bad=1
  fi
done
exit $bad
