#include "worker/lua/lbatch.h"

#include <lauxlib.h>
#include <string.h>
#include <strings.h>

#include "worker/plugs/batch.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/wire/intend.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lhttp.h"
#include "worker/lua/lquern.h"
#include "worker/lua/lresponse.h"

enum { CTX_THINK = 1, CTX_XFER = 2 };

/* Stack of a batch call: 1 step|nil, 2 list, 3 opts|nil, then 4 the
 * anchors (entry i's URL, body and options, kept while it flies). */
enum { ARG_STEP = 1, ARG_LIST, ARG_OPTS, ARG_ANCHORS };

/* The mode the call asks for (raises on a bad option). */
static enum batch_mode read_mode(lua_State *L, const vu *v, int is_step)
{
    int each = 1;

    if (!lua_isnoneornil(L, ARG_OPTS)) {
        luaL_checktype(L, ARG_OPTS, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, ARG_OPTS) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            if (strcmp(k, "sample") != 0)
                luaL_error(L, "batch: unknown option \"%s\" (known: sample)", k);
            if (strcmp(s, "each") != 0 && strcmp(s, "batch") != 0)
                luaL_error(L, "batch: sample is \"each\" or \"batch\"");
            each = strcmp(s, "each") == 0;
            lua_pop(L, 1);
        }
    }
    if (!is_step && !each)
        luaL_error(L, "batch: sample = \"batch\" needs a step (step:batch)");
    if (v->pend.in_block)
        return BATCH_ONE; /* inside step:time: the block's sample */
    if (!is_step)
        return BATCH_UNTIMED;
    return each ? BATCH_EACH : BATCH_ONE;
}

/* Checks entry i (1-based) at the top of the stack, before anything is
 * built: { method, url, opts, step = s }. */
static void check_entry(lua_State *L, const vu *v, lua_Integer i, enum batch_mode mode)
{
    int e = lua_gettop(L);
    const char *m;

    if (!lua_istable(L, e))
        luaL_error(L, "batch entry %d: give a table { method, url, opts }", (int)i);
    lua_pushnil(L);
    while (lua_next(L, e) != 0) {
        int ok = lua_type(L, -2) == LUA_TSTRING ? strcmp(lua_tostring(L, -2), "step") == 0
                 : lua_isinteger(L, -2) ? lua_tointeger(L, -2) >= 1 && lua_tointeger(L, -2) <= 3
                                        : 0;
        if (!ok)
            luaL_error(L,
                       "batch entry %d: unknown field %s (known: [1] method, [2] url, "
                       "[3] options, step)",
                       (int)i, lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
        lua_pop(L, 1);
    }
    if (lua_geti(L, e, 1) != LUA_TSTRING)
        luaL_error(L, "batch entry %d: no method (give { \"GET\", url, opts })", (int)i);
    for (m = lua_tostring(L, -1); *m; m++)
        if (!(*m >= 'A' && *m <= 'Z'))
            luaL_error(L, "batch entry %d: bad HTTP method \"%s\" (use upper case, e.g. \"GET\")",
                       (int)i, lua_tostring(L, -1));
    if (lua_geti(L, e, 2) != LUA_TSTRING)
        luaL_error(L, "batch entry %d: no URL", (int)i);
    switch (lua_geti(L, e, 3)) {
    case LUA_TNIL:
        break;
    case LUA_TTABLE:
        if (lua_getfield(L, -1, "resources") != LUA_TNIL && lua_toboolean(L, -1))
            luaL_error(L, "batch entry %d: resources: a page's resources are not loaded in a batch",
                       (int)i);
        lua_pop(L, 1);
        break;
    default:
        luaL_error(L, "batch entry %d: options must be a table", (int)i);
    }
    if (lua_getfield(L, e, "step") != LUA_TNIL) {
        if (mode == BATCH_UNTIMED)
            luaL_error(L, "batch entry %d: step: http.batch is untimed (use step:batch)", (int)i);
        if (mode == BATCH_ONE)
            luaL_error(L, "batch entry %d: step: the batch is one sample, of its own step", (int)i);
        lquern_vu_step(L, v, lua_gettop(L)); /* raises when not a step of the VU's scenario */
    }
    lua_settop(L, e - 1);
}

/* build_entry's stack, as lhttp_build reads it: 1 nil, 2 the method, 3
 * the URL, 4 the options or nil; then the entry's index, dropped. */
enum { ENTRY_URL = 3, ENTRY_OPTS = 4, ENTRY_INDEX = 5 };

/* lua_pcall'ed: builds the request on a handle of the batch; returns the
 * values to anchor. */
static int build_entry(lua_State *L)
{
    vu *v = vu_current(L);
    batch *b = v->batch;
    size_t i = (size_t)lua_tointeger(L, ENTRY_INDEX);
    batch_item *r = &b->it[i];
    lhttp_req q;
    int top, http2, once;

    lua_settop(L, ENTRY_OPTS);
    batch_take(b, i);
    q.x = r->x;
    q.hdrs = &r->hdrs;
    q.trace_id = r->res.trace_id;
    q.url = &r->url;
    lhttp_build(L, v, &q);
    http2 =
        reqopt_http2(q.rro, engine_scens(v->eng)->scens[v->scen]->req, engine_run_reqopt(v->eng));
    /* h2c before libcurl 8.0 fails a second request on a connection
     * (reqopt.c): there each request opens its own rather than a stream of
     * another's. Otherwise, with HTTP/2, they wait for one and share it. */
    once = http2 && strncasecmp(lua_tostring(L, ENTRY_URL), "https:", 6) != 0 &&
           curl_version_info(CURLVERSION_NOW)->version_num < 0x080000;
    curl_easy_setopt(r->x->easy, CURLOPT_PIPEWAIT, http2 && !once ? 1L : 0L);
    curl_easy_setopt(r->x->easy, CURLOPT_FRESH_CONNECT, once ? 1L : 0L); /* reset when released */
    if (engine_trace(v->eng) != NULL)
        curl_easy_setopt(r->x->easy, CURLOPT_VERBOSE, 0L); /* --trace shows single requests */
    batch_set_url(b, i, lua_tostring(L, ENTRY_URL));
    top = lua_gettop(L);
    lua_createtable(L, top - (ENTRY_URL - 1), 0);
    for (int k = ENTRY_URL; k <= top; k++) {
        lua_pushvalue(L, k);
        lua_rawseti(L, -2, k - (ENTRY_URL - 1)); /* [1] is the URL */
    }
    return 1;
}

/* Starts item i's own sample (BATCH_EACH), of step sidx. */
static void begin_item_sample(vu *v, batch_item *r, int sidx)
{
    memset(&r->s, 0, sizeof(r->s));
    r->s.step = sidx;
    r->s.seq = engine_next_seq(v->eng);
    r->s.lag_us = intend_take(&v->run_lag_us);
    v->cur_step = sidx;
    v->steps_in_run++;
}

static int call_k(lua_State *L, int status, lua_KContext ctx);

/* Builds every request (raising at the script's line, nothing sent, when
 * one is bad), then sends them. */
static int call_go(lua_State *L, vu *v)
{
    int is_step = !lua_isnil(L, ARG_STEP);
    enum batch_mode mode = read_mode(L, v, is_step);
    size_t n = lua_rawlen(L, ARG_LIST);
    batch *b;

    if (mode == BATCH_ONE && !v->pend.in_block)
        vu_sample_begin(v, lquern_step_index(L, ARG_STEP));
    b = batch_prepare(v, n, mode);
    lua_settop(L, ARG_OPTS);
    lua_createtable(L, (int)n, 0); /* ARG_ANCHORS */
    for (size_t i = 0; i < n; i++) {
        int e;
        lua_geti(L, ARG_LIST, (lua_Integer)i + 1);
        e = lua_gettop(L);
        lua_pushcfunction(L, build_entry);
        lua_pushnil(L);
        lua_geti(L, e, 1);
        lua_geti(L, e, 2);
        lua_geti(L, e, 3);
        lua_pushinteger(L, (lua_Integer)i);
        if (lua_pcall(L, 5, 1, 0) != LUA_OK) {
            const char *msg = lua_tostring(L, -1);
            batch_release(b); /* nothing was sent */
            b->n = 0;
            return luaL_error(L, "batch entry %d: %s", (int)i + 1, msg != NULL ? msg : "error");
        }
        lua_rawseti(L, ARG_ANCHORS, (lua_Integer)i + 1);
        if (mode == BATCH_EACH) {
            int sidx = lua_getfield(L, e, "step") != LUA_TNIL ? lquern_step_index(L, -1)
                                                              : lquern_step_index(L, ARG_STEP);
            begin_item_sample(v, &b->it[i], sidx);
        }
        lua_settop(L, ARG_ANCHORS);
    }
    batch_start(b);
    if (b->left == 0)
        return call_k(L, LUA_OK, CTX_XFER); /* none could start */
    v->wait = VU_XFER;
    return lua_yieldk(L, 0, CTX_XFER, call_k);
}

static int call_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    batch *b = v->batch;

    (void)status;
    if (ctx == CTX_THINK)
        return call_go(L, v);
    lua_settop(L, ARG_ANCHORS);
    lua_createtable(L, (int)b->n, 0);
    for (size_t i = 0; i < b->n; i++) {
        const batch_item *r = &b->it[i];
        uint32_t seq = b->mode == BATCH_EACH ? r->s.seq : b->seq;
        int sidx = b->mode == BATCH_EACH ? r->s.step : b->seq != 0 ? v->pend.step : -1;
        lua_geti(L, ARG_ANCHORS, (lua_Integer)i + 1);
        lua_geti(L, -1, 1);
        lresponse_push_xfer(L, &r->res, r->x, seq, sidx, (int)i + 1, -1);
        lua_rawseti(L, ARG_ANCHORS + 1, (lua_Integer)i + 1);
        lua_pop(L, 2);
    }
    batch_release(b);
    return 1;
}

/* Stack: 1 step|nil, 2 list, 3 opts|nil. */
static int do_batch(lua_State *L)
{
    vu *v = lapi_request_vu(L, "HTTP requests", "are made", "a batch");
    int is_step = !lua_isnil(L, ARG_STEP);
    enum batch_mode mode;
    size_t n;
    scen *sc;

    if (v->halting)
        return lapi_halt(L, v);
    luaL_checktype(L, ARG_LIST, LUA_TTABLE);
    lua_settop(L, ARG_OPTS);
    if (is_step)
        lquern_vu_step(L, v, ARG_STEP);
    mode = read_mode(L, v, is_step);
    n = lua_rawlen(L, ARG_LIST);
    if (n > BATCH_MAX)
        return luaL_error(L, "batch: %d requests, at most %d in one batch", (int)n, BATCH_MAX);
    for (size_t i = 1; i <= n; i++) {
        lua_geti(L, ARG_LIST, (lua_Integer)i);
        check_entry(L, v, (lua_Integer)i, mode);
    }
    if (n == 0) {
        lua_newtable(L);
        return 1; /* nothing to send: no sample */
    }
    if (is_step && !v->pend.in_block) {
        /* As a step request: the previous sample is recorded, then the
         * think time between steps. */
        vu_finalize(v);
        sc = engine_scens(v->eng)->scens[v->scen];
        if (v->steps_in_run > 0 && sc->think_max_us > 0) {
            vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us),
                          VU_THINK);
            return lua_yieldk(L, 0, CTX_THINK, call_k);
        }
    }
    return call_go(L, v);
}

/* step:batch(list, opts) */
static int step_batch(lua_State *L)
{
    lua_settop(L, ARG_OPTS);
    return do_batch(L);
}

/* http.batch(list, opts) */
static int http_batch(lua_State *L)
{
    lua_settop(L, 2);
    lua_pushnil(L);
    lua_insert(L, 1);
    return do_batch(L);
}

void lbatch_register(lua_State *L)
{
    lua_pushcfunction(L, step_batch);
    lua_setfield(L, -2, "batch");
}

void lbatch_open_field(lua_State *L)
{
    lua_pushcfunction(L, http_batch);
    lua_setfield(L, -2, "batch");
}
