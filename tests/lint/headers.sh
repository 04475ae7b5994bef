#!/bin/bash
# Every header compiles alone: a file holding only `#include "x/y.h"` passes
# the project's warnings, so no header leans on what its includer happened to
# include first.
#   tests/lint/headers.sh    prints each header that fails with its first errors, exit 1 if any
# The flags are the Makefile's CFLAGS_BASE (QUERN_CFLAGS, else `make -s cflags`);
# the generated build/gen/proto/*.pb-c.h must exist (make lint builds it).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

CC=${CC:-cc}
flags=${QUERN_CFLAGS:-$(make -s --no-print-directory cflags)}
out=$(mktemp -d /tmp/quern-headers.XXXXXX)
trap 'rm -rf "$out"' EXIT
export CC flags out

# shellcheck disable=SC2317  # run by xargs through bash -c
check() {
  log="$out/$(echo "$1" | tr / _).log"
  # shellcheck disable=SC2086
  if ! printf '#include "%s"\n' "$1" | $CC $flags -fsyntax-only -x c - >"$log" 2>&1; then
    # one write, so that two failures in parallel do not interleave
    printf '%s: does not compile alone\n%s\n' "$1" "$(sed -n '1,6s/^/    /p' "$log")"
  fi
}
export -f check

headers=()
srcs=()
for d in "${SRC_DIRS[@]}"; do srcs+=("$d"/*.h); done
for f in "${srcs[@]}"; do
  [ -e "$f" ] && headers+=("$f")
done
# shellcheck disable=SC2016  # $1 is bash -c's argument
res=$(printf '%s\n' "${headers[@]}" | xargs -P2 -I{} bash -c 'check "$1"' _ {})
[ -z "$res" ] && exit 0
echo "$res"
exit 1
