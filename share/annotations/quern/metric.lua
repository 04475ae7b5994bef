---@meta _
-- Custom metrics: quern.metric (docs/scenarios.md, "Custom metrics").

---Declares the script's own metrics, at load time (like steps). A name is
---`[A-Za-z_][A-Za-z0-9_]*`; at most 64 metrics; the same name with another
---kind is an error.
---@class quern.metric
local metric = {}

---A counter: a total (`c:add(n)`), and its rate.
---@param name string
---@return quern.Metric
function metric.counter(name) end

---A gauge: one value for the run (`g:set(v)`), the last set, its min and max.
---@param name string
---@return quern.Metric
function metric.gauge(name) end

---A trend: a distribution (`t:add(v)`) in the unit the script gives: count,
---mean, min, percentiles, max.
---@param name string
---@return quern.Metric
function metric.trend(name) end

---A custom metric, as `quern.metric.counter`, `gauge` or `trend` returned it.
---@class quern.Metric
local Metric = {}

---A counter: adds `n` (>= 0; 1 when omitted). A trend: records `v` (>= 0).
---From `init`, `run` or `finish`.
---@param n? number
function Metric:add(n) end

---A gauge: sets its value to `v` (a finite number). From `init`, `run` or `finish`.
---@param v number
function Metric:set(v) end
