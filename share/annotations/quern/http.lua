---@meta
-- quern.http (untimed requests), the request methods of steps, responses
-- and request options (docs/scenarios.md, "Requests", "Responses").

---TLS settings of a request; paths are relative to the script's folder.
---@class quern.TlsOptions
---@field ca? string The CA bundle (PEM) that verifies the server.
---@field cert? string A client certificate (PEM).
---@field key? string The client certificate's private key (PEM).
---@field password? string The key's pass phrase.
---@field insecure? boolean `true`: the server's certificate and name are not checked.
---@field min? "1.0"|"1.1"|"1.2"|"1.3" The lowest TLS version.

---Credentials: `type` `"basic"` (default) or `"digest"` with `user` and
---`password`, or `"bearer"` with a `token`.
---@class quern.AuthOptions
---@field type? "basic"|"digest"|"bearer"
---@field user? string
---@field password? string
---@field token? string

---A file field of a multipart body.
---@class quern.MultipartFile
---@field path string Relative to the script's folder.
---@field type? string Its `Content-Type` (default `application/octet-stream`).
---@field name? string The file name sent (default the path's last part).

---Which embedded resources a page loads: shell globs over the absolute URL.
---@class quern.ResourceOptions
---@field include? string|string[] A URL must match one of these (default: the page's origin).
---@field exclude? string|string[] A URL matching one of these is dropped.

---Options of a request; an unknown one is an error. The connection options
---(`tls` to `connect_timeout`) and `resources`, `cache`, `timeout`,
---`redirects` may also be a scenario's `request` defaults.
---@class quern.RequestOptions
---@field headers? table<string, string|number> Request headers.
---@field query? table<string, string|number|boolean|(string|number|boolean)[]> URL-encoded and appended to the URL.
---@field form? table<string, string|number|boolean|(string|number|boolean)[]> Body `k=v&…`, form-encoded.
---@field json? any Body: the value as JSON (`Content-Type: application/json`).
---@field body? string Raw body, no Content-Type added.
---@field multipart? table<string, string|number|quern.MultipartFile> Body `multipart/form-data`.
---@field timeout? quern.Duration Limit for the whole transfer (default 60 s; 0: none).
---@field redirects? boolean|integer Follow redirects: `true` up to 10, a number up to that many (default false).
---@field tls? quern.TlsOptions
---@field http2? boolean HTTP/2: by ALPN over TLS, with prior knowledge (h2c) on `http:`.
---@field http1? boolean HTTP/1.1 only (the default); undoes a scenario's `http2`.
---@field resolve? string[] `"host:port:address"` entries: connect there without DNS.
---@field auth? quern.AuthOptions
---@field compressed? boolean `Accept-Encoding` with what libcurl decodes (default true).
---@field connect_timeout? quern.Duration The longest a connection may take to open.
---@field resources? boolean|quern.ResourceOptions Load what an HTML answer embeds, within the step's sample.
---@field cache? boolean Consult and fill the VU's cache of resources (default true).

---Timings of a request, in milliseconds.
---@class quern.Timings
---@field dns number Duration of the name lookup.
---@field connect number Duration of the TCP connect, after the lookup.
---@field tls number Duration of the TLS handshake, after the connect (0 for `http:`).
---@field ttfb number Time to first byte, from the start of the request.
---@field total number The same as `r.time`.

---What a page's embedded resources did.
---@class quern.Resources
---@field fetched integer
---@field revalidated integer
---@field cached integer
---@field failed integer
---@field time number The page's time in milliseconds.

---A response. `tostring(r)` is `"response 200 (1.23 ms)"`.
---@class quern.Response
---@field status integer HTTP status, `0` when no response came.
---@field ok boolean `true` when the transfer succeeded and the status is from 1 to 399.
---@field error string? libcurl's message when the transfer failed, else `nil`.
---@field body string The body (`""` for `head`); bodies past 16 MiB are counted but not kept.
---@field headers table<string, string> Names in lower case; a repeated header joined with `", "`.
---@field protocol string? `"HTTP/1.1"` or `"HTTP/2"` (`"HTTP/1.0"`), `nil` when no response came.
---@field url string The URL requested, with its `query` appended.
---@field size integer Bytes received, headers and body, as on the wire.
---@field time number The request's duration in milliseconds.
---@field timings quern.Timings
---@field trace_id string? The trace id of the `traceparent` the request carried, `nil` when none.
---@field resources quern.Resources? Only on a response that asked for its page's resources.
local Response = {}

---Passes when the status is the one, or one of the list; an accepted error
---status makes the sample no error. Returns `r`.
---@param status integer|integer[]
---@return quern.Response
function Response:expect(status) end

---A soft check named `name` on this response: `cond` a function called with
---`r` (passes when it returns a true value) or a value (passes when true).
---Counted by name; it never fails the sample nor ends the run. Returns
---whether it passed.
---@param name string
---@param cond any
---@return boolean
function Response:check(name, cond) end

---Passes when the body contains `s`, plainly (no pattern). Returns `r`.
---@param s string
---@return quern.Response
function Response:contains(s) end

---The captures of `string.match(r.body, pattern)` (the whole match without
---captures); fails the step when nothing matches.
---@param pattern string
---@return string ...
function Response:match(pattern) end

---The body decoded as JSON (`null` → `nil`; with `{ null = true }`:
---`quern.json.null`); fails the step when the body is not JSON.
---@param opts? { null?: boolean }
---@return any
function Response:json(opts) end

---The text of the first node found (`nil` if none), or the boolean, number or
---string the expression computes. HTML or XML by the `Content-Type`.
---@param expr string
---@return string|number|boolean|nil
function Response:xpath(expr) end

---A list of the text of every node found (empty if none).
---@param expr string
---@return string[]
function Response:xpath_all(expr) end

---The header's value, name in any case; `nil` if absent.
---@param name string
---@return string?
function Response:header(name) end

---@class quern.Step
local Step = {}

---A GET, timed as one sample of the step; returns when the response is complete.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:get(url, opts) end

---A POST, timed as one sample of the step (no body: an empty one).
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:post(url, opts) end

---A PUT, timed as one sample of the step.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:put(url, opts) end

---A PATCH, timed as one sample of the step.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:patch(url, opts) end

---A DELETE, timed as one sample of the step.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:delete(url, opts) end

---A HEAD, timed as one sample of the step.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:head(url, opts) end

---A request of any method, in upper case (`"OPTIONS"`), timed as one sample.
---@param method string
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function Step:request(method, url, opts) end

---A request of a batch: `{ method, url, opts, step = s }` (docs/scenarios.md,
---"Batches"); `step` names the step of its own sample (`sample = "each"`).
---@class quern.BatchEntry
---@field [1] string The method, in upper case.
---@field [2] string The URL.
---@field [3]? quern.RequestOptions The options of a single request (not `resources`).
---@field step? quern.Step

---Options of a batch.
---@class quern.BatchOptions
---@field sample? "each"|"batch" A sample per request (default), or one for the whole batch.

---Up to 100 requests at once on the VU's connections (6 at once per
---origin); the responses in the order given.
---@param reqs quern.BatchEntry[]
---@param opts? quern.BatchOptions
---@return quern.Response[]
function Step:batch(reqs, opts) end

---Untimed requests: no sample, counted nowhere, no think time.
---@class quern.http
local http = {}

---An untimed GET.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.get(url, opts) end

---An untimed POST.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.post(url, opts) end

---An untimed PUT.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.put(url, opts) end

---An untimed PATCH.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.patch(url, opts) end

---An untimed DELETE.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.delete(url, opts) end

---An untimed HEAD.
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.head(url, opts) end

---An untimed request of any method, in upper case.
---@param method string
---@param url string
---@param opts? quern.RequestOptions
---@return quern.Response
function http.request(method, url, opts) end

---Untimed requests at once (as step:batch, no sample).
---@param reqs quern.BatchEntry[]
---@return quern.Response[]
function http.batch(reqs) end

return http
