-- An order service's database: connect to PostgreSQL, insert an order,
-- read the VU's orders back, leave.
--
--   quern run scripts/pg.lua --vus 20 --duration 30s -p pg_url=postgres://shop:secret@127.0.0.1:5432/shop
--
-- Any PostgreSQL will do, with this table in the database of the URL:
--   CREATE TABLE orders (id serial PRIMARY KEY, vu int NOT NULL, run int NOT NULL,
--                        amount float8 NOT NULL, note text);
-- A password in the URL is percent-encoded (%40 for @). tests/e2e/pg.sh
-- runs it and checks quern's counts against the server's own.
local quern = require "quern"
local pg    = require "quern.pg"

local url = quern.property("pg_url", "postgres://shop:secret@127.0.0.1:5432/shop")

local sc = quern.scenario("PG-ORDERS", {
  pacing = quern.property("pacing", "200ms"),
})

local connect = sc:step(1, "Connect")    -- TCP, startup and login: one sample
local insert  = sc:step(2, "INSERT an order")
local orders  = sc:step(3, "SELECT the VU's orders")

function sc.run(vu)
  -- a socket is closed when the VU's run ends: one connection a run
  local c = pg.connect(connect, url, { params = { application_name = "quern" } })

  -- with parameters: the extended protocol, the statement prepared once per
  -- connection; nil is SQL NULL. Each c:query is a sample; inside a step's
  -- block it is part of that block's sample.
  insert:time(function()
    local r = c:query("INSERT INTO orders (vu, run, amount, note) VALUES ($1, $2, $3, $4)",
                      { vu.id, vu.run, 12.5, nil })
    if r.count ~= 1 then error("INSERT: " .. r.tag) end
  end)
  orders:time(function()
    local r = c:query("SELECT count(*) AS n, sum(amount) AS total, max(note) AS note "
                      .. "FROM orders WHERE vu = $1", { vu.id })
    local row = r.rows[1]
    -- count(*) is an int8, an integer; sum of float8 a float; NULL is pg.null
    if row.n < 1 or row.total < 12.5 or row.note ~= pg.null then
      error(string.format("orders of VU %d: n=%s total=%s", vu.id, tostring(row.n), tostring(row.total)))
    end
  end)
  c:close()
end
