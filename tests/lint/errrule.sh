#!/bin/bash
# Error messages are written through common/err.h (err_set, err_append:
# NULL-safe, truncating), never by snprintf into an error buffer, and a
# buffer that receives one is ERR_MAX bytes, except those listed with their
# reason in tests/lint/errrule.allow (a list that only shrinks: at most
# ALLOW_MAX entries, each still matching a declaration). An error buffer is
# a name ending in err or errbuf; a reason or message buffer, a name ending
# in why or msg (a verdict's why, a sample's msg), is written the same way;
# its size is its own and not checked (VU_MSG_MAX, a sample's). Checked: what
# is built with common/: the source folders, tests/unit, tests/fuzz and the
# C test peers of tests/tools; not the demo target (tests/target/), a
# program of its own built without common/.
#   tests/lint/errrule.sh   prints FILE:LINE: what is wrong, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lint/dirs.sh

ALLOW_MAX=22
allow=tests/lint/errrule.allow
dirs=("${SRC_DIRS[@]}" tests/unit tests/fuzz tests/tools)
bad=0

# The allowlist's entries, "FILE DECLARATION", one a line (comment lines and
# the reasons after " # " left out).
entries() {
  grep -vE '^[[:space:]]*(#|$)' "$allow" | sed -E 's/[[:space:]]+#.*$//'
}
while IFS= read -r line; do
  echo "$allow: \"$line\": give the reason after \" # \""
  bad=1
done < <(grep -vE '^[[:space:]]*(#|$)' "$allow" | grep -vE '[[:space:]]#[[:space:]]*[^[:space:]]')

# snprintf(err, ...), snprintf(c->err, ...), vsnprintf(errbuf + n, ...),
# snprintf(out[i].why, ...), snprintf(msg, ...): a name ending in err,
# errbuf, why or msg.
while IFS= read -r hit; do
  echo "$hit: write the message with err_set or err_append (common/err.h)"
  bad=1
done < <(grep -rnE '\bv?snprintf\(\s*([A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?(->|\.))*[A-Za-z0-9_]*(err(buf)?|why|msg)(\[[^]]*\])?\s*[,+]' \
           --include='*.c' --include='*.h' "${dirs[@]}" | grep -v '^common/err\.c:' | cut -d: -f1,2)

# char err[N], char dberr[N], char last_err[N] (a struct's): N is ERR_MAX.
declare -A used
while IFS=: read -r file line decl; do
  key="$file $decl"
  if grep -qxF -- "$key" <(entries); then
    used[$key]=1
    continue
  fi
  echo "$file:$line: $decl: an error buffer is ERR_MAX bytes (or listed with its reason in $allow)"
  bad=1
done < <(grep -rnE '\bchar\b.*\b[A-Za-z0-9_]*err\[[^]]+\]' --include='*.c' --include='*.h' "${dirs[@]}" |
         perl -ne 'my ($f, $l, $t) = /^([^:]+):(\d+):(.*)$/ or next;
                   while ($t =~ /\b([A-Za-z0-9_]*err)\[([^\]]+)\]/g) {
                       print "$f:$l:$1\[$2\]\n" if $2 ne "ERR_MAX";
                   }')

n=0
while IFS= read -r entry; do
  n=$((n + 1))
  if [ -z "${used[$entry]:-}" ]; then
    echo "$allow: \"$entry\" matches no declaration any more: remove it (and lower ALLOW_MAX)"
    bad=1
  fi
done < <(entries)
if [ "$n" -gt "$ALLOW_MAX" ]; then
  echo "$allow: $n entries, more than $ALLOW_MAX: an error buffer is ERR_MAX bytes"
  bad=1
fi
exit $bad
