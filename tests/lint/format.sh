#!/bin/bash
# Formatting: every C file of the tree follows .clang-format (clang-format 14,
# Debian's), the folders of `make format`. One clang-format call over all
# files, so it takes about a second.
#   tests/lint/format.sh     prints clang-format's complaints (FILE:LINE:COL), exit 1 if any
# Fix with `clang-format -i FILE` (or `make format`).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

command -v clang-format >/dev/null 2>&1 ||
  { echo "clang-format not found (scripts/install-deps.sh installs it)"; exit 1; }
files=()
for d in "${SRC_DIRS[@]}" tests/unit tests/fuzz tests/tools tests/target; do
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] && files+=("$f")
  done
done
clang-format --dry-run -Werror "${files[@]}" 2>&1
