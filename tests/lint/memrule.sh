#!/bin/bash
# The memory rule (docs/CODE_STYLE.md, Memory): quern's allocations go through
# common/mem.h. Fails, outside common/mem.c, on a raw malloc, calloc, realloc,
# strdup, strndup or free; on sprintf, vsprintf, strcpy or strcat (snprintf and
# memcpy take a size); on xrealloc( with a '*' in its size (a count times a
# size is xreallocarray, which checks the product); and, outside common/, on
# open_memstream or open_wmemstream (text that grows is a dbuf, common/dbuf.h:
# bounded, and released with xfree). Comments and string literals are skipped.
# tests/lint/memrule.allow lists the justified exceptions, one a line:
#   FILE | TEXT ON THE LINE | why
# (memory a library allocated and documents free() for, the allocator
# common/salloc.c itself). An entry that matches nothing fails too, and the
# list may only shrink: ALLOW_MAX below is lowered with each entry removed,
# never raised.
#   tests/lint/memrule.sh    prints FILE:LINE: what, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

ALLOW_MAX=9

files=()
for d in "${SRC_DIRS[@]}"; do
  for f in "$d"/*.c "$d"/*.h; do
    [ -e "$f" ] && [ "$f" != common/mem.c ] && files+=("$f")
  done
done
exec perl -e '
use strict;
use warnings;
my ($allowf, $max, @files) = @ARGV;
my (@allow, @used);
open(my $a, "<", $allowf) or die "$allowf: $!\n";
while (my $l = <$a>) {
    chomp $l;
    next if $l =~ /^\s*(#|$)/;
    my ($f, $t, $why) = map { s/^\s+|\s+$//gr } split /\|/, $l, 3;
    if (!defined $why || $why eq "" || $t eq "") {
        print "$allowf:$.: want FILE | TEXT | why\n";
        $used[@allow] = 1;
    }
    push @allow, [$f, $t, $.];
}
close $a;
my $bad = 0;
if (@allow > $max) {
    print "$allowf: " . scalar(@allow) . " entries, more than ALLOW_MAX=$max: the list may only shrink\n";
    $bad = 1;
}
for my $file (@files) {
    open(my $fh, "<", $file) or die "$file: $!\n";
    local $/;
    my $src = <$fh>;
    close $fh;
    my @orig = split /\n/, $src, -1;
    # blank out comments and literals, keeping the newlines (line numbers)
    $src =~ s{(/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27)}{
        my $m = $1; $m =~ s/[^\n]/ /g; $m }gse;
    my @hits;
    while ($src =~ /(?<![\w.>])(malloc|calloc|realloc|strdup|strndup|free|v?sprintf|strcpy|strcat)\s*\(/g) {
        my $fn = $1;
        my $what = $fn =~ /printf|strc/ ? "$fn: use snprintf or memcpy with a size" : "raw $fn: use common/mem.h";
        push @hits, [pos($src), $what];
    }
    if ($file !~ m{^common/}) {
        while ($src =~ /(?<![\w.>])(open_w?memstream)\s*\(/g) {
            push @hits, [pos($src), "$1: grow the text in a dbuf (common/dbuf.h)"];
        }
    }
    while ($src =~ /(?<![\w.>])xrealloc\s*\(/g) {
        my $start = pos($src);
        my ($depth, $i, $comma) = (1, $start, -1);
        while ($i < length($src) && $depth > 0) {
            my $c = substr($src, $i, 1);
            $depth++ if $c eq "(";
            $depth-- if $c eq ")";
            $comma = $i if $c eq "," && $depth == 1 && $comma < 0;
            $i++;
        }
        next if $comma < 0;
        my $size = substr($src, $comma + 1, $i - 1 - $comma - 1);
        push @hits, [$start, "xrealloc with a product in its size: use xreallocarray"] if $size =~ /\*/;
    }
    for my $h (@hits) {
        my $line = (substr($src, 0, $h->[0]) =~ tr/\n//) + 1;
        my $text = $orig[$line - 1];
        my $ok = 0;
        for my $k (0 .. $#allow) {
            if ($allow[$k][0] eq $file && index($text, $allow[$k][1]) >= 0) {
                $ok = 1;
                $used[$k] = 1;
            }
        }
        next if $ok;
        print "$file:$line: $h->[1]\n";
        $bad = 1;
    }
}
for my $k (0 .. $#allow) {
    next if $used[$k];
    print "$allowf:$allow[$k][2]: matches nothing in $allow[$k][0]: remove it (and lower ALLOW_MAX)\n";
    $bad = 1;
}
exit $bad;
' tests/lint/memrule.allow "$ALLOW_MAX" "${files[@]}"
