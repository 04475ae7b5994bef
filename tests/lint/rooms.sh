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
# What a file includes is judged as the compiler sees it: every header it
# reaches, through any other (cc -H), so a header of the door that pulled in
# lua.h would fail here. A new sub-folder comes with its rule, or this fails.
# The flags are the Makefile's CFLAGS_BASE (QUERN_CFLAGS, else `make -s
# cflags`); build/gen/proto/*.pb-c.h must exist (make lint builds it).
#   tests/lint/rooms.sh      prints FILE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

CC=${CC:-cc}
flags=${QUERN_CFLAGS:-$(make -s --no-print-directory cflags)}
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

# what FILE reaches, one header a line, as the tree's paths (worker/...) or
# a system header's name (lua.h)
reached() {
  # shellcheck disable=SC2086
  $CC $flags -fsyntax-only -H -x c "$1" 2>&1 >/dev/null | sed -nE 's/^\.+ (\.\/)?//p' |
    sed -E 's#^/usr/include/lua5\.4/##' | sort -u
}
for f in worker/*.c worker/*.h worker/plugs/*.c worker/plugs/*.h worker/wire/*.c worker/wire/*.h \
  worker/engine/*.c worker/lua/*.c; do
  [ -e "$f" ] || continue
  r=$(dirname "$f")
  r=${r#worker}
  r=${r#/}
  r=${r:-process}
  for i in $(reached "$f"); do
    case "$r:$i" in
    engine:*) ;;
    *:worker/engine/engine_int.h) say "$f: reaches $i (the engine's room only)" ;;
    lua:*) ;;
    *:lua.h | *:lauxlib.h | *:lualib.h | *:luaconf.h)
      say "$f: reaches <$i> (only the engine and the bindings see Lua)" ;;
    plugs:worker/lua/* | process:worker/lua/*) say "$f: reaches $i (a binding, from below the bindings)" ;;
    wire:worker/wire/*) ;;
    wire:worker/*) say "$f: reaches $i (the wire room knows no engine, VU, plug nor binding)" ;;
    esac
  done
done
exit $bad
