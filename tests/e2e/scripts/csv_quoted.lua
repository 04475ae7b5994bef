-- RFC 4180 parsing, checked when the script loads: quoted separators,
-- doubled quotes, a line break inside a field, CRLF, empty fields, a blank
-- line, no final line break.
local quern = require "quern"

local q = quern.csv("csv_quoted.csv")
assert(q:count() == 3, "count " .. q:count())
local r = q:row(1)
assert(r.name == "Smith, John", r.name)
assert(r.quote == 'say "hi"', r.quote)
assert(r.note == "two\r\nlines", r.note)
r = q:row(2)
assert(r.name == "plain" and r.quote == "" and r.note == "", "row 2")
r = q:row(3)
assert(r.name == "" and r.quote == "x" and r.note == "last", "row 3")
assert(not pcall(q.row, q, 4), "row 4 is outside")
q:row(1).name = "changed"
assert(q:row(1).name == "Smith, John", "each call gives a fresh table")

local a = quern.csv("csv_noheader.csv", { header = false, mode = "random" })
assert(a:count() == 3 and a:row(2)[1] == "bob" and a:row(2)[2] == "2", "no header")
local h = quern.csv("csv_noheader.csv")
assert(h:count() == 2 and h:row(1).alice == "bob" and h:row(2)["1"] == "3", "first line as header")
assert(not pcall(quern.csv, "csv_noheader.csv", { mode = "sometimes" }), "bad mode")
assert(not pcall(quern.csv, "csv_noheader.csv", { mode = "circular", on_exhausted = "error" }))
quern.log("csv:", tostring(q), tostring(a))

local sc = quern.scenario("CSVQ")
local s = sc:step(1, "Fine")
function sc.run(vu)
  s:get(quern.property("base_url") .. "/status/200"):expect(200)
end
