---@meta _
-- Feeders: what quern.csv returns (docs/scenarios.md, "CSV data feeders").

---@alias quern.CsvMode
---| "sequential" # the next row of the worker's cursor (default)
---| "unique"     # no two VUs anywhere the same row
---| "circular"   # unique, wrapping at the end of the file
---| "random"     # a row drawn uniformly

---Options of `quern.csv`; unknown ones are an error.
---@class quern.CsvOptions
---@field mode? quern.CsvMode `"sequential"` (default), `"unique"`, `"circular"`, `"random"`.
---@field header? boolean The first line names the columns (default true); rows are then keyed by name, else arrays.
---@field on_exhausted? "error"|"wrap"|"stop" When `unique` or `sequential` runs out: raise, start again, or return `nil`.

---A CSV data feeder. Each call returns a fresh table: a row keyed by the
---header's names (`header = true`), else an array of strings.
---@class quern.Feeder
local Feeder = {}

---The next row for this VU (the VU running the call when `vu` is omitted),
---according to the mode; `nil` when exhausted with `on_exhausted = "stop"`.
---From `init`, `run` or `finish`.
---@param vu? quern.VU
---@return table<string|integer, string>?
function Feeder:next(vu) end

---The number of data rows (the header is not one).
---@return integer
function Feeder:count() end

---Row `i`, 1 … `count()` (an error outside).
---@param i integer
---@return table<string|integer, string>
function Feeder:row(i) end
