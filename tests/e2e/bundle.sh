# What a scenario's folder ships to agents: the names of its .quernignore, a
# JTL of an earlier run, this run's own --jtl (whatever its name) and a token
# file never reach the agent's run folder, and the start line counts them; a
# malformed .quernignore line stops the run before any load; a folder over
# 15 MiB runs on the local agent (its files linked, not shipped) and fails a
# distributed run with one line naming its largest file.
. "$(dirname "$0")/dist_lib.bash"
start_target

F="$TMP/scen"
mkdir -p "$F/data" "$F/raw"
cp tests/e2e/scripts/bundle_seen.lua "$F/main.lua"
printf '# not for agents\n*.bin\n/raw/\n!keep.bin\n' >"$F/.quernignore"
head -c 1048576 /dev/zero >"$F/big.bin"
echo kept >"$F/keep.bin"
echo a,b >"$F/data/users.csv"
echo x >"$F/raw/dump.csv"
echo old >"$F/old.jtl"
echo old >"$F/results.csv" # this run's --jtl: left out by what it is, not its name
printf 'secret\n' >"$F/api-token"
chmod 600 "$F/api-token"
NAMES=keep.bin,data/users.csv,big.bin,raw/dump.csv,old.jtl,results.csv,api-token

start_console d "$F/main.lua" --runs 1 --agents 1 --wait 20s -p base_url="$BASE" \
  -p names=$NAMES --jtl "$F/results.csv" --db none
start_agent a1 1
wait_exit "$CONSOLE_PID" 20
eq "distributed run: exit 0" "$WAIT_RC" 0
for n in keep.bin data/users.csv; do
  eq "distributed: $n is shipped" "$(stat ".by_method_path[\"GET /found/$n\"] // 0")" 1
done
for n in big.bin raw/dump.csv old.jtl results.csv api-token; do
  eq "distributed: $n is not in the agent's run folder" \
    "$(stat ".by_method_path[\"GET /missing/$n\"] // 0")/$(stat ".by_method_path[\"GET /found/$n\"] // 0")" 1/0
done
bytes=$(( $(wc -c <"$F/main.lua") + $(wc -c <"$F/keep.bin") + $(wc -c <"$F/data/users.csv") ))
check "the start line counts what was left out" grep -qxF \
  "quern: bundle: 3 files, $bytes bytes (5 skipped: .quernignore 2, quern outputs 2, secrets 1)" \
  "$TMP/d.err"
check "the agent's log: 3 files" grep -q "main.lua, .* 3 file(s)$" "$TMP/agent-a1.log"

# git reads the same rules the same way: what it ignores of these files is
# what the agent did not get.
if command -v git >/dev/null 2>&1; then
  G="$TMP/git"
  mkdir -p "$G/data" "$G/raw"
  cp "$F/.quernignore" "$G/.gitignore"
  touch "$G/big.bin" "$G/keep.bin" "$G/data/users.csv" "$G/raw/dump.csv"
  git -C "$G" init -q .
  eq "git check-ignore agrees on the ignored files" \
    "$(cd "$G" && git check-ignore --no-index big.bin keep.bin data/users.csv raw/dump.csv | tr '\n' ' ')" \
    "big.bin raw/dump.csv "
fi

# A malformed line: one error naming the file and line, before any load.
printf '*.bin\n[abc\n' >"$F/.quernignore"
timeout 10 "$QUERN" run "$F/main.lua" --runs 1 -p base_url="$BASE" --db none >"$TMP/m.out" 2>&1
eq "malformed .quernignore: exit 2" "$?" 2
check "malformed .quernignore: one line with the file and line" grep -qxF \
  "quern run: $F/.quernignore:2: a '[' that is never closed in \"[abc\"" "$TMP/m.out"
printf '*.bin\n/raw/\n' >"$F/.quernignore"

# Over 15 MiB: the local agent links the files and runs; a distributed run
# names the largest file in one line.
truncate -s 16M "$F/huge.dat"
reset_target
timeout 20 "$QUERN" run "$F/main.lua" --runs 1 -p base_url="$BASE" -p names=huge.dat,big.bin \
  --db none >"$TMP/l.out" 2>&1
eq "local run of a 17 MiB folder: exit 0" "$?" 0
eq "local run: huge.dat is in the run folder" "$(stat '.by_method_path["GET /found/huge.dat"] // 0')" 1
eq "local run: the ignored big.bin is not" "$(stat '.by_method_path["GET /missing/big.bin"] // 0')" 1
eq "local run: the folder's files stay after the run folder is removed" \
  "$(wc -c <"$F/huge.dat") $(cat "$F/data/users.csv")" "16777216 a,b"
check "local run: the start line says the files are linked" grep -q \
  "^quern: bundle: 4 files, .*, linked by the local agent$" "$TMP/l.out"
timeout 10 "$QUERN" run "$F/main.lua" --runs 1 --agents 1 --listen 127.0.0.1:0 \
  --token-file "$TMP/token" -p base_url="$BASE" --db none >"$TMP/b.out" 2>&1
rc=$?
check "distributed run of it: fails (exit $rc)" test "$rc" -ne 0
eq "distributed run of it: one line" "$(wc -l <"$TMP/b.out")" 1
check "distributed run of it: names the largest file and the advice" grep -qF \
  "its largest files huge.dat 16.0 MiB, results.csv 0.0 MiB" "$TMP/b.out"
check "distributed run of it: says to add them to .quernignore" grep -qF \
  "add them to $F/.quernignore" "$TMP/b.out"
no_sanitizer_report "$TMP"/*.err "$TMP"/*.out "$TMP"/agent-*.log && ok "no sanitizer report" ||
  notok "no sanitizer report"
