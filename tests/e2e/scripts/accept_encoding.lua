-- quern's Accept-Encoding on every compressed request, once, unless the step
-- sends its own; none with compressed = false.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("AE")
local plain = sc:step(1, "plain")
local other = sc:step(2, "other header")
local own = sc:step(3, "own Accept-Encoding")
local off = sc:step(4, "compressed = false")
local offh = sc:step(5, "compressed = false, other header")

local function ae(step, opts)
  return step:get(base .. "/echo", opts):expect(200):json().headers["accept-encoding"]
end

local function once(what, got)
  local _, n = string.gsub(tostring(got), "gzip", "")
  assert(got ~= nil and n == 1, what .. ": " .. tostring(got))
end

function sc.run(vu)
  once("plain request", ae(plain))
  once("with another header", ae(other, { headers = { ["X-Test"] = "1" } }))
  local got = ae(own, { headers = { ["accept-encoding"] = "identity" } })
  assert(got == "identity", "own Accept-Encoding: " .. tostring(got))
  got = ae(off, { compressed = false })
  assert(got == nil, "compressed = false: " .. tostring(got))
  got = ae(offh, { compressed = false, headers = { ["X-Test"] = "1" } })
  assert(got == nil, "compressed = false, another header: " .. tostring(got))
end
