-- A VU's init logs in (the server takes 400 ms), each run hits (100 ms):
-- in the open model, an arrival that needs a new VU waits for its login.
local quern = require "quern"
local base = quern.property("base_url")
local sc = quern.scenario("SLOWINIT")
local login = sc:step(1, "login")
local hit = sc:step(2, "hit")
function sc.init()
  login:get(base .. "/login"):expect(200)
end
function sc.run()
  hit:get(base .. "/hit"):expect(200)
end
