-- URLs with a password in their user-info: sent to the server, written
-- nowhere (tests/e2e/redact.sh greps every output for the password).
local quern = require "quern"
local http = require "quern.http"
local base = quern.property("base_url") -- http://u:secret@127.0.0.1:PORT
local dead = quern.property("dead_url") -- http://u:secret@127.0.0.1:1
local sc = quern.scenario("CRED")
local echo = sc:step(1, "echo")
local refused = sc:step(2, "refused")
local status = sc:step(3, "status 500")
local named = sc:step(4, "error naming the URL")

function sc.run(vu)
  local r = echo:get(base .. "/echo"):expect(200)
  -- base64("u:secret"): the password reached the server
  local auth = r:json().headers["authorization"]
  assert(auth == "Basic dTpzZWNyZXQ=", "no Basic authorization from the URL")
  refused:get(dead .. "/x")
  status:get(base .. "/status/500")
  http.get(base .. "/static/app.css")
  quern.log("fetched " .. base .. "/static/app.css")
  named:get(base .. "/echo")
  error("giving up on " .. base .. "/echo")
end
