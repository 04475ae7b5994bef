-- wrk with a small Lua script: a request() function, run for every request,
-- that builds the request with one extra header (wrk -s bench/wrk-header.lua).
local hdr = { ["X-Bench"] = "1" }

request = function()
  return wrk.format("GET", "/small", hdr)
end
