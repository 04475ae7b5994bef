---@meta _
-- quern.json: JSON both ways (docs/scenarios.md, "JSON: quern.json").

---Options of `quern.json.encode`.
---@class quern.json.EncodeOptions
---@field pretty? boolean Indented by 2, one member a line.
---@field sort_keys? boolean Members by name (otherwise in the table's order).

---Options of `quern.json.decode`.
---@class quern.json.DecodeOptions
---@field null? boolean `false`: `nil` instead of `quern.json.null`.

---JSON's `null`: one value, compared with `==` (`tostring` gives `"null"`).
---@class quern.json.Null

---@class quern.json
---@field null quern.json.Null JSON's `null`: decoding gives it, encoding writes it as `null`.
local json = {}

---Compact JSON of `v`; an error names the path of a value JSON cannot carry
---(`$.items[2].price: NaN and infinity have no JSON form`).
---@param v any
---@param opts? quern.json.EncodeOptions
---@return string
function json.encode(v, opts) end

---The value of the JSON text `s` (any JSON value); `null` is `quern.json.null`
---unless `opts.null == false`. Raises `quern.json.decode: <reason> (line L, column C)`.
---@param s string
---@param opts? quern.json.DecodeOptions
---@return any
function json.decode(s, opts) end

---Marks table `t` (a new one if none is given) as a JSON array and returns it:
---`json.array{}` encodes as `[]`.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end

---Marks table `t` (a new one if none is given) as a JSON object and returns it:
---`json.object{}` encodes as `{}`.
---@generic T: table
---@param t? T
---@return T
function json.object(t) end
