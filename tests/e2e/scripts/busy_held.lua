-- VU 1 holds its worker's loop in a blocking system call (a shell that
-- sleeps 30 s): the worker sends nothing more, and is killed as held. The
-- shell writes its pid (the sleep's, after exec) for the test to end it.
local quern = require "quern"
local base = quern.property("base_url")
local pidfile = quern.property("pidfile")
local sc = quern.scenario("HELD")
local hit = sc:step(1, "Hit")

function sc.run(vu)
  hit:get(base .. "/held"):expect(404)
  os.execute("echo $$ >" .. pidfile .. "; exec sleep 30")
end
