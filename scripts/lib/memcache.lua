-- memcache: memcached's text protocol on step:tcp, a protocol written in
-- Lua (docs/protocols.md, "Writing a protocol of one's own"). Each call is
-- a sample of the step the client was opened with.
local M = {}
local Client = {}
Client.__index = Client

function M.connect(step, host, port, opts)
  local c = setmetatable({ step = step }, Client)
  c.sock = step:tcp(host, port, opts)        -- the connect: the step's sample
  return c
end

-- One command and its answer, timed as one sample; a line the protocol
-- does not expect is a failure of that sample (the server's own words).
local function call(c, line, read)
  return c.step:time(function()
    c.sock:send(line)
    return read(c.sock)
  end)
end

local function reply(s)
  return s:receive("line") or s:fail("memcached: no answer")
end

function Client:get(key)
  return call(self, "get " .. key .. "\r\n", function(s)
    local line = reply(s)
    if line == "END" then return nil end      -- a miss
    local n = tonumber(line:match("^VALUE %S+ %d+ (%d+)$")) or error("memcached: " .. line)
    local data = s:receive(n + 2) or s:fail("memcached: value cut short")
    if reply(s) ~= "END" then s:fail("memcached: no END after the value") end
    return data:sub(1, n)
  end)
end

function Client:set(key, value, ttl)
  local line = string.format("set %s 0 %d %d\r\n%s\r\n", key, ttl or 0, #value, value)
  return call(self, line, function(s)
    local got = reply(s)
    if got ~= "STORED" then error("memcached: " .. got) end
    return true
  end)
end

function Client:incr(key, by)
  return call(self, string.format("incr %s %d\r\n", key, by or 1), function(s)
    local got = reply(s)
    if got == "NOT_FOUND" then return nil end
    return math.tointeger(tonumber(got)) or error("memcached: " .. got)
  end)
end

function Client:close() self.sock:close() end

return M
