---@meta _
-- WebSockets: step:ws and its connections (docs/scenarios.md, "WebSockets").

---Options of `step:ws`; any other key is an error.
---@class quern.WebSocketOptions
---@field headers? table<string, string|number> Added to the upgrade request.
---@field protocols? string|string[] `Sec-WebSocket-Protocol`, by preference.
---@field timeout? quern.Duration The handshake's bound (default the scenario's request timeout, else 60 s).
---@field tls? quern.TlsOptions
---@field resolve? string[]
---@field connect_timeout? quern.Duration

---A WebSocket connection, used by the VU that opened it only; closed when
---the VU's phase ends.
---@class quern.WebSocket
---@field protocol string The subprotocol the server chose, `""` if none.
---@field close_code integer The close code the server sent (0: none yet).
local WebSocket = {}

---Sends one message, text unless `binary`; on a closed connection a
---technical error, raised.
---@param data string
---@param opts? { binary?: boolean }
function WebSocket:send(data, opts) end

---Returns `msg, kind` (`"text"` or `"binary"`) as soon as a message is there;
---else yields the VU until one comes, the timeout (default 60 s) passes
---(`nil, "timeout"`) or the connection ends (`nil, "closed"`).
---@param timeout? quern.Duration
---@return string? msg
---@return "text"|"binary"|"timeout"|"closed" kind
function WebSocket:receive(timeout) end

---Starts the closing handshake (code 1000 or 3000–4999, default 1000); does not wait.
---@param code? integer
---@param reason? string
function WebSocket:close(code, reason) end

---@class quern.Step
local Step = {}

---Opens a WebSocket (`ws://` or `wss://`); the handshake is the step's
---sample, a refused one a technical error, raised.
---@param url string
---@param opts? quern.WebSocketOptions
---@return quern.WebSocket
function Step:ws(url, opts) end
