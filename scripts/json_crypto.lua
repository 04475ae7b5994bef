-- JSON and crypto helpers: a JSON body with null and an empty list, a body
-- signed with HMAC-SHA256, a JWT (HS256) built by hand, an idempotency key
-- per request; each checked against what /echo says it received.
--
--   quern run scripts/json_crypto.lua --vus 5 --duration 30s -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local json, crypto = quern.json, quern.crypto

local base = quern.property("base_url", "http://127.0.0.1:8080")
local secret = quern.property("api_secret", "not-a-real-secret")

local sc = quern.scenario("JSON-CRYPTO", { pacing = quern.property("pacing", "300ms") })
local create = sc:step(1, "Create order (JSON, idempotency key)")
local signed = sc:step(2, "Signed webhook")
local bearer = sc:step(3, "Call with a JWT")

-- A JWT signed with HS256: base64url without padding, as RFC 7515 writes it.
local function jwt(claims)
  local function b64url(s) return (quern.base64(s):gsub("%+", "-"):gsub("/", "_"):gsub("=", "")) end
  local head = b64url(json.encode({ alg = "HS256", typ = "JWT" }, { sort_keys = true }))
  local body = b64url(json.encode(claims, { sort_keys = true }))
  return head .. "." .. body .. "." .. crypto.hmac("sha256", secret, head .. "." .. body, "base64rawurl")
end

function sc.run(vu)
  -- json = ...: quern.json.null sends null (nil would drop the key) and
  -- quern.json.array{} sends [] (a plain {} is an object)
  local key = crypto.uuid()
  local r = create:post(base .. "/echo", {
    headers = { ["Idempotency-Key"] = key },
    json = { customer = vu.id, coupon = json.null, items = json.array{} },
  }):expect(200)
  local echo = r:json()
  local sent = json.decode(echo.body)            -- null as quern.json.null
  if sent.coupon ~= json.null or getmetatable(sent.items) ~= getmetatable(json.array{}) then
    error("the server received " .. echo.body)
  end
  if echo.headers["idempotency-key"] ~= key then
    error("key received as " .. tostring(echo.headers["idempotency-key"]))
  end

  -- A signed body: encode it once and sign those very bytes.
  local body = json.encode({ event = "order.paid", order = key, at = os.time() }, { sort_keys = true })
  r = signed:post(base .. "/echo", { body = body, headers = {
    ["Content-Type"] = "application/json",
    ["X-Signature"] = "sha256=" .. crypto.hmac("sha256", secret, body),
  } }):expect(200)
  echo = r:json()
  if echo.headers["x-signature"] ~= "sha256=" .. crypto.hmac("sha256", secret, echo.body) then
    error("signature does not match the body received")
  end

  -- A bearer token made per VU and run.
  local token = jwt({ sub = "user" .. vu.id, jti = crypto.random_bytes(12, "hex"), iat = os.time() })
  bearer:get(base .. "/echo", { headers = { Authorization = "Bearer " .. token } })
        :expect(200):contains(token)
end
