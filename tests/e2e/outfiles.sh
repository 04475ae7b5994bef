# Output paths that are not regular files are written through, never
# replaced (common/ofile.h): for every command that writes a file (a run's
# --summary-json, --junit, --jtl, --out jsonl and --metrics-port-file,
# quern report, quern compare, quern har2lua, quern new), a character device
# made in the test's folder (mknod c 1 3, never /dev/null itself) is still
# that device afterwards, and a FIFO is still a FIFO whose reader (cat) got
# the whole file: the same bytes as a regular file gets, or, for a run's
# outputs, complete files whose counts are the server's. A symbolic link is
# followed and stays a link (a dangling one creates its target), a replaced
# regular file keeps its mode, a directory is refused, quern new refuses an
# existing file or link, and no temporary file is left behind.
. "$(dirname "$0")/lib.bash"
start_target
D=$TMP/out
mkdir -p "$D"
DB=$TMP/o.db
READERS=()

# dev NAME: a null character device at $D/NAME (root, or sudo without a password)
dev() {
  mknod "$D/$1" c 1 3 2>/dev/null || sudo -n mknod "$D/$1" c 1 3
  chmod 666 "$D/$1" 2>/dev/null || sudo -n chmod 666 "$D/$1"
}
# fifo NAME: a FIFO at $D/NAME, read by cat into $D/NAME.got
fifo() {
  mkfifo "$D/$1"
  cat "$D/$1" >"$D/$1.got" &
  READERS+=($!)
}
# readers_done: every cat has read its FIFO to the end (10 s at most)
readers_done() {
  local p
  for p in "${READERS[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill "$p" 2>/dev/null && notok "a FIFO's reader still waiting (pid $p)"
    wait "$p" 2>/dev/null
  done
  READERS=()
}
still_dev() { check "$1: still a character device" test -c "$D/$1"; }
still_fifo() { check "$1: still a FIFO" test -p "$D/$1"; }

# --- a run's outputs onto devices -----------------------------------------
for n in d.json d.xml d.jtl d.jsonl d.mport; do dev "$n"; done
run_to() {  # run_to PREFIX: one short run, its outputs at $D/PREFIX.*
  "$QUERN" run scripts/consultation_profil.lua --vus 2 --duration 1s -q -p base_url="$BASE" \
    -p pacing=100ms --db "$DB" --summary-json "$D/$1.json" --junit "$D/$1.xml" \
    --jtl "$D/$1.jtl" --out jsonl="$D/$1.jsonl" --metrics 127.0.0.1:0 \
    --metrics-port-file "$D/$1.mport" --metrics-linger 0 >"$TMP/$1.out" 2>"$TMP/$1.err"
}
reset_target
run_to d
eq "run onto devices exits 0" "$?" 0
for n in d.json d.xml d.jtl d.jsonl d.mport; do still_dev "$n"; done

# --- the same onto FIFOs: each reader gets the whole file ------------------
for n in f.json f.xml f.jtl f.jsonl f.mport; do fifo "$n"; done
reset_target
run_to f
eq "run onto FIFOs exits 0" "$?" 0
readers_done
REQS=$(stat '.requests - .login_forms') # the login forms are fetched untimed
for n in f.json f.xml f.jtl f.jsonl f.mport; do still_fifo "$n"; done
eq "summary JSON through a FIFO: its count is the server's" \
  "$(jq '[.tests[].count] | add' "$D/f.json.got")" "$REQS"
check "JUnit through a FIFO: well-formed XML" xmllint --noout "$D/f.xml.got"
check "JUnit through a FIFO: the whole suite" grep -q '</testsuite>' "$D/f.xml.got"
eq "JTL through a FIFO: the header and a line per request" \
  "$(($(wc -l <"$D/f.jtl.got") - 1))" "$REQS"
eq "jsonl through a FIFO: its end line last" "$(tail -1 "$D/f.jsonl.got" | jq -r .end)" true
check "metrics port file through a FIFO: a port" grep -Eqx '[0-9]+' "$D/f.mport.got"

# --- quern report, quern compare, quern har2lua ---------------------------
# three_ways WHAT NAME CMD...: CMD, given a path last, writes onto a regular
# file $D/NAME.reg, a device $D/NAME.dev and a FIFO $D/NAME.fifo, whose
# reader gets what the file got
three_ways() {
  local what=$1 x=$2
  shift 2
  "$@" "$D/$x.reg" >/dev/null 2>>"$TMP/three.err"
  eq "$what onto a regular file exits 0" "$?" 0
  dev "$x.dev"
  "$@" "$D/$x.dev" >/dev/null 2>>"$TMP/three.err"
  eq "$what onto a device exits 0" "$?" 0
  still_dev "$x.dev"
  fifo "$x.fifo"
  "$@" "$D/$x.fifo" >/dev/null 2>>"$TMP/three.err"
  eq "$what onto a FIFO exits 0" "$?" 0
  readers_done
  still_fifo "$x.fifo"
  # (a page's footer says when it was generated: to the second)
  check "$what through a FIFO: the whole file, as a regular one gets it" \
    cmp <(sed 's/generated [0-9: -]* ·/generated ·/' "$D/$x.fifo.got") \
    <(sed 's/generated [0-9: -]* ·/generated ·/' "$D/$x.reg")
}
three_ways report report.html "$QUERN" report --db "$DB" -o
three_ways compare compare.html "$QUERN" compare --db "$DB" -o
three_ways har2lua shop.lua "$QUERN" har2lua tests/unit/data/har/shop.har -o
REG=$D/report.html.reg

# --- quern new -------------------------------------------------------------
mkdir -p "$D/n"
(cd "$D/n" && "$QUERN" new shop >/dev/null 2>"$TMP/new.err")
eq "quern new onto a new path exits 0" "$?" 0
mknod "$D/n/nd.lua" c 1 3 2>/dev/null || sudo -n mknod "$D/n/nd.lua" c 1 3
chmod 666 "$D/n/nd.lua" 2>/dev/null || sudo -n chmod 666 "$D/n/nd.lua"
(cd "$D/n" && "$QUERN" new nd >/dev/null 2>>"$TMP/new.err")
eq "quern new onto a device exits 0" "$?" 0
check "nd.lua: still a character device" test -c "$D/n/nd.lua"
mkfifo "$D/n/shop2.lua"
cat "$D/n/shop2.lua" >"$D/shop2.got" &
READERS+=($!)
(cd "$D/n" && "$QUERN" new shop2 >/dev/null 2>>"$TMP/new.err")
eq "quern new onto a FIFO exits 0" "$?" 0
readers_done
check "shop2.lua: still a FIFO" test -p "$D/n/shop2.lua"
# the scenario's name is the file's: shop2's script is shop's with 2 added
eq "quern new through a FIFO: the whole script" "$(wc -l <"$D/shop2.got")" "$(wc -l <"$D/n/shop.lua")"
check "quern new through a FIFO: its last line as a file gets it" \
  test "$(tail -1 "$D/shop2.got")" = "$(tail -1 "$D/n/shop.lua")"
cp "$D/n/shop.lua" "$TMP/shop.before"
(cd "$D/n" && "$QUERN" new shop >/dev/null 2>"$TMP/new2.err")
eq "quern new onto an existing file: exit 2" "$?" 2
check "quern new onto an existing file: says it is not overwritten" grep -q 'not overwritten' "$TMP/new2.err"
check "quern new onto an existing file: the file as it was" cmp "$D/n/shop.lua" "$TMP/shop.before"
ln -s shop.lua "$D/n/link.lua"
(cd "$D/n" && "$QUERN" new link >/dev/null 2>"$TMP/new3.err")
eq "quern new onto a symbolic link: exit 2" "$?" 2

# --- symbolic links, modes, directories ------------------------------------
echo old >"$D/target.html"
ln -s target.html "$D/link.html"
"$QUERN" report --db "$DB" -o "$D/link.html" >/dev/null 2>>"$TMP/rep.err"
eq "report onto a link exits 0" "$?" 0
check "the link is still a link" test -L "$D/link.html"
check "the link's target got the page" cmp "$D/target.html" "$REG"
ln -s made.html "$D/dangling.html"
"$QUERN" report --db "$DB" -o "$D/dangling.html" >/dev/null 2>>"$TMP/rep.err"
eq "report onto a link to nothing exits 0" "$?" 0
check "a link to nothing: still a link" test -L "$D/dangling.html"
check "a link to nothing: its target made, with the page" cmp "$D/made.html" "$REG"
dev null_target
ln -s null_target "$D/devlink.html"
"$QUERN" report --db "$DB" -o "$D/devlink.html" >/dev/null 2>>"$TMP/rep.err"
eq "report onto a link to a device exits 0" "$?" 0
check "a link to a device: still a link" test -L "$D/devlink.html"
still_dev null_target
echo '{}' >"$D/kept.json"
chmod 600 "$D/kept.json"
"$QUERN" run scripts/consultation_profil.lua --vus 1 --duration 1s -q -p base_url="$BASE" \
  --db "$DB" --summary-json "$D/kept.json" >/dev/null 2>"$TMP/kept.err"
eq "a run over an existing summary exits 0" "$?" 0
eq "a replaced file keeps its mode" "$(command stat -c %a "$D/kept.json")" 600
check "a replaced file has the new summary" jq -e '.tests | length > 0' "$D/kept.json"
mkdir "$D/adir"
"$QUERN" report --db "$DB" -o "$D/adir" >/dev/null 2>"$TMP/dir.err"
eq "report onto a directory: exit 3 (cannot write)" "$?" 3
check "report onto a directory: says why" grep -q 'Is a directory' "$TMP/dir.err"
check "the directory is still one" test -d "$D/adir"
eq "no temporary file left" "$(find "$D" -name '.*.tmp*' | wc -l)" 0
