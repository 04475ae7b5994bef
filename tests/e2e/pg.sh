# quern.pg against a real PostgreSQL 15 (Debian's postgresql): the example
# scripts/pg.lua logged in by SCRAM-SHA-256, then by md5, judged by the
# server's own counts (the rows inserted, pg_stat_database's commits, its
# log of each login's method); a wrong password, a functional error of the
# connect with the server's message; a missing table, a functional error
# with its SQLSTATE while the connection goes on; values typed by column,
# NULL both ways, and each statement parsed once per connection (the
# server's log of Parse messages, pg_prepared_statements); COPY both ways,
# a terminated backend; cleartext and trust logins, a reply too late.
. "$(dirname "$0")/lib.bash"
PGBIN=/usr/lib/postgresql/15/bin
for b in "$PGBIN/initdb" "$PGBIN/pg_ctl" /usr/bin/psql; do
  [ -x "$b" ] || { notok "$b is installed (Debian's postgresql)"; exit 1; }
done
PGDIR=$TMP/pg
# initdb refuses root: as root the server is the postgres system user's,
# otherwise the test's own user's
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_cleanup() {
  [ -d "$PGDIR/data" ] && as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate stop >/dev/null 2>&1
  cleanup
}
trap pg_cleanup EXIT

# the server in a folder of its own; a unix socket there for psql, TCP on
# a free port
mkdir -p "$PGDIR"
[ "$(id -u)" = 0 ] && chown postgres "$TMP" "$PGDIR"
PORT=$(free_port_py)
as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust -E UTF8 \
  --no-sync >"$PGDIR/initdb.log" 2>&1 || { notok "initdb"; tail -5 "$PGDIR/initdb.log"; exit 1; }
cat >"$PGDIR/data/pg_hba.conf" <<'EOF'
local all postgres trust
host all scramuser 127.0.0.1/32 scram-sha-256
host all md5user 127.0.0.1/32 md5
host all clearuser 127.0.0.1/32 password
host all trustuser 127.0.0.1/32 trust
EOF
# autovacuum off: no transactions but the test's in its database;
# log_connections: each login's method; log_min_duration_statement = 0:
# each Parse, Bind and Execute of the extended protocol, with its name
as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w -t 20 \
  -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$PGDIR -c fsync=off -c autovacuum=off \
      -c log_connections=on -c log_disconnections=off -c log_min_duration_statement=0 -c log_line_prefix='%d %u '" \
  start >/dev/null 2>&1 || { notok "postgres starts"; tail -5 "$PGDIR/server.log"; exit 1; }
ok "postgres starts"
# sql DB SQL: one value, as the admin over the unix socket
sql() { psql -X -q -At -h "$PGDIR" -p "$PORT" -U postgres -d "$1" -c "$2"; }
# commits DB: the database's committed transactions, read from another
# database (postgres), whose own transactions do not count there
commits() {
  sql postgres "SELECT pg_stat_clear_snapshot(); SELECT xact_commit FROM pg_stat_database WHERE datname = '$1'" | tail -1
}
# A backend sends its counts at most once a second, and when it exits:
# settled DB [WANT] gives the commits once they reach WANT (5 s at most),
# or once two readings 0.4 s apart agree, and still agree 0.4 s later.
settled() {
  local a b
  a=$(commits "$1")
  for _ in $(seq 25); do
    sleep 0.2
    [ "$a" = "${2:-}" ] && break
    b=$(commits "$1")
    [ -z "${2:-}" ] && [ "$a" = "$b" ] && break
    a=$b
  done
  sleep 0.4
  commits "$1"
}

sql postgres "CREATE DATABASE shop" >/dev/null
sql postgres "SET password_encryption = 'scram-sha-256'; CREATE ROLE scramuser LOGIN PASSWORD 's3cr@t:pw'" >/dev/null
sql postgres "SET password_encryption = 'md5'; CREATE ROLE md5user LOGIN PASSWORD 'md5pw'" >/dev/null
sql postgres "CREATE ROLE clearuser LOGIN PASSWORD 'clear pw'; CREATE ROLE trustuser LOGIN" >/dev/null
sql shop "CREATE TABLE orders (id serial PRIMARY KEY, vu int NOT NULL, run int NOT NULL,
                               amount float8 NOT NULL, note text);
          GRANT ALL ON orders TO scramuser, md5user; GRANT ALL ON orders_id_seq TO scramuser, md5user" >/dev/null
eq "roles: a SCRAM-SHA-256 secret, an md5 one" \
  "$(sql postgres "SELECT string_agg((rolpassword LIKE 'SCRAM-SHA-256\$%')::text || '/' || (rolpassword LIKE 'md5%')::text, ','
                   ORDER BY rolname DESC) FROM pg_authid WHERE rolname IN ('scramuser', 'md5user')")" "true/false,false/true"
# rows: the orders inserted
rows() { sql shop "SELECT count(*) FROM orders"; }
# logged PATTERN: the server log's lines that match
logged() { grep -c -- "$1" "$PGDIR/server.log"; }
SCRAM_URL="postgres://scramuser:s3cr%40t%3Apw@127.0.0.1:$PORT/shop"
MD5_URL="postgres://md5user:md5pw@127.0.0.1:$PORT/shop"
INSERT_SQL='INSERT INTO orders (vu, run, amount, note) VALUES ($1, $2, $3, $4)'
S=$TMP/s.json
t() { sj "$S" ".tests[] | select(.id == \"SC-$1-STEP-$2\") | $3"; }

# --- the example, SCRAM-SHA-256: --runs for an exact count ----------------
# Every query commits one transaction, and so does each connection's
# startup (PostgreSQL reads its catalogs in one).
base=$(settled shop)
timeout 60 "$QUERN" run scripts/pg.lua --vus 3 --runs 4 -q -p pg_url="$SCRAM_URL" \
  --summary-json "$S" >"$TMP/out" 2>"$TMP/err"
rc=$?
eq "scram: run exits 0" "$rc" 0
[ "$rc" = 0 ] || tail -n 5 "$TMP/err" "$TMP/out"
eq "scram: no errors" "$(sj "$S" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "scram: a sample of each step a run" "$(t PG-ORDERS 1 .count)/$(t PG-ORDERS 2 .count)/$(t PG-ORDERS 3 .count)" 12/12/12
eq "scram: commits = a startup and 2 queries a run" "$(( $(settled shop $((base + 36))) - base ))" 36
eq "scram: rows = INSERT samples" "$(rows)" "$(t PG-ORDERS 2 .count)"
eq "scram: a SCRAM login a connect" "$(logged 'identity="scramuser" method=scram-sha-256')" 12
eq "scram: the INSERT parsed once a connection, executed once a run" \
  "$(logged "parse quern_[0-9]*: $INSERT_SQL")/$(logged "execute quern_[0-9]*: $INSERT_SQL")" 12/12

# --- the example, md5 ----------------------------------------------------
base=$(settled shop)
timeout 60 "$QUERN" run scripts/pg.lua --vus 2 --runs 3 -q -p pg_url="$MD5_URL" \
  --summary-json "$S" >"$TMP/out" 2>"$TMP/err"
rc=$?
eq "md5: run exits 0" "$rc" 0
[ "$rc" = 0 ] || tail -n 5 "$TMP/err" "$TMP/out"
eq "md5: no errors" "$(sj "$S" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
eq "md5: a sample of each step a run" "$(t PG-ORDERS 1 .count)/$(t PG-ORDERS 2 .count)/$(t PG-ORDERS 3 .count)" 6/6/6
eq "md5: commits = a startup and 2 queries a run" "$(( $(settled shop $((base + 18))) - base ))" 18
eq "md5: rows = the INSERT samples of both runs" "$(rows)" 18
eq "md5: an md5 login a connect" "$(logged 'identity="md5user" method=md5')" 6

# --- wrong passwords: the server's message, a functional error, no load ----
base=$(settled shop)
for who in scramuser md5user; do
  timeout 60 "$QUERN" run scripts/pg.lua --vus 1 --runs 2 -q --allow-errors \
    -p pg_url="postgres://$who:wrong@127.0.0.1:$PORT/shop" --summary-json "$S" >/dev/null 2>"$TMP/err"
  eq "wrong password ($who): run exits 0" "$?" 0
  eq "wrong password ($who): a functional error a connect" \
    "$(t PG-ORDERS 1 .count)/$(t PG-ORDERS 1 .errors.functional)/$(t PG-ORDERS 1 .errors.technical)" 2/2/0
  eq "wrong password ($who): the server's message" "$(t PG-ORDERS 1 .errors.samples.functional)" \
    "PostgreSQL: 28P01: password authentication failed for user \"$who\""
  eq "wrong password ($who): the run ends there" "$(t PG-ORDERS 2 .count)/$(t PG-ORDERS 3 .count)" 0/0
done
eq "wrong password: no transaction, no row" "$(( $(settled shop) - base ))/$(rows)" 0/18
eq "wrong password: the server refused 4 logins" "$(logged 'FATAL:  password authentication failed')" 4

# --- a missing table, typed values, statements parsed once ---------------
mkdir -p "$TMP/lua"
cat >"$TMP/lua/odd.lua" <<'LUA'
local quern = require "quern"
local pg    = require "quern.pg"
local url = quern.property("pg_url")
local sc = quern.scenario("PG-ODD", {})
local connect = sc:step(1, "Connect")
local missing = sc:step(2, "Missing table")
local typed   = sc:step(3, "Typed values")
local once    = sc:step(4, "Prepared once")
local copy    = sc:step(5, "COPY FROM STDIN")
local killed  = sc:step(6, "Terminated")

local PLUS = "SELECT $1::int + 1 AS v"

local function same(got, want, what)
  if got ~= want and not (got ~= got and want ~= want) then
    error(string.format("%s: %s (%s), want %s (%s)", what, tostring(got), math.type(got) or type(got),
                        tostring(want), math.type(want) or type(want)), 2)
  end
end

function sc.run(vu)
  local c = pg.connect(connect, url)
  -- a failed step, caught: the connection is in step after it
  local ok, err = pcall(missing.time, missing, function() return c:query("SELECT * FROM no_such_table") end)
  assert(not ok and tostring(err) == 'PostgreSQL: 42P01: relation "no_such_table" does not exist',
         "no error: " .. tostring(err))
  assert(c.error.code == "42P01" and c.error.severity == "ERROR" and c.status == "I", "c.error")
  typed:time(function()
    -- the simple protocol: values typed by their column's type
    local r = c:query("SELECT 7::int2 AS s, 70000::int4 AS i, 9007199254740993::int8 AS big, 26::oid AS o, "
                      .. "1.5::float4 AS f4, 0.1::float8 AS f8, 'NaN'::float8 AS nan, '-Infinity'::float8 AS inf, "
                      .. "true AS t, false AS f, NULL::int AS n, 'héllo'::varchar AS v, 12.50::numeric AS num, "
                      .. "'2026-01-02'::date AS d")
    local row = r.rows[1]
    same(r.command .. " " .. r.count .. " " .. #r.rows .. " " .. #r.fields, "SELECT 1 1 14", "simple: tag")
    same(r.fields[1] .. r.fields[14], "sd", "simple: fields in order")
    same(row.s, 7, "int2"); same(row.i, 70000, "int4"); same(row.big, 9007199254740993, "int8")
    same(row.o, 26, "oid"); same(row.f4, 1.5, "float4"); same(row.f8, 0.1, "float8")
    same(row.nan, 0 / 0, "NaN"); same(row.inf, -math.huge, "-Infinity")
    same(row.t, true, "bool t"); same(row.f, false, "bool f"); same(row.n, pg.null, "NULL")
    same(row.v, "héllo", "varchar"); same(row.num, "12.50", "numeric"); same(row.d, "2026-01-02", "date")
    -- the extended protocol: parameters as text, nil and pg.null as NULL
    local p = c:query("SELECT $1::int4 AS i, $2::float8 AS f, $3::bool AS b, $4::text AS n, $5::text AS s, "
                      .. "$6::int8 AS big, $7::numeric AS num, $8::text AS n2, $9::int AS last",
                      { 42, 2.5, true, nil, "it's \"quoted\", $1", 9007199254740993, "3.14", pg.null, nil })
    row = p.rows[1]
    same(row.i, 42, "param int"); same(row.f, 2.5, "param float"); same(row.b, true, "param bool")
    same(row.n, pg.null, "param nil"); same(row.s, "it's \"quoted\", $1", "param text")
    same(row.big, 9007199254740993, "param int8"); same(row.num, "3.14", "param numeric")
    same(row.n2, pg.null, "param pg.null"); same(row.last, pg.null, "param trailing nil")
    -- rows written through parameters come back the same
    local w = c:query("INSERT INTO orders (vu, run, amount, note) VALUES ($1, $2, $3, $4) RETURNING id, note",
                      { vu.id, 1000 + vu.run, -0.25, "odd" })
    same(w.command .. " " .. w.count .. " " .. w.rows[1].note, "INSERT 1 odd", "RETURNING")
    assert(math.type(w.rows[1].id) == "integer", "serial id")
    -- several statements in one simple query: each result, the last one's fields
    local m = c:query("CREATE TEMP TABLE t (x int); INSERT INTO t VALUES (1), (2); SELECT sum(x) AS s FROM t")
    same(#m.results, 3, "results")
    same(m.results[1].command, "CREATE TABLE", "CREATE"); same(m.results[1].count, nil, "CREATE's count")
    same(m.results[2].command .. " " .. m.results[2].count, "INSERT 2", "INSERT's count")
    same(m.rows[1].s, 3, "sum"); same(m.command, "SELECT", "the last command")
    c:query("DROP TABLE t")
    -- COPY TO STDOUT: its data dropped, its count kept
    local cp = c:query("COPY (SELECT generate_series(1, 3)) TO STDOUT")
    same(cp.command .. " " .. cp.count, "COPY 3", "COPY TO STDOUT")
  end)
  once:time(function()
    for i = 1, 3 do same(c:query(PLUS, { i }).rows[1].v, i + 1, "PLUS") end
    local r = c:query("SELECT name, (SELECT count(*) FROM pg_prepared_statements) AS n "
                      .. "FROM pg_prepared_statements WHERE statement = $1", { PLUS })
    -- the statements with parameters this connection made: 4 (PLUS, this one, two of typed)
    same(#r.rows .. " " .. r.rows[1].n, "1 4", "prepared statements")
    assert(r.rows[1].name:find("^quern_%d+$"), r.rows[1].name)
  end)
  -- COPY FROM STDIN: refused with a CopyFail, the server's error raised
  ok, err = pcall(copy.time, copy, function() return c:query("COPY orders FROM STDIN") end)
  assert(not ok and tostring(err):find("^PostgreSQL: 57014: COPY from stdin failed"), tostring(err))
  same(c:query("SELECT 1 AS one").rows[1].one, 1, "after the COPY")
  -- a backend terminated: FATAL, a technical error, the connection closed
  local c2 = pg.connect(connect, url)
  same(c:query("SELECT pg_terminate_backend($1) AS t", { c2.pid }).rows[1].t, true, "terminate")
  ok, err = pcall(killed.time, killed, function() return c2:query("SELECT 1") end)
  assert(not ok and c2.sock.closed, "terminated: " .. tostring(err))
  c:close()
end
LUA
timeout 60 "$QUERN" run "$TMP/lua/odd.lua" --vus 2 --runs 2 -q --allow-errors -p pg_url="$SCRAM_URL" \
  --summary-json "$S" >"$TMP/out" 2>"$TMP/err"
eq "odd: run exits 0" "$?" 0
eq "odd: a missing table, a functional error each" \
  "$(t PG-ODD 2 .count)/$(t PG-ODD 2 .errors.functional)/$(t PG-ODD 2 .errors.technical)" 4/4/0
eq "odd: its SQLSTATE and message" "$(t PG-ODD 2 .errors.samples.functional)" \
  'PostgreSQL: 42P01: relation "no_such_table" does not exist'
eq "odd: = the server's errors" "$(logged 'ERROR:  relation "no_such_table" does not exist')" 4
# connect's samples: 2 connects a run, and the 2 queries made outside a block
eq "odd: the connection goes on, values typed, NULL both ways, once prepared" \
  "$(t PG-ODD 1 .count)/$(t PG-ODD 3 .count)/$(t PG-ODD 3 .errors.functional)/$(t PG-ODD 4 .count)/$(t PG-ODD 4 .errors.functional)/$(t PG-ODD 4 .errors.technical)" \
  16/4/0/4/0/0
[ "$(t PG-ODD 3 .errors.functional)$(t PG-ODD 4 .errors.functional)" = 00 ] || grep -m3 "error" "$TMP/err"
eq "odd: COPY FROM STDIN refused, a functional error" \
  "$(t PG-ODD 5 .count)/$(t PG-ODD 5 .errors.functional)/$(t PG-ODD 5 .errors.technical)" 4/4/0
eq "odd: a terminated backend, a technical error with the server's message" \
  "$(t PG-ODD 6 .count)/$(t PG-ODD 6 .errors.technical)/$(t PG-ODD 6 .errors.samples.technical)" \
  "4/4/PostgreSQL: 57P01: terminating connection due to administrator command"
eq "odd: one Parse a connection, an Execute a query" \
  "$(logged 'parse quern_[0-9]*: SELECT $1::int + 1 AS v')/$(logged 'execute quern_[0-9]*: SELECT $1::int + 1 AS v')" 4/12
eq "odd: the rows written with parameters" "$(sql shop "SELECT count(*) || '/' || sum(amount) FROM orders WHERE note = 'odd'")" 4/-1

# --- cleartext and trust logins; a reply that does not come in time ------
cat >"$TMP/lua/logins.lua" <<'LUA'
local quern = require "quern"
local pg    = require "quern.pg"
local port = quern.property("port")
local sc = quern.scenario("PG-LOGINS", {})
local clear = sc:step(1, "Cleartext")
local trust = sc:step(2, "Trust")
local slow  = sc:step(3, "Slow")

function sc.run(vu)
  local c = pg.connect(clear, "postgres://clearuser:clear%20pw@127.0.0.1:" .. port .. "/shop",
                       { params = { application_name = "logins" } })
  local r = c:query("SELECT current_user AS u, current_setting('application_name') AS a")
  assert(r.rows[1].u == "clearuser" and r.rows[1].a == "logins", "cleartext: " .. r.rows[1].u)
  c:close()
  local t = pg.connect(trust, "postgres://trustuser@127.0.0.1:" .. port .. "/shop", { timeout = "300ms" })
  assert(t:query("SELECT current_user AS u").rows[1].u == "trustuser", "trust")
  local ok, err = pcall(slow.time, slow, function() return t:query("SELECT pg_sleep(2)") end)
  assert(not ok and t.sock.closed, "slow: " .. tostring(err))
end
LUA
timeout 60 "$QUERN" run "$TMP/lua/logins.lua" --vus 1 --runs 2 -q --allow-errors -p port="$PORT" \
  --summary-json "$S" >"$TMP/out" 2>"$TMP/err"
eq "logins: run exits 0" "$?" 0
eq "logins: cleartext and trust, no error" \
  "$(t PG-LOGINS 1 .count)/$(t PG-LOGINS 1 .errors.functional)/$(t PG-LOGINS 2 .count)/$(t PG-LOGINS 2 .errors.functional)" 4/0/4/0
[ "$(t PG-LOGINS 1 .errors.functional)$(t PG-LOGINS 2 .errors.functional)" = 00 ] || grep -m3 "error" "$TMP/err"
eq "logins: the server's methods" \
  "$(logged 'identity="clearuser" method=password')/$(logged 'connection authorized: user=trustuser')" 2/2
eq "logins: no reply in time, a technical error, the connection closed" \
  "$(t PG-LOGINS 3 .count)/$(t PG-LOGINS 3 .errors.technical)/$(t PG-LOGINS 3 .errors.samples.technical)" \
  "2/2/PostgreSQL: no reply within 300ms"
