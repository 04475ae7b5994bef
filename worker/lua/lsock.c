/* lsock — TCP sockets from Lua (lsock.h). */
#include "worker/lua/lsock.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/lua/linbox.h"
#include "worker/lua/lstream.h"
#include "worker/plugs/sock.h"

/* step:tcp's stack while it waits: 1 step, 2 host, 3 port, 4 opts, 5 the
 * options libcurl reads (opts, or a copy without tls = true), 6 reqopt or
 * nil, 7 the connection object */
enum { IDX_PORT = 3, IDX_OPTS = 4, IDX_CONNOPTS = 5, IDX_CONN = 7 };
/* a receive's stack: 1 the object, 2 what, 3 timeout */
enum { IDX_WHAT = 2, IDX_TIMEOUT = 3 };

static const lstream_kind kind;

/* --- step:tcp ------------------------------------------------------------- */

static void check_port(lua_State *L)
{
    lua_Integer port = luaL_checkinteger(L, IDX_PORT);

    if (port < 1 || port > 65535)
        luaL_error(L, "step:tcp: port %d (1 to 65535)", (int)port);
}

/* Pushes the options libcurl reads: opts itself, or a copy without its
 * tls = true (a flag here, a table of TLS options for HTTP); 1 when TLS. */
static int push_connopts(lua_State *L)
{
    int t = lua_istable(L, IDX_OPTS) ? lua_getfield(L, IDX_OPTS, "tls") : LUA_TNIL;
    int tls = t == LUA_TTABLE || (t == LUA_TBOOLEAN && lua_toboolean(L, -1));

    if (lua_istable(L, IDX_OPTS))
        lua_pop(L, 1);
    if (t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TTABLE)
        luaL_error(L, "step:tcp: tls must be true, false or a table of TLS options");
    if (t != LUA_TBOOLEAN) {
        lua_pushvalue(L, IDX_OPTS);
        return tls;
    }
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, IDX_OPTS) != 0) {
        if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "tls") == 0) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_settable(L, -4);
    }
    return tls;
}

/* Stack 1 step, 2 host, 3 port, 4 opts (read): connects, yields. */
static int start(lua_State *L, vu *v, int64_t us)
{
    sock_cfg cfg;
    char err[ERR_MAX];
    lstream *s;

    memset(&cfg, 0, sizeof(cfg));
    cfg.tls = push_connopts(L);
    cfg.req = lstream_reqopt(L, v, IDX_CONNOPTS);
    s = lstream_new(L, &kind, sizeof(*s), us);
    cfg.host = lua_tostring(L, 2);
    cfg.port = (int)lua_tointeger(L, IDX_PORT);
    cfg.timeout_ms = (long)(us / 1000);
    cfg.scen = engine_scens(v->eng)->scens[v->scen]->req;
    cfg.step = v->pend.step;
    return lstream_open(L, s, sock_open(v, &cfg, err, sizeof(err)), v, us, IDX_CONN, err);
}

/* How the connect came out, after the wait for it. */
static void view(void *p, lstream_view *w)
{
    sock *c = p;

    *w = (lstream_view){&c->fig, c->start_us, c->step, 0, c->opened, c->err};
    w->waiting = c->state == SOCK_CONNECTING;
}

static const lstream_opener opener = {
    .step = "step:tcp",
    .options = "tls, timeout, resolve, connect_timeout",
    .args = check_port,
    .opts_idx = IDX_OPTS,
    .start = start,
    .view = view,
    .gone = "TCP connect: the connection is gone",
    .late = "TCP connect: timed out after",
    .refused = "TCP connect: the connection closed",
};

/* --- reading -------------------------------------------------------------- */

/* A technical error of c's (NULL: gone), raised: a step:time block's sample
 * takes it, else it counts against the step that opened c. */
static int fail_of(lua_State *L, vu *v, sock *c, const char *msg)
{
    return lstream_fail(L, v, c != NULL ? c->step : -1, v != NULL && v->pend.in_block, msg);
}

/* Pushes w's piece when c holds it: 1; 0 none (yet); raises past the bound. */
static int push_piece(lua_State *L, vu *v, sock *c, const rdframe *w)
{
    const char *piece;
    size_t len;
    int rc;
    char msg[ERR_MAX];

    if (c == NULL)
        return 0;
    rc = sock_take(c, w, &piece, &len);
    if (rc == 1) {
        lua_pushlstring(L, piece, len);
        return 1;
    }
    if (rc < 0) {
        err_set(msg, sizeof(msg), "TCP receive: %s past %u bytes",
                w->kind == RDFRAME_BYTES  ? "a count"
                : w->kind == RDFRAME_LINE ? "a line"
                                          : "a delimiter",
                SOCK_IN_MAX);
        sock_close(c, msg);
        fail_of(L, v, c, msg);
    }
    return 0;
}

/* Nothing came: nil and "closed" or "timeout". */
static int none(lua_State *L, sock *c)
{
    lua_pushnil(L);
    lua_pushstring(L, c != NULL && c->state == SOCK_OPEN ? "timeout" : "closed");
    return 2;
}

static int recv_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lstream *s = lua_touserdata(L, 1);
    sock *c = s->c;
    rdframe w;

    if (c == NULL)
        return none(L, c);
    inbox_wait_done(&c->in);
    w = c->want; /* its delimiter is c's copy */
    sock_unwant(c);
    if (push_piece(L, v, c, &w))
        return 1;
    return none(L, c);
}

/* Stack 1 object (checked), IDX_TIMEOUT: waits for w's piece. */
static int receive(lua_State *L, lstream *s, const rdframe *w)
{
    vu *v = vu_current(L);
    sock *c = s->c;
    int64_t us = s->wait_us;

    if (v == NULL)
        return luaL_error(L, "c:receive is used from a scenario's init, run or finish");
    if (!lua_isnoneornil(L, IDX_TIMEOUT))
        us = lapi_check_duration(L, IDX_TIMEOUT, "receive timeout");
    if (push_piece(L, v, c, w))
        return 1;
    if (c == NULL || c->state != SOCK_OPEN)
        return none(L, c);
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU waits for one thing at a time");
    if (!sock_want(c, w))
        return push_piece(L, v, c, w) ? 1 : none(L, c);
    return linbox_next(L, &c->in, v, us, VU_SOCKRECV, 0, recv_k);
}

/* c:receive([n | "line" [, timeout]]) */
static int l_receive(lua_State *L)
{
    lstream *s = lstream_check(L, &kind, vu_current(L));
    rdframe w = {RDFRAME_SOME, 0, NULL, 0};

    if (lua_type(L, IDX_WHAT) == LUA_TNUMBER) {
        lua_Integer n = luaL_checkinteger(L, IDX_WHAT);
        if (n < 0 || n > (lua_Integer)SOCK_IN_MAX)
            return luaL_error(L, "c:receive: %d bytes (0 to %d)", (int)n, (int)SOCK_IN_MAX);
        w.kind = RDFRAME_BYTES;
        w.n = (size_t)n;
    } else if (lua_type(L, IDX_WHAT) == LUA_TSTRING) {
        if (strcmp(lua_tostring(L, IDX_WHAT), "line") != 0)
            return luaL_error(L, "c:receive: a count of bytes, \"line\" or nothing, not \"%s\"",
                              lua_tostring(L, IDX_WHAT));
        w.kind = RDFRAME_LINE;
    } else if (!lua_isnoneornil(L, IDX_WHAT)) {
        return luaL_error(L, "c:receive: a count of bytes, \"line\" or nothing");
    }
    lua_settop(L, IDX_TIMEOUT);
    return receive(L, s, &w);
}

/* c:receive_until(delimiter [, timeout]) */
static int l_receive_until(lua_State *L)
{
    lstream *s = lstream_check(L, &kind, vu_current(L));
    rdframe w = {RDFRAME_UNTIL, 0, NULL, 0};

    w.delim = luaL_checklstring(L, IDX_WHAT, &w.dlen);
    if (w.dlen == 0 || w.dlen > RDFRAME_DELIM_MAX)
        return luaL_error(L, "c:receive_until: a delimiter of 1 to %d bytes", RDFRAME_DELIM_MAX);
    lua_settop(L, IDX_TIMEOUT);
    return receive(L, s, &w);
}

/* --- sending -------------------------------------------------------------- */

/* ctx: the wait's start */
static int send_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lstream *s = lua_touserdata(L, 1);
    sock *c = s->c;
    char msg[ERR_MAX];

    if (c != NULL)
        inbox_wait_done(&c->in);
    if (c != NULL && c->out != NULL && c->state == SOCK_OPEN) {
        err_set(msg, sizeof(msg), "TCP send: timed out after %lld ms",
                (long long)((clock_mono_us() - (int64_t)ctx) / 1000));
        sock_close(c, msg);
        return fail_of(L, v, c, msg);
    }
    if (c == NULL || c->state != SOCK_OPEN) {
        err_set(msg, sizeof(msg), "TCP send: the connection is closed%s%s",
                c != NULL && c->err[0] ? ": " : "", c != NULL ? c->err : "");
        return fail_of(L, v, c, msg);
    }
    return 0;
}

/* c:send(data) */
static int l_send(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    sock *c = s->c;
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    int rc;

    if (v == NULL)
        return luaL_error(L, "c:send is used from a scenario's init, run or finish");
    lua_settop(L, 2); /* data stays on the stack while it is sent */
    rc = c != NULL ? sock_send(c, data, len) : -1;
    if (rc == 1)
        return 0;
    if (rc < 0 || v->wait != VU_IDLE)
        return send_k(L, LUA_OK, 0);
    lapi_wait_ok(L, "c:send");
    return linbox_wait(L, &c->in, v, s->wait_us, VU_SOCKSEND, (lua_KContext)clock_mono_us(),
                       send_k);
}

/* c:heartbeat(seconds [, bytes]): nil or 0 stops it */
static int l_heartbeat(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    sock *c = s->c;
    int64_t us = lua_isnoneornil(L, 2) ? 0 : lapi_check_duration(L, 2, "heartbeat interval");
    size_t len = 0;
    const char *bytes = us != 0 ? luaL_checklstring(L, 3, &len) : "";
    char msg[ERR_MAX];
    int rc;

    if (v == NULL)
        return luaL_error(L, "c:heartbeat is used from a scenario's init, run or finish");
    if (us != 0 && (c == NULL || c->state != SOCK_OPEN)) {
        err_set(msg, sizeof(msg), "TCP heartbeat: the connection is closed%s%s",
                c != NULL && c->err[0] ? ": " : "", c != NULL ? c->err : "");
        return fail_of(L, v, c, msg);
    }
    rc = c != NULL ? sock_heartbeat(c, (double)us / 1e6, bytes, len) : 0;
    if (rc == -1 && (len == 0 || len > HEARTBEAT_MAX))
        return luaL_error(L, "c:heartbeat: a beat of 1 to %d bytes", HEARTBEAT_MAX);
    if (rc == -1)
        return luaL_error(L, "c:heartbeat: an interval of 10 ms to 1 day, or 0");
    if (rc == -2)
        return luaL_error(L, "c:heartbeat: a beat is half sent (the socket is full): try later");
    return 0;
}

/* c:fail(msg) */
static int l_fail(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    const char *msg = luaL_checkstring(L, 2);

    if (v == NULL)
        return luaL_error(L, "c:fail is used from a scenario's init, run or finish");
    return fail_of(L, v, s->c, msg);
}

/* c:close() */
static int close_conn(lua_State *L, void *c)
{
    if (c != NULL)
        sock_close(c, "closed by the script");
    return 0;
}

/* c.closed, c.error, c.tls, c.timeout */
static int field(lua_State *L, lstream *s, const char *k)
{
    sock *c = s->c;

    if (strcmp(k, "closed") == 0)
        lua_pushboolean(L, c == NULL || c->state == SOCK_CLOSED);
    else if (strcmp(k, "error") == 0)
        lua_pushstring(L, c != NULL ? c->err : "");
    else if (strcmp(k, "tls") == 0)
        lua_pushboolean(L, c != NULL && c->tls);
    else if (strcmp(k, "timeout") == 0) /* a protocol's deadlines start from it */
        lua_pushnumber(L, (lua_Number)s->wait_us / 1e6);
    else
        return 0;
    return 1;
}

static const luaL_Reg own[] = {
    {"send", l_send}, {"receive", l_receive},     {"receive_until", l_receive_until},
    {"fail", l_fail}, {"heartbeat", l_heartbeat}, {NULL, NULL}};

static const lstream_kind kind = {
    .mt = "quern.Socket",
    .what = "TCP connection",
    LSTREAM_AT(sock, SOCK_OPEN),
    .open_wait = VU_SOCKOPEN,
    .close = close_conn,
    .field = field,
    .opener = &opener,
    .methods = own,
};

void lsock_register(lua_State *L, int methods)
{
    lstream_register(L, &kind, methods);
}
