# quern har2lua on hostile recordings: a field name or the file's name that
# holds a line end followed by Lua must stay inside its comment. Each
# recording is converted by the real binary and the script run by quern
# against the demo target; the payload would touch a marker file when the
# script loads. A recording whose script would pass its maximum is refused,
# naming the request at fault.
. "$(dirname "$0")/lib.bash"
start_target
export HAR_MARK="$TMP/pwned"
PAYLOAD='os.execute("touch " .. os.getenv("HAR_MARK"))--'

# har FILE FIELD_NAME: a login page whose form posts FIELD_NAME=hunter2, and
# a JSON call whose body has the key FIELD_NAME.
har() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
out, name = sys.argv[1], sys.argv[2]
entries = [
  {"startedDateTime": "2026-03-02T10:00:00.000Z", "time": 5, "_resourceType": "document",
   "request": {"method": "POST", "url": "http://127.0.0.1:8080/login", "headers": [],
               "postData": {"mimeType": "application/x-www-form-urlencoded",
                            "params": [{"name": "user", "value": "alice"},
                                       {"name": name, "value": "hunter2"}]}},
   "response": {"status": 200, "headers": [], "content": {"mimeType": "text/html", "text": ""}}},
  {"startedDateTime": "2026-03-02T10:00:01.000Z", "time": 5, "_resourceType": "fetch",
   "request": {"method": "POST", "url": "http://127.0.0.1:8080/api/profile", "headers": [],
               "postData": {"mimeType": "application/json", "text": json.dumps({name: "s3cr3t"})}},
   "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json", "text": "{}"}}}]
json.dump({"log": {"version": "1.2", "entries": entries}}, open(out, "w"))
EOF
}

# case NAME FILE: converts FILE, runs the script, checks no payload ran
case_of() {
  local name=$1 file=$2 out="$TMP/$1.lua" rc
  rm -f "$HAR_MARK"
  "$QUERN" har2lua "$file" -o "$out" >"$TMP/$name.conv" 2>&1
  eq "$name: har2lua exits 0" "$?" 0
  # every secret the header asks for (-p NAME=...): a property without a value stops the load
  local secrets=() p
  for p in $(grep -o -- '-p [A-Za-z0-9_]*=\.\.\.' "$out" | sed 's/^-p //; s/=\.\.\.$//'); do
    secrets+=(-p "$p=x")
  done
  "$QUERN" run "$out" --vus 1 --runs 1 -q --db none -p base_url="$BASE" -p password=x \
    -p token=x "${secrets[@]}" >"$TMP/$name.out" 2>&1
  rc=$?
  check "$name: the script loads and runs (exit 0 or 1, not a script error)" test "$rc" -le 1
  check "$name: the payload did not run (no marker file)" test ! -e "$HAR_MARK"
  eq "$name: no carriage return anywhere in the script" "$(tr -cd '\r' <"$out" | wc -c)" 0
  eq "$name: every comment stays one line (no line of code starts with os.)" \
    "$(grep -c '^ *os\.' "$out")" 0
}

har "$TMP/newline.har" "password
$PAYLOAD"
case_of newline-in-field "$TMP/newline.har"

har "$TMP/cr.har" "token"$'\r'"$PAYLOAD"
case_of cr-in-field "$TMP/cr.har"

FILE="$TMP/journey"$'\n'"$PAYLOAD.har"
har "$FILE" "user_name"
case_of newline-in-file-name "$FILE"
check "the file's name is in the header, its line end replaced" \
  grep -qF -- "-- converted by quern har2lua from journey?os.execute(" "$TMP/newline-in-file-name.lua"
# A recording whose script would pass 64 MiB (REPLAY_SCRIPT_MAX): 5.7 million
# zero-width spaces in a body, 3 bytes each in the HAR, 12 in the script
# ("\226\128\139"). Refused whole, with one line naming the request (its
# URL's token masked), exit 3 and no file; left out with --exclude, the rest
# converts.
/usr/bin/python3 - "$TMP/big.har" <<'EOF'
import json, sys
entries = [
  {"_resourceType": "document", "request": {"method": "GET", "url": "http://127.0.0.1:8080/"},
   "response": {"status": 200}},
  {"_resourceType": "fetch",
   "request": {"method": "POST", "url": "http://127.0.0.1:8080/upload?token=s3cr3t",
               "postData": {"mimeType": "text/plain", "text": "\u200b" * 5700000}},
   "response": {"status": 201}}]
json.dump({"log": {"version": "1.2", "entries": entries}}, open(sys.argv[1], "w"), ensure_ascii=False)
EOF
"$QUERN" har2lua "$TMP/big.har" -o "$TMP/big.lua" >"$TMP/big.conv" 2>&1
eq "too long: exit 3" "$?" 3
eq "too long: one line naming the step and the request, its token masked" "$(cat "$TMP/big.conv")" \
  "quern har2lua: $TMP/big.har: the script would be longer than 67108864 bytes at step 2, POST http://127.0.0.1:8080/upload?token=*** (a request body of 17100000 bytes): leave it out with --exclude"
check "too long: no script written" test ! -e "$TMP/big.lua"
"$QUERN" har2lua "$TMP/big.har" --exclude '*/upload*' -o "$TMP/big.lua" >"$TMP/big-excluded.conv" 2>&1
eq "the upload left out with --exclude: exit 0" "$?" 0
check "the upload left out: the script says so" grep -qF -- "-- Left out by --exclude: 1 request." "$TMP/big.lua"
rm -f "$TMP/big.har"

check "no sanitizer report" bash -c "! grep -q Sanitizer '$TMP'/*.out '$TMP'/*.conv"
