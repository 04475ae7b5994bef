#include "worker/lua/lapi.h"

#include <lauxlib.h>

#include "common/dur.h"
#include "common/err.h"
#include "worker/engine/vu.h"

/* Registry key of the engine pointer. */
static const char engine_key = 'e';

void lapi_set_engine(lua_State *L, struct engine *e)
{
    lua_pushlightuserdata(L, e);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &engine_key);
}

struct engine *lapi_engine(lua_State *L)
{
    struct engine *e;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &engine_key);
    e = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return e;
}

void lapi_newmt(lua_State *L, const void *key, const char *tname)
{
    luaL_newmetatable(L, tname);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void *lapi_checkud(lua_State *L, int idx, const void *key, const char *tname)
{
    void *p = lua_touserdata(L, idx);

    if (p != NULL && lua_getmetatable(L, idx)) {
        int same;
        lua_rawgetp(L, LUA_REGISTRYINDEX, key);
        same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (same)
            return p;
    }
    luaL_typeerror(L, idx, tname);
    return NULL;
}

void *lapi_index(lua_State *L, const void *key, const char *tname, const char **k)
{
    void *p;

    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return NULL;
    lua_pop(L, 1);
    p = lapi_checkud(L, 1, key, tname);
    *k = luaL_checkstring(L, 2);
    return p;
}

void lapi_setmt(lua_State *L, const void *key)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    lua_setmetatable(L, -2);
}

int64_t lapi_check_duration(lua_State *L, int idx, const char *what)
{
    char err[ERR_MAX];
    int64_t us;

    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number s = lua_tonumber(L, idx);
        if (s < 0 || s > 1e9)
            return luaL_error(L, "%s: bad duration %f", what, (double)s);
        return (int64_t)(s * 1e6);
    }
    if (lua_type(L, idx) != LUA_TSTRING)
        return luaL_error(L, "%s: a duration is a string like \"2s\" or a number of seconds", what);
    if (dur_parse(lua_tostring(L, idx), &us, err, sizeof(err)) != 0)
        return luaL_error(L, "%s: %s", what, err);
    return us;
}

struct vu *lapi_request_vu(lua_State *L, const char *subject, const char *verb, const char *what)
{
    vu *v = vu_current(L);

    if (v == NULL)
        luaL_error(L, "%s %s from a scenario's init, run or finish, not while the script loads",
                   subject, verb);
    if (v->wait != VU_IDLE)
        luaL_error(L, "a VU makes one request at a time");
    lapi_wait_ok(L, what);
    return v;
}

void lapi_wait_ok(lua_State *L, const char *what)
{
    if (!lua_isyieldable(L))
        luaL_error(L,
                   "%s waits for the network or the clock, which cannot be done here: "
                   "inside a check function, a sort comparator or another call from C, "
                   "Lua cannot yield; do it outside",
                   what);
}

int lapi_halt(lua_State *L, vu *v)
{
    v->wait = VU_HALT;
    return lua_yield(L, 0);
}
