---@meta _
-- TCP sockets: step:tcp and its connections (docs/scenarios.md, "TCP sockets").

---Options of `step:tcp`; any other key is an error.
---@class quern.SocketOptions
---@field tls? boolean|quern.TlsOptions `true`, or TLS options: the connection is TLS.
---@field timeout? quern.Duration The connect's bound and each wait's default (default the scenario's request timeout, else 60 s).
---@field resolve? string[]
---@field connect_timeout? quern.Duration

---A TCP connection, used by the VU that opened it only; closed when the
---VU's phase ends.
---@class quern.Socket
---@field closed boolean `true` once closed, by either side or an error.
---@field error string Why it closed, `""` while open.
---@field tls boolean The connection is TLS.
---@field timeout number The connection's wait by default, in seconds (`opts.timeout`).
local Socket = {}

---Sends all of `data`, yielding the VU until the socket took it; on a
---closed connection a technical error, raised.
---@param data string
function Socket:send(data) end

---Returns the piece asked for once it came: `n` bytes, a `"line"` (its CRLF
---or LF stripped), or with nothing asked whatever came (one byte at
---least); else yields the VU until it comes, the timeout passes
---(`nil, "timeout"`) or the connection ends (`nil, "closed"`). A piece
---past 1 MiB is a technical error, raised.
---@param what? integer|"line"
---@param timeout? quern.Duration
---@return string? data
---@return "timeout"|"closed"|nil why
function Socket:receive(what, timeout) end

---Returns the bytes before `delimiter` (consumed, not returned) once they
---came, as `receive` does.
---@param delimiter string 1 to 256 bytes
---@param timeout? quern.Duration
---@return string? data
---@return "timeout"|"closed"|nil why
function Socket:receive_until(delimiter, timeout) end

---Raises `msg` as a technical error: a `step:time` block's sample takes it,
---else it counts against the step that opened the connection.
---@param msg string
function Socket:fail(msg) end

---Sends `bytes` whenever nothing was sent on the connection for
---`interval`, from the worker's loop: while the VU thinks, sleeps or waits
---on anything else. A beat goes between two sends, never inside one; it is
---no sample, its bytes count as the connection's. A failed beat closes the
---connection (`c.error` says why). `interval` nil or 0 stops it; else 10 ms
---to 1 day. A call replaces the previous one.
---@param interval? quern.Duration
---@param bytes? string 1 to 64 bytes (required with an interval)
function Socket:heartbeat(interval, bytes) end

---Closes the connection at once.
function Socket:close() end

---@class quern.Step
local Step = {}

---Opens a TCP connection to `host:port` (TLS with `opts.tls`): the connect
---is the step's sample, timed like a request; a refused one is a technical
---error, raised.
---@param host string
---@param port integer
---@param opts? quern.SocketOptions
---@return quern.Socket
function Step:tcp(host, port, opts) end
