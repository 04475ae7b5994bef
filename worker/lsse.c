/* lsse — server-sent events from Lua (lsse.h). */
#include "worker/lsse.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/engine_int.h"
#include "worker/inbox.h"
#include "worker/lapi.h"
#include "worker/lquern.h"
#include "worker/lscript.h"
#include "worker/reqopt.h"
#include "worker/sse.h"

#define LSSE_MT "quern.EventStream"
#define LSSE_TIMEOUT_US 60000000 /* next's and the headers' default bound */

enum { CTX_THINK = 1, CTX_OPEN = 2, CTX_NEXT = 3 };
/* step:sse's stack while it waits: 1 step, 2 url, 3 opts, 4 header lines,
 * 5 reqopt or nil, 6 the stream object */
enum { IDX_OPTS = 3, IDX_HEADERS = 4, IDX_RO = 5, IDX_CONN = 6 };

static const char lsse_key; /* its address files the streams' metatable */

/** The Lua object: a pointer that sse.c clears when it frees the stream. */
typedef struct lsse {
    sse *c; /**< borrowed: owned by the VU's list, NULL once gone */
} lsse;

/* A technical error of the stream's step, raised like a failed check
 * (lresponse.c): the pending sample takes it when it is the answer's, else it
 * is counted. */
static int tech_fail(lua_State *L, vu *v, int sidx, int in_sample, const char *msg)
{
    return vu_check_fail(L, v, sidx, in_sample && v->pend.step >= 0, 1, msg);
}

/* --- step:sse ------------------------------------------------------------ */

/* 1 when the bytes hold no line break nor NUL: a header's name or value. */
static int header_safe(const char *s, size_t n)
{
    return memchr(s, '\r', n) == NULL && memchr(s, '\n', n) == NULL && memchr(s, '\0', n) == NULL;
}

/* 1 when the header lines so far (LF-ended, at idx) name header h. */
static int has_header(lua_State *L, int idx, const char *h)
{
    size_t n, hl = strlen(h);
    const char *s = lua_tolstring(L, idx, &n);

    for (const char *p = s; p < s + n;) {
        const char *end = memchr(p, '\n', (size_t)(s + n - p));
        if ((size_t)(end - p) > hl && p[hl] == ':' && strncasecmp(p, h, hl) == 0)
            return 1;
        p = end + 1;
    }
    return 0;
}

/* Appends the string on top to the lines at acc, popping it. */
static void add_line(lua_State *L, int acc)
{
    lua_pushvalue(L, acc);
    lua_insert(L, -2);
    lua_concat(L, 2);
    lua_replace(L, acc);
}

/* Pushes the request's header lines, each ending in LF: the opts' headers,
 * Last-Event-ID, and the defaults the opts do not replace. */
static void push_headers(lua_State *L)
{
    int acc, tbl;
    size_t n;
    const char *id;

    lua_pushliteral(L, "");
    acc = lua_gettop(L);
    if (lua_istable(L, IDX_OPTS) && lua_getfield(L, IDX_OPTS, "headers") != LUA_TNIL) {
        tbl = lua_gettop(L);
        luaL_checktype(L, tbl, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, tbl) != 0) {
            size_t kn, vn;
            const char *k, *val;
            if (lua_type(L, -2) != LUA_TSTRING ||
                (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
                luaL_error(L, "step:sse headers: names and values must be strings");
            k = lua_tolstring(L, -2, &kn);
            lua_pushvalue(L, -1); /* tolstring on a copy: a number value stays a number */
            val = lua_tolstring(L, -1, &vn);
            if (kn == 0 || memchr(k, ':', kn) || !header_safe(k, kn) || !header_safe(val, vn))
                luaL_error(L, "step:sse headers: \"%s\" is not a header name and value", k);
            lua_pushfstring(L, "%s: %s\n", k, val);
            add_line(L, acc);
            lua_pop(L, 2); /* the copy and the value: the key stays for lua_next */
        }
    }
    lua_settop(L, acc);
    if (lua_istable(L, IDX_OPTS) && lua_getfield(L, IDX_OPTS, "last_event_id") != LUA_TNIL) {
        id = luaL_checklstring(L, -1, &n);
        if (!header_safe(id, n))
            luaL_error(L, "step:sse last_event_id: a line break or NUL cannot be sent");
        if (n > 0) { /* an empty id is no id: EventSource sends none */
            lua_pushfstring(L, "Last-Event-ID: %s\n", id);
            add_line(L, acc);
        }
    }
    lua_settop(L, acc);
    /* the defaults, as a browser's EventSource sends them */
    if (!has_header(L, acc, "Accept")) {
        lua_pushliteral(L, "Accept: text/event-stream\n");
        add_line(L, acc);
    }
    if (!has_header(L, acc, "Cache-Control")) {
        lua_pushliteral(L, "Cache-Control: no-cache\n");
        add_line(L, acc);
    }
    if (!has_header(L, acc, "User-Agent")) {
        lua_pushliteral(L, "User-Agent: " QUERN_USER_AGENT "\n");
        add_line(L, acc);
    }
}

/* The LF-ended lines at idx as libcurl's header list (no Lua error). */
static struct curl_slist *header_list(lua_State *L, int idx)
{
    size_t n;
    const char *s = lua_tolstring(L, idx, &n);
    struct curl_slist *list = NULL;
    char line[8192];

    for (const char *p = s; p < s + n;) {
        const char *end = memchr(p, '\n', (size_t)(s + n - p));
        snprintf(line, sizeof(line), "%.*s", (int)(end - p), p);
        list = curl_slist_append(list, line);
        if (list == NULL)
            xoom("curl_slist_append");
        p = end + 1;
    }
    return list;
}

static int open_k(lua_State *L, int status, lua_KContext ctx);

/* The options of step:sse beside headers, last_event_id and timeout: the
 * connection options of a request (a page's resources have no place here). */
static int known_key(const char *k)
{
    static const char *const keys[] = {"headers", "last_event_id", "tls",
                                       "http1",   "http2",         "resolve",
                                       "auth",    "compressed",    "connect_timeout"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

/* Stack as IDX_*: reads the options, starts the request, yields. */
static int start_open(lua_State *L, vu *v)
{
    scen *sc = v->eng->scens.scens[v->scen];
    sse_cfg cfg;
    int64_t timeout_us = LSSE_TIMEOUT_US;
    char err[ERR_MAX];
    lsse *ud;

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
                           "unknown step:sse option \"%s\" (known: headers, last_event_id, "
                           "timeout, tls, http1, http2, resolve, auth, compressed, "
                           "connect_timeout)",
                           k);
            lua_pop(L, 1);
        }
    }
    push_headers(L);
    if (lua_istable(L, IDX_OPTS)) {
        /* on the stack while the request starts: its resolve list lives */
        reqopt *ro = reqopt_push(L);
        reqopt_read(L, IDX_OPTS, lscript_dir(L), 0, ro, v->eng->run_ro, 0);
        cfg.req = ro;
    } else {
        lua_pushnil(L);
    }
    ud = lua_newuserdatauv(L, sizeof(*ud), 0);
    ud->c = NULL;
    lapi_setmt(L, &lsse_key);
    cfg.url = lua_tostring(L, 2);
    cfg.scen = sc->req;
    cfg.step = v->pend.step;
    cfg.headers = header_list(L, IDX_HEADERS);
    ud->c = sse_open(v, &cfg, err, sizeof(err));
    curl_slist_free_all(cfg.headers); /* NULL unless the stream refused it */
    if (ud->c == NULL) {
        v->pend.step = -1; /* nothing was sent: not a sample */
        return luaL_error(L, "%s", err);
    }
    ud->c->slot = &ud->c;
    return inbox_yield(L, &ud->c->in, v, timeout_us, VU_SSEOPEN, CTX_OPEN, open_k);
}

static int open_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    lsse *ud;
    sse *c;
    char msg[SSE_ERR_MAX + 40];

    if (ctx == CTX_THINK) {
        vu_sample_begin(v, lquern_step_index(L, 1));
        return start_open(L, v);
    }
    ud = lua_touserdata(L, IDX_CONN);
    c = ud->c;
    if (c == NULL)
        return tech_fail(L, v, -1, 1, "SSE: the stream is gone");
    inbox_wait_done(&c->in);
    if (v->pend.step >= 0) /* no answer yet: the wait so far is its time */
        vu_sample_add(&v->pend, &c->fig, c->start_us);
    if (c->state == SSE_CONNECTING) {
        snprintf(msg, sizeof(msg), "SSE: no answer after %lld ms",
                 (long long)((clock_mono_us() - c->start_us) / 1000));
        sse_close(c);
        return tech_fail(L, v, c->step, 1, msg);
    }
    if (!c->opened)
        return tech_fail(L, v, c->step, 1, c->err[0] ? c->err : "SSE: the stream closed");
    lua_settop(L, IDX_CONN);
    return 1;
}

/* step:sse(url, opts) */
static int step_sse(lua_State *L)
{
    vu *v = vu_current(L);
    const char *url;
    scen *sc;

    if (v == NULL)
        return luaL_error(L, "step:sse is used from a scenario's init, run or finish, "
                             "not while the script loads");
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU makes one request at a time");
    lapi_wait_ok(L, "step:sse");
    if (v->halting)
        return lapi_halt(L, v);
    url = luaL_checkstring(L, 2);
    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)
        return luaL_error(L, "step:sse: \"%s\" is not an http:// or https:// URL", url);
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

/* --- the stream's methods ------------------------------------------------ */

/* The stream of the object at 1, NULL once gone; raises when it is another
 * VU's (a stream kept in a global): only its VU is woken. */
static sse *stream_of(lua_State *L, vu *v)
{
    lsse *ud = lapi_checkud(L, 1, &lsse_key, LSSE_MT);

    if (ud->c != NULL && ud->c->owner != v)
        luaL_error(L, "this event stream belongs to VU %u", ud->c->owner->gid);
    return ud->c;
}

/* Pushes the next queued event as { id, event, data, retry }; 0 when none. */
static int push_event(lua_State *L, sse *c)
{
    sse_event *m = c != NULL ? sse_pop(c) : NULL;

    if (m == NULL)
        return 0;
    lua_createtable(L, 0, 4);
    lua_pushlstring(L, m->text, m->id_len);
    lua_setfield(L, -2, "id");
    lua_pushlstring(L, m->text + m->id_len, m->event_len);
    lua_setfield(L, -2, "event");
    lua_pushlstring(L, m->text + m->id_len + m->event_len, m->data_len);
    lua_setfield(L, -2, "data");
    if (m->retry >= 0) {
        lua_pushinteger(L, m->retry);
        lua_setfield(L, -2, "retry");
    }
    xfree(m);
    return 1;
}

static int next_k(lua_State *L, int status, lua_KContext ctx)
{
    lsse *ud = lua_touserdata(L, 1);

    if (ud->c != NULL)
        inbox_wait_done(&ud->c->in);
    if (push_event(L, ud->c))
        return 1;
    return inbox_none(L, ud->c != NULL ? &ud->c->in : NULL);
}

/* s:next([timeout]) */
static int l_next(lua_State *L)
{
    lsse *ud = lapi_checkud(L, 1, &lsse_key, LSSE_MT);
    vu *v = vu_current(L);
    int64_t us = LSSE_TIMEOUT_US;

    stream_of(L, v);
    if (!lua_isnoneornil(L, 2))
        us = lapi_check_duration(L, 2, "next timeout");
    lua_settop(L, 1);
    if (push_event(L, ud->c))
        return 1;
    if (ud->c == NULL || ud->c->state != SSE_OPEN || v == NULL)
        return next_k(L, LUA_OK, 0);
    return inbox_next(L, &ud->c->in, v, us, VU_SSENEXT, CTX_NEXT, next_k);
}

/* s:close() */
static int l_close(lua_State *L)
{
    sse *c = stream_of(L, vu_current(L));

    if (c != NULL)
        sse_close(c);
    return 0;
}

static int l_index(lua_State *L)
{
    const char *k;
    lsse *ud = lapi_index(L, &lsse_key, LSSE_MT, &k);
    size_t n = 0;
    const char *id;

    if (ud == NULL)
        return 1;
    if (strcmp(k, "last_id") == 0) {
        id = ud->c != NULL ? sse_last_id(ud->c, &n) : "";
        lua_pushlstring(L, id, n);
        return 1;
    }
    if (strcmp(k, "status") == 0) {
        lua_pushinteger(L, ud->c != NULL ? ud->c->status : 0);
        return 1;
    }
    if (strcmp(k, "retry") == 0 && ud->c != NULL && ud->c->parser.retry >= 0) {
        lua_pushinteger(L, ud->c->parser.retry);
        return 1;
    }
    lua_pushnil(L);
    return 1;
}

static int l_gc(lua_State *L)
{
    lsse *ud = lua_touserdata(L, 1);

    if (ud->c != NULL)
        ud->c->slot = NULL; /* the VU's list still owns it */
    return 0;
}

void lsse_register(lua_State *L, int methods)
{
    static const luaL_Reg fns[] = {{"next", l_next}, {"close", l_close}, {NULL, NULL}};

    lua_pushcfunction(L, step_sse);
    lua_setfield(L, methods, "sse");
    lapi_newmt(L, &lsse_key, LSSE_MT);
    lua_pushcfunction(L, l_gc);
    lua_setfield(L, -2, "__gc");
    luaL_newlib(L, fns);
    lua_pushcclosure(L, l_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
