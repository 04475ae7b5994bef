-- tests/e2e/profile_nginx.sh: a large text file asked gzipped from nginx.
local quern = require "quern"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local sc = quern.scenario("GZIP", {})
local big = sc:step(1, "Big")

function sc.run(vu)
  big:get(base .. "/big.txt", { headers = { ["Accept-Encoding"] = "gzip" } }):expect(200)
end
