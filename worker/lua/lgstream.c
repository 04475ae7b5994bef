/* lgstream — a gRPC stream from Lua (lgstream.h). */
#include "worker/lua/lgstream.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/wire/grpc.h"
#include "worker/plugs/gstream.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lgrpc.h"
#include "worker/lua/linbox.h"
#include "worker/lua/lstream.h"
#include "worker/lua/pbcodec.h"
#include "worker/wire/pbschema.h"

enum { IDX_RO = 7, IDX_OBJ = 9 }; /* on step_grpc's stack */

/** The Lua object. */
typedef struct lgstream {
    lstream base;      /**< first: the stream (a gstream) and its wait_us, the longest wait
                            for the headers or a message */
    const pbmethod *m; /**< borrowed: the schema's (the registry keeps it) */
    const pbschema *s; /**< borrowed: the state's schema */
    int gzip;          /**< its messages are sent gzipped (compression = "gzip") */
} lgstream;

static const lstream_kind kind;

/* After the wait for the headers: a call still without them is cancelled. */
static void opened(lua_State *L, vu *v, void *p)
{
    gstream *c = p;
    char why[GSTREAM_ERR_MAX];

    if (c == NULL)
        luaL_error(L, "grpc_stream: the stream is gone");
    if (c->state == GSTREAM_CONNECTING) {
        err_set(why, sizeof(why), "no reply after %lld ms",
                (long long)((clock_mono_us() - c->start_us) / 1000));
        gstream_cancel(c, GRPC_DEADLINE_EXCEEDED, why);
    }
    /* its time is set once it got its headers or ended (the cancel above) */
    if (v->pend.step >= 0 && v->pend.seq == c->seq) /* still the call's sample */
        vu_sample_add(&v->pend, &c->fig, 0);
}

int lgstream_start(lua_State *L, vu *v, const pbmethod *m, pbschema *s)
{
    scen *sc = engine_scens(v->eng)->scens[v->scen];
    gstream_cfg cfg;
    long curl_ms;
    int deadline;
    char url[4200], err[ERR_MAX];
    lgstream *ud;
    gstream *c;

    lua_settop(L, 8);
    memset(&cfg, 0, sizeof(cfg));
    cfg.headers = lgrpc_prepare(L, v, url, sizeof(url), &curl_ms, &deadline);
    /* with a deadline libcurl ends the call a little after it: the waits
     * go a second past that; without one each wait is bound alone */
    ud = (lgstream *)lstream_new(L, &kind, sizeof(*ud),
                                 ((int64_t)curl_ms + (deadline ? 1000 : 0)) * 1000); /* 9 */
    ud->m = m;
    ud->s = s;
    ud->gzip = lgrpc_gzip(L);
    cfg.url = url;
    cfg.body = lua_tolstring(L, 6, &cfg.body_len);
    cfg.timeout_ms = deadline ? curl_ms : 0;
    cfg.req = lua_touserdata(L, IDX_RO);
    cfg.scen = sc->req;
    cfg.step = v->pend.step;
    cfg.seq = v->pend.seq;
    cfg.sends = m->client_streaming;
    if (cfg.sends) /* its request, when given, is its first frame */
        cfg.body_len = 0;
    c = gstream_open(v, &cfg, err, sizeof(err));
    curl_slist_free_all(cfg.headers); /* NULL unless the stream refused it */
    if (c != NULL && m->client_streaming && lua_rawlen(L, 6) >= 5) {
        const uint8_t *b = (const uint8_t *)lua_tostring(L, 6);
        gstream_send(c, b, b + 5, lua_rawlen(L, 6) - 5, err, sizeof(err)); /* one fits */
    }
    return lstream_open(L, &ud->base, c, v, ud->base.wait_us, IDX_OBJ, err);
}

/* --- the stream's methods ------------------------------------------------ */

/* Pushes the next queued message decoded; 0 when none. A message that
 * cannot be decoded ends the stream as INTERNAL, and none is pushed. */
static int push_message(lua_State *L, lstream *base)
{
    lgstream *ud = (lgstream *)base;
    gstream_msg *m = gstream_pop(base->c);
    const uint8_t *p;
    size_t n;
    char err[ERR_MAX];
    int rc = GRPC_OK;

    if (m == NULL)
        return 0;
    p = m->data;
    n = m->len;
    if (m->compressed) /* gzip (gstream.c refuses another), inflated here, once */
        rc = lgrpc_inflate(L, &p, &n, err, sizeof(err));
    if (rc == GRPC_OK && pbcodec_decode(L, ud->s, ud->m->out, p, n, err, sizeof(err)) != 0)
        rc = GRPC_INTERNAL;
    xfree(m);
    if (rc != GRPC_OK) {
        gstream_cancel(base->c, rc, err);
        return 0;
    }
    return 1;
}

/* No message came: nil, and a stream still open when the wait ran out is
 * cancelled. */
static int no_message(lua_State *L, lstream *s)
{
    gstream *c = s->c;
    char why[GSTREAM_ERR_MAX];

    if (c != NULL && c->state == GSTREAM_OPEN) {
        err_set(why, sizeof(why), "no message after %lld ms", (long long)(s->wait_us / 1000));
        gstream_cancel(c, GRPC_DEADLINE_EXCEEDED, why);
    }
    lua_pushnil(L);
    return 1;
}

/* s:messages(): iterator, state, control, and the stream as the loop's
 * closing value, so that leaving the loop early cancels the call. */
static int l_messages(lua_State *L)
{
    lstream_check(L, &kind, vu_current(L));
    lstream_push_iter(L, &kind);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    lua_pushvalue(L, 1);
    return 4;
}

/* The stream of the object at 1, which must send: raises otherwise. */
static gstream *sender(lua_State *L, const char *fn)
{
    lgstream *ud = (lgstream *)lstream_check(L, &kind, vu_current(L));

    if (!ud->m->client_streaming)
        luaL_error(L, "s:%s: %s does not stream from the client", fn, ud->m->path);
    return ud->base.c;
}

/* s:send(message): true once queued, false when the call is over (its
 * status says why). */
static int l_send(lua_State *L)
{
    lgstream *ud = (lgstream *)lstream_check(L, &kind, vu_current(L));
    gstream *c = sender(L, "send");
    pbbuf b = {0};
    uint8_t pre[5];
    const uint8_t *msg;
    size_t n;
    char err[ERR_MAX];
    int rc;

    luaL_checktype(L, 2, LUA_TTABLE);
    if (c != NULL && c->half_closed)
        return luaL_error(L, "s:send: the stream's sending side is closed (s:close_send)");
    if (pbcodec_encode(L, 2, ud->s, ud->m->in, &b, err, sizeof(err)) != 0) {
        pbbuf_free(&b);
        return luaL_error(L, "grpc: %s", err);
    }
    if (lgrpc_frame(L, ud->gzip, &b, pre, &msg, &n, err, sizeof(err)) != 0) {
        pbbuf_free(&b);
        return luaL_error(L, "grpc: %s", err);
    }
    rc = c != NULL ? gstream_send(c, pre, msg, n, err, sizeof(err)) : 0;
    pbbuf_free(&b);
    if (rc < 0) {
        /* the bound's error is raised once, here: not classed again at the end */
        c->ended = 1;
        gstream_cancel(c, GRPC_RESOURCE_EXHAUSTED, err);
        return lstream_fail(L, vu_current(L), c->step, 0, err);
    }
    lua_pushboolean(L, rc);
    return 1;
}

/* s:close_send(): the client's half-close (END_STREAM once the queue is out). */
static int l_close_send(lua_State *L)
{
    gstream *c = sender(L, "close_send");

    if (c != NULL)
        gstream_close_send(c);
    lua_settop(L, 1);
    return 1;
}

/* Takes the queued messages onto the stack (after the object and those
 * taken before); past GSTREAM_QUEUE_MAX the call is cancelled. */
static void rest_take(lua_State *L, lstream *base)
{
    char why[GSTREAM_ERR_MAX];

    while (base->c != NULL && lua_gettop(L) - 1 < GSTREAM_QUEUE_MAX) {
        luaL_checkstack(L, 2, "s:finish");
        if (push_message(L, base) == 0)
            return;
    }
    if (base->c != NULL && inbox_peek(&((gstream *)base->c)->in) != NULL) {
        err_set(why, sizeof(why), "s:finish: more than %d messages", GSTREAM_QUEUE_MAX);
        gstream_cancel(base->c, GRPC_RESOURCE_EXHAUSTED, why);
    }
}

static int rest_k(lua_State *L, int status, lua_KContext ctx)
{
    lstream *base = lua_touserdata(L, 1);
    gstream *c = base->c;
    int before = lua_gettop(L);
    char why[GSTREAM_ERR_MAX];

    if (c != NULL)
        inbox_wait_done(&c->in);
    rest_take(L, base);
    c = base->c;
    if (c == NULL || c->state == GSTREAM_CLOSED)
        return lua_gettop(L) - 1;
    if (lua_gettop(L) == before && ctx) { /* nothing came: the wait ran out */
        err_set(why, sizeof(why), "no end after %lld ms", (long long)(base->wait_us / 1000));
        gstream_cancel(c, GRPC_DEADLINE_EXCEEDED, why);
        return lua_gettop(L) - 1;
    }
    return linbox_next(L, &c->in, vu_current(L), base->wait_us, VU_GRPCNEXT, 1, rest_k);
}

/* s:finish(): the sending side closed (a stream that sends), waits for the
 * call's end; returns the messages not taken yet (a client stream's one
 * reply), at most GSTREAM_QUEUE_MAX. */
static int l_finish(lua_State *L)
{
    lgstream *ud = (lgstream *)lstream_check(L, &kind, vu_current(L));

    lua_settop(L, 1);
    if (ud->base.c != NULL && ud->m->client_streaming)
        gstream_close_send(ud->base.c);
    return rest_k(L, 0, 0);
}

/* s:close(), and __close: cancels a stream still open (no error). */
static int cancel(lua_State *L, void *c)
{
    gstream *s = c;

    if (s == NULL)
        return 0;
    gstream_cancel(s, GRPC_CANCELLED, "closed by the script");
    inbox_wake_soon(&s->in); /* closed from another VU: its owner's wait ends */
    return 0;
}

/* s:expect(status | {statuses}): before the end, the statuses the end may
 * have without error; after it, as r:expect. */
static int l_expect(lua_State *L)
{
    vu *v = vu_current(L);
    gstream *c = lstream_check(L, &kind, v)->c;
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
    err_set(msg, sizeof(msg), "unexpected gRPC status %s%s%s", grpc_status_name(c->status),
            c->err[0] ? ": " : "", c->err);
    return vu_check_fail(L, v, c->step, v != NULL && v->pend.step >= 0 && v->pend.seq == c->seq, 1,
                         msg);
}

/* s.count, s.time, s.headers, s.trailers; once closed s.status,
 * s.status_name, s.error */
static int field(lua_State *L, lstream *s, const char *k)
{
    gstream *c = s->c;

    if (c == NULL)
        return 0;
    if (strcmp(k, "count") == 0) {
        lua_pushinteger(L, (lua_Integer)c->received);
    } else if (strcmp(k, "sent") == 0) {
        lua_pushinteger(L, (lua_Integer)c->sent);
    } else if (strcmp(k, "time") == 0) {
        lua_pushnumber(L, (double)c->fig.elapsed_us / 1000.0);
    } else if (strcmp(k, "headers") == 0) {
        lgrpc_push_headers(L, c->hdr, c->hdr + c->hdr_end);
    } else if (strcmp(k, "trailers") == 0) {
        lgrpc_push_headers(L, c->hdr + c->hdr_end, c->hdr + c->hdr_len);
    } else if (c->state != GSTREAM_CLOSED) {
        return 0; /* the status is not known yet */
    } else if (strcmp(k, "status") == 0) {
        lua_pushinteger(L, c->status);
    } else if (strcmp(k, "status_name") == 0) {
        lua_pushstring(L, grpc_status_name(c->status));
    } else if (strcmp(k, "error") == 0 && c->status != GRPC_OK) {
        lua_pushstring(L, c->err);
    } else {
        return 0;
    }
    return 1;
}

/* s:cancel(): s:close() by a name that reads beside s:close_send() */
static int l_cancel(lua_State *L)
{
    lstream *s = lapi_checkud(L, 1, &kind, kind.mt);

    return cancel(L, s->c);
}

static const luaL_Reg methods[] = {
    {"messages", l_messages}, {"expect", l_expect}, {"send", l_send}, {"close_send", l_close_send},
    {"finish", l_finish},     {"cancel", l_cancel}, {NULL, NULL}};

static const lstream_kind kind = {
    .mt = "quern.GrpcStream",
    .what = "gRPC stream",
    .next = "next",
    LSTREAM_AT(gstream, GSTREAM_OPEN),
    .any_close = 1,
    .open_wait = VU_GRPCOPEN,
    .next_wait = VU_GRPCNEXT,
    .push = push_message,
    .none = no_message,
    .close = cancel,
    .field = field,
    .opened = opened,
    .methods = methods,
};

void lgstream_register(lua_State *L)
{
    lstream_register(L, &kind, 0);
}
