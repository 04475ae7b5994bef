#!/bin/bash
# Every pointer field says who owns what it points to (docs/CODE_STYLE.md,
# Ownership): in a struct or union of a .c or .h of the source folders, a
# field declared with a '*' has a trailing comment whose first word is owned,
# borrowed or copied ("owned, NULL until ...", "borrowed from the caller:
# ..."); a field with no comment fails too. A function pointer (a '(*' or a
# type named *_fn) owns nothing and is left out. Comments, strings and
# preprocessor lines are skipped when the fields are read; a field may span
# lines, its comment starts after its ';' on the same line.
#   tests/lint/owners.sh [FILE...]   default: every .c and .h of the source
#                                    folders; prints FILE:LINE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

files=("$@")
if [ ${#files[@]} = 0 ]; then
  for d in "${SRC_DIRS[@]}"; do
    for f in "$d"/*.c "$d"/*.h; do
      [ -e "$f" ] && files+=("$f")
    done
  done
fi
exec perl -e '
use strict;
use warnings;
my $bad = 0;
for my $f (@ARGV) {
    open(my $fh, "<", $f) or die "$f: $!\n";
    local $/;
    my $t = <$fh>;
    close $fh;
    my @kind;              # the braces open: "s" a struct or union body, "o" anything else
    my ($stmt, $line, $at) = ("", 1, 0);   # code since the last ; { or }, its first line
    my $bol = 1;           # at the start of a line (but blanks)
    my $n = length $t;
    my $i = 0;
    while ($i < $n) {
        my $c = substr($t, $i, 1);
        if ($c eq "\n") {
            $line++;
            $bol = 1;
            $stmt .= " ";
            $i++;
            next;
        }
        if ($bol && $c eq "#") {   # a preprocessor line, with its continuations
            while ($i < $n) {
                my $e = index($t, "\n", $i);
                $e = $n if $e < 0;
                my $cont = substr($t, $e - 1, 1) eq "\\";
                $i = $e;
                last unless $cont;
                $line++;
                $i++;
            }
            next;
        }
        $bol = 0 unless $c =~ /[ \t]/;
        if (substr($t, $i, 2) eq "/*") {
            my $e = index($t, "*/", $i + 2);
            $e = $n - 2 if $e < 0;
            $line += () = substr($t, $i, $e + 2 - $i) =~ /\n/g;
            $i = $e + 2;
            $stmt .= " ";
            next;
        }
        if (substr($t, $i, 2) eq "//") {
            my $e = index($t, "\n", $i);
            $i = $e < 0 ? $n : $e;
            next;
        }
        if ($c eq "\"" || $c eq "\x27") {
            my $j = $i + 1;
            while ($j < $n && substr($t, $j, 1) ne $c) {
                $j++ if substr($t, $j, 1) eq "\\";
                $j++;
            }
            $i = $j + 1;
            $stmt .= "0";
            next;
        }
        if ($c eq "{") {
            push @kind, ($stmt =~ /\b(struct|union)\b/ && $stmt !~ /[=(]/) ? "s" : "o";
            $stmt = "";
        } elsif ($c eq "}") {
            pop @kind;
            $stmt = "";
        } elsif ($c eq ";") {
            if (@kind && $kind[-1] eq "s") {
                my $d = $stmt =~ s/\[[^\]]*\]//gr;
                if ($d =~ /\*/ && $d !~ /\(\s*\*/ && $d !~ /\b[A-Za-z0-9_]+_fn\s*\*/) {
                    # its comment: what follows the ; on the same line
                    my $e = index($t, "\n", $i);
                    $e = $n if $e < 0;
                    my $rest = substr($t, $i + 1, $e - $i - 1);
                    my $name = ($d =~ /([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*\d+\s*)?$/)[0] // "?";
                    if ($rest !~ m{^\s*/\*\*?<?\s*(owned|borrowed|copied)\b}) {
                        my $why = $rest =~ m{^\s*/\*} ? "its comment does not start with"
                                                      : "no comment: give it one starting with";
                        print "$f:$line: $name: $why owned, borrowed or copied (who frees it)\n";
                        $bad = 1;
                    }
                }
            }
            $stmt = "";
        } else {
            $stmt .= $c;
        }
        $i++;
    }
}
exit $bad;
' "${files[@]}"
