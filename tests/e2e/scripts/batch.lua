-- Requests sent at once from one VU (tests/e2e/batch.sh): `what` picks the case.
local quern = require "quern"
local http = require "quern.http"
local base = quern.property("base_url")
local what = quern.property("what")

local sc = quern.scenario("B")
local each = sc:step(1, "a sample each")
local whole = sc:step(2, "one sample for the batch")
local other = sc:step(3, "an entry's own step")
local errs = sc:step(4, "error statuses in one sample")

local function list(n, path)
  local l = {}
  for i = 1, n do l[i] = { "GET", base .. path .. "?i=" .. i } end
  return l
end

if what == "setup" then
  -- a request of a batch that fails ends setup, as a single one does
  function sc.setup()
    whole:batch({ { "GET", base .. "/fast?s1" }, { "GET", base .. "/fail" } })
  end
end

function sc.run(vu)
  if what == "each" then
    local rs = each:batch(list(12, "/slow"))
    assert(#rs == 12, "12 responses")
    for i, r in ipairs(rs) do
      r:expect(200)
      assert(r.url == base .. "/slow?i=" .. i, "in the order given")
      assert(#r.body == 65536, "the whole body")
    end
  elseif what == "batch" then
    local rs = whole:batch(list(12, "/slow"), { sample = "batch" })
    assert(#rs == 12 and rs[12].status == 200)
  elseif what == "mixed" then
    http.get(base .. "/login") -- sets sid: every request of the batches carries it
    local rs = each:batch({
      { "GET", base .. "/fast?a" },
      { "GET", base .. "/fast?b", nil, step = other },
      { "GET", base .. "/missing?no" }, -- a 404 nothing expects: technical
      { "GET", base .. "/missing?ok" }, -- a 404 accepted below
      { "POST", base .. "/setc", { json = { x = 1 }, headers = { ["X-T"] = "t" } } },
    })
    rs[4]:expect(404)
    assert(rs[1]:contains("fast").status == 200)
    local one = errs:batch({
      { "GET", base .. "/missing?x" },
      { "GET", base .. "/fail" },
      { "GET", base .. "/fast?d" },
    }, { sample = "batch" })
    one[1]:expect(404) -- the 500 stays the sample's error
    -- untimed: no sample; the cookie a batch response set goes with them
    local u = http.batch({ { "GET", base .. "/fast?u1" }, { "GET", base .. "/fast?u2" } })
    assert(#u == 2 and u[2].status == 200)
    assert(#http.batch({}) == 0)
  elseif what == "reuse" then
    each:batch(list(12, "/fast"))
  elseif what == "loop" then
    each:batch(list(12, "/slow"))
  elseif what == "h2c" then
    local l = list(12, "/fast")
    for _, e in ipairs(l) do e[2] = e[2]:gsub("^" .. base, quern.property("h2c_url")); e[3] = { http2 = true } end
    for _, r in ipairs(each:batch(l)) do assert(r.protocol == "HTTP/2", r.protocol) end
  elseif what == "bad" then
    each:batch({ { "GET", base .. "/fast?never" }, { "GET" } })
  elseif what == "badopt" then
    each:batch({ { "GET", base .. "/fast?never" }, { "GET", base .. "/fast?never", { nope = 1 } } })
  elseif what == "toomany" then
    each:batch(list(101, "/fast"))
  end
end
