-- Telemetry over MQTT: sensors publish readings at QoS 0, 1 and 2, dashboards
-- subscribe to them all and count what they receive.
--
--   quern run scripts/mqtt.lua --vus 4 --runs 3 -p mqtt_url=mqtt://user:secret@127.0.0.1:1883
--
-- Any MQTT 3.1.1 broker will do (Debian's mosquitto: mosquitto -p 1883). The
-- sensors and dashboards share --vus by the weights below (--vus is their
-- sum: -p sensors=2 -p dashboards=2 by default). In each run the
-- dashboards subscribe first, then tell they are ready by a retained message
-- of that run's; the sensors wait for every dashboard's, then publish, so
-- that no reading is sent before everyone listens (a broker that kept the
-- retained messages of an earlier test wants another -p topic=). Each
-- dashboard's counts are metrics. tests/e2e/mqtt.sh runs it
-- and checks quern's counts against the broker's own ($SYS).
local quern = require "quern"
local mqtt  = require "quern.mqtt"

local url        = quern.property("mqtt_url", "mqtt://127.0.0.1:1883")
local sensors    = math.tointeger(tonumber(quern.property("sensors", "2")))
local dashboards = math.tointeger(tonumber(quern.property("dashboards", "2")))
local readings   = math.tointeger(tonumber(quern.property("readings", "5")))  -- per QoS, per sensor run
local topic      = quern.property("topic", "quern/telemetry")

local sensor    = quern.scenario("MQTT-SENSOR", { weight = sensors })
local dashboard = quern.scenario("MQTT-DASHBOARD", { weight = dashboards })

local s_connect = sensor:step(1, "Connect")
local s_wait    = sensor:step(2, "Wait for the dashboards")
local publish   = { [0] = sensor:step(3, "Publish QoS 0"),
                    [1] = sensor:step(4, "Publish QoS 1"),
                    [2] = sensor:step(5, "Publish QoS 2") }

local d_connect = dashboard:step(1, "Connect")
local subscribe = dashboard:step(2, "Subscribe")
local ready     = dashboard:step(3, "Ready")

-- what the dashboards received, by QoS: the sensors' counts, times dashboards
local received = { [0] = quern.metric.counter("mqtt_received_q0"),
                   [1] = quern.metric.counter("mqtt_received_q1"),
                   [2] = quern.metric.counter("mqtt_received_q2") }

function sensor.run(vu)
  local c = mqtt.connect(s_connect, url, { keepalive = 30, timeout = "5s" })
  -- every dashboard of this run has subscribed: its retained "ready" says so
  s_wait:time(function()
    c:subscribe(topic .. "/ready/" .. vu.run .. "/+", { qos = 1 })
    for _ = 1, dashboards do
      assert(c:receive("5s"), "a dashboard did not say it was ready")
    end
  end)
  for qos = 0, 2 do
    c.step = publish[qos]  -- each publish is a sample of its QoS's step
    for i = 1, readings do
      c:publish(topic .. "/q" .. qos, string.format("sensor %d run %d reading %d", vu.id, vu.run, i),
                { qos = qos })
    end
  end
  c:close()
end

function dashboard.run(vu)
  local c = mqtt.connect(d_connect, url, { keepalive = 30, timeout = "5s" })
  c.step = subscribe
  c:subscribe(topic .. "/+", { qos = 2 })   -- each message at the QoS it was sent with
  c.step = ready
  c:publish(topic .. "/ready/" .. vu.run .. "/" .. vu.id, "ready", { qos = 1, retain = true })
  local want = sensors * readings * 3
  for _ = 1, want do
    local t, _, m = c:receive("5s")
    if not t then error("a dashboard got fewer readings than " .. want) end
    received[m.qos]:add()
  end
  c:close()
end
