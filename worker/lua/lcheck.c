#include "worker/lua/lcheck.h"

#include <lauxlib.h>

#include "common/log.h"
#include "proto/interval_tally.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"

/* The index of the check named by the string at idx, added when new. */
static int check_id(lua_State *L, struct engine *e, int idx)
{
    const char *name;
    int id;

    if (engine_checks(e)->ref == 0) {
        lua_newtable(L);
        engine_checks(e)->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, engine_checks(e)->ref);
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TNUMBER) {
        id = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        return id;
    }
    lua_pop(L, 1);
    name = lua_tostring(L, idx);
    if (!interval_tally_check_name_ok(name))
        return luaL_error(L, "a check's name: 1 to %d bytes of UTF-8, no control character",
                          TALLY_NAME_MAX - 1);
    id = tally_check_id(engine_script_tally(e), name);
    if (id < 0)
        return luaL_error(L, "check \"%s\": more than %d check names in a run", name,
                          TALLY_CHECKS_MAX);
    lua_pushvalue(L, idx);
    lua_pushinteger(L, id);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    return id;
}

/* Judges the condition at cond (a function called with the value at val, or
 * a value) under the check named at name_idx; returns 1 when it passed. */
static int judge(lua_State *L, struct engine *e, int name_idx, int cond, int val)
{
    int id = check_id(L, e, name_idx), ok;

    if (lua_type(L, cond) != LUA_TFUNCTION) {
        ok = lua_toboolean(L, cond);
    } else {
        lua_pushvalue(L, cond);
        lua_pushvalue(L, val);
        if (lua_pcall(L, 1, 1, 0) == LUA_OK) {
            ok = lua_toboolean(L, -1);
        } else {
            ok = 0;
            if (!(engine_checks(e)->logged & (UINT64_C(1) << id))) {
                engine_checks(e)->logged |= UINT64_C(1) << id;
                log_msg(LOG_WARN,
                        "check \"%s\" raised an error, counted as failed (logged once): %s",
                        engine_script_tally(e)->checks[id].name,
                        lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)");
            }
        }
        lua_pop(L, 1);
    }
    if (ok)
        engine_script_tally(e)->checks[id].passes++;
    else
        engine_script_tally(e)->checks[id].fails++;
    return ok;
}

static struct engine *checking_engine(lua_State *L)
{
    struct engine *e = lapi_engine(L);

    if (!engine_loaded(e))
        luaL_error(L, "checks are made from a scenario's init, run or finish, not as the "
                      "script loads");
    return e;
}

/* check(value, set), the value at first: every entry of the set judged. */
static int check_set(lua_State *L, int first)
{
    struct engine *e = checking_engine(L);
    int all = 1, set = first + 1;

    luaL_checktype(L, set, LUA_TTABLE);
    lua_settop(L, set);
    lua_pushnil(L);
    while (lua_next(L, set) != 0) {
        int top = lua_gettop(L);
        if (lua_type(L, top - 1) != LUA_TSTRING)
            return luaL_error(L, "check: the set's keys are the checks' names (strings)");
        all &= judge(L, e, top - 1, top, first);
        lua_settop(L, top - 1); /* keep the key for lua_next */
    }
    lua_pushboolean(L, all);
    return 1;
}

static int l_check(lua_State *L)
{
    return check_set(L, 1);
}

static int l_step_check(lua_State *L)
{
    return check_set(L, 2);
}

int lcheck_resp(lua_State *L)
{
    struct engine *e = checking_engine(L);

    luaL_checktype(L, 2, LUA_TSTRING);
    luaL_checkany(L, 3);
    lua_pushboolean(L, judge(L, e, 2, 3, 1));
    return 1;
}

void lcheck_register(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, l_check);
    lua_setfield(L, idx, "check");
}

void lcheck_register_step(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, l_step_check);
    lua_setfield(L, idx, "check");
}
