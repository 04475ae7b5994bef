# quern.mqtt against a real broker (Debian's mosquitto), with a password:
# the example scripts/mqtt.lua, sensors publishing at QoS 0, 1 and 2 and
# dashboards subscribed, judged by the broker's own counts ($SYS, and its
# log of every packet); a wrong password, a functional error of the
# connect; and the keepalive: a client silent for 4 s with keepalive 1
# stays connected because its PINGREQ goes from the worker's loop while
# the VU sleeps (over plain TCP and over TLS), and is dropped by the broker
# once the heartbeat is off.
. "$(dirname "$0")/lib.bash"
for b in /usr/sbin/mosquitto /usr/bin/mosquitto_passwd /usr/bin/mosquitto_sub; do
  [ -x "$b" ] || { notok "$b is installed (Debian's mosquitto, mosquitto-clients)"; exit 1; }
done
MOSQ_PID=
mqtt_cleanup() {
  [ -n "$MOSQ_PID" ] && kill "$MOSQ_PID" 2>/dev/null && wait "$MOSQ_PID" 2>/dev/null
  cleanup
}
trap mqtt_cleanup EXIT

PASS='s3cr@t:pw'
PASS_URL='s3cr%40t%3Apw'
PORT=$(free_port_py)
TPORT=$(free_port_py)
M=$TMP/mosquitto
mkdir -p "$M"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$M/key.pem" -out "$M/cert.pem" 2>/dev/null
/usr/bin/mosquitto_passwd -b -c "$M/passwd" quern "$PASS" >/dev/null 2>&1
# every packet in the log (log_type all): the broker's own record of them;
# a second listener for mqtts://
cat >"$M/conf" <<EOF
listener $PORT 127.0.0.1
listener $TPORT 127.0.0.1
certfile $M/cert.pem
keyfile $M/key.pem
allow_anonymous false
password_file $M/passwd
sys_interval 1
persistence false
user $(id -un)
log_dest file $M/log
log_type all
EOF
/usr/sbin/mosquitto -c "$M/conf" >"$M/out" 2>&1 &
MOSQ_PID=$!
# sys TOPIC: a $SYS value (retained, refreshed each second)
sys() {
  /usr/bin/mosquitto_sub -h 127.0.0.1 -p "$PORT" -u quern -P "$PASS" -C 1 -W 3 -t "\$SYS/broker/$1" 2>/dev/null
}
up() { [ -n "$(sys version)" ]; }
await "mosquitto answers" 10 up || { cat "$M/out"; exit 1; }
# sys_until TOPIC WANT: the value once it is WANT, else the last read (4 s)
sys_until() {
  local v
  for _ in $(seq 20); do
    v=$(sys "$1")
    [ "$v" = "$2" ] && break
    sleep 0.2
  done
  echo "$v"
}
# logged WHAT TOPIC: the broker's log lines of a packet to or from quern's clients on TOPIC
logged() { grep -c "$1 quern[0-9a-f]* (.*'$2'" "$M/log"; }

# --- the example: 2 sensors, 2 dashboards, 3 runs ---------------------------
S=2 D=2 N=5 R=3
base=$(sys publish/messages/received)
timeout 60 "$QUERN" run scripts/mqtt.lua --vus $((S + D)) --runs $R -q \
  -p sensors=$S -p dashboards=$D -p readings=$N \
  -p mqtt_url="mqtt://quern:$PASS_URL@127.0.0.1:$PORT" --summary-json "$TMP/s.json" >"$TMP/out" 2>&1
rc=$?
eq "example: run exits 0" "$rc" 0
[ "$rc" = 0 ] || tail -5 "$TMP/out"
J=$TMP/s.json
t() { sj "$J" ".tests[] | select(.id == \"SC-MQTT-$1\") | $2"; }
m() { sj "$J" ".metrics[] | select(.name == \"$1\") | .total"; }
eq "example: no errors" "$(sj "$J" '[.tests[].errors.technical, .tests[].errors.functional] | add')" 0
EACH=$((S * N * R))
eq "example: a sample a publish, per QoS" \
  "$(t SENSOR-STEP-3 .count)/$(t SENSOR-STEP-4 .count)/$(t SENSOR-STEP-5 .count)" "$EACH/$EACH/$EACH"
eq "example: a connect a run" "$(t SENSOR-STEP-1 .count)/$(t DASHBOARD-STEP-1 .count)" "$((S * R))/$((D * R))"
for q in 0 1 2; do
  eq "QoS $q: the broker received each publish" "$(logged 'Received PUBLISH from' "quern/telemetry/q$q")" "$EACH"
  eq "QoS $q: the broker sent each to every dashboard" \
    "$(logged 'Sending PUBLISH to' "quern/telemetry/q$q")" "$((EACH * D))"
  eq "QoS $q: every dashboard received each" "$(m mqtt_received_q$q)" "$((EACH * D))"
done
# mosquitto 2.0 counts a PUBLISH here when it is neither QoS 2 nor retained
eq "\$SYS: publish/messages/received = the QoS 0 and 1 publishes" \
  "$(sys_until publish/messages/received $((base + 2 * EACH)))" "$((base + 2 * EACH))"
eq "QoS 1: a PUBACK a publish, and a PUBACK a delivery" \
  "$(grep -c 'Sending PUBACK to quern' "$M/log")/$(grep -c 'Received PUBACK from quern' "$M/log")" \
  "$((EACH + D * R))/$((EACH * D + S * D * R))"
eq "QoS 2: a PUBREL a publish, a PUBCOMP a delivery" \
  "$(grep -c 'Received PUBREL from quern' "$M/log")/$(grep -c 'Received PUBCOMP from quern' "$M/log")" \
  "$EACH/$((EACH * D))"
eq "example: a DISCONNECT a connection" "$(grep -c 'Received DISCONNECT from quern' "$M/log")" \
  "$(((S + D) * R))"
eq "example: no client timed out" "$(grep -c 'exceeded timeout' "$M/log")" 0

# --- a wrong password: CONNACK refuses, a functional error; no load ---------
timeout 30 "$QUERN" run scripts/mqtt.lua --vus 2 --runs 2 -q --allow-errors -p sensors=1 -p dashboards=1 \
  -p mqtt_url="mqtt://quern:wrong@127.0.0.1:$PORT" --summary-json "$TMP/w.json" >"$TMP/wout" 2>&1
eq "wrong password: run exits 0" "$?" 0
J=$TMP/w.json
eq "wrong password: a functional error a connect" \
  "$(t SENSOR-STEP-1 .count)/$(t SENSOR-STEP-1 .errors.functional)/$(t SENSOR-STEP-1 .errors.technical)" 2/2/0
check "wrong password: the broker's refusal, told" grep -Eq "^MQTT: connection refused: (not authorized|bad user name or password) \(CONNACK [45]\)$" \
  <<<"$(t SENSOR-STEP-1 .errors.samples.functional)"
eq "wrong password: nothing more is sent" \
  "$(sj "$J" '[.tests[] | select(.id | test("STEP-1") | not) | .count] | add')" 0

# --- keepalive: a VU silent for 4 s, keepalive 1 ---------------------------
# Three VUs at once: the heartbeat on, off, and on over TLS (mqtts://, its
# PINGREQs through libcurl's TLS from the loop's timer).
cat >"$TMP/ka.lua" <<'EOF'
local quern = require "quern"
local mqtt = require "quern.mqtt"
local on = quern.scenario("KA-ON", {})
local off = quern.scenario("KA-OFF", {})
local tls = quern.scenario("KA-TLS", {})
for _, sc in ipairs({ on, off, tls }) do
  local connect = sc:step(1, "Connect")
  local trip = sc:step(2, "Round trip after 4 s")
  local name = "quern" .. sc.name:lower():gsub("%-", "")
  function sc.run(vu)
    local url = quern.property(sc == tls and "mqtts_url" or "mqtt_url")
    local c = mqtt.connect(connect, url, { keepalive = 1, client_id = name,
                                           tls = sc == tls and { ca = quern.property("ca") } or nil })
    if sc == off then c.sock:heartbeat(0) end    -- no PINGREQ: the broker drops it after 1.5 s
    c:subscribe("quern/ka/" .. name, { qos = 1 })
    quern.sleep(4)                                -- the VU sends nothing itself
    trip:time(function()
      c:publish("quern/ka/" .. name, "still here", { qos = sc == tls and 2 or 1 })
      local t, p = c:receive("2s")
      assert(t == "quern/ka/" .. name and p == "still here", "no message back: " .. tostring(p))
    end)
    c:close()
  end
end
EOF
timeout 30 "$QUERN" run "$TMP/ka.lua" --vus 3 --runs 1 -q --allow-errors \
  -p mqtt_url="mqtt://quern:$PASS_URL@127.0.0.1:$PORT" -p ca="$M/cert.pem" \
  -p mqtts_url="mqtts://quern:$PASS_URL@127.0.0.1:$TPORT" --summary-json "$TMP/k.json" >"$TMP/kout" 2>&1
eq "keepalive: run exits 0" "$?" 0
J=$TMP/k.json
t() { sj "$J" ".tests[] | select(.id == \"SC-$1\") | $2"; }
eq "keepalive on: connected after 4 s, a round trip without error" \
  "$(t KA-ON-STEP-2 .count)/$(t KA-ON-STEP-2 .errors.technical)/$(t KA-ON-STEP-2 .errors.functional)" 1/0/0
between "keepalive on: the broker got a PINGREQ each second the VU slept" \
  "$(grep -c 'Received PINGREQ from quernkaon$' "$M/log")" 3 6
# CONNECT 41 bytes, SUBSCRIBE 25, PUBLISH 34, PUBACK 4, DISCONNECT 2; and the
# PINGREQs, 2 bytes each, counted though sent outside any sample
pings=$(grep -c 'Received PINGREQ from quernkaon$' "$M/log")
eq "keepalive on: bytes out = its packets and the broker's PINGREQs" \
  "$(sj "$J" '[.tests[] | select(.id | startswith("SC-KA-ON-")) | .bytes_out] | add')" "$((106 + 2 * pings))"
eq "keepalive on: never timed out" "$(grep -c 'Client quernkaon has exceeded timeout' "$M/log")" 0
eq "heartbeat off: no PINGREQ" "$(grep -c 'Received PINGREQ from quernkaoff$' "$M/log")" 0
eq "heartbeat off: the broker dropped the client" \
  "$(grep -c 'Client quernkaoff has exceeded timeout' "$M/log")" 1
eq "heartbeat off: the round trip is a technical error" \
  "$(t KA-OFF-STEP-2 .count)/$(t KA-OFF-STEP-2 .errors.technical)" 1/1
check "heartbeat off: the connection closed, told" grep -q "^MQTT: connection closed waiting for PUBACK" \
  <<<"$(t KA-OFF-STEP-2 .errors.samples.technical)"
eq "TLS: connected and subscribed, after 4 s a QoS 2 round trip without error" \
  "$(t KA-TLS-STEP-1 .count)/$(t KA-TLS-STEP-2 .count)/$(t KA-TLS-STEP-2 .errors.technical)/$(t KA-TLS-STEP-2 .errors.functional)" 2/1/0/0
between "TLS: the PINGREQs went through TLS from the loop" \
  "$(grep -c 'Received PINGREQ from quernkatls$' "$M/log")" 3 6
src=$(sed -n 's/.*New client connected from \(127.0.0.1:[0-9]*\) as quernkatls .*/\1/p' "$M/log")
check "TLS: on the TLS listener" grep -q "New connection from $src on port $TPORT\.$" "$M/log"
eq "no sanitizer report" "$(cat "$TMP/out" "$TMP/wout" "$TMP/kout" | grep -c 'Sanitizer\|runtime error')" 0
