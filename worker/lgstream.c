/* lgstream — a gRPC server stream from Lua (lgstream.h). */
#include "worker/lgstream.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine_int.h"
#include "worker/grpc.h"
#include "worker/inbox.h"
#include "worker/gstream.h"
#include "worker/lapi.h"
#include "worker/lgrpc.h"
#include "worker/pbcodec.h"
#include "worker/pbschema.h"

#define LGSTREAM_MT "quern.GrpcStream"

enum { IDX_RO = 7, IDX_OBJ = 9 }; /* on step_grpc's stack */

static const char lgstream_key; /* its address files the streams' metatable */

/** The Lua object: a pointer that gstream.c clears when it frees the stream. */
typedef struct lgstream {
    gstream *c;        /**< borrowed: owned by the VU's list, NULL once gone */
    const pbmethod *m; /**< borrowed: the schema's (the registry keeps it) */
    const pbschema *s; /**< borrowed: the state's schema */
    int64_t wait_us;   /**< the longest wait for the headers or a message */
} lgstream;

static int open_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lgstream *ud = lua_touserdata(L, IDX_OBJ);
    gstream *c = ud->c;
    char why[GSTREAM_ERR_MAX];

    if (c == NULL)
        return luaL_error(L, "grpc_stream: the stream is gone");
    inbox_wait_done(&c->in);
    if (c->state == GSTREAM_CONNECTING) {
        snprintf(why, sizeof(why), "no reply after %lld ms",
                 (long long)((clock_mono_us() - c->start_us) / 1000));
        gstream_cancel(c, GRPC_DEADLINE_EXCEEDED, why);
    }
    /* its time is set once it got its headers or ended (the cancel above) */
    if (v->pend.step >= 0 && v->pend.seq == c->seq) /* still the call's sample */
        vu_sample_add(&v->pend, &c->fig, 0);
    lua_settop(L, IDX_OBJ);
    return 1;
}

int lgstream_start(lua_State *L, vu *v, const pbmethod *m, pbschema *s)
{
    scen *sc = v->eng->scens.scens[v->scen];
    gstream_cfg cfg;
    long curl_ms;
    int deadline;
    char url[4200], err[ERR_MAX];
    lgstream *ud;

    lua_settop(L, 8);
    memset(&cfg, 0, sizeof(cfg));
    cfg.headers = lgrpc_prepare(L, v, url, sizeof(url), &curl_ms, &deadline);
    ud = lua_newuserdatauv(L, sizeof(*ud), 0); /* 9 */
    memset(ud, 0, sizeof(*ud));
    ud->m = m;
    ud->s = s;
    /* with a deadline libcurl ends the call a little after it: the waits
     * go a second past that; without one each wait is bound alone */
    ud->wait_us = ((int64_t)curl_ms + (deadline ? 1000 : 0)) * 1000;
    lapi_setmt(L, &lgstream_key);
    cfg.url = url;
    cfg.body = lua_tolstring(L, 6, &cfg.body_len);
    cfg.timeout_ms = deadline ? curl_ms : 0;
    cfg.req = lua_touserdata(L, IDX_RO);
    cfg.scen = sc->req;
    cfg.step = v->pend.step;
    cfg.seq = v->pend.seq;
    ud->c = gstream_open(v, &cfg, err, sizeof(err));
    curl_slist_free_all(cfg.headers); /* NULL unless the stream refused it */
    if (ud->c == NULL) {
        v->pend.step = -1; /* nothing was sent: not a sample */
        return luaL_error(L, "%s", err);
    }
    ud->c->slot = &ud->c;
    return inbox_yield(L, &ud->c->in, v, ud->wait_us, VU_GRPCOPEN, 0, open_k);
}

/* --- the stream's methods ------------------------------------------------ */

/* The object at 1; raises when its stream is another VU's (one kept in a
 * global): only its VU is woken. */
static lgstream *check(lua_State *L, vu *v)
{
    lgstream *ud = lapi_checkud(L, 1, &lgstream_key, LGSTREAM_MT);

    if (ud->c != NULL && ud->c->owner != v)
        luaL_error(L, "this gRPC stream belongs to VU %u", ud->c->owner->gid);
    return ud;
}

/* Pushes the next queued message decoded; 0 when none. A message that
 * cannot be decoded ends the stream as INTERNAL, and none is pushed. */
static int push_message(lua_State *L, lgstream *ud)
{
    gstream_msg *m = ud->c != NULL ? gstream_pop(ud->c) : NULL;
    char err[ERR_MAX];
    int ok;

    if (m == NULL)
        return 0;
    ok = pbcodec_decode(L, ud->s, ud->m->out, m->data, m->len, err, sizeof(err));
    xfree(m);
    if (!ok) {
        gstream_cancel(ud->c, GRPC_INTERNAL, err);
        return 0;
    }
    return 1;
}

static int next_k(lua_State *L, int status, lua_KContext ctx)
{
    lgstream *ud = lua_touserdata(L, 1);
    char why[GSTREAM_ERR_MAX];

    if (ud->c != NULL)
        inbox_wait_done(&ud->c->in);
    if (push_message(L, ud))
        return 1;
    if (ud->c != NULL && ud->c->state == GSTREAM_OPEN) {
        snprintf(why, sizeof(why), "no message after %lld ms", (long long)(ud->wait_us / 1000));
        gstream_cancel(ud->c, GRPC_DEADLINE_EXCEEDED, why);
    }
    lua_pushnil(L);
    return 1;
}

/* s:next(), and the iterator of s:messages() (upvalue 1: the stream, so
 * that it can be called alone): the next message, nil at the end. */
static int l_next(lua_State *L)
{
    vu *v = vu_current(L);
    lgstream *ud;

    if (lua_type(L, lua_upvalueindex(1)) == LUA_TUSERDATA) {
        lua_settop(L, 0);
        lua_pushvalue(L, lua_upvalueindex(1));
    }
    ud = check(L, v);
    lua_settop(L, 1);
    if (push_message(L, ud))
        return 1;
    if (ud->c == NULL || ud->c->state != GSTREAM_OPEN || v == NULL) {
        lua_pushnil(L);
        return 1;
    }
    return inbox_next(L, &ud->c->in, v, ud->wait_us, VU_GRPCNEXT, 0, next_k);
}

/* s:messages(): iterator, state, control, and the stream as the loop's
 * closing value, so that leaving the loop early cancels the call. */
static int l_messages(lua_State *L)
{
    check(L, vu_current(L));
    lua_pushvalue(L, 1);
    lua_pushcclosure(L, l_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    lua_pushvalue(L, 1);
    return 4;
}

/* s:close(), and __close: cancels a stream still open (no error). */
static int l_close(lua_State *L)
{
    lgstream *ud = lapi_checkud(L, 1, &lgstream_key, LGSTREAM_MT);

    if (ud->c != NULL)
        gstream_cancel(ud->c, GRPC_CANCELLED, "closed by the script");
    return 0;
}

/* s:expect(status | {statuses}): before the end, the statuses the end may
 * have without error; after it, as r:expect. */
static int l_expect(lua_State *L)
{
    vu *v = vu_current(L);
    lgstream *ud = check(L, v);
    gstream *c = ud->c;
    uint64_t mask = 0;
    int st;
    char msg[VU_MSG_MAX];

    if (lua_istable(L, 2)) {
        for (lua_Integer i = 1, n = luaL_len(L, 2); i <= n; i++) {
            lua_geti(L, 2, i);
            st = lgrpc_status_arg(L, -1);
            lua_pop(L, 1);
            mask |= st >= 0 && st < 64 ? (uint64_t)1 << st : 0;
        }
    } else {
        st = lgrpc_status_arg(L, 2);
        mask = st >= 0 && st < 64 ? (uint64_t)1 << st : 0;
    }
    lua_settop(L, 1);
    if (c == NULL)
        return 1;
    if (c->state != GSTREAM_CLOSED || !c->ended) {
        c->accept = mask;
        return 1;
    }
    if (c->status >= 0 && c->status < 64 && (mask >> c->status & 1)) {
        if (v != NULL && v->pend.step >= 0 && v->pend.seq == c->seq && v->pend.status_err) {
            v->pend.err = SAMPLE_OK;
            v->pend.status_err = 0;
            v->pend.msg[0] = '\0';
        }
        return 1;
    }
    snprintf(msg, sizeof(msg), "unexpected gRPC status %s%s%s", grpc_status_name(c->status),
             c->err[0] ? ": " : "", c->err);
    return vu_check_fail(L, v, c->step, v != NULL && v->pend.step >= 0 && v->pend.seq == c->seq, 1,
                         msg);
}

static int l_index(lua_State *L)
{
    const char *k;
    lgstream *ud = lapi_index(L, &lgstream_key, LGSTREAM_MT, &k);
    gstream *c;

    if (ud == NULL)
        return 1;
    c = ud->c;
    if (c == NULL) {
        lua_pushnil(L);
        return 1;
    }
    if (strcmp(k, "count") == 0) {
        lua_pushinteger(L, (lua_Integer)c->received);
    } else if (strcmp(k, "time") == 0) {
        lua_pushnumber(L, (double)c->fig.elapsed_us / 1000.0);
    } else if (strcmp(k, "headers") == 0) {
        lgrpc_push_headers(L, c->hdr, c->hdr + c->hdr_end);
    } else if (strcmp(k, "trailers") == 0) {
        lgrpc_push_headers(L, c->hdr + c->hdr_end, c->hdr + c->hdr_len);
    } else if (c->state != GSTREAM_CLOSED) {
        lua_pushnil(L); /* the status is not known yet */
    } else if (strcmp(k, "status") == 0) {
        lua_pushinteger(L, c->status);
    } else if (strcmp(k, "status_name") == 0) {
        lua_pushstring(L, grpc_status_name(c->status));
    } else if (strcmp(k, "error") == 0 && c->status != GRPC_OK) {
        lua_pushstring(L, c->err);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int l_gc(lua_State *L)
{
    lgstream *ud = lua_touserdata(L, 1);

    if (ud->c != NULL)
        ud->c->slot = NULL; /* the VU's list still owns it */
    return 0;
}

void lgstream_register(lua_State *L)
{
    static const luaL_Reg fns[] = {{"messages", l_messages},
                                   {"next", l_next},
                                   {"close", l_close},
                                   {"expect", l_expect},
                                   {NULL, NULL}};

    lapi_newmt(L, &lgstream_key, LGSTREAM_MT);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_close);
    lua_setfield(L, -2, "__close");
    luaL_newlib(L, fns);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
