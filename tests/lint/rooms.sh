#!/bin/bash
# The worker's rooms (docs/ARCHITECTURE.md, The worker's rooms): every file
# of worker/ is in one room, and a room includes only what it may.
#   engine    the loop, the multi handle, timers, the VU table, the sample
#             path: the only files that include worker/engine_int.h (the
#             struct's fields); the VU's coroutine and the script's load
#             are the engine's too (a VU is a Lua thread)
#   plugs     the protocols the engine drives (worker/plug.h) and what they
#             share with it: the engine's door (worker/engine.h, vu.h),
#             never its fields, never a Lua header
#   lua       the bindings: the only files besides the engine's that
#             include a Lua header; the engine through its door
#   wire      framing, parsers, codecs, files, clocks: no Lua header, no
#             engine, no VU; unit-tested without either
#   process   the worker process itself (wproc.c): the engine's public
#             functions, no Lua header
# (Includes are checked as written in the file and its own header: vu.h
# holds a VU's Lua thread, so what includes it sees lua.h's types.)
# A new file of worker/ goes in one list below, or this check fails.
#   tests/lint/rooms.sh      prints FILE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

engine="engine arrive steer inflight lifecycle lcoro lscript vu"
plugs="plugs websocket sse gstream batch pageres trace reqlog inbox"
process="wproc"
lua="lapi lalloc lbatch lcheck lcodec lcookies lcrypto lcsv lgrpc lgstream lhttp ljson lmetric lstream
     lquern lresponse lsse lwatch lwebsocket lxml linbox mpart pbcodec reqopt setupdata"
wire="cookiejar duetimer embed glog grpc intend jtl pbschema pbwire rcache scen sseparse
      traceid urlc vshare vustart wfile wscookie wshandshake"

declare -A room
for n in $engine; do room[$n]=engine; done
for n in $plugs; do room[$n]=plugs; done
for n in $lua; do room[$n]=lua; done
for n in $wire; do room[$n]=wire; done
for n in $process; do room[$n]=process; done

bad=0
say() {
  echo "$1"
  bad=1
}
for f in worker/*.c; do
  n=$(basename "$f" .c)
  r=${room[$n]:-}
  if [ -z "$r" ]; then
    say "$f: in no room (add it to a list in tests/lint/rooms.sh)"
    continue
  fi
  for src in "$f" "worker/$n.h"; do
    [ -e "$src" ] || continue
    incs=$(grep -oE '^#include [<"][^>"]+[>"]' "$src" | sed -E 's/^#include [<"]([^>"]+)[>"]/\1/')
    for i in $incs; do
      case "$r:$i" in
      engine:*) ;;
      *:worker/engine_int.h) say "$src: includes worker/engine_int.h (the engine's room only)" ;;
      plugs:lua.h | plugs:lauxlib.h | plugs:lualib.h | process:lua.h | process:lauxlib.h | process:lualib.h)
        say "$src: includes <$i> (a protocol reaches Lua through the bindings)" ;;
      wire:lua.h | wire:lauxlib.h | wire:lualib.h) say "$src: includes <$i> (the wire room has no Lua)" ;;
      wire:worker/engine.h | wire:worker/vu.h | wire:worker/inbox.h | wire:worker/plug.h)
        say "$src: includes $i (the wire room knows no engine nor VU)" ;;
      wire:worker/l*.h) say "$src: includes $i (a binding, from the wire room)" ;;
      esac
    done
  done
done
exit $bad
