#!/bin/bash
# The worker's rooms (docs/ARCHITECTURE.md, The worker's rooms): worker/'s
# sub-folders, each with what its files may include.
#   worker/engine/  the loop, the multi handle, timers, the VU table, the
#                   sample path, the VU's coroutine and the script's load (a
#                   VU is a Lua thread): the only files that include
#                   worker/engine/engine_int.h, the struct's fields
#   worker/plugs/   the protocols the engine drives (plug.h) and what they
#                   share: the engine's door (engine.h, vu.h), never its
#                   fields, never a Lua header, never a binding
#   worker/lua/     the bindings: besides the engine, the only files that
#                   include a Lua header; the engine through its door
#   worker/wire/    framing, parsers, codecs, files, clocks: no Lua header,
#                   no engine, no VU, no plug, no binding; each unit-tested
#                   alone
#   worker/         the worker process itself (wproc.c): the engine's
#                   public functions, no Lua header, no binding
# Includes are checked as written in each file. A file of worker/ goes in a
# room; a new room comes with its rule here, or this check fails.
#   tests/lint/rooms.sh      prints FILE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

bad=0
say() {
  echo "$1"
  bad=1
}
for d in worker/*/; do
  case ${d%/} in
  worker/engine | worker/plugs | worker/lua | worker/wire) ;;
  *) say "${d%/}/: a room with no rule (give it one in tests/lint/rooms.sh)" ;;
  esac
done
for f in worker/*.c worker/*.h worker/*/*.c worker/*/*.h; do
  [ -e "$f" ] || continue
  r=$(dirname "$f")
  r=${r#worker}
  r=${r#/}
  r=${r:-process}
  incs=$(grep -oE '^#include [<"][^>"]+[>"]' "$f" | sed -E 's/^#include [<"]([^>"]+)[>"]/\1/')
  for i in $incs; do
    case "$r:$i" in
    engine:*) ;;
    *:worker/engine/engine_int.h) say "$f: includes $i (the engine's room only)" ;;
    plugs:lua.h | plugs:lauxlib.h | plugs:lualib.h | process:lua.h | process:lauxlib.h | process:lualib.h)
      say "$f: includes <$i> (a protocol reaches Lua through the bindings)" ;;
    plugs:worker/wire/reqopt.h) ;; # a request's options: its Lua reading to split out
    plugs:worker/lua/* | process:worker/lua/*) say "$f: includes $i (a binding, from below the bindings)" ;;
    wire:lua.h | wire:lauxlib.h | wire:lualib.h) say "$f: includes <$i> (the wire room has no Lua)" ;;
    wire:worker/wire/*) ;;
    wire:worker/*) say "$f: includes $i (the wire room knows no engine, VU, plug nor binding)" ;;
    esac
  done
done
exit $bad
