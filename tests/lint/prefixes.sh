#!/bin/bash
# A function's prefix names its module: a file-local (static) function may
# use its own file's prefix or none that names a module, never another
# module's (a reader who sees jtl_flush looks in jtl.c).
#   tests/lint/prefixes.sh   prints FILE:LINE: NAME looks like MODULE.c's, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

dirs=("${SRC_DIRS[@]}")
declare -A mod
for d in "${dirs[@]}"; do
  for f in "$d"/*.c; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .c)
    mod[$n]=$f
  done
done
bad=0
for d in "${dirs[@]}"; do
  for f in "$d"/*.c; do
    [ -e "$f" ] || continue
    own=$(basename "$f" .c)
    while IFS=: read -r line name; do
      # the longest module name the function's name starts with (monitor_host_
      # is monitor_host.c's, not monitor.c's)
      pre=
      rest=$name
      cand=
      while [ "$rest" != "${rest#*_}" ]; do
        cand=${cand:+${cand}_}${rest%%_*}
        rest=${rest#*_}
        [ -n "${mod[$cand]:-}" ] && pre=$cand
      done
      if [ -n "$pre" ] && [ "$pre" != "$own" ]; then
        echo "$f:$line: static $name looks like ${mod[$pre]}'s"
        bad=1
      fi
    done < <(grep -nE '^static [^(=;]*\b[a-z][a-z0-9]*_[a-z0-9_]+\(' "$f" |
             sed -E 's/^([0-9]+):static [^(=;]*\b([a-z][a-z0-9]*_[a-z0-9_]+)\(.*/\1:\2/')
  done
done
exit $bad
