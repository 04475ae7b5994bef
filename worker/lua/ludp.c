/* ludp — UDP sockets from Lua (ludp.h). */
#include "worker/lua/ludp.h"

#include <lauxlib.h>
#include <string.h>

#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/lua/linbox.h"
#include "worker/lua/lquern.h"
#include "worker/lua/lstream.h"
#include "worker/plugs/dgram.h"

/* a method's stack: 1 the object, 2 data or timeout */
enum { IDX_ARG = 2 };

static const lstream_kind kind;

/* One datagram read at a time, straight into a Lua string: the worker is
 * one thread, so one buffer serves every socket. */
static char rbuf[DGRAM_MAX + 1];

/* --- step:udp ------------------------------------------------------------- */

/* step:udp(host, port [, opts]) */
static int l_udp(lua_State *L)
{
    vu *v = lapi_request_vu(L, "step:udp", "is used", "step:udp");
    lua_Integer port;
    dgram_cfg cfg;
    char err[ERR_MAX];
    lstream *s;
    dgram *c;
    int64_t us = LSTREAM_WAIT_US;
    const scen *sc;

    if (v->halting)
        return lapi_halt(L, v);
    memset(&cfg, 0, sizeof(cfg));
    cfg.host = luaL_checkstring(L, 2);
    port = luaL_checkinteger(L, 3);
    if (port < 1 || port > 65535)
        return luaL_error(L, "step:udp: port %d (1 to 65535)", (int)port);
    cfg.port = (int)port;
    if (!lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 4, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 4) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            if (strcmp(k, "timeout") != 0)
                return luaL_error(L, "step:udp: unknown option \"%s\" (known: timeout)", k);
            us = lapi_check_duration(L, -1, "step:udp timeout");
            lua_pop(L, 1);
        }
    } else {
        sc = engine_scens(v->eng)->scens[v->scen];
        if (sc->req != NULL && (sc->req->set & REQOPT_TIMEOUT))
            us = (int64_t)sc->req->timeout_ms * 1000;
    }
    cfg.step = lquern_vu_step(L, v, 1);
    cfg.source = vu_source_addr(v);
    c = dgram_open(v, &cfg, err, sizeof(err));
    if (c == NULL)
        return luaL_error(L, "%s", err);
    s = lstream_new(L, &kind, sizeof(*s), us);
    s->c = c;
    c->slot = (dgram **)&s->c;
    return 1;
}

/* --- the object ----------------------------------------------------------- */

/* A technical error of c's (NULL: gone), raised: a step:time block's sample
 * takes it, else it counts against the step that opened c. */
static int fail_of(lua_State *L, vu *v, dgram *c, const char *msg)
{
    return lstream_fail(L, v, c != NULL ? c->step : -1, v != NULL && v->pend.in_block, msg);
}

/* One datagram pushed, 1; or nil and why, 2 ("timeout" when none is there
 * and the socket is open). */
static int take(lua_State *L, vu *v, dgram *c)
{
    int cut = 0;
    ssize_t n = c != NULL ? dgram_recv(c, rbuf, sizeof(rbuf), &cut) : -3;

    if (n >= 0 && cut)
        return fail_of(L, v, c, "UDP receive: a datagram past 65507 bytes");
    if (n >= 0) {
        lua_pushlstring(L, rbuf, (size_t)n);
        return 1;
    }
    lua_pushnil(L);
    lua_pushstring(L, n == -1 ? "timeout" : n == -2 ? "refused" : "closed");
    return 2;
}

static int recv_k(lua_State *L, int status, lua_KContext ctx)
{
    lstream *s = lua_touserdata(L, 1);
    dgram *c = s->c;

    if (c != NULL) {
        inbox_wait_done(&c->in);
        dgram_watch(c, 0);
    }
    return take(L, vu_current(L), c);
}

/* u:receive([timeout]) */
static int l_receive(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    dgram *c = s->c;
    int64_t us = s->wait_us;
    int n;

    if (v == NULL)
        return luaL_error(L, "u:receive is used from a scenario's init, run or finish");
    if (!lua_isnoneornil(L, IDX_ARG))
        us = lapi_check_duration(L, IDX_ARG, "receive timeout");
    lua_settop(L, 1);
    n = take(L, v, c);
    if (n == 1 || c == NULL || c->state != DGRAM_OPEN || !lua_isstring(L, -1) ||
        strcmp(lua_tostring(L, -1), "timeout") != 0)
        return n;
    lua_settop(L, 1);
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU waits for one thing at a time");
    dgram_watch(c, EV_READ);
    return linbox_next(L, &c->in, v, us, VU_UDPRECV, 0, recv_k);
}

/* Sends the datagram at IDX_ARG: true, or nil and why. */
static int send_now(lua_State *L, vu *v, dgram *c, int *later)
{
    size_t len;
    const char *data = lua_tolstring(L, IDX_ARG, &len);
    int rc = c != NULL ? dgram_send(c, data, len) : -2;
    char msg[ERR_MAX];

    *later = 0;
    if (rc == -1) /* an earlier datagram's refusal, now taken: this one goes */
        rc = dgram_send(c, data, len);
    if (rc == 1) {
        lua_pushboolean(L, 1);
        return 1;
    }
    if (rc == 0) {
        *later = 1;
        return 0;
    }
    if (rc == -1) {
        lua_pushnil(L);
        lua_pushstring(L, "refused");
        return 2;
    }
    err_set(msg, sizeof(msg), "UDP send: the socket is closed%s%s",
            c != NULL && c->err[0] ? ": " : "", c != NULL ? c->err : "");
    return fail_of(L, v, c, msg);
}

static int send_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lstream *s = lua_touserdata(L, 1);
    dgram *c = s->c;
    int later, n;

    if (c != NULL) {
        inbox_wait_done(&c->in);
        dgram_watch(c, 0);
    }
    n = send_now(L, v, c, &later);
    if (later)
        return fail_of(L, v, c, "UDP send: the socket did not take the datagram in time");
    return n;
}

/* u:send(data) */
static int l_send(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    dgram *c = s->c;
    size_t len;
    int later, n;

    luaL_checklstring(L, IDX_ARG, &len);
    if (v == NULL)
        return luaL_error(L, "u:send is used from a scenario's init, run or finish");
    if (len > DGRAM_MAX)
        return luaL_error(L, "u:send: %d bytes (a datagram holds %d at most)", (int)len, DGRAM_MAX);
    lua_settop(L, IDX_ARG); /* data stays on the stack while it waits */
    n = send_now(L, v, c, &later);
    if (!later)
        return n;
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU waits for one thing at a time");
    lapi_wait_ok(L, "u:send");
    dgram_watch(c, EV_WRITE);
    return linbox_wait(L, &c->in, v, s->wait_us, VU_UDPSEND, 0, send_k);
}

/* u:fail(msg) */
static int l_fail(lua_State *L)
{
    vu *v = vu_current(L);
    lstream *s = lstream_check(L, &kind, v);
    const char *msg = luaL_checkstring(L, 2);

    if (v == NULL)
        return luaL_error(L, "u:fail is used from a scenario's init, run or finish");
    return fail_of(L, v, s->c, msg);
}

/* u:close() */
static int close_dgram(lua_State *L, void *c)
{
    if (c != NULL)
        dgram_close(c, "closed by the script");
    return 0;
}

/* u.closed, u.error */
static int field(lua_State *L, lstream *s, const char *k)
{
    dgram *c = s->c;

    if (strcmp(k, "closed") == 0)
        lua_pushboolean(L, c == NULL || c->state == DGRAM_CLOSED);
    else if (strcmp(k, "error") == 0)
        lua_pushstring(L, c != NULL ? c->err : "");
    else
        return 0;
    return 1;
}

static const luaL_Reg own[] = {
    {"send", l_send}, {"receive", l_receive}, {"fail", l_fail}, {NULL, NULL}};

static const lstream_kind kind = {
    .mt = "quern.Datagram",
    .what = "UDP socket",
    LSTREAM_AT(dgram, DGRAM_OPEN),
    .close = close_dgram,
    .field = field,
    .methods = own,
};

void ludp_register(lua_State *L, int methods)
{
    lstream_register(L, &kind, methods);
    lua_pushcfunction(L, l_udp);
    lua_setfield(L, methods, "udp");
}
