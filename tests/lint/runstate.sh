#!/bin/bash
# The console's run state and its order of calls (docs/ARCHITECTURE.md,
# console/). struct run (console/run.h) is seen only by the files that
# header's comment lists, one "  NAME.c  what it owns" line each: the rest
# of console/ is handed a view or a function. And ORDER's files call
# downwards only (control above webfeed above steering above agents), so no
# circle comes back: agents.c hands its frames up through a table.
# Fails on:
#   - a .c or .h of console/ or console/serve/ that includes console/run.h
#     and is not listed (a header never is), or that defines struct run;
#   - a listed file that does not include it, or does not exist;
#   - a .c or .h of ORDER that includes the header of one before it, or
#     calls a function of one before it (comments and strings skipped).
#   tests/lint/runstate.sh    prints FILE:LINE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1

ORDER="control webfeed steering agents"
STATE=console/run.h

# the lines "  NAME.c  ..." of the header's first comment
owners=$(sed -n '1,/\*\//p' "$STATE" | sed -nE 's/^ \*   ([a-z_]+\.c) .*/\1/p' | paste -sd ' ')
if [ -z "$owners" ]; then
  echo "$STATE: its comment lists no file that sees struct run (\"  NAME.c  what\" lines)"
  exit 1
fi

bad=0
for o in $owners; do
  if [ ! -e "console/$o" ]; then
    echo "$STATE: lists $o, which does not exist"
    bad=1
  fi
done
for f in console/*.c console/*.h console/serve/*.c console/serve/*.h; do
  { [ -e "$f" ] && [ "$f" != "$STATE" ]; } || continue
  listed=0
  case "$f" in
    console/*/*) ;;
    *.c) case " $owners " in *" ${f#console/} "*) listed=1 ;; esac ;;
  esac
  line=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"console/run\.h"' "$f" | head -n 1 | cut -d: -f1)
  if [ -n "$line" ] && [ $listed = 0 ]; then
    echo "$f:$line: includes $STATE, whose fields only $owners see: hand it a view or a function"
    bad=1
  elif [ -z "$line" ] && [ $listed = 1 ]; then
    echo "$STATE: lists ${f#console/}, which does not include it: take it off the list"
    bad=1
  fi
  while IFS=: read -r n _; do
    echo "$f:$n: defines struct run, which is $STATE's"
    bad=1
  done < <(grep -nE 'struct[[:space:]]+run[[:space:]]*\{' "$f")
done

# ORDER: no include of a file above, no call of its functions
above=""
for m in $ORDER; do
  for f in "console/$m.c" "console/$m.h"; do
    [ -e "$f" ] || continue
    for a in $above; do
      while IFS=: read -r n _; do
        echo "$f:$n: includes console/$a.h, above it: $ORDER call downwards only"
        bad=1
      done < <(grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"console/$a\\.h\"" "$f")
      while IFS=: read -r n what; do
        echo "$f:$n: calls $what, of $a.c above it: $ORDER call downwards only"
        bad=1
      done < <(perl -e '
        my ($file, $prefix) = @ARGV;
        open(my $fh, "<", $file) or die "$file: $!\n";
        local $/;
        my $src = <$fh>;
        # blank out comments and literals, keeping the newlines (line numbers)
        $src =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27)}{
            my $m = $1; $m =~ s/[^\n]/ /g; $m }gse;
        while ($src =~ /(?<![\w.>])(${prefix}_\w+)\s*\(/g) {
            my $line = 1 + (substr($src, 0, pos($src)) =~ tr/\n//);
            print "$line:$1\n";
        }' "$f" "$a")
    done
  done
  above="$above $m"
done
exit $bad
