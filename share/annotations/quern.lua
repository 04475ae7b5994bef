---@meta
-- quern's scenario API for Lua language servers (LuaLS, EmmyLua): the
-- module `require "quern"` returns, scenarios, steps and the VU table.
-- docs/scenarios.md is the reference; these files follow it. Setup:
-- docs/luarc.json. tests/unit/test_lscript.c checks that they name every
-- function quern registers, and nothing more.

---A duration: a string of `<number><unit>` parts (`"250ms"`, `"1.5s"`, `"1m30s"`;
---units `us`, `ms`, `s`, `m`, `h`) or a number of seconds.
---@alias quern.Duration string|number

---A uniformly drawn duration: both bounds required, `min <= max`.
---@class quern.Range
---@field min quern.Duration
---@field max quern.Duration

---The `quern` module.
---@class quern
---@field json quern.json JSON both ways (`quern.json.encode`, `decode`, `null`, `array`, `object`).
---@field crypto quern.crypto Digests, HMAC, random bytes, UUIDs.
---@field metric quern.metric The script's own metrics: `counter`, `gauge`, `trend`, declared at load time.
---@field version string quern's version (`"0.1.0"`).
---@field vus integer The number of VUs of the whole test (`--vus`).
local quern = {}

---Declares a scenario (at load time). `name`: letters, digits, `-` and `_`;
---it is part of every step id. Define `sc.run(vu)` (required), and
---optionally `sc.init(vu)`, `sc.finish(vu)`, `sc.setup()`, `sc.teardown(data)`.
---@param name string
---@param opts? quern.ScenarioOptions
---@return quern.Scenario
function quern.scenario(name, opts) end

---A test property (`quern.properties`, `--properties FILE`, `-p key=value`),
---typed by the default: a number default gives a number, a boolean default a
---boolean (`true`, `1` or `yes`), else a string; `default` when not set.
---Without a default and without a value it is an error where it is asked for
---(the load stops naming it), unless `opts.optional`: then `nil`.
---@generic T
---@param key string
---@param default? T
---@param opts? { optional?: boolean }
---@return T|string
function quern.property(key, default, opts) end

---Records the pending sample, then suspends the VU for `d`. Only from
---`init`, `run` or `finish`.
---@param d quern.Duration
function quern.sleep(d) end

---Seconds on a monotonic clock (with a fraction): a script's own deadlines
---and elapsed times, unmoved by changes of the wall clock.
---@return number
function quern.now() end

---Logs an `info` line: each argument through `tostring`, joined by spaces,
---prefixed with `VU <id>:` when called by a VU.
---@param ... any
function quern.log(...) end

---Reads a CSV file of test data once, at load time, and returns a feeder.
---`path` is relative to the script's folder.
---@param path string
---@param opts? quern.CsvOptions
---@return quern.Feeder
function quern.csv(path, opts) end

---Declares a pass/fail condition of the run, `[SCOPE:] METRIC OP VALUE`
---(`"p95<500ms"`, `"SC-*-STEP-1: errors<1%"`, `"tps>100"`), at load time.
---@param expr string
function quern.threshold(expr) end

---A soft check: judges each entry of `set` (name -> a function called with
---`value`, passing when it returns a true value, or any value, passing when
---true) and counts its pass or failure by name, never ending the run nor
---failing a sample. A function that raises counts as failed. Returns true
---when every one passed. From `init`, `run` or `finish`; at most 64 names.
---@param value any
---@param set table<string, any>
---@return boolean
function quern.check(value, set) end

---`s` in base64 (RFC 4648, standard alphabet, padded).
---@param s string
---@return string
function quern.base64(s) end

---Decodes base64, with or without its `=` padding; raises
---`quern.base64_decode: not base64` on anything else.
---@param s string
---@return string
function quern.base64_decode(s) end

---`s` percent-encoded (all but `A-Z a-z 0-9 - . _ ~`; a space is `%20`).
---@param s string
---@return string
function quern.url_encode(s) end

---Turns each `%XX` back into its byte; a `+` or a lone `%` stays as it is.
---@param s string
---@return string
function quern.url_decode(s) end

---@alias quern.CookiePolicy
---| "keep"  # each VU's jar is kept across its runs (default)
---| "reset" # the jar is emptied at the start of every run

---Options of `quern.scenario`; an unknown one is an error.
---@class quern.ScenarioOptions
---@field weight? number Share of the VUs (default 1; 0: none).
---@field pacing? quern.Duration|quern.Range Start-to-start interval of a VU's runs.
---@field think? quern.Duration|quern.Range Pause before each step after the first of a run.
---@field cookies? quern.CookiePolicy `"keep"` (default) or `"reset"`.
---@field thresholds? string[] Threshold expressions; one without a scope applies to this scenario's steps.
---@field stages? string[] A load of its own, `"D:N"` strings (`"3s:20"`); no share of `--vus`.
---@field rate? string The open model: arrivals per second (`"200/s"`, with `--duration`).
---@field rate_stages? string[] The open model in stages, `"D:R"` strings (`"1m:100/s"`).
---@field request? quern.RequestOptions Defaults of every request of the scenario, read once at load.
---@field traceparent? boolean A W3C `traceparent` header on each request (default false).

---A scenario, as `quern.scenario` returns it. Assign its phases as fields.
---@class quern.Scenario
---@field name string The scenario's name.
---@field run fun(vu: quern.VU) Each run (required).
---@field init? fun(vu: quern.VU) Once per VU, before its first run; retried after the pacing (or 1 s) if it fails.
---@field finish? fun(vu: quern.VU) Once per VU, at the end (only if its `init` succeeded).
---@field setup? fun(): table? Once per run, on the console, before any VU; what it returns is `vu.setup`.
---@field teardown? fun(data: table?) Once per run, on the console, after every VU ended.
local Scenario = {}

---Declares step number `n` (0 to 1000000) with a free-text `label` (valid
---UTF-8). Its id is `SC-<scenario>-STEP-<n>`. At load time only.
---@param n integer
---@param label? string
---@return quern.Step
function Scenario:step(n, label) end

---A step: every request made through it is timed, checked and counted
---against it. `tostring(step)` is its name.
---@class quern.Step
---@field id string `"SC-<scenario>-STEP-<n>"`.
---@field name string `"SC-<scenario>-STEP-<n>)<label>"`, the name reports show.
---@field label string The label.
---@field number integer `n`.
local Step = {}

---Calls `fn(...)` and measures it as one sample of the step, whatever it
---does (requests, Lua work, `quern.sleep`); returns what `fn` returns. An
---error raised by `fn` fails the sample and is raised again. Blocks do not nest.
---@param fn fun(...): ...
---@param ... any
---@return any ...
function Step:time(fn, ...) end

---Soft checks on `value`, as `quern.check(value, set)`: counted by name,
---never failing the step's sample. Returns true when every one passed.
---@param value any
---@param set table<string, any>
---@return boolean
function Step:check(value, set) end

---The VU's table, given to `init`, `run` and `finish`: the same one for the
---VU's whole life.
---@class quern.VU
---@field id integer The VU's global index, 1 … `--vus`.
---@field run integer The current run: 0 in `init`, 1, 2, … in `run`, the last run's number in `finish`.
---@field scenario string The name of the scenario the VU plays.
---@field data table The VU's own state, kept across runs (initially empty).
---@field setup? table What the scenario's `setup` returned, read-only; `nil` without one.
local VU = {}

---A cookie of the VU's jar.
---@class quern.Cookie
---@field name string
---@field value string
---@field domain string
---@field path string
---@field secure boolean
---@field expires integer A Unix time, 0 for a session cookie.
---@field http_only boolean

---A cookie to add: defaults `value = ""`, `domain = "127.0.0.1"`, `path = "/"`,
---`secure = false`, `expires = 0`; a domain starting with `.` also matches its subdomains.
---@class quern.NewCookie
---@field name string
---@field value? string
---@field domain? string
---@field path? string
---@field secure? boolean
---@field expires? integer

---Lists the VU's cookie jar.
---@return quern.Cookie[]
function VU:cookies() end

---The value of the first cookie of that name, or `nil`.
---@param name string
---@return string?
function VU:cookie(name) end

---Adds a cookie, from a table or a `Set-Cookie` line (the `Set-Cookie:` prefix is optional).
---@param cookie quern.NewCookie|string
function VU:add_cookie(cookie) end

---Empties the jar.
function VU:clear_cookies() end

---Writes the jar to a file in Netscape format; returns the number of cookies.
---@param path string
---@return integer
function VU:save_cookies(path) end

---Adds the cookies of a Netscape-format file; returns the number of lines read.
---@param path string
---@return integer
function VU:load_cookies(path) end

return quern
