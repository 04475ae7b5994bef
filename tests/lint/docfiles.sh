#!/bin/bash
# docs/ARCHITECTURE.md names every source file: each .c of the source
# folders (tests/lint/dirs.sh, their sub-folders included) and each shared file of tests/unit
# (NAME.c that is not a test_NAME.c), as `NAME.c` somewhere in the page, so
# a file added or moved without its line fails here.
#   tests/lint/docfiles.sh     prints each file the page does not name, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

doc=docs/ARCHITECTURE.md
bad=0
srcs=()
for d in "${SRC_DIRS[@]}"; do srcs+=("$d"/*.c); done
for f in "${srcs[@]}" tests/unit/*.c; do
  [ -e "$f" ] || continue
  b=$(basename "$f")
  case $f in tests/unit/test_*) continue ;; esac
  if ! grep -qE "(^|[^A-Za-z0-9_])${b//./\\.}" "$doc"; then
    echo "$doc: $f is not named (add its line to the per-file list)"
    bad=1
  fi
done
exit $bad
