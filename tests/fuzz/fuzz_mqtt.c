/* fuzz_mqtt — an MQTT broker's bytes as quern.mqtt reads them
 * (worker/lua/mods/mqtt.lua, the source compiled in; fuzz_luamod.h).
 *
 * Input: byte 0 even: the rest is what the broker sent, read as packets
 * one after another. Checks: nothing raises, nothing asks the socket for
 * more than its 1 MiB; each packet is a table with its type (1 to 14), or
 * nil with a kind ("closed", "protocol") and a message; a PUBLISH has a
 * topic name (no wildcard, no NUL), a payload, a QoS of 0 to 2 and a
 * packet id from 1 when its QoS is above 0. Byte 0 odd: the rest is a
 * topic, a NUL, a payload; bits 1-2 of byte 0 the QoS, bit 3 retain: what
 * a PUBLISH encodes reads back as the same message. */
#include <stdint.h>

#include "tests/fuzz/fuzz_luamod.h"

static const char harness[] =
    "local M, mode, s = ...\n"
    "local function publish_ok(p)\n"
    "  if type(p.topic) ~= 'string' or p.topic == '' or p.topic:find('[%z+#]') then\n"
    "    return 'a PUBLISH to a topic that is not one'\n"
    "  end\n"
    "  if type(p.payload) ~= 'string' then return 'a PUBLISH without a payload' end\n"
    "  if p.qos ~= 0 and p.qos ~= 1 and p.qos ~= 2 then return 'QoS ' .. tostring(p.qos) end\n"
    "  if p.qos > 0 and (math.type(p.id) ~= 'integer' or p.id < 1 or p.id > 65535) then\n"
    "    return 'a PUBLISH without its packet id'\n"
    "  end\n"
    "end\n"
    "if mode % 2 == 1 then\n"
    "  local topic, payload = s:match('^([^%z]*)%z(.*)$')\n"
    "  if not topic then return nil end\n"
    "  local qos, retain, id = (mode >> 1) % 3, mode & 8 == 8, 1 + #payload % 65535\n"
    "  local ok, bytes = pcall(M._encode.publish, topic, payload, qos, retain, false, id)\n"
    "  if not ok then return 'encode raised: ' .. tostring(bytes) end\n"
    "  if not bytes then return nil end\n"
    "  local r = reader(bytes)\n"
    "  local p, kind, msg = M._read_packet(r)\n"
    "  if not p then return 'read back: ' .. tostring(kind) .. ': ' .. tostring(msg) end\n"
    "  if p.topic ~= topic or p.payload ~= payload or p.qos ~= qos or p.retain ~= retain\n"
    "     or (qos > 0 and p.id ~= id) then\n"
    "    return 'a PUBLISH read back changed'\n"
    "  end\n"
    "  if r.pos ~= #bytes + 1 then return 'bytes left after the packet' end\n"
    "  return nil\n"
    "end\n"
    "local r = reader(s)\n"
    "local kinds = { closed = true, protocol = true }\n"
    "while true do\n"
    "  local ok, p, kind, msg = pcall(M._read_packet, r)\n"
    "  if not ok then return 'raised: ' .. tostring(p) end\n"
    "  if p == nil then\n"
    "    if not kinds[kind] or type(msg) ~= 'string' then return 'kind ' .. tostring(kind) end\n"
    "    return nil\n"
    "  end\n"
    "  if type(p) ~= 'table' or math.type(p.type) ~= 'integer' or p.type < 1 or p.type > 14 then\n"
    "    return 'a packet without its type'\n"
    "  end\n"
    "  if p.type == 3 then\n"
    "    local bad = publish_ok(p)\n"
    "    if bad then return bad end\n"
    "  end\n"
    "end\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_luamod_run("quern.mqtt", harness, sizeof(harness) - 1, data, size);
}
