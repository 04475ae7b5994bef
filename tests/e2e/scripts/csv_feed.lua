-- CSV feeder tests: each call of feed:next takes one row and visits
-- /u/<user>, which the demo target counts under its own path (a 404).
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url")
local file = quern.property("file", "csv_users.csv")
local header = quern.property("header", true)
local exhausted = quern.property("on_exhausted", "")
local noarg = quern.property("noarg", false)

local feed = quern.csv(file, {
  mode = quern.property("mode", "unique"),
  header = header,
  on_exhausted = exhausted ~= "" and exhausted or nil,
})

local sc = quern.scenario("CSV")
local login = sc:step(1, "Login")
local mark = sc:step(2, "Mark")

function sc.run(vu)
  local row
  if noarg then row = feed:next() else row = feed:next(vu) end
  if row == nil then return end -- on_exhausted = "stop"
  local user = header and row.user or row[1]
  if quern.property("login", false) then
    -- the login form's hidden one-time token, which the POST must send back
    local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
    login:post(base .. "/login", { form = { user = user, password = row.password or "x", csrf = token } })
         :expect(200)
  end
  mark:get(base .. "/u/" .. user):expect(404)
end
