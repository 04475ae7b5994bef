#include "worker/lcoro.h"

#include <lauxlib.h>
#include <stdio.h>

#include "worker/engine_int.h"
#include "worker/lapi.h"
#include "worker/lcookies.h"

int lcoro_new_vu_table(lua_State *L, vu *v)
{
    scen *sc = v->eng->scens.scens[v->scen];

    lua_createtable(L, 0, 4);
    lua_pushinteger(L, v->gid);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "run");
    lua_newtable(L);
    lua_setfield(L, -2, "data");
    lua_pushstring(L, sc->name);
    lua_setfield(L, -2, "scenario");
    lcookies_push_metatable(L);
    lua_setmetatable(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

int lcoro_push_phase(vu *v, const char *fn)
{
    lua_State *co = v->co;
    scen *sc = v->eng->scens.scens[v->scen];

    lua_settop(co, 0);
    lua_rawgeti(co, LUA_REGISTRYINDEX, sc->table_ref);
    if (lua_getfield(co, -1, fn) != LUA_TFUNCTION) {
        lua_settop(co, 0);
        return 0;
    }
    lua_remove(co, 1);
    lua_rawgeti(co, LUA_REGISTRYINDEX, v->tbl_ref);
    lua_pushinteger(co, v->run);
    lua_setfield(co, -2, "run");
    return 1;
}

void lcoro_resume(vu *v, int nargs)
{
    lua_State *co = v->co;
    int nres = 0, st, held;
    const char *msg;

    v->check_failed = 0;
    lwatch_begin(&v->eng->watch, co);
    st = lua_resume(co, v->eng->L, nargs, &nres);
    held = lwatch_end(&v->eng->watch);
    if (st == LUA_YIELD && !held) {
        v->yielded = 1;
        lua_pop(co, nres);
        if (v->wait == VU_HALT)
            vu_halt(v);
        return;
    }
    if (st == LUA_OK && !held) {
        lua_settop(co, 0);
        vu_phase_end(v, 1);
        return;
    }
    lua_checkstack(co, 8);
    /* A VU that held the loop: the watch's message, whatever the script
     * made of the error on its way out. */
    msg = held ? v->eng->watch.msg : luaL_tolstring(co, -1, NULL);
    if (held || !v->check_failed) {
        /* A script error: logged with its traceback, counted against the
         * current step; the VU goes on with its next run. */
        engine_log_script_error(v->eng, v, msg);
        if (v->pend.step >= 0 && v->pend.err == SAMPLE_OK) {
            v->pend.err = SAMPLE_FUNC;
            v->pend.in_block = 0;
            snprintf(v->pend.msg, sizeof(v->pend.msg), "%s", msg);
        } else if (v->pend.step < 0) {
            vu_count_error(v, vu_current_step(v), 0, msg);
        }
    }
    v->pend.in_block = 0;
    if (held)
        vu_new_thread(v); /* its to-be-closed variables are not closed */
    else
        lua_closethread_compat(co);
    vu_phase_end(v, 0);
}
