-- SHOP-LIST: recorded by WebInspector 537.36 (Chrome 120.0) on 2026-03-02T10:00:00.000Z,
-- converted by quern har2lua from shop.har: 4 steps, 7 requests, 4 correlated values.
-- Run it elsewhere with -p shop_url=http://host:port.
-- Left out by --exclude: 1 request.
-- Not replayed: 1 request neither a page, a call nor a resource (websockets, pings, failed ones).
-- Recorded secrets are not copied: give them as properties: -p password=...
local quern = require "quern"
local http = require "quern.http"

local base = quern.property("shop_url", "https://shop.test")
local secret_password = quern.property("password") -- no default: give it with -p

local sc = quern.scenario("SHOP-LIST")

local s1 = sc:step(1, "Shop: sign in") -- GET /signin
local s2 = sc:step(2, "Account") -- POST /signin
local s3 = sc:step(3, "POST /api/orders") -- POST /api/orders
local s4 = sc:step(4, "Order 1017") -- GET /orders/1017

function sc.run(vu)
  local r
  local csrfmiddlewaretoken, csrf_token, id, cart -- values the server handed out, set where they appear

  s1:time(function() -- the page and its resources as one sample
    r = http.get(base .. "/signin"):expect(200)
    -- csrfmiddlewaretoken: the hidden input "csrfmiddlewaretoken" of the page GET /signin
    csrfmiddlewaretoken = r:xpath("//input[@name='csrfmiddlewaretoken']/@value")
    -- csrf_token: the meta "csrf-token" of the page GET /signin
    csrf_token = r:xpath("//meta[@name='csrf-token']/@content")
    http.get(base .. "/static/site.css"):expect(200)
    http.get("https://cdn.example.net/lib.js"):expect(200)
  end)

  quern.sleep("2430ms") -- think time as recorded
  s2:time(function() -- the page and its redirects as one sample
    http.post(base .. "/signin", {
      form = { csrfmiddlewaretoken = csrfmiddlewaretoken, user = "alice", password = secret_password },
    }):expect(302)
    http.get(base .. "/account"):expect(200)
  end)

  quern.sleep("440ms") -- think time as recorded
  -- recorded with an Authorization header, not copied: add auth = { ... }
  r = s3:post(base .. "/api/orders", {
    headers = { ["X-CSRF-Token"] = csrf_token },
    json = { items = { { sku = "A-100", qty = 2 } }, gift = false, note = quern.json.null, total = 12.5, tags = quern.json.array{} },
  }):expect(201)
  -- id: "id" in the JSON answer to POST /api/orders
  id = r:json()["order"]["id"]
  -- cart: "cart" in the JSON answer to POST /api/orders
  cart = r:json()["order"]["cart"]

  quern.sleep("975ms") -- think time as recorded
  s4:get(base .. "/orders/" .. id .. "?cart=" .. cart):expect(200)
end
