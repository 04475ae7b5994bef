-- quern's User-Agent on every request, once, unless the step sends its own.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("UA")
local plain = sc:step(1, "plain")
local other = sc:step(2, "other header")
local own = sc:step(3, "own UA")
local want = "quern/" .. quern.version

local function ua(step, headers)
  return step:get(base .. "/echo", { headers = headers }):expect(200):json().headers["user-agent"]
end

function sc.run(vu)
  local got = ua(plain)
  assert(got == want, "plain request: " .. tostring(got))
  got = ua(other, { ["X-Test"] = "1" })
  assert(got == want, "with another header: " .. tostring(got))
  got = ua(own, { ["user-agent"] = "mine/1" })
  assert(got == "mine/1", "own User-Agent: " .. tostring(got))
end
