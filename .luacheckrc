-- luacheck's settings for quern's scenarios (tests/lint/luacheck.sh; Debian's
-- lua-check). Scripts reach quern through require ("quern", "quern.http",
-- "quern.grpc"): quern defines no global, and Lua 5.4's standard library is
-- all a script sees besides.
std = "lua54"

-- A scenario's phases receive the VU's table, sc.init(vu), sc.run(vu),
-- sc.finish(vu), whether they read it or not.
ignore = { "212/vu" }

-- har2lua's outputs (tests/unit/test_har2lua.c keeps these equal to them)
-- write each recorded body, header or URL on one line, as long as it was
-- recorded.
files["tests/unit/data/har"] = { max_line_length = false }

-- Definition files for editors (share/annotations/): functions without a
-- body, tables that only declare, an annotation a line however long.
files["share/annotations"] = { ignore = { "212", "241" }, max_line_length = false }

exclude_files = { "build", "tests/artifacts" }
