/* lmods — the protocols written in Lua, compiled in (lmods.h). */
#include "worker/lua/lmods.h"

#include <lauxlib.h>
#include <string.h>

typedef struct lmod {
    const char *name;  /**< borrowed (static): "quern.redis" */
    const char *chunk; /**< borrowed (static): its name in errors, "@quern/redis.lua" */
    const char *src;   /**< borrowed (static) */
    const size_t *len; /**< borrowed (static) */
} lmod;

static const lmod mods[] = {
    {"quern.redis", "@quern/redis.lua", redis_lua, &redis_lua_len},
    {"quern.pg", "@quern/pg.lua", pg_lua, &pg_lua_len},
    {"quern.mqtt", "@quern/mqtt.lua", mqtt_lua, &mqtt_lua_len},
};

const char *lmods_source(const char *name, size_t *len)
{
    for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
        if (strcmp(mods[i].name, name) == 0) {
            *len = *mods[i].len;
            return mods[i].src;
        }
    }
    return NULL;
}

const char *lmods_name(size_t i)
{
    return i < sizeof(mods) / sizeof(mods[0]) ? mods[i].name : NULL;
}

/* package.preload's loader (upvalue 1: the module's entry): runs its chunk. */
static int load(lua_State *L)
{
    const lmod *m = lua_touserdata(L, lua_upvalueindex(1));

    if (luaL_loadbufferx(L, m->src, *m->len, m->chunk, "t") != LUA_OK)
        return lua_error(L);
    lua_call(L, 0, 1);
    return 1;
}

void lmods_preload(lua_State *L)
{
    for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
        lua_pushlightuserdata(L, (void *)&mods[i]);
        lua_pushcclosure(L, load, 1);
        lua_setfield(L, -2, mods[i].name);
    }
}
