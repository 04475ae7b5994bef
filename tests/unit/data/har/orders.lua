-- ORDERS: recorded by Firefox 128.0 (Firefox 128.0) on 2026-05-11T08:30:00.000+02:00,
-- converted by quern har2lua from orders.har: 5 steps, 8 requests, 2 correlated values.
-- Run it elsewhere with -p base_url=http://host:port.
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("base_url", "http://127.0.0.1:8080")

local sc = quern.scenario("ORDERS")

local s1 = sc:step(1, "/cart") -- GET /cart
local s2 = sc:step(2, "Order 77") -- POST /orders
local s3 = sc:step(3, "PATCH /api/orders/77") -- PATCH /api/orders/77
local s4 = sc:step(4, "OPTIONS /api/ping") -- OPTIONS /api/ping
local s5 = sc:step(5, "/logout") -- GET /logout

function sc.run(vu)
  local r
  local cart_id, orders_id -- values the server handed out, set where they appear

  r = s1:get(base .. "/cart"):expect(200)
  -- cart_id: the hidden input "cart_id" of the page GET /cart
  cart_id = r:xpath("//input[@name='cart_id']/@value")

  quern.sleep("1488ms") -- think time as recorded
  s2:time(function() -- the page, its redirects and its resources as one sample
    r = http.post(base .. "/orders", {
      form = { cart_id = cart_id, extra = { "gift wrap", "card" } },
    }):expect(303)
    -- orders_id: the Location header of POST /orders (303)
    orders_id = r:header("location"):match("/orders/([^/?&#]+)")
    http.get(base .. "/orders/" .. orders_id .. "?step=confirm"):expect(302)
    http.get(base .. "/orders/" .. orders_id):expect(200)
    http.get(base .. "/static/order.css"):expect({ 200, 304 })
  end)

  quern.sleep("437ms") -- think time as recorded
  s3:patch(base .. "/api/orders/" .. orders_id, {
    headers = { ["X-Requested-With"] = "XMLHttpRequest" },
    json = { { op = "replace", path = "/qty", value = 3 } },
  }):expect(200)

  s4:request("OPTIONS", base .. "/api/ping", {
    headers = { ["Content-Type"] = "text/plain" },
    body = "line \"1\"\n",
  }):expect(204)

  quern.sleep("2896ms") -- think time as recorded
  s5:get(base .. "/logout"):expect(200)
end
