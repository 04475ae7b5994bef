/* lsse — server-sent events from Lua (lsse.h). */
#include "worker/lua/lsse.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lstream.h"
#include "worker/plugs/sse.h"

/* step:sse's stack while it waits: 1 step, 2 url, 3 opts, 4 header lines,
 * 5 reqopt or nil, 6 the stream object */
enum { IDX_OPTS = 3, IDX_HEADERS = 4, IDX_CONN = 6 };

static const lstream_kind kind;

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

/* Stack 1 step, 2 url, 3 opts (read): starts the request, yields. */
static int start(lua_State *L, vu *v, int64_t us)
{
    sse_cfg cfg;
    char err[ERR_MAX];
    lstream *s;
    sse *c;

    memset(&cfg, 0, sizeof(cfg));
    push_headers(L);
    cfg.req = lstream_reqopt(L, v, IDX_OPTS);
    s = lstream_new(L, &kind, sizeof(*s), LSTREAM_WAIT_US);
    cfg.url = lua_tostring(L, 2);
    cfg.scen = engine_scens(v->eng)->scens[v->scen]->req;
    cfg.step = v->pend.step;
    cfg.headers = header_list(L, IDX_HEADERS);
    c = sse_open(v, &cfg, err, sizeof(err));
    curl_slist_free_all(cfg.headers); /* NULL unless the stream refused it */
    return lstream_open(L, s, c, v, us, IDX_CONN, err);
}

/* step:sse's URL: http:// or https:// */
static void check_url(lua_State *L)
{
    const char *url = lua_tostring(L, 2);

    if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0)
        luaL_error(L, "step:sse: \"%s\" is not an http:// or https:// URL", url);
}

/* How the answer came out, after the wait for it. */
static void view(void *p, lstream_view *w)
{
    sse *c = p;

    *w = (lstream_view){&c->fig, c->start_us, c->step, 0, c->opened, c->err};
    w->waiting = c->state == SSE_CONNECTING;
}

/* A stream that did not answer in time is closed: the server sees it. */
static void give_up(void *c)
{
    sse_close(c);
}

static const lstream_opener opener = {
    .step = "step:sse",
    .options = "headers, last_event_id, timeout, tls, http1, http2, resolve, auth, compressed, "
               "connect_timeout",
    .args = check_url,
    .start = start,
    .view = view,
    .give_up = give_up,
    .gone = "SSE: the stream is gone",
    .late = "SSE: no answer after",
    .refused = "SSE: the stream closed",
};

/* --- the stream ---------------------------------------------------------- */

/* Pushes the next queued event as { id, event, data, retry }; 0 when none. */
static int push_event(lua_State *L, lstream *s)
{
    sse_event *m = sse_pop(s->c);

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

/* s:close() */
static int close_stream(lua_State *L, void *c)
{
    if (c != NULL)
        sse_close(c);
    return 0;
}

/* s.last_id, s.status, s.retry */
static int field(lua_State *L, lstream *s, const char *k)
{
    sse *c = s->c;
    size_t n = 0;
    const char *id;

    if (strcmp(k, "last_id") == 0) {
        id = c != NULL ? sse_last_id(c, &n) : "";
        lua_pushlstring(L, id, n);
    } else if (strcmp(k, "status") == 0) {
        lua_pushinteger(L, c != NULL ? c->status : 0);
    } else if (strcmp(k, "retry") == 0 && c != NULL && c->parser.retry >= 0) {
        lua_pushinteger(L, c->parser.retry);
    } else {
        return 0;
    }
    return 1;
}

static const lstream_kind kind = {
    .mt = "quern.EventStream",
    .what = "event stream",
    .next = "next",
    .timeout_what = "next timeout",
    LSTREAM_AT(sse, SSE_OPEN),
    .open_wait = VU_SSEOPEN,
    .next_wait = VU_SSENEXT,
    .push = push_event,
    .close = close_stream,
    .field = field,
    .opener = &opener,
};

void lsse_register(lua_State *L, int methods)
{
    lstream_register(L, &kind, methods);
}
