---@meta _
-- UDP sockets: step:udp and its sockets (docs/scenarios.md, "UDP sockets").

---Options of `step:udp`; any other key is an error.
---@class quern.UdpOptions
---@field timeout? quern.Duration Each receive's default wait (default the scenario's request timeout, else 60 s).

---A UDP socket connected to one peer, used by the VU that opened it only;
---closed when the VU's phase ends.
---@class quern.Datagram
---@field closed boolean `true` once closed, by the script or an error.
---@field error string Why it closed, `""` while open.
local Datagram = {}

---Sends `data` as one datagram (65,507 bytes at most), yielding the VU
---while the socket cannot take it; `true`, or `nil, "refused"` when the
---peer refused the previous one and this one too.
---@param data string
---@return true? sent
---@return "refused"|nil why
function Datagram:send(data) end

---Returns the next datagram from the peer once it came; else yields the
---VU until it comes, the timeout passes (`nil, "timeout"`), the peer
---refuses (an ICMP port unreachable: `nil, "refused"`) or the socket is
---closed (`nil, "closed"`).
---@param timeout? quern.Duration
---@return string? data
---@return "timeout"|"refused"|"closed"|nil why
function Datagram:receive(timeout) end

---Raises `msg` as a technical error: a `step:time` block's sample takes it,
---else it counts against the step that opened the socket.
---@param msg string
function Datagram:fail(msg) end

---Closes the socket at once.
function Datagram:close() end

---@class quern.Step
local Step = {}

---Makes a UDP socket connected to `host:port`, a numeric IPv4 or IPv6
---address (or `"localhost"`): at once, with no sample, since nothing was
---sent; exchanges are timed with `step:time`.
---@param host string
---@param port integer
---@param opts? quern.UdpOptions
---@return quern.Datagram
function Step:udp(host, port, opts) end
