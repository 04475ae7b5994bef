#!/bin/bash
# Commit subjects of at most 72 characters (docs/CODE_STYLE.md, Commit
# messages), for every commit after the one the rule began with: earlier
# history is left as it was written. Skipped (ok) outside a git checkout or
# in a clone too shallow to hold that commit.
#   tests/lint/commits.sh     prints each commit at fault, exit 1 if any
set -u
export LC_ALL=C.UTF-8 # a subject is measured in characters, not bytes
cd "$(dirname "$0")/../.." || exit 1

since=d1229ee # the last commit before the rule was checked
max=72
git rev-parse --git-dir >/dev/null 2>&1 || exit 0
git cat-file -e "$since^{commit}" 2>/dev/null || exit 0

bad=0
while IFS= read -r line; do
  hash=${line%% *}
  subject=${line#* }
  if [ "${#subject}" -gt "$max" ]; then
    echo "commit $hash: subject of ${#subject} characters (at most $max; the detail goes in the body): $subject"
    bad=1
  fi
done < <(git log --format='%h %s' "$since..HEAD")
exit $bad
