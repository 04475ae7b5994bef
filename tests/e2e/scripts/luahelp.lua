-- quern.json and quern.crypto against /echo: what the server received is
-- logged (ECHO lines) for luahelp.sh to check with jq and openssl.
local quern = require "quern"
local http = require "quern.http"
local J, C = quern.json, quern.crypto
local base = quern.property("base_url")
local key = quern.property("hmac_key")
-- at load time too (the console loads the script to check it)
local boot = { id = C.uuid(), empty = J.encode(J.array{}) }
assert(boot.empty == "[]" and #boot.id == 36)

local sc = quern.scenario("LUAHELP")
local plain = sc:step(1, "json body")
local signed = sc:step(2, "signed body")

function sc.run(vu)
  -- json = ...: null and an empty array as the script says
  local r = plain:post(base .. "/echo", { json = { a = J.null, b = J.array{} } }):expect(200)
  quern.log("ECHO1 " .. r.body)
  local got = J.decode(r:json().body)
  assert(got.a == J.null and next(got.b) == nil, r.body)
  assert(r:json().body ~= nil and r:json{ null = true }.body == r:json().body)

  -- a body signed with HMAC-SHA256, sent as text so that the signed bytes are the sent ones
  local body = J.encode({ id = C.uuid(), nonce = C.random_bytes(8, "hex"), vu = vu.id,
                          run = vu.run, tags = J.array{}, none = J.null }, { sort_keys = true })
  r = signed:post(base .. "/echo", { body = body, headers = {
    ["Content-Type"] = "application/json",
    ["X-Signature"] = C.hmac("sha256", key, body),
    ["X-Body-SHA256"] = C.sha256(body),
  } }):expect(200)
  quern.log("ECHO2 " .. r.body)

  -- a value JSON cannot carry: refused before anything is sent, its path
  -- named (untimed: a step's sample would have begun)
  local ok, err = pcall(http.post, base .. "/echo", { json = { list = { 1, print } } })
  assert(not ok, "a function was encoded")
  quern.log("ERRPATH " .. tostring(err))
end
