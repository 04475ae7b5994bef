/* linbox — a VU's wait on an inbox, its Lua side; see linbox.h. */
#include "worker/lua/linbox.h"

#include <lauxlib.h>

#include "worker/lua/lapi.h"
#include "worker/engine/vu.h"

int linbox_wait(lua_State *L, inbox *b, vu *v, int64_t us, int what, lua_KContext ctx,
                lua_KFunction k)
{
    b->waiter = v;
    b->wait_what = what;
    b->wait_from = b->state;
    vu_wait_timer(v, us, (enum vu_wait)what);
    return lua_yieldk(L, 0, ctx, k);
}

int linbox_next(lua_State *L, inbox *b, vu *v, int64_t us, int what, lua_KContext ctx,
                lua_KFunction k)
{
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU waits for one thing at a time");
    lapi_wait_ok(L, "waiting for the next message");
    if (v->halting)
        return lapi_halt(L, v);
    return linbox_wait(L, b, v, us, what, ctx, k);
}

int linbox_none(lua_State *L, const inbox *b)
{
    lua_pushnil(L);
    lua_pushstring(L, b != NULL && b->state == INBOX_OPEN ? "timeout" : "closed");
    return 2;
}
