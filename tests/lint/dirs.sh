#!/bin/bash
# The source folders every check walks, sourced by them: each layer's folder
# (the Makefile's LAYERS, from the top down) and then its sub-folders
# (console/serve/, worker/'s rooms), found in the tree, so that a new room is
# walked by every check the day it is made.
#   . tests/lint/dirs.sh     sets SRC_DIRS (an array), from the tree's top
SRC_DIRS=()
for _d in common proto worker agent store reports record console; do
  SRC_DIRS+=("$_d")
  for _s in "$_d"/*/; do
    [ -d "$_s" ] && SRC_DIRS+=("${_s%/}")
  done
done
unset _d _s
