/* lwebsocket — WebSockets from Lua (lwebsocket.h). */
#include "worker/lwebsocket.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine_int.h"
#include "worker/inbox.h"
#include "worker/lapi.h"
#include "worker/lquern.h"
#include "worker/lscript.h"
#include "worker/reqopt.h"
#include "worker/websocket.h"

#define LWS_MT "quern.WebSocket"
#define LWS_TIMEOUT_US 60000000 /* receive's and the handshake's default bound */

enum { CTX_THINK = 1, CTX_OPEN = 2, CTX_RECV = 3 };
/* step:ws's stack while it waits: 1 step, 2 url, 3 opts, 4 headers, 5
 * protocols, 6 reqopt or nil, 7 the connection object */
enum { IDX_OPTS = 3, IDX_HEADERS = 4, IDX_PROTOCOLS = 5, IDX_RO = 6, IDX_CONN = 7 };

static const char lws_key; /* its address files the connections' metatable */

/** The Lua object: a pointer that websocket.c clears when it frees c. */
typedef struct lws {
    websocket *c; /**< borrowed: owned by the VU's list, NULL once gone */
} lws;

/* A technical error of c's step, raised like a failed check (lresponse.c): the
 * pending sample takes it when it is the handshake's, else it is counted. */
static int tech_fail(lua_State *L, vu *v, int sidx, int in_sample, const char *msg)
{
    return vu_check_fail(L, v, sidx, in_sample && v->pend.step >= 0, 1, msg);
}

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

static int open_k(lua_State *L, int status, lua_KContext ctx);

/* The options of step:ws beside timeout: of the connection options, those
 * that concern a connection (no HTTP request goes through libcurl). */
static int known_key(const char *k)
{
    static const char *const keys[] = {"headers", "protocols", "tls", "resolve", "connect_timeout"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

/* Stack as IDX_*: reads the options, opens the connection, yields. */
static int start_open(lua_State *L, vu *v)
{
    scen *sc = v->eng->scens.scens[v->scen];
    websocket_cfg cfg;
    int64_t timeout_us = LWS_TIMEOUT_US;
    char err[ERR_MAX];
    lws *ud;

    lua_settop(L, IDX_OPTS);
    memset(&cfg, 0, sizeof(cfg));
    if (sc->req != NULL && (sc->req->set & REQOPT_TIMEOUT))
        timeout_us = (int64_t)sc->req->timeout_ms * 1000;
    if (lua_istable(L, IDX_OPTS)) {
        lua_pushnil(L);
        while (lua_next(L, IDX_OPTS) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "timeout") == 0)
                timeout_us = lapi_check_duration(L, -1, "timeout");
            else if (!known_key(k))
                luaL_error(L,
                           "unknown step:ws option \"%s\" (known: headers, protocols, timeout, "
                           "tls, resolve, connect_timeout)",
                           k);
            lua_pop(L, 1);
        }
    }
    push_headers(L);
    push_protocols(L);
    if (lua_istable(L, IDX_OPTS)) {
        reqopt *ro = reqopt_push(L);
        reqopt_read(L, IDX_OPTS, lscript_dir(L), 0, ro, v->eng->run_ro, 0);
        cfg.req = ro;
    } else {
        lua_pushnil(L);
    }
    ud = lua_newuserdatauv(L, sizeof(*ud), 0);
    ud->c = NULL;
    lapi_setmt(L, &lws_key);
    cfg.url = lua_tostring(L, 2);
    cfg.headers = lua_tostring(L, IDX_HEADERS);
    cfg.protocols = lua_tostring(L, IDX_PROTOCOLS);
    cfg.scen = sc->req;
    cfg.timeout_ms = (long)(timeout_us / 1000);
    cfg.step = v->pend.step;
    ud->c = websocket_open(v, &cfg, err, sizeof(err));
    if (ud->c == NULL) {
        v->pend.step = -1; /* nothing was sent: not a sample */
        return luaL_error(L, "%s", err);
    }
    ud->c->slot = &ud->c;
    return inbox_yield(L, &ud->c->in, v, timeout_us, VU_WSOPEN, CTX_OPEN, open_k);
}

static int open_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lws *ud;
    websocket *c;
    char msg[WEBSOCKET_ERR_MAX + 40];

    if (ctx == CTX_THINK) {
        vu_sample_begin(v, lquern_step_index(L, 1));
        return start_open(L, v);
    }
    ud = lua_touserdata(L, IDX_CONN);
    c = ud->c;
    if (c == NULL)
        return tech_fail(L, v, -1, 1, "WebSocket handshake: the connection is gone");
    inbox_wait_done(&c->in);
    if (v->pend.step >= 0) /* no answer yet: the wait so far is its time */
        vu_sample_add(&v->pend, &c->fig, c->start_us);
    if (c->state == WEBSOCKET_CONNECTING) {
        snprintf(msg, sizeof(msg), "WebSocket handshake: timed out after %lld ms",
                 (long long)((clock_mono_us() - c->start_us) / 1000));
        return tech_fail(L, v, c->step, 1, msg);
    }
    if (!c->opened) /* closed before it opened: refused; after: receive says so */
        return tech_fail(L, v, c->step, 1,
                         c->err[0] ? c->err : "WebSocket handshake: the connection closed");
    lua_settop(L, IDX_CONN);
    return 1;
}

/* step:ws(url, opts) */
static int step_ws(lua_State *L)
{
    vu *v = vu_current(L);
    scen *sc;

    if (v == NULL)
        return luaL_error(L, "step:ws is used from a scenario's init, run or finish, "
                             "not while the script loads");
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU makes one request at a time");
    lapi_wait_ok(L, "step:ws");
    if (v->halting)
        return lapi_halt(L, v);
    luaL_checkstring(L, 2);
    if (!lua_isnoneornil(L, IDX_OPTS))
        luaL_checktype(L, IDX_OPTS, LUA_TTABLE);
    lua_settop(L, IDX_OPTS);
    lquern_vu_step(L, v, 1);
    if (v->pend.in_block)
        return start_open(L, v); /* the block's sample takes it */
    vu_finalize(v);
    sc = v->eng->scens.scens[v->scen];
    if (v->steps_in_run > 0 && sc->think_max_us > 0) {
        vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us), VU_THINK);
        return lua_yieldk(L, 0, CTX_THINK, open_k);
    }
    vu_sample_begin(v, lquern_step_index(L, 1));
    return start_open(L, v);
}

/* --- the connection's methods -------------------------------------------- */

/* The connection of the object at 1, NULL once gone; raises when it is
 * another VU's (a connection kept in a global): only its VU is woken. */
static websocket *conn_of(lua_State *L, vu *v)
{
    lws *ud = lapi_checkud(L, 1, &lws_key, LWS_MT);

    if (ud->c != NULL && ud->c->owner != v)
        luaL_error(L, "this WebSocket belongs to VU %u", ud->c->owner->gid);
    return ud->c;
}

/* c:send(data [, { binary = true }]) */
static int l_send(lua_State *L)
{
    vu *v = vu_current(L);
    websocket *c = conn_of(L, v);
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    int binary = 0;
    char msg[WEBSOCKET_ERR_MAX + 40];

    if (v == NULL)
        return luaL_error(L, "c:send is used from a scenario's init, run or finish");
    if (lua_istable(L, 3) && lua_getfield(L, 3, "binary") != LUA_TNIL)
        binary = lua_toboolean(L, -1);
    if (c == NULL || websocket_send(c, data, len, binary) != 0) {
        snprintf(msg, sizeof(msg), "WebSocket send: the connection is closed%s%s",
                 c != NULL && c->err[0] ? ": " : "", c != NULL ? c->err : "");
        /* in a step:time block, the block's sample fails, as a request's would */
        return tech_fail(L, v, c != NULL ? c->step : -1, v->pend.in_block, msg);
    }
    return 0;
}

/* Pushes the next queued message and its kind; 0 when none. */
static int push_msg(lua_State *L, websocket *c)
{
    websocket_msg *m = c != NULL ? websocket_pop(c) : NULL;

    if (m == NULL)
        return 0;
    lua_pushlstring(L, m->data, m->len);
    lua_pushstring(L, m->binary ? "binary" : "text");
    xfree(m);
    return 2;
}

static int recv_k(lua_State *L, int status, lua_KContext ctx)
{
    lws *ud = lua_touserdata(L, 1);

    if (ud->c != NULL)
        inbox_wait_done(&ud->c->in);
    if (push_msg(L, ud->c))
        return 2;
    return inbox_none(L, ud->c != NULL ? &ud->c->in : NULL);
}

/* c:receive([timeout]) */
static int l_receive(lua_State *L)
{
    lws *ud = lapi_checkud(L, 1, &lws_key, LWS_MT);
    vu *v = vu_current(L);
    int64_t us = LWS_TIMEOUT_US;

    conn_of(L, v);
    if (!lua_isnoneornil(L, 2))
        us = lapi_check_duration(L, 2, "receive timeout");
    lua_settop(L, 1);
    if (push_msg(L, ud->c))
        return 2;
    if (ud->c == NULL || ud->c->state != WEBSOCKET_OPEN || v == NULL)
        return recv_k(L, LUA_OK, 0);
    return inbox_next(L, &ud->c->in, v, us, VU_WSRECV, CTX_RECV, recv_k);
}

/* c:close([code [, reason]]) */
static int l_close(lua_State *L)
{
    websocket *c = conn_of(L, vu_current(L));
    lua_Integer code = luaL_optinteger(L, 2, 1000);
    const char *reason = luaL_optstring(L, 3, "");

    if (code != 1000 && (code < 3000 || code > 4999))
        return luaL_error(L, "c:close: code %d (1000, or 3000 to 4999)", (int)code);
    if (c != NULL)
        websocket_close(c, (int)code, reason);
    return 0;
}

static int l_index(lua_State *L)
{
    const char *k;
    lws *ud = lapi_index(L, &lws_key, LWS_MT, &k);

    if (ud == NULL)
        return 1;
    if (strcmp(k, "protocol") == 0) {
        lua_pushstring(L, ud->c != NULL ? ud->c->protocol : "");
        return 1;
    }
    if (strcmp(k, "close_code") == 0) {
        lua_pushinteger(L, ud->c != NULL ? ud->c->close_code : 0);
        return 1;
    }
    lua_pushnil(L);
    return 1;
}

static int l_gc(lua_State *L)
{
    lws *ud = lua_touserdata(L, 1);

    if (ud->c != NULL)
        ud->c->slot = NULL; /* the VU's list still owns it */
    return 0;
}

void lwebsocket_register(lua_State *L, int methods)
{
    static const luaL_Reg fns[] = {
        {"send", l_send}, {"receive", l_receive}, {"close", l_close}, {NULL, NULL}};

    lua_pushcfunction(L, step_ws);
    lua_setfield(L, methods, "ws");
    lapi_newmt(L, &lws_key, LWS_MT);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, fns);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
