# A page step against a real nginx (tests/e2e/http_lib.bash), nginx's access
# log the judge: its embedded resources fetched once per VU, then revalidated
# (304) or not requested, as nginx's cache headers say; a 404 resource a
# technical error; a step's requests = nginx's lines (redirects, 304s and 404s
# included); the JTL's sub-results; the cookie a page's answer sets, carried by its
# resources in the same run; and 6 resources at once per host, on the
# demo target, in two waves on 6 connections.
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/http_lib.bash"
http_nginx

start_target

# ---- a page step: its resources fetched, then revalidated or cached (nginx's log the judge)
cat >"$S/page.lua" <<'EOF'
local quern = require "quern"
local p1 = quern.property("p1")
local sc = quern.scenario("PAGE", { request = { resolve = { "quern.test:" .. p1 .. ":127.0.0.1" },
  http2 = true, tls = { ca = "ca.crt" }, resources = { exclude = { "*/missing.png" } } } })
local home, broken, nocache = sc:step(1, "page"), sc:step(2, "broken"), sc:step(3, "nocache")
local base = "https://quern.test:" .. p1 .. "/page/"
function sc.run(vu)
  local r = home:get(base .. "index.html"):expect(200):contains("<title>page</title>")
  local n = r.resources
  if vu.run == 1 and (n.fetched ~= 5 or n.cached ~= 0) then error("first run: " .. n.fetched .. " fetched") end
  if vu.run > 1 and (n.fetched ~= 1 or n.revalidated ~= 3 or n.cached ~= 1) then
    error(("run %d: %d fetched, %d revalidated, %d cached"):format(vu.run, n.fetched, n.revalidated, n.cached))
  end
  broken:get(base .. "broken.html", { resources = true })
  nocache:get(base .. "go", { cache = false, redirects = true })
end
EOF
VUS=3
RUNS=3
LOG0=$(wc -l <"$LOG")
"$QUERN" run "$S/page.lua" --vus $VUS --runs $RUNS -q --allow-errors -p p1=$P1 --jtl "$TMP/page.jtl" \
  --summary-json "$TMP/page.json" >/dev/null 2>"$TMP/perr"
eq "page: the run ends (errors allowed: the broken page's)" "$?" 0
pn() { jq -r --arg s "$1" ".tests[] | select(.name | endswith(\")\" + \$s)) | $2" "$TMP/page.json"; }
eq "page: 9 samples, no error" "$(pn page '"\(.count) \(.errors.technical) \(.errors.functional)"')" "9 0 0"
[ "$(pn page '.errors.functional')" = 0 ] || grep -m3 'error' "$TMP/perr"
eq "broken: a 404 on a resource not excluded is a technical error" \
  "$(pn broken '"\(.count) \(.errors.technical)"')" "9 9"
check "its message names the resource" grep -q 'resource https://quern.test:[0-9]*/page/missing.png: HTTP status 404' \
  <(jq -r '.tests[] | .. | strings' "$TMP/page.json")
# by URI and status; each VU is one HTTP/2 connection ($3)
pl() { awk -v p="$P1" -v u="$1" -v s="$2" '$1 == p && $7 == u && $5 == s' "$LOG" | wc -l; }
eq "the page itself: 9 times" "$(pl /page/index.html 200)" 9
eq "fresh/ (max-age): once per VU, then from the cache" "$(pl /page/fresh/a.png 200) $(pl /page/fresh/a.png 304)" "$VUS 0"
eq "fresh/: by $VUS connections, one each" \
  "$(awk -v p="$P1" '$1 == p && $7 == "/page/fresh/a.png" {print $3}' "$LOG" | sort | uniq -c | awk '{print $1}' | sort -u) $(awk -v p="$P1" '$1 == p && $7 == "/page/fresh/a.png" {print $3}' "$LOG" | sort -u | wc -l)" "1 $VUS"
eq "no-cache + ETag: fetched once per VU, then 304" "$(pl /page/site.css 200) $(pl /page/site.css 304)" "$VUS $((VUS * (RUNS - 1)))"
eq "url() of the stylesheet: the same, through the 304s" "$(pl /page/img/bg.png 200) $(pl /page/img/bg.png 304)" "$VUS $((VUS * (RUNS - 1)))"
eq "no-store: every time in full" "$(pl /page/nostore/app.js 200) $(pl /page/nostore/app.js 304)" "$((VUS * RUNS)) 0"
eq "srcset: the 1x image only" "$(pl /page/b1.png 304) $(pl /page/b1.png 200) $(awk '$7 == "/page/b2.png" || $7 == "/page/b.png"' "$LOG" | wc -l)" "$((VUS * (RUNS - 1))) $VUS 0"
eq "excluded and links: never requested" "$(awk '$7 == "/page/other.html" || ($7 == "/page/missing.png" && $5 != 404)' "$LOG" | wc -l) $(pl /page/missing.png 404)" "0 9"
eq "cache = false: every time in full" "$(pl /page/fresh/c.png 200)" 9
# a step's requests: every line nginx wrote for it (redirects, 304s, 404s
# included), resources served from the cache not
tail -n +$((LOG0 + 1)) "$LOG" | awk -v p="$P1" '$1 == p' >"$TMP/page.log"
preq() { awk -v re="$1" '$7 ~ re' "$TMP/page.log" | wc -l; }
eq "requests: the page step, nginx's lines (9 pages, 15 first fetches, 6 fetched and 18 revalidated)" \
  "$(pn page .requests) $(grep -cvE ' /page/(broken.html|missing.png|go|nocache.html|fresh/c.png) ' "$TMP/page.log")" "48 48"
eq "requests: the broken page's step, its 404s counted" \
  "$(pn broken .requests) $(preq '^/page/(broken.html|missing.png)$')" "18 18"
eq "requests: a redirect is a request (302, page, image)" \
  "$(pn nocache .requests) $(preq '^/page/(go|nocache.html|fresh/c.png)$')" "27 27"
eq "requests: every line of the run counted" "$(jq '[.tests[].requests] | add' "$TMP/page.json")" \
  "$(wc -l <"$TMP/page.log")"
eq "page resources on the VU's connection (HTTP/2): $VUS connections" \
  "$(awk -v p="$P1" '$1 == p && $7 ~ /^\/page\// {print $3}' "$LOG" | sort -u | wc -l)" "$VUS"
# the JTL: a parent line per sample, its requested resources as sub-results before it
sub=$(awk -F, '$3 ~ /\)page-[0-9]+$/' "$TMP/page.jtl" | wc -l)
eq "JTL: page sub-results (5 the first run, 4 then, per VU)" "$sub" "$((VUS * (5 + 4 * (RUNS - 1))))"
eq "JTL: 9 parent lines" "$(awk -F, '$3 ~ /\)page$/' "$TMP/page.jtl" | wc -l)" 9
eq "JTL: a page's sample ends after each of its sub-results (the step's latency is the page's)" \
  "$(awk -F, '$3 ~ /\)page-/ {if ($1 + $2 > m[$6]) m[$6] = $1 + $2}
              $3 ~ /\)page$/ {if ($1 + $2 + 2 < m[$6]) bad++; m[$6] = 0} END {print bad + 0}' "$TMP/page.jtl")" 0

# ---- a page whose answer sets a cookie: its resources carry it, in the
# same run (nginx's log: the Cookie header of each resource holds the
# Set-Cookie of its page's answer just before)
cat >"$S/ck.lua" <<'EOF'
local quern = require "quern"
local p1 = quern.property("p1")
local sc = quern.scenario("CK", { request = { resolve = { "quern.test:" .. p1 .. ":127.0.0.1" },
  tls = { ca = "ca.crt" }, resources = true, cache = false } })
local s = sc:step(1, "ck")
function sc.run(vu)
  s:get("https://quern.test:" .. p1 .. "/page/ck.html"):expect(200)
end
EOF
LOG0=$(wc -l <"$LOG")
"$QUERN" run "$S/ck.lua" --vus 1 --runs 2 -q -p p1=$P1 >/dev/null 2>"$TMP/ckerr"
eq "cookie page: the run ends" "$?" 0
# URI|Cookie|Set-Cookie of each line of the run
tail -n +$((LOG0 + 1)) "$LOG" | awk -v p="$P1" '$1 == p' |
  sed -n 's#.* \(/page/ck[^ ]*\) .*"\([^"]*\)" "\([^"]*\)"$#\1|\2|\3#p' >"$TMP/ck.log"
eq "cookie page: 2 pages, 4 resources in nginx's log" \
  "$(grep -c '^/page/ck.html|' "$TMP/ck.log") $(grep -c '^/page/ck/' "$TMP/ck.log")" "2 4"
eq "cookie page: each resource carries the cookie its page's answer set, the first run's too" \
  "$(awk -F'|' '$1 == "/page/ck.html" {split($3, a, ";"); want = a[1]; next}
               {n++; if (want != "" && index($2, want)) ok++} END {print ok + 0 "/" n + 0}' "$TMP/ck.log")" "4/4"

# ---- 6 resources at once per host: 12 images that take 300 ms each, on the demo
# target (another origin, included by pattern), load in two waves on 6 connections
{
  printf '<html><body>'
  for i in $(seq 12); do printf '<img src="%s/slow?ms=300&amp;i=%d">' "$BASE" "$i"; done
  printf '</body></html>\n'
} >"$NG/www/page/wave.html"
cat >"$S/wave.lua" <<'EOF'
local quern = require "quern"
local p1 = quern.property("p1")
local sc = quern.scenario("WAVE", { request = { resolve = { "quern.test:" .. p1 .. ":127.0.0.1" },
  tls = { ca = "ca.crt" }, resources = { include = { quern.property("base") .. "/*" } } } })
local s = sc:step(1, "wave")
function sc.run(vu)
  local r = s:get("https://quern.test:" .. p1 .. "/page/wave.html"):expect(200)
  if r.resources.fetched ~= 12 then error(r.resources.fetched .. " fetched") end
end
EOF
reset_target
"$QUERN" run "$S/wave.lua" --vus 1 --runs 1 -q -p p1=$P1 -p base="$BASE" --summary-json "$TMP/wave.json" \
  >/dev/null 2>"$TMP/waverr"
eq "6 per host: the page loads" "$?" 0
eq "6 per host: the target got 12 images on 6 connections" "$(stat '"\(.by_path["/slow"]) \(.connections)"')" "12 6"
between "6 per host: two waves of 300 ms (ms; three would be 900)" "$(sj "$TMP/wave.json" '.tests[0].min_ms')" 595 895
