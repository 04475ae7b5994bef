#!/bin/bash
# Layering of includes: a folder may include only the folders below it, so a
# process never reaches another's internals (the link order enforces the same
# for calls; this sees header-only includes too).
#   tests/lint/layers.sh     prints FILE:LINE for each forbidden include, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

# allowed[FOLDER] = the folders its files may include (its own included).
# store/ is the results database: common and itself; reports/ reads it through
# store/'s functions: common, store and itself.
declare -A allowed=(
  [common]="common"
  [proto]="common proto"
  [worker]="common proto worker"
  [agent]="common proto worker agent"
  [store]="common store"
  [reports]="common store reports"
  [record]="common record"
  [console]="common proto agent store reports record console"
)

bad=0
for dir in common proto worker agent store reports record console; do
  for f in "$dir"/*.c "$dir"/*.h; do
    [ -e "$f" ] || continue
    # lines of the form: 123:#include "folder/..."
    while IFS=: read -r line inc; do
      to=${inc#*\"}
      to=${to%%/*}
      case " ${allowed[$dir]} " in
        *" $to "*) ;;
        *)
          echo "$f:$line: $dir/ may not include $to/ (${inc#*#})"
          bad=1
          ;;
      esac
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "$f")
  done
done
exit $bad
