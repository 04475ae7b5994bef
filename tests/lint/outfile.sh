#!/bin/bash
# The output-file rule (docs/CODE_STYLE.md, Output files): a file quern writes
# for its user goes through common/ofile.h, which writes a regular file
# atomically and a device, FIFO or socket through, never renaming over it.
# Outside common/ofile.c no source file calls rename, renameat or renameat2,
# json_dump_file (jansson's own open and write), or fopen with a mode that
# writes ("w", "a", "r+"...). Comments and string literals are skipped.
# tests/lint/outfile.allow lists the justified exceptions, one a line:
#   FILE | TEXT ON THE LINE | why
# (files of a process's own folder that are no user's output path). An entry
# that matches nothing fails too.
#   tests/lint/outfile.sh    prints FILE:LINE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

files=()
for d in "${SRC_DIRS[@]}"; do
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] && [ "$f" != common/ofile.c ] && files+=("$f")
  done
done
exec perl -e '
use strict;
use warnings;
my ($allowf, @files) = @ARGV;
my (@allow, %used);
open(my $a, "<", $allowf) or die "$allowf: $!\n";
while (<$a>) {
    next if /^\s*(#|$)/;
    my ($f, $t, $why) = map { s/^\s+|\s+$//gr } split /\|/, $_, 3;
    die "$allowf:$.: FILE | TEXT | why\n" unless defined $why && $why ne "";
    push @allow, [$f, $t, $.];
}
my $bad = 0;
for my $file (@files) {
    open(my $fh, "<", $file) or die "$file: $!\n";
    my $in_comment = 0;
    while (my $line = <$fh>) {
        my $raw = $line;
        # drop comments (block ones across lines) but keep string literals
        # apart: a mode is a string, so strings are checked on the raw line
        my $code = "";
        while (length $line) {
            if ($in_comment) {
                if ($line =~ s/^.*?\*\///s) { $in_comment = 0 } else { $line = "" }
            } elsif ($line =~ s/^("(?:[^"\\\\]|\\\\.)*")//) { $code .= $1 }
            elsif ($line =~ s/^\/\*//) { $in_comment = 1 }
            elsif ($line =~ s/^\/\/.*//s) { }
            else { $line =~ s/^(.)//s; $code .= $1 }
        }
        my @what;
        (my $bare = $code) =~ s/"(?:[^"\\\\]|\\\\.)*"/""/g;
        push @what, "$1() renames onto a path: write it through common/ofile.h"
            if $bare =~ /\b(rename|renameat|renameat2)\s*\(/;
        push @what, "json_dump_file() writes a path itself: json_dumpf into ofile_stream"
            if $bare =~ /\bjson_dump_file\s*\(/;
        push @what, "fopen() for writing: open the output with ofile_open"
            if $code =~ /\bfopen\s*\([^;]*,\s*"[^"]*[wa+][^"]*"/;
        next unless @what;
        my $ok = 0;
        for my $e (@allow) {
            if ($file eq $e->[0] && index($raw, $e->[1]) >= 0) { $ok = 1; $used{$e->[2]} = 1 }
        }
        next if $ok;
        chomp $raw;
        print "$file:$.: $_\n" for @what;
        $bad = 1;
    }
}
for my $e (@allow) {
    next if $used{$e->[2]};
    print "$allowf:$e->[2]: matches nothing: $e->[0] | $e->[1]\n";
    $bad = 1;
}
exit $bad;
' tests/lint/outfile.allow "${files[@]}"
