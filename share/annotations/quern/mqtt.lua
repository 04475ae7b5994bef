---@meta
-- quern.mqtt: an MQTT 3.1.1 client over step:tcp (docs/scenarios.md, "MQTT:
-- quern.mqtt").

---A will: what the broker publishes when the connection ends without a
---DISCONNECT.
---@class quern.mqtt.Will
---@field topic string
---@field payload? string Default `""`.
---@field qos? 0|1|2 Default 0.
---@field retain? boolean

---Options of `mqtt.connect`: the session's, and those of `step:tcp`.
---@class quern.mqtt.ConnectOptions
---@field client_id? string Default `"quern"` and 16 random hex digits.
---@field username? string Default the URL's.
---@field password? string Default the URL's; needs a username.
---@field keepalive? integer Seconds, 0 to 65535 (default 60; 0: none): a PINGREQ goes from the worker's loop after that long without a send.
---@field clean? boolean A clean session (default `true`).
---@field will? quern.mqtt.Will
---@field tls? boolean|quern.TlsOptions TLS (default `true` for `mqtts://`).
---@field timeout? quern.Duration The connect's bound, and the longest wait for each acknowledgement.
---@field resolve? string[] `"host:port:address"` entries: connect there without DNS.
---@field connect_timeout? quern.Duration The longest the connection may take to open.

---Options of `c:publish`.
---@class quern.mqtt.PublishOptions
---@field qos? 0|1|2 Default 0.
---@field retain? boolean

---A message received.
---@class quern.mqtt.Message
---@field topic string
---@field payload string
---@field qos 0|1|2 The QoS it came with.
---@field retain boolean A retained message, sent at the subscribe.
---@field dup boolean The broker's resend.
---@field id? integer Its packet id (QoS 1 and 2).

---A connection to an MQTT broker, used by the VU that opened it only;
---closed when the VU's phase ends.
---@class quern.mqtt.Client
---@field sock quern.Socket The `step:tcp` socket.
---@field step quern.Step The step each request is a sample of (the connect's; assignable).
---@field keepalive integer The keepalive, in seconds.
---@field session_present boolean The broker kept a session of this client id.
local Client = {}

---Publishes a message: one sample of `c.step` (part of the block's sample
---inside a `step:time` block): QoS 0 the send, QoS 1 until PUBACK, QoS 2
---until PUBCOMP. A close, a timeout or a malformed answer is a technical
---error, raised.
---@param topic string No wildcard.
---@param payload string|number
---@param opts? quern.mqtt.PublishOptions
function Client:publish(topic, payload, opts) end

---Subscribes to one filter or a list of them: one sample, until SUBACK.
---Returns the QoS granted (a list for a list). A refusal (0x80) raises
---`MQTT: subscription to "..." refused (SUBACK 0x80)`, a functional error.
---@param topics string|string[]
---@param opts? { qos?: 0|1|2 }
---@return integer|integer[] granted
function Client:subscribe(topics, opts) end

---Unsubscribes: one sample, until UNSUBACK.
---@param topics string|string[]
function Client:unsubscribe(topics) end

---The next message: those queued while the client waited for an
---acknowledgement first, else yields the VU until one comes (QoS 1 and 2
---acknowledged as they arrive), the timeout passes (`nil, "timeout"`) or
---the connection ends (`nil, "closed"`). Not a sample.
---@param timeout? quern.Duration Default the connection's timeout.
---@return string? topic
---@return string|"timeout"|"closed" payload
---@return quern.mqtt.Message? message
function Client:receive(timeout) end

---Completes the QoS 2 messages received, sends DISCONNECT and closes.
function Client:close() end

---@class quern.mqtt
---@field PINGREQ string The keepalive's packet, the socket's heartbeat.
---@field _encode quern.mqtt._encode Internal, for tests: the packets' encoders.
local mqtt = {}

---Internal, for tests: packets as bytes, or `nil` and why.
---@class quern.mqtt._encode
---@field disconnect string DISCONNECT's two bytes.
local encode = {}

---CONNECT of `o` (`client_id`, `username`, `password`, `keepalive`, `clean`, `will`).
---@param o table
---@return string? packet
---@return string? err
function encode.connect(o) end

---PUBLISH; `id` with QoS 1 and 2.
---@param topic string
---@param payload string
---@param qos 0|1|2
---@param retain? boolean
---@param dup? boolean
---@param id? integer
---@return string? packet
---@return string? err
function encode.publish(topic, payload, qos, retain, dup, id) end

---SUBSCRIBE to each filter at `qos`.
---@param id integer
---@param filters string[]
---@param qos 0|1|2
---@return string? packet
---@return string? err
function encode.subscribe(id, filters, qos) end

---UNSUBSCRIBE from each filter.
---@param id integer
---@param filters string[]
---@return string? packet
---@return string? err
function encode.unsubscribe(id, filters) end

---PUBACK, PUBREC, PUBREL or PUBCOMP (type 4 to 7) of packet `id`.
---@param t integer
---@param id integer
---@return string packet
function encode.ack(t, id) end

---Internal, for tests: a remaining length's bytes, or `nil` and why.
---@param n integer 0 to 268435455
---@return string? bytes
---@return string? err
function mqtt._varint(n) end

---Internal, for tests: the remaining length in `s` from `pos`, and the
---position after it; or `nil` and `"short"` or `"bad"`.
---@param s string
---@param pos integer
---@return integer|nil value
---@return integer|string next
function mqtt._unvarint(s, pos) end

---Internal, for tests: a UTF-8 string as MQTT sends it, or `nil` and why.
---@param s string
---@return string? bytes
---@return string? err
function mqtt._string(s) end

---Internal, for tests: a packet from its first byte and its body, or `nil` and why.
---@param first integer
---@param body string
---@return table? packet
---@return string? err
function mqtt._parse(first, body) end

---Internal, for tests: a URL's parts, or `nil` and why.
---@param url string
---@return table? parts
---@return string? err
function mqtt._parse_url(url) end

---Internal, for tests: a duration in seconds, or `nil`.
---@param d quern.Duration
---@return number?
function mqtt._seconds(d) end

---Connects to `url` (`mqtt://[user[:password]@]host[:port]`, or `mqtts://`
---for TLS): TCP, CONNECT, CONNACK, one sample of `step`. A refusal raises
---`MQTT: connection refused: <why> (CONNACK <code>)`, a functional error.
---A bad URL is an error naming it.
---@param step quern.Step
---@param url string
---@param opts? quern.mqtt.ConnectOptions
---@return quern.mqtt.Client
function mqtt.connect(step, url, opts) end

---Internal, for tests: one packet read from `reader` (anything with
---`reader:receive(n, wait)`); never raises.
---@param reader { receive: fun(self, n: integer, wait?: number): string?, string? }
---@param wait? number Seconds for its first bytes.
---@return table? packet
---@return "idle"|"closed"|"timeout"|"protocol"|nil kind
---@return string? message
function mqtt._read_packet(reader, wait) end

return mqtt
