#!/bin/bash
# Every relative link of README.md and docs/*.md resolves: the file exists and,
# for a link to a Markdown file with #anchor (or a bare #anchor), a heading of
# that file gives the anchor by GitHub's rules (lowercase; punctuation dropped
# but '-' and '_'; each space a '-'; a repeated heading gets -1, -2, ...).
# Links in code blocks and code spans are not links; http(s) and mailto links
# are not followed (no network).
#   tests/lint/doclinks.sh     prints FILE:LINE: LINK: why for each, exit 1 if any
set -u
cd "$(dirname "$0")/../.." || exit 1
exec /usr/bin/python3 - README.md docs/*.md <<'PY'
import os, re, sys

def anchors(path, cache={}):
    if path not in cache:
        seen, out, fence = {}, set(), None
        for line in open(path, encoding="utf-8"):
            m = re.match(r"\s*(`{3,}|~{3,})", line)
            if m:
                if fence is None:
                    fence = m[1][0]
                elif m[1][0] == fence:
                    fence = None
                continue
            if fence is not None:
                continue
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m[1])
            a = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
        for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', open(path, encoding="utf-8").read()):
            out.add(m[1])
        cache[path] = out
    return cache[path]

bad = 0
for src in sys.argv[1:]:
    fence = None
    for no, line in enumerate(open(src, encoding="utf-8"), 1):
        m = re.match(r"\s*(`{3,}|~{3,})", line)
        if m:
            if fence is None:
                fence = m[1][0]
            elif m[1][0] == fence:
                fence = None
            continue
        if fence is not None:
            continue
        plain = re.sub(r"(`+).*?\1", "", line)
        for m in re.finditer(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", plain):
            link = m[1]
            if re.match(r"[a-z][a-z0-9+.-]*:", link, re.I):
                continue
            target, _, frag = link.partition("#")
            path = os.path.normpath(os.path.join(os.path.dirname(src), target)) if target else src
            why = None
            if not os.path.exists(path):
                why = "no such file"
            elif frag and path.endswith(".md") and frag not in anchors(path):
                why = f"no heading of {path} gives #{frag}"
            if why:
                print(f"{src}:{no}: {link}: {why}")
                bad = 1
sys.exit(bad)
PY
