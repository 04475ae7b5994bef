#!/bin/bash
# Lua: luacheck (Debian's lua-check) over the example scenarios of scripts/ and
# their modules (scripts/lib/), the protocols written in Lua (worker/lua/mods/),
# over har2lua's outputs (tests/unit/data/har/*.lua, which
# tests/unit/test_har2lua.c keeps equal to what har2lua writes) and over the
# editor annotations (share/annotations/: their syntax), with the settings of
# .luacheckrc: any warning fails.
#   tests/lint/luacheck.sh     prints luacheck's warnings (FILE:LINE:COL: ...), exit 1 if any
# tests/e2e/har.sh checks the script converted from a real browser's HAR too.
set -u
cd "$(dirname "$0")/../.." || exit 1

command -v luacheck >/dev/null 2>&1 ||
  { echo "luacheck not found (scripts/install-deps.sh installs Debian's lua-check)"; exit 1; }
luacheck --formatter plain --codes scripts/*.lua scripts/lib/*.lua worker/lua/mods/*.lua \
  tests/unit/data/har/*.lua share/annotations
