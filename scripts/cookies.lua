-- The VU's cookie jar: cookies set by the server, read and added by the
-- script, cleared, and saved to a file and loaded back (so a session can
-- outlive a test run, e.g. log in once and reuse the session next time).
--
--   quern run scripts/cookies.lua --vus 10 --duration 30s -p base_url=http://127.0.0.1:PORT
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")
local host = base:match("^%a+://([^/:]+)")       -- the cookies' domain

local sc = quern.scenario("COOKIES", {
  pacing  = quern.property("pacing", "300ms"),
  cookies = "keep",        -- the default: the jar survives from run to run
})

local login    = sc:step(1, "Login")
local set      = sc:step(2, "Server sets cookies")
local sent     = sc:step(3, "Cookies sent")
local cleared  = sc:step(4, "After clear_cookies")
local reloaded = sc:step(5, "After load_cookies")
local logout   = sc:step(6, "Logout")
local gone     = sc:step(7, "After logout")

local function check(cond, msg) if not cond then error(msg, 2) end end

-- The cookies the server received, as /echo reports them.
local function echoed(step)
  return step:get(base .. "/echo"):expect(200):json().cookies
end

function sc.init(vu)
  -- the login form's hidden one-time token, which the POST must send back
  local token = http.get(base .. "/login"):xpath("//input[@name='csrf']/@value")
  login:post(base .. "/login", { form = { user = "cookie" .. vu.id, password = "secret", csrf = token } })
       :expect(200)
  check(vu:cookie("SESSION"), "no SESSION cookie after login")
  vu.data.session = vu:cookie("SESSION")
  vu.data.jar = os.tmpname()                      -- this VU's jar file
end

function sc.run(vu)
  -- Set-Cookie headers go into the jar; vu:cookie(name) reads one value.
  set:get(base .. "/set-cookie", { query = { theme = "dark", lang = "fr" } }):expect(200)
  check(vu:cookie("theme") == "dark", "theme cookie not stored")

  -- A cookie added by the script (a table, or a Set-Cookie line).
  vu:add_cookie{ name = "consent", value = "yes", domain = host, path = "/" }
  vu:add_cookie("Set-Cookie: ab=B; Domain=" .. host .. "; Path=/")

  local c = echoed(sent)
  check(c.theme == "dark" and c.lang == "fr" and c.consent == "yes" and c.ab == "B",
        "cookies not all sent")
  check(c.SESSION == vu.data.session, "session changed: kept across runs?")

  -- vu:cookies() lists the whole jar.
  local names = {}
  for _, ck in ipairs(vu:cookies()) do names[ck.name] = ck.domain end
  check(names.SESSION == host and names.consent == host, "jar listing incomplete")

  -- Save the jar, clear it: nothing is sent any more.
  local saved = vu:save_cookies(vu.data.jar)
  vu:clear_cookies()
  check(vu:cookie("SESSION") == nil, "jar not cleared")
  check(next(echoed(cleared)) == nil, "cookies sent after clear_cookies")

  -- Load it back: the session is alive again.
  local loaded = vu:load_cookies(vu.data.jar)
  check(loaded == saved, ("saved %d cookies, loaded %d"):format(saved, loaded))
  check(echoed(reloaded).SESSION == vu.data.session, "session not restored")
end

function sc.finish(vu)
  os.remove(vu.data.jar)
  logout:get(base .. "/logout"):expect(200)      -- Set-Cookie: SESSION=; Max-Age=0
  check(echoed(gone).SESSION == nil, "SESSION still sent after logout")
end
