---@meta
-- quern.redis: a Redis client over step:tcp (docs/scenarios.md, "Redis:
-- quern.redis").

---Options of `redis.connect`: `resp`, and those of `step:tcp`.
---@class quern.redis.ConnectOptions
---@field resp? 2|3 The protocol: 2 (default) or 3 (`HELLO 3` is sent).
---@field tls? boolean|quern.TlsOptions TLS (default `true` for `rediss://`).
---@field timeout? quern.Duration The connect's bound, and the longest wait for each reply.
---@field resolve? string[] `"host:port:address"` entries: connect there without DNS.
---@field connect_timeout? quern.Duration The longest the connection may take to open.

---A `nil` inside an array, set or map: one value, compared with `==`.
---@class quern.redis.Null

---An error reply kept as a value (inside an array, or in a pipeline's
---list); `tostring` gives its text.
---@class quern.redis.ErrorReply
---@field err string The server's text, e.g. `"ERR unknown command 'FOO'"`.

---A reply as Lua values: string, integer, float, boolean, nil, a list or a
---map (table), `quern.redis.Null`, `quern.redis.ErrorReply`.
---@alias quern.redis.Reply string|integer|number|boolean|table|quern.redis.Null|quern.redis.ErrorReply|nil

---Argument of a command: strings as they are, integral numbers as integers,
---anything else through `tostring` (not `nil`).
---@alias quern.redis.Arg string|number|boolean

---The commands of a pipeline, queued: nothing is sent until `fn` returns.
---@class quern.redis.Pipeline
local Pipeline = {}

---Queues one command.
---@param cmd string
---@param ... quern.redis.Arg
---@return quern.redis.Pipeline
function Pipeline:call(cmd, ...) end

---A connection to Redis, used by the VU that opened it only; closed when
---the VU's phase ends.
---@class quern.redis.Client
---@field sock quern.Socket The `step:tcp` socket.
---@field step quern.Step The step each call is a sample of (the connect's; assignable).
---@field pushes quern.redis.Reply[] RESP3 pushes received, in order.
---@field resp 2|3 The protocol.
---@field db integer The database selected.
local Client = {}

---Sends one command, reads its reply: one sample of `c.step` (part of the
---block's sample inside a `step:time` block). An error reply raises
---`Redis: <text>` (functional); a close, a timeout or a malformed reply is
---a technical error, raised.
---@param cmd string
---@param ... quern.redis.Arg
---@return quern.redis.Reply
function Client:call(cmd, ...) end

---Sends the commands `fn` queues in one send and reads every reply: one
---sample. Returns the replies in order (`nil` as `redis.null`, errors as
---`redis.error_reply`); if any was an error, raises the first once all are read.
---@param fn fun(p: quern.redis.Pipeline)
---@return quern.redis.Reply[]
function Client:pipeline(fn) end

---Closes the connection (no `QUIT`).
function Client:close() end

---@class quern.redis
---@field null quern.redis.Null A `nil` inside an array, set or map.
---@field error_reply quern.redis.error_reply The metatable of error replies kept as values: `getmetatable(v) == redis.error_reply`.
local redis = {}

---The metatable of error replies kept as values.
---@class quern.redis.error_reply
---@field __name string `"redis.error_reply"`.
local error_reply = {}

---The reply's text.
---@param e quern.redis.ErrorReply
---@return string
function error_reply.__tostring(e) end

---Internal, for tests: a command's bytes, a RESP array of bulk strings.
---@param args quern.redis.Arg[]
---@return string
function redis._encode(args) end

---Internal, for tests: the bytes of a command of one to three words, by
---the short path `c:call` takes for them (the same bytes as `_encode`).
---@param ... quern.redis.Arg
---@return string
function redis._encode_few(...) end

---Internal, for tests: one reply read from `reader` (anything with
---`reader:receive(what)`); never raises.
---@param reader { receive: fun(self, what: integer|"line"): string?, string? }
---@param pushes? quern.redis.Reply[] Where RESP3 pushes go (dropped without).
---@return quern.redis.Reply value
---@return "error"|"closed"|"timeout"|"protocol"|nil kind
---@return string? message
function redis._read_reply(reader, pushes) end

---Internal, for tests: a URL's parts, or `nil` and why.
---@param url string
---@return table? parts
---@return string? err
function redis._parse_url(url) end

---Connects to `url` (`redis://[[user]:password@]host[:port][/db]`, or
---`rediss://` for TLS): TCP, then `AUTH`, `HELLO 3`, `SELECT` as needed,
---all one sample of `step`. A bad URL is an error naming it.
---@param step quern.Step
---@param url string
---@param opts? quern.redis.ConnectOptions
---@return quern.redis.Client
function redis.connect(step, url, opts) end

return redis
