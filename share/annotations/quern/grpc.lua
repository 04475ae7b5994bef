---@meta
-- quern.grpc and the gRPC calls of steps (docs/scenarios.md, "gRPC").

---@alias quern.GrpcStatus integer|"OK"|"CANCELLED"|"UNKNOWN"|"INVALID_ARGUMENT"|"DEADLINE_EXCEEDED"|"NOT_FOUND"|"ALREADY_EXISTS"|"PERMISSION_DENIED"|"RESOURCE_EXHAUSTED"|"FAILED_PRECONDITION"|"ABORTED"|"OUT_OF_RANGE"|"UNIMPLEMENTED"|"INTERNAL"|"UNAVAILABLE"|"DATA_LOSS"|"UNAUTHENTICATED"

---Options of a gRPC call.
---@class quern.GrpcOptions
---@field metadata? table<string, string> Header names and text values sent with the call.
---@field timeout? quern.Duration Sent as `grpc-timeout`; past it the call ends as `DEADLINE_EXCEEDED`.
---@field tls? quern.TlsOptions
---@field resolve? string[]
---@field connect_timeout? quern.Duration

---The response of a unary call (a plain table).
---@class quern.GrpcResponse
---@field status integer The gRPC status (0 OK).
---@field status_name string Its name: `"OK"`, `"NOT_FOUND"`, ...
---@field error string? `grpc-message` (or why the call failed) when the status is not OK.
---@field message table? The reply, when OK, fields by name.
---@field headers table<string, string> The reply's headers, names in lower case.
---@field trailers table<string, string> The reply's trailers, names in lower case.
---@field time number The call's time in ms.
---@field expect fun(self: quern.GrpcResponse, status: quern.GrpcStatus|quern.GrpcStatus[]): quern.GrpcResponse Accepts a status by name or number, or a list: that status is then no error.

---A server stream, read to its end (a plain table).
---@class quern.GrpcStream
---@field status integer
---@field status_name string
---@field error string?
---@field count integer Messages received.
---@field headers table<string, string>
---@field trailers table<string, string>
---@field time number
---@field expect fun(self: quern.GrpcStream, status: quern.GrpcStatus|quern.GrpcStatus[]): quern.GrpcStream
---@field messages fun(self: quern.GrpcStream): fun(): table? Iterates over the messages received.

---@class quern.grpc
local grpc = {}

---Reads the services and messages of `.proto` files (paths inside the
---script's folder) or descriptor sets (`.pb`), at load time.
---@param file string
---@param ... string
function grpc.load(file, ...) end

---@class quern.Step
local Step = {}

---A unary call, `"pkg.Service/Method"`, to `http://host:port` (h2c) or
---`https://host:port`; the call is the step's sample. A status the step does
---not expect (by default any but OK) is a technical error.
---@param target string
---@param method string
---@param request table
---@param opts? quern.GrpcOptions
---@return quern.GrpcResponse
function Step:grpc(target, method, request, opts) end

---A server-streaming call; the VU yields until the server's trailers, the
---whole call being the step's sample.
---@param target string
---@param method string
---@param request table
---@param opts? quern.GrpcOptions
---@return quern.GrpcStream
function Step:grpc_stream(target, method, request, opts) end

return grpc
