-- One step per run: think time goes between runs when there is no pacing
-- (pacing, when set, governs that gap), and before finish's first step.
local quern = require "quern"
local base = quern.property("base_url")
local pacing = quern.property("pacing", "")
local sc = quern.scenario("THINK1", {
  think = quern.property("think", "500ms"),
  pacing = pacing ~= "" and pacing or nil,
})
local page, bye = sc:step(1, "page"), sc:step(2, "bye")
function sc.run(vu)
  page:get(base .. "/static/a")
end
function sc.finish(vu)
  if quern.property("finish", false) then bye:get(base .. "/static/bye") end
end
