---@meta _
-- Server-sent events: step:sse and its streams (docs/scenarios.md,
-- "Server-sent events").

---Options of `step:sse`; any other key is an error.
---@class quern.EventStreamOptions
---@field headers? table<string, string|number>
---@field last_event_id? string Sent as `Last-Event-ID` (an empty one is not sent).
---@field timeout? quern.Duration The wait for the headers (default the scenario's request timeout, else 60 s).
---@field tls? quern.TlsOptions
---@field http1? boolean
---@field http2? boolean
---@field resolve? string[]
---@field auth? quern.AuthOptions
---@field compressed? boolean
---@field connect_timeout? quern.Duration

---An event of a stream.
---@class quern.Event
---@field id string The last event ID.
---@field event string `"message"` unless an `event` field named another.
---@field data string The data lines joined by `"\n"`.
---@field retry integer? The last `retry` field, in ms (`nil` before one).

---A server-sent event stream, used by the VU that opened it only; closed
---when the VU's phase ends.
---@class quern.EventStream
---@field last_id string The last event ID of the events `next` returned: what to give `last_event_id` to resume.
---@field status integer The answer's status.
---@field retry integer? The reconnection time the server last set, in ms (`nil`: none).
local EventStream = {}

---Returns the next event as soon as one is there; else yields the VU until
---one comes, the timeout (default 60 s) passes (`nil, "timeout"`) or the
---stream ends (`nil, "closed"`).
---@param timeout? quern.Duration
---@return quern.Event? event
---@return "timeout"|"closed"? why
function EventStream:next(timeout) end

---Ends the stream; events already queued can still be read, then `nil, "closed"`.
function EventStream:close() end

---@class quern.Step
local Step = {}

---Subscribes: a GET with `Accept: text/event-stream`, returning once the
---answer's headers are in (the step's sample); a refused answer is a
---technical error, raised.
---@param url string
---@param opts? quern.EventStreamOptions
---@return quern.EventStream
function Step:sse(url, opts) end
