/* lwebsocket — WebSockets from Lua (lwebsocket.h). */
#include "worker/lua/lwebsocket.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lstream.h"
#include "worker/plugs/websocket.h"

/* step:ws's stack while it waits: 1 step, 2 url, 3 opts, 4 headers, 5
 * protocols, 6 reqopt or nil, 7 the connection object */
enum { IDX_OPTS = 3, IDX_HEADERS = 4, IDX_PROTOCOLS = 5, IDX_CONN = 7 };

static const lstream_kind kind;

/* --- step:ws ------------------------------------------------------------- */

/* Pushes the opts' headers as CRLF-ended lines ("" none). */
static void push_headers(lua_State *L)
{
    int t;

    if (!lua_istable(L, IDX_OPTS)) {
        lua_pushliteral(L, "");
        return;
    }
    if (lua_getfield(L, IDX_OPTS, "headers") == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
        return;
    }
    t = lua_gettop(L);
    luaL_checktype(L, t, LUA_TTABLE);
    lua_pushliteral(L, ""); /* the lines so far, at t + 1 */
    lua_pushnil(L);
    while (lua_next(L, t) != 0) {
        size_t kn, vn;
        const char *k, *val;
        if (lua_type(L, -2) != LUA_TSTRING ||
            (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
            luaL_error(L, "step:ws headers: names and values must be strings");
        k = lua_tolstring(L, -2, &kn);
        lua_pushvalue(L, -1); /* tolstring on a copy: a number value stays a number */
        val = lua_tolstring(L, -1, &vn);
        if (memchr(k, '\r', kn) || memchr(k, '\n', kn) || memchr(val, '\r', vn) ||
            memchr(val, '\n', vn))
            luaL_error(L, "step:ws headers: \"%s\" holds a line break", k);
        lua_pushvalue(L, t + 1);
        lua_pushfstring(L, "%s: %s\r\n", k, val);
        lua_concat(L, 2);
        lua_replace(L, t + 1);
        lua_pop(L, 2);
    }
    lua_remove(L, t);
}

static void push_protocols(lua_State *L)
{
    int t = lua_istable(L, IDX_OPTS) ? lua_getfield(L, IDX_OPTS, "protocols") : LUA_TNIL;

    if (t == LUA_TNIL || t == LUA_TSTRING) {
        if (t == LUA_TNIL)
            lua_pushliteral(L, "");
        else
            lua_pushvalue(L, -1);
    } else if (t == LUA_TTABLE) {
        luaL_Buffer b;
        int tbl = lua_gettop(L);
        luaL_buffinit(L, &b);
        for (lua_Integer i = 1, n = luaL_len(L, tbl); i <= n; i++) {
            if (lua_geti(L, tbl, i) != LUA_TSTRING)
                luaL_error(L, "step:ws protocols: a list of strings");
            if (i > 1)
                luaL_addstring(&b, ", ");
            luaL_addvalue(&b);
        }
        luaL_pushresult(&b);
    } else {
        luaL_error(L, "step:ws protocols: a string or a list of strings");
    }
    if (lua_istable(L, IDX_OPTS))
        lua_remove(L, -2);
}

/* Stack 1 step, 2 url, 3 opts (read): opens the connection, yields. */
static int start(lua_State *L, vu *v, int64_t us)
{
    websocket_cfg cfg;
    char err[ERR_MAX];
    lstream *s;

    memset(&cfg, 0, sizeof(cfg));
    push_headers(L);
    push_protocols(L);
    cfg.req = lstream_reqopt(L, v, IDX_OPTS);
    s = lstream_new(L, &kind, sizeof(*s), LSTREAM_WAIT_US);
    cfg.timeout_ms = (long)(us / 1000);
    cfg.url = lua_tostring(L, 2);
    cfg.headers = lua_tostring(L, IDX_HEADERS);
    cfg.protocols = lua_tostring(L, IDX_PROTOCOLS);
    cfg.scen = engine_scens(v->eng)->scens[v->scen]->req;
    cfg.step = v->pend.step;
    return lstream_open(L, s, websocket_open(v, &cfg, err, sizeof(err)), v, us, IDX_CONN, err);
}

/* How the handshake came out, after the wait for it. */
static void view(void *p, lstream_view *w)
{
    websocket *c = p;

    *w = (lstream_view){&c->fig, c->start_us, c->step, 0, c->opened, c->err};
    w->waiting = c->state == WEBSOCKET_CONNECTING;
}

static const lstream_opener opener = {
    .step = "step:ws",
    .options = "headers, protocols, timeout, tls, resolve, connect_timeout",
    .start = start,
    .view = view,
    .gone = "WebSocket handshake: the connection is gone",
    .late = "WebSocket handshake: timed out after",
    .refused = "WebSocket handshake: the connection closed",
};

/* --- the connection ------------------------------------------------------ */

/* c:send(data [, { binary = true }]) */
static int l_send(lua_State *L)
{
    vu *v = vu_current(L);
    websocket *c = lstream_check(L, &kind, v)->c;
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    int binary = 0;
    char msg[WEBSOCKET_ERR_MAX + 40];

    if (v == NULL)
        return luaL_error(L, "c:send is used from a scenario's init, run or finish");
    if (lua_istable(L, 3) && lua_getfield(L, 3, "binary") != LUA_TNIL)
        binary = lua_toboolean(L, -1);
    if (c == NULL || websocket_send(c, data, len, binary) != 0) {
        err_set(msg, sizeof(msg), "WebSocket send: the connection is closed%s%s",
                c != NULL && c->err[0] ? ": " : "", c != NULL ? c->err : "");
        /* in a step:time block, the block's sample fails, as a request's would */
        return lstream_fail(L, v, c != NULL ? c->step : -1, v->pend.in_block, msg);
    }
    return 0;
}

/* Pushes the next queued message and its kind; 0 when none. */
static int push_msg(lua_State *L, lstream *s)
{
    websocket_msg *m = websocket_pop(s->c);

    if (m == NULL)
        return 0;
    lua_pushlstring(L, m->data, m->len);
    lua_pushstring(L, m->binary ? "binary" : "text");
    xfree(m);
    return 2;
}

/* c:close([code [, reason]]) */
static int close_conn(lua_State *L, void *c)
{
    lua_Integer code = luaL_optinteger(L, 2, 1000);
    const char *reason = luaL_optstring(L, 3, "");

    if (code != 1000 && (code < 3000 || code > 4999))
        return luaL_error(L, "c:close: code %d (1000, or 3000 to 4999)", (int)code);
    if (c != NULL)
        websocket_close(c, (int)code, reason);
    return 0;
}

/* c.protocol, c.close_code */
static int field(lua_State *L, lstream *s, const char *k)
{
    websocket *c = s->c;

    if (strcmp(k, "protocol") == 0)
        lua_pushstring(L, c != NULL ? c->protocol : "");
    else if (strcmp(k, "close_code") == 0)
        lua_pushinteger(L, c != NULL ? c->close_code : 0);
    else
        return 0;
    return 1;
}

static const luaL_Reg own[] = {{"send", l_send}, {NULL, NULL}};

static const lstream_kind kind = {
    .mt = "quern.WebSocket",
    .what = "WebSocket",
    .next = "receive",
    .timeout_what = "receive timeout",
    LSTREAM_AT(websocket, WEBSOCKET_OPEN),
    .open_wait = VU_WSOPEN,
    .next_wait = VU_WSRECV,
    .push = push_msg,
    .close = close_conn,
    .field = field,
    .opener = &opener,
    .methods = own,
};

void lwebsocket_register(lua_State *L, int methods)
{
    lstream_register(L, &kind, methods);
}
