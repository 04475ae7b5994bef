#!/bin/bash
# Runs the checks of tests/lint/ (make lint; tests/run.sh runs them too), one
# line "ok NAME" or "not ok NAME" each, a failure's output indented below it.
#   tests/lint/run.sh [CHECK...]     default: layers runstate sqlite headers format mirror untested prefixes owners memrule errrule outfile rooms luacheck doclinks docfiles commits
# Exit 1 if any check failed.
set -u
cd "$(dirname "$0")" || exit 1

checks=("$@")
[ ${#checks[@]} = 0 ] && checks=(layers runstate sqlite headers format mirror untested prefixes owners memrule errrule outfile rooms luacheck doclinks docfiles commits)
rc=0
for c in "${checks[@]}"; do
  if out=$(./"$c".sh 2>&1); then
    echo "ok lint_$c"
  else
    echo "not ok lint_$c"
    printf '%s\n' "$out" | sed 's/^/    /'
    rc=1
  fi
done
exit $rc
