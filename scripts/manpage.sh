#!/bin/sh
# Writes the man page of a quern command from the help text the command
# itself prints, so the page and `quern help` cannot disagree.
#   scripts/manpage.sh QUERN [COMMAND]     roff on stdout: quern(1), or quern-COMMAND(1)
# The help's shape (console/opts.c, common/opttab.c): a "usage:" line, then
# paragraphs; a line ending in ':' opens a section ("options:", "exit
# status:"); "  LEFT  TEXT" is an entry (a flag, a command, an exit status),
# its continuation lines indented further.
set -eu
quern=$1
cmd=${2:-}
if [ -n "$cmd" ]; then
  help=$("$quern" help "$cmd")
  name="quern-$cmd"
else
  help=$("$quern" --help)
  name="quern"
fi
version=$("$quern" version | sed 's/^quern //')
# NAME's line: the command's own line in `quern --help`
if [ -n "$cmd" ]; then
  summary=$("$quern" --help | awk -v c="$cmd" '$1 == c { sub(/^  [^ ].*[^ ]  +|^  [^ ]+  +/, ""); sub(/ \(quern help [a-z]+\)$/, ""); print; exit }')
else
  summary="play load tests on a console and its agents, and report them"
fi
printf '%s\n' "$help" | awk -v name="$name" -v version="$version" -v summary="$summary" '
function esc(s) {
  gsub(/\\/, "\\e", s)
  gsub(/-/, "\\-", s)
  if (s ~ /^[.\047]/) s = "\\&" s
  return s
}
function bold_flags(s,    out, w, n, i, parts) {
  # the left column: flags in bold, their value names in italics
  n = split(s, parts, " ")
  out = ""
  for (i = 1; i <= n; i++) {
    w = parts[i]
    if (w ~ /^-/ || w ~ /^[a-z][a-z0-9]*$/ && i == 1) out = out (i > 1 ? " " : "") "\\fB" esc(w) "\\fR"
    else out = out (i > 1 ? " " : "") "\\fI" esc(w) "\\fR"
  }
  return out
}
BEGIN {
  up = toupper(name)
  printf ".TH %s 1 \"\" \"quern %s\" \"quern manual\"\n", up, version
  printf ".SH NAME\n%s \\- %s\n", esc(name), esc(summary)
  section = ""
}
NR == 1 && /^usage: / { sub(/^usage: /, ""); printf ".SH SYNOPSIS\n%s\n.SH DESCRIPTION\n", esc($0); next }
/^[^ ].*:$/ {
  sec = substr($0, 1, length($0) - 1)
  if (tolower(sec) ~ /^exit status/) printf ".SH EXIT STATUS\n"
  else if (tolower(sec) == "options") printf ".SH OPTIONS\n"
  else printf ".SS %s\n", esc(toupper(substr(sec, 1, 1)) substr(sec, 2))
  next
}
/^$/ { printf ".PP\n"; next }
/^  [^ ]/ {
  line = substr($0, 3)
  # the left column ends at the first run of two spaces
  i = index(line, "  ")
  if (i == 0) { left = line; text = "" } else { left = substr(line, 1, i - 1); text = substr(line, i); sub(/^ +/, "", text) }
  printf ".TP\n%s\n", left ~ /^[0-9]+$/ ? "\\fB" left "\\fR" : bold_flags(left)
  if (text != "") printf "%s\n", esc(text)
  next
}
/^   / { s = $0; sub(/^ +/, "", s); printf "%s\n", esc(s); next }
{ printf "%s\n", esc($0) }
END {
  if (name == "quern") printf ".SH SEE ALSO\n\\fBquern\\-run\\fR(1), \\fBquern\\-agent\\fR(1), \\fBquern\\-runs\\fR(1), \\fBquern\\-report\\fR(1), \\fBquern\\-compare\\fR(1), \\fBquern\\-har2lua\\fR(1), \\fBquern\\-ctl\\fR(1)\n"
  else printf ".SH SEE ALSO\n\\fBquern\\fR(1)\n"
}'
