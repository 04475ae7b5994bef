#include "worker/lwatch.h"

#include <stdio.h>

#include "common/clock.h"

/* Registry key of the engine's lwatch. */
static const char watch_key = 'w';

static void hook(lua_State *L, lua_Debug *ar);

static void set_hook(lua_State *L, int count)
{
    lua_sethook(L, hook, LUA_MASKCOUNT, count);
}

static void hook(lua_State *L, lua_Debug *ar)
{
    lwatch *w;
    int64_t now;

    lua_rawgetp(L, LUA_REGISTRYINDEX, &watch_key);
    w = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (w == NULL || w->co == NULL) {
        if (lua_gethookcount(L) != LWATCH_COUNT)
            set_hook(L, LWATCH_COUNT);
        return;
    }
    if (!w->tripped) {
        now = clock_mono_us();
        if (w->start_us == 0)
            w->start_us = now;
        if (now - w->start_us <= w->limit_us) {
            if (lua_gethookcount(L) != LWATCH_COUNT)
                set_hook(L, LWATCH_COUNT); /* a thread that outlived a tripped slice */
            return;
        }
        lua_getinfo(L, "Sl", ar);
        if (w->kind == LWATCH_LOAD)
            snprintf(w->msg, sizeof(w->msg), "%s:%d: the script did not finish loading within %d s",
                     ar->short_src, ar->currentline, (int)(LWATCH_LOAD_US / 1000000));
        else
            snprintf(w->msg, sizeof(w->msg),
                     "%s:%d: the VU ran for more than %d s without yielding (no request, sleep or "
                     "think time): every VU of its worker waited",
                     ar->short_src, ar->currentline, (int)(LWATCH_RESUME_US / 1000000));
        w->tripped = 1;
        /* From now on at every instruction, on this thread and on the one
         * resumed (when the loop runs in a coroutine of the script), so that
         * the error gets past any pcall. */
        set_hook(L, 1);
        if (w->co != L)
            set_hook(w->co, 1);
    }
    lua_pushstring(L, w->msg);
    lua_error(L);
}

void lwatch_attach(lua_State *L, lwatch *w)
{
    lua_pushlightuserdata(L, w);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &watch_key);
    set_hook(L, LWATCH_COUNT);
}

void lwatch_thread(lua_State *co)
{
    set_hook(co, LWATCH_COUNT);
}

void lwatch_begin(lwatch *w, lua_State *co, enum lwatch_kind kind)
{
    w->co = co;
    w->kind = (uint8_t)kind;
    w->limit_us = kind == LWATCH_LOAD ? LWATCH_LOAD_US : LWATCH_RESUME_US;
    w->start_us = kind == LWATCH_LOAD ? clock_mono_us() : 0;
}

int lwatch_end(lwatch *w)
{
    int tripped = w->tripped;

    if (tripped) {
        set_hook(w->co, LWATCH_COUNT);
        w->tripped = 0;
    }
    w->co = NULL;
    return tripped;
}
