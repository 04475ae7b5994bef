# Multipart bodies against the demo target: a file read once per worker,
# received whole by the target with its part headers and the form's fields,
# the target's own count the judge.
. "$(dirname "$0")/lib.bash"

S=$TMP/s
mkdir -p "$S"
start_target
# ---- multipart: a file read once per worker, received whole by the demo target
head -c 6000 /dev/urandom | base64 -w 76 >"$S/up.txt"
cat >"$S/mp.lua" <<'EOF'
local quern = require "quern"
local sc = quern.scenario("MP")
local up = sc:step(1, "upload")
local f = io.open(quern.property("dir") .. "/up.txt", "rb")
local want = f:read("a")
f:close()
function sc.run(vu)
  local r = up:post(quern.property("base") .. "/echo", { multipart = {
    who = "vu" .. vu.id, n = vu.run,
    file = { path = "up.txt", type = "text/plain", name = "report.txt" } } }):expect(200)
  local e = r:json()
  if not e.headers["content-type"]:find("^multipart/form%-data; boundary=") then error("content-type") end
  if not e.body:find(want, 1, true) then error("the file is not whole") end
  if not e.body:find('name="file"; filename="report.txt"\r\nContent-Type: text/plain\r\n\r\n', 1, true) then
    error("file part header")
  end
  if not e.body:find('name="who"\r\n\r\nvu' .. vu.id .. "\r\n", 1, true) then error("field who") end
end
EOF
"$QUERN" run "$S/mp.lua" --vus 2 --runs 3 --workers 1 -q -p base="$BASE" -p dir="$S" \
  --summary-json "$TMP/mp.json" >/dev/null 2>"$TMP/mperr"
eq "multipart: the run passes" "$?" 0
eq "multipart: 6 uploads, each checked" "$(sj "$TMP/mp.json" '"\(.tests[0].count) \(.tests[0].errors.functional) \(.tests[0].errors.technical)"')" "6 0 0"
eq "multipart: the target got them" "$(stat '.by_method_path["POST /echo"]')" 6

