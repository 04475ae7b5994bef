---@meta
-- quern.pg: a PostgreSQL client over step:tcp (docs/scenarios.md,
-- "PostgreSQL: quern.pg").

---Options of `pg.connect`: `params`, and those of `step:tcp` (not `tls`).
---@class quern.pg.ConnectOptions
---@field params? table<string, string|number|boolean> More parameters of the startup message (`application_name`, `search_path`, any setting).
---@field timeout? quern.Duration The connect's bound, and the longest wait for each message.
---@field resolve? string[] `"host:port:address"` entries: connect there without DNS.
---@field connect_timeout? quern.Duration The longest the connection may take to open.

---SQL NULL, in a row and as a parameter: one value, compared with `==`.
---@class quern.pg.Null

---A value of a row: by its column's type, `quern.pg.Null` for NULL.
---@alias quern.pg.Value string|integer|number|boolean|quern.pg.Null

---A parameter, sent as text: strings as they are, integral numbers as
---integers, booleans as `true`/`false`, `nil` or `pg.null` as NULL.
---@alias quern.pg.Param string|number|boolean|quern.pg.Null|nil

---A column of a result.
---@class quern.pg.Column
---@field name string Its name.
---@field type integer Its type's OID (23 int4, 25 text, ...).

---The result of a statement.
---@class quern.pg.Result
---@field rows table<string, quern.pg.Value>[] The rows, each a table keyed by column name (2^20 at most).
---@field dropped? integer The rows past 2^20, read and not kept.
---@field fields string[] The columns' names, in order.
---@field columns? quern.pg.Column[] The columns, with their type OIDs (a statement that returns rows).
---@field command string The command of the tag: `"SELECT"`, `"INSERT"`, `"CREATE TABLE"`; `""` for an empty query.
---@field count? integer The rows the tag counts (`INSERT 0 1` → 1); `nil` for a tag without a count.
---@field tag? string The whole command tag, `"INSERT 0 1"`.
---@field results quern.pg.Result[] Every statement's result, in order (one, unless a simple query held several).

---An ErrorResponse or NoticeResponse, its fields by name.
---@class quern.pg.Error
---@field severity string `"ERROR"`, `"FATAL"`, `"NOTICE"`, ...
---@field code string The SQLSTATE, `"42P01"`.
---@field message string The primary message.
---@field detail? string
---@field hint? string
---@field position? string

---A connection to PostgreSQL, used by the VU that opened it only; closed
---when the VU's phase ends.
---@class quern.pg.Client
---@field sock quern.Socket The `step:tcp` socket.
---@field step quern.Step The step each query is a sample of (the connect's; assignable).
---@field params table<string, string> The server's ParameterStatus values (`server_version`, `TimeZone`, ...).
---@field pid? integer The backend's process id (BackendKeyData).
---@field secret? integer The backend's cancel key.
---@field status? string The transaction status of the last ReadyForQuery: `"I"` idle, `"T"` in a transaction, `"E"` in a failed one.
---@field error? quern.pg.Error The last ErrorResponse.
---@field notices quern.pg.Error[] The first 100 notices.
---@field notifications { pid: integer, channel: string, payload: string }[] The first 100 LISTEN notifications.
---@field statements table<string, table> The statements prepared, by SQL text.
---@field nstatements integer Their count (256 at most).
---@field timeout? quern.Duration The timeout given to `pg.connect`.
---@field user string
---@field database string
local Client = {}

---Runs `sql`: one sample of `c.step` (part of the block's sample inside a
---`step:time` block). Without `params`, the simple query protocol (several
---statements allowed: the last one's result, each in `results`); with
---them, the extended one, the statement prepared once per connection. An
---ErrorResponse raises `PostgreSQL: <SQLSTATE>: <message>` (functional); a
---close, a timeout or a malformed message is a technical error, raised.
---@param sql string
---@param params? quern.pg.Param[]
---@return quern.pg.Result
function Client:query(sql, params) end

---Sends Terminate and closes the connection.
function Client:close() end

---@class quern.pg
---@field null quern.pg.Null SQL NULL.
local pg = {}

---Internal, for tests: the startup message of the name/value pairs.
---@param params string[][]
---@return string
function pg._startup(params) end

---Internal, for tests: a Parse message.
---@param name string
---@param sql string
---@return string
function pg._parse_msg(name, sql) end

---Internal, for tests: a Bind message of statement `name`.
---@param name string
---@param params quern.pg.Param[]
---@param held integer The statement's highest `$N`.
---@return string
function pg._bind(name, params, held) end

---Internal, for tests: the highest `$N` of `sql`, outside quotes and comments.
---@param sql string
---@return integer
function pg._placeholders(sql) end

---Internal, for tests: one message read from `reader`; never raises.
---@param reader { receive: fun(self, n: integer): string?, string? }
---@return string? type
---@return string|"closed"|"timeout"|"protocol" body_or_kind
---@return string? message
function pg._read_message(reader) end

---Internal, for tests: an ErrorResponse's fields, or `nil`, kind, why.
---@param body string
---@return quern.pg.Error?
function pg._parse_error(body) end

---Internal, for tests: `"<SQLSTATE>: <message>"`.
---@param e quern.pg.Error
---@return string
function pg._error_text(e) end

---Internal, for tests: a RowDescription's columns, or `nil`, kind, why.
---@param body string
---@return quern.pg.Column[]?
function pg._parse_row_description(body) end

---Internal, for tests: a DataRow as a table, or `nil`, kind, why.
---@param body string
---@param cols quern.pg.Column[]
---@return table<string, quern.pg.Value>?
function pg._parse_data_row(body, cols) end

---Internal, for tests: a command tag's command and count.
---@param tag string
---@return string command
---@return integer? count
function pg._parse_tag(tag) end

---Internal, for tests: SCRAM's client-first message and its bare part.
---@param user string
---@param nonce string
---@return string first
---@return string bare
function pg._scram_first(user, nonce) end

---Internal, for tests: the client-final message and the server signature
---expected, or `nil` and why.
---@param password string
---@param bare string
---@param nonce string
---@param server_first string
---@return string? final
---@return string signature_or_why
function pg._scram_final(password, bare, nonce, server_first) end

---Internal, for tests: `true` when the server-final carries `signature`,
---else `nil` and why.
---@param server_final string
---@param signature string
---@return true?
---@return string? why
function pg._scram_verify(server_final, signature) end

---Internal, for tests: md5's answer, `"md5" .. md5(md5(password .. user) .. salt)`.
---@param user string
---@param password string
---@param salt string
---@return string
function pg._md5_password(user, password, salt) end

---Internal, for tests: a URL's parts, or `nil` and why.
---@param url string
---@return table? parts
---@return string? err
function pg._parse_url(url) end

---Connects to `url` (`postgres://user[:password]@host[:port][/database]`):
---TCP, the startup message, the login (SCRAM-SHA-256, md5, cleartext or
---none), up to the first ReadyForQuery, all one sample of `step`. A bad URL
---is an error naming it; a refused login raises the server's message.
---@param step quern.Step
---@param url string
---@param opts? quern.pg.ConnectOptions
---@return quern.pg.Client
function pg.connect(step, url, opts) end

return pg
