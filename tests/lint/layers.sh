#!/bin/bash
# Layering of includes: a folder may include only the folders below it, so a
# process never reaches another's internals (the link order enforces the same
# for calls; this sees header-only includes too).
# Inside console/, the HTTP servers (console/serve/) and the run stay apart
# (docs/ARCHITECTURE.md, Folders): a server includes of the rest of console/
# only SERVE_READS, the run's published state (the flags, the totals, the
# thresholds, the checks and metrics, the Prometheus text): never run.h,
# control.h, agents.h or another of the run's internals, as the run hands
# the servers what they show (webfeed.c, steering.c, metrics_update); and
# the rest of console/ includes of serve/ only SERVE_ENTRIES, the servers'
# start, update and stop (hsrv.h for hsrv_linger): hsrv's bounds,
# web_state.h and webpage.h are the servers' own. tests/ may include any.
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

SERVE_READS="console/agg.h console/opts.h console/prom.h console/sumtally.h console/thresh.h"
SERVE_ENTRIES="console/serve/ctlsrv.h console/serve/hsrv.h console/serve/metrics.h console/serve/web.h"

bad=0
for dir in common proto worker agent store reports record console; do
  # its sub-folders are of it (console/serve/, worker/'s rooms: rooms.sh)
  for f in "$dir"/*.c "$dir"/*.h "$dir"/*/*.c "$dir"/*/*.h; do
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
      [ "$to" = console ] || continue
      path=${inc#*\"}
      path=${path%%\"*}
      case $f:$path in
        console/serve/*:console/serve/*) ;;
        console/serve/*:*)
          case " $SERVE_READS " in
            *" $path "*) ;;
            *)
              echo "$f:$line: console/serve/ reads the run only through $SERVE_READS, not $path"
              bad=1
              ;;
          esac
          ;;
        *:console/serve/*)
          case " $SERVE_ENTRIES " in
            *" $path "*) ;;
            *)
              echo "$f:$line: the run reaches console/serve/ only through $SERVE_ENTRIES, not $path"
              bad=1
              ;;
          esac
          ;;
      esac
    done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "$f")
  done
done
exit $bad
