-- One URL whose responses grow: the receive buffer is sized from the URL's
-- last response (1 KB after a tiny one), and a larger one is still read whole.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("GROW")
local echo = sc:step(1, "echo")
local big = string.rep("0123456789", 20000) -- 200,000 bytes

function sc.run(vu)
  for _ = 1, 3 do
    local r = echo:post(base .. "/echo", { body = "x" }):expect(200)
    assert(r:json().body == "x", "small body")
    r = echo:post(base .. "/echo", { body = big }):expect(200)
    local got = r:json().body
    assert(got == big, "large body: got " .. #got .. " bytes")
  end
end
