#include "worker/engine/lcoro.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/memsize.h"
#include "worker/engine/engine_int.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lcookies.h"
#include "worker/engine/lifecycle.h"
#include "worker/engine/lscript.h"

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
    lifecycle_push_setup(L, v); /* read-only, shared by the worker's VUs */
    lua_setfield(L, -2, "setup");
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
    if (v->eng->cfg.life == ENGINE_LIFE_SETUP) {
        lua_pushnil(co); /* sc.setup() */
        return 1;
    }
    if (v->eng->cfg.life == ENGINE_LIFE_TEARDOWN) {
        lifecycle_push_setup(co, v); /* sc.teardown(data) */
        return 1;
    }
    lua_rawgeti(co, LUA_REGISTRYINDEX, v->tbl_ref);
    lua_pushinteger(co, v->run);
    lua_setfield(co, -2, "run");
    return 1;
}

/* A script error of the VU's phase: logged with its traceback, counted
 * against the current step (its pending sample, else the step itself). */
static void script_error(vu *v, const char *msg)
{
    engine_log_script_error(v->eng, v, msg);
    if (v->pend.step >= 0 && v->pend.err == SAMPLE_OK) {
        v->pend.err = SAMPLE_FUNC;
        v->pend.in_block = 0;
        err_set(v->pend.msg, sizeof(v->pend.msg), "%s", msg);
    } else if (v->pend.step < 0) {
        vu_count_error(v, vu_current_step(v), 0, msg);
    }
}

void lcoro_where(lua_State *co, char *out, size_t len)
{
    lua_Debug ar;

    out[0] = '\0';
    for (int level = 0; lua_getstack(co, level, &ar); level++) {
        if (lua_getinfo(co, "Sl", &ar) && ar.currentline > 0) {
            snprintf(out, len, "%s:%d: ", ar.short_src, ar.currentline);
            return;
        }
    }
}

/* The VU's thread yielded with no wait of quern's started: the script
 * called coroutine.yield itself (not in a coroutine of its own). Nothing
 * would ever resume it: an error at the line of the call, and the phase
 * ends. */
static void stray_yield(vu *v)
{
    char at[LUA_IDSIZE + 32], msg[sizeof(at) + 64];

    lcoro_where(v->co, at, sizeof(at));
    err_set(msg, sizeof(msg), "%scoroutine.yield outside a request or sleep", at);
    script_error(v, msg);
    v->pend.in_block = 0;
    lua_closethread_compat(v->co);
    vu_phase_end(v, 0);
}

/* Lua's memory error has no position: the line the script was at, and the
 * limit it met (lalloc.h). */
static const char *memory_error(vu *v, char *msg, size_t len)
{
    char at[LUA_IDSIZE + 32], lim[MEMSIZE_FORMAT_MAX];

    lcoro_where(v->co, at, sizeof(at));
    if (v->eng->mem.limit > 0)
        err_set(msg, len,
                "%snot enough memory (the worker's Lua state may hold %s, "
                "--worker-memory)",
                at, memsize_format(v->eng->mem.limit, lim, sizeof(lim)));
    else
        err_set(msg, len, "%snot enough memory", at);
    return msg;
}

void lcoro_resume(vu *v, int nargs)
{
    lua_State *co = v->co;
    lua_State *L = v->eng->L;
    int nres = 0, st, held, top, is_check = 0;
    const char *msg;
    char membuf[LUA_IDSIZE + 160];

    vu_check_reset(v, L);
    lwatch_begin(&v->eng->watch, co);
    lalloc_enforce(&v->eng->mem, 1);
    st = lua_resume(co, L, nargs, &nres);
    lalloc_enforce(&v->eng->mem, 0);
    held = lwatch_end(&v->eng->watch);
    if (st == LUA_YIELD && !held) {
        lua_pop(co, nres);
        if (v->wait == VU_IDLE) {
            stray_yield(v);
            return;
        }
        v->yielded = 1;
        if (v->wait == VU_HALT)
            vu_halt(v);
        return;
    }
    if (st == LUA_OK && !held) {
        if (v->eng->cfg.life != ENGINE_LIFE_LOAD)
            lifecycle_returned(v, co, nres);
        lua_settop(co, 0);
        vu_phase_end(v, 1);
        return;
    }
    lua_checkstack(co, 8);
    /* The error object goes to the main state, whose text is made there
     * under protection (the VU's thread is dead: no call runs on it). A VU
     * that held the loop: the watch's message, whatever the script made of
     * the error on its way out. */
    top = lua_gettop(L);
    if (held) {
        msg = v->eng->watch.msg;
    } else if (st == LUA_ERRMEM || (lua_type(co, -1) == LUA_TSTRING &&
                                    strcmp(lua_tostring(co, -1), "not enough memory") == 0)) {
        /* the second: a luaL_Buffer refused its growth (string.rep, ..) */
        msg = memory_error(v, membuf, sizeof(membuf));
    } else {
        lua_xmove(co, L, 1);
        is_check = vu_check_is(v, L, -1);
        msg = lscript_errtext(L, -1);
    }
    if (held || !is_check || v->eng->cfg.life != ENGINE_LIFE_LOAD)
        script_error(v, msg); /* the VU goes on with its next run */
    lua_settop(L, top);
    v->pend.in_block = 0;
    if (held)
        vu_new_thread(v); /* its to-be-closed variables are not closed */
    else
        lua_closethread_compat(co);
    vu_phase_end(v, 0);
}
