#include "worker/lua/lresponse.h"

#include <lauxlib.h>
#include <string.h>

#include "common/err.h"
#include "common/lbuf.h"
#include "worker/plugs/batch.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lcheck.h"
#include "worker/lua/ljson.h"
#include "worker/lua/lxml.h"
#include "worker/plugs/pageres.h"

#define RESP_MT "quern.Response"
static const char resp_key; /* its address files the Response metatable */

/* User values of a response. */
enum { UV_BODY = 1, UV_HEADERS_RAW, UV_HEADERS, UV_URL, UV_ERROR, UV_COUNT = UV_ERROR };

typedef struct resp {
    uint32_t seq; /**< sample it belongs to, 0 when untimed */
    int step;     /**< step index, -1 when untimed */
    int item;     /**< its place in a batch, 1-based; 0 when not of one (batch.h) */
    int status;   /**< HTTP status, 0 when none came */
    int curl_rc;
    double time_ms;
    int64_t dns_us, connect_us, tls_us, ttfb_us;
    uint64_t bytes_in;
    long http_version;  /**< CURL_HTTP_VERSION_x of the last response, 0 when none came */
    int page;           /**< the request asked for resources: res and page_ms are set */
    pageres_counts res; /**< how its resources were served (pageres.h) */
    double page_ms;     /**< the page's time, resources included */
    char trace_id[TRACEID_HEX_LEN + 1]; /**< its request's trace id, "" none (traceid.h) */
} resp;

int lresponse_push_xfer(lua_State *L, const xfer_result *x, const xh *h, uint32_t seq, int sidx,
                        int item, int url_idx)
{
    resp *r;

    url_idx = lua_absindex(L, url_idx);
    r = lua_newuserdatauv(L, sizeof(*r), UV_COUNT);
    r->seq = seq;
    r->step = sidx;
    r->item = item;
    r->status = x->status;
    r->curl_rc = x->curl_rc;
    memcpy(r->trace_id, x->trace_id, sizeof(r->trace_id));
    r->time_ms = (double)x->fig.elapsed_us / 1000.0;
    r->dns_us = x->fig.dns_us;
    r->connect_us = x->fig.connect_us;
    r->tls_us = x->fig.tls_us;
    r->ttfb_us = x->fig.ttfb_us;
    r->bytes_in = x->fig.bytes_in;
    r->http_version = 0;
    curl_easy_getinfo(h->easy, CURLINFO_HTTP_VERSION, &r->http_version);
    r->page = 0;
    lapi_setmt(L, &resp_key);
    lua_pushlstring(L, h->body.p ? h->body.p : "", h->body.len);
    lua_setiuservalue(L, -2, UV_BODY);
    lua_pushlstring(L, h->hdr.p ? h->hdr.p : "", h->hdr.len);
    lua_setiuservalue(L, -2, UV_HEADERS_RAW);
    lua_pushvalue(L, url_idx);
    lua_setiuservalue(L, -2, UV_URL);
    if (x->curl_rc != CURLE_OK) {
        lua_pushstring(L, h->errbuf[0] ? h->errbuf : curl_easy_strerror(x->curl_rc));
        lua_setiuservalue(L, -2, UV_ERROR);
    }
    return 1;
}

int lresponse_push(lua_State *L, vu *v, int url_idx)
{
    resp *r;

    lresponse_push_xfer(L, &v->x, v->xh, v->xfer_timed && v->pend.step >= 0 ? v->pend.seq : 0,
                        v->xfer_timed ? v->pend.step : -1, 0, url_idx);
    r = lua_touserdata(L, -1);
    r->page = v->page != NULL && v->page->asked;
    if (r->page) {
        r->res = v->page->counts;
        r->page_ms = (double)v->page->elapsed_us / 1000.0;
    }
    return 1;
}

/* Header names are looked up in lower case, cut to HEADER_NAME_MAX - 1. */
#define HEADER_NAME_MAX 256

/* Writes the n bytes of s in lower case into out (HEADER_NAME_MAX bytes),
 * cut to fit, NUL-terminated. */
static void lower_name(char *out, const char *s, size_t n)
{
    if (n > HEADER_NAME_MAX - 1)
        n = HEADER_NAME_MAX - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] + 32 : s[i]);
    out[n] = '\0';
}

/* Parses the raw header block into a table with lower-case names; repeated
 * headers are joined with ", " (Set-Cookie with "\n"). */
static void push_headers(lua_State *L, int ridx)
{
    size_t n;
    const char *p, *end;

    if (lua_getiuservalue(L, ridx, UV_HEADERS) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_getiuservalue(L, ridx, UV_HEADERS_RAW);
    p = lua_tolstring(L, -1, &n);
    end = p + n;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        const char *colon = memchr(p, ':', (size_t)(line_end - p));
        if (colon != NULL && colon > p && memcmp(p, "HTTP/", 5) != 0) {
            char name[HEADER_NAME_MAX];
            const char *vs = colon + 1, *ve = line_end;
            lower_name(name, p, (size_t)(colon - p));
            while (vs < ve && (*vs == ' ' || *vs == '\t'))
                vs++;
            while (ve > vs && (ve[-1] == '\r' || ve[-1] == ' '))
                ve--;
            if (lua_getfield(L, -2, name) == LUA_TSTRING) {
                lua_pushstring(L, strcmp(name, "set-cookie") == 0 ? "\n" : ", ");
                lua_pushlstring(L, vs, (size_t)(ve - vs));
                lua_concat(L, 3);
            } else {
                lua_pop(L, 1);
                lua_pushlstring(L, vs, (size_t)(ve - vs));
            }
            lua_setfield(L, -3, name);
        }
        p = line_end + 1;
    }
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, ridx, UV_HEADERS);
}

/* A failed check: the response's sample (if still pending) takes the error;
 * a check on an older response counts an error without a sample. Then the
 * run is aborted with the message, as a functional error. */
/* The pending sample r belongs to: the VU's, or one a batch keeps; NULL
 * when untimed or already recorded. */
static sample *resp_sample(vu *v, const resp *r)
{
    if (v == NULL || r->seq == 0)
        return NULL;
    if (v->pend.step >= 0 && v->pend.seq == r->seq)
        return &v->pend;
    return batch_sample(v->batch, r->seq);
}

static int check_fail(lua_State *L, resp *r, int technical, const char *msg)
{
    vu *v = vu_current(L);
    sample *p = resp_sample(v, r);

    if (p != NULL && p->err == SAMPLE_OK) {
        /* the response checked is the example of the sample's error */
        size_t blen = 0;
        const char *body, *url;
        lua_getiuservalue(L, 1, UV_URL);
        lua_getiuservalue(L, 1, UV_BODY);
        url = lua_tostring(L, -2);
        body = lua_tolstring(L, -1, &blen);
        vu_error_example(v, p, technical ? (r->status != 0 ? r->status : r->curl_rc) : 0, url,
                         r->status, body, blen, r->trace_id);
        lua_pop(L, 2);
    }
    /* an untimed request's check counts against the current step */
    return vu_check_fail_in(L, v, p, r->step, technical, msg);
}

/* A check or an extraction on a response that never came (a transport
 * error, a timeout) fails with that cause, technical, rather than with what
 * an empty body lacks: "xpath //input: no response: Failed to connect ...".
 * Returns 0 when a response came. */
static int no_response(lua_State *L, resp *r, const char *what)
{
    char msg[VU_MSG_MAX];

    if (r->status != 0)
        return 0;
    lua_getiuservalue(L, 1, UV_ERROR);
    err_set(msg, sizeof(msg), "%s: no response: %s", what,
            lua_isstring(L, -1) ? lua_tostring(L, -1) : "no status");
    lua_pop(L, 1);
    return check_fail(L, r, 1, msg);
}

static int status_in(lua_State *L, int idx, int status)
{
    if (lua_type(L, idx) == LUA_TNUMBER)
        return lua_tointeger(L, idx) == status;
    luaL_checktype(L, idx, LUA_TTABLE);
    for (lua_Integer i = 1, n = luaL_len(L, idx); i <= n; i++) {
        lua_geti(L, idx, i);
        if (lua_tointeger(L, -1) == status) {
            lua_pop(L, 1);
            return 1;
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* r:expect(200 | {200, 302}) */
static int r_expect(lua_State *L)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    vu *v = vu_current(L);
    char msg[VU_MSG_MAX], want[64] = "";

    if (lua_type(L, 2) != LUA_TNUMBER && lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "expect: give a status or a list of statuses");
    if (status_in(L, 2, r->status)) {
        /* The step accepts this status: an error status is not an error. */
        sample *s = resp_sample(v, r);
        if (s != NULL && s->status_err) {
            if (r->item > 0) {
                batch_accept(v->batch, s, (size_t)(r->item - 1));
            } else {
                s->err = SAMPLE_OK;
                s->status_err = 0;
                s->code = 0;
                s->msg[0] = '\0';
            }
        }
        lua_settop(L, 1);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TNUMBER) {
        snprintf(want, sizeof(want), "%d", (int)lua_tointeger(L, 2));
    } else {
        lbuf w = {want, 0, sizeof(want) - 1}; /* room for the NUL */
        for (lua_Integer i = 1, n = luaL_len(L, 2); i <= n && w.len < sizeof(want) - 8; i++) {
            lua_geti(L, 2, i);
            lbuf_fmt(&w, "%s%d", i > 1 ? "|" : "", (int)lua_tointeger(L, -1));
            lua_pop(L, 1);
        }
        want[w.len] = '\0';
    }
    if (r->status == 0) {
        lua_getiuservalue(L, 1, UV_ERROR);
        err_set(msg, sizeof(msg), "expected status %s, got no response (%s)", want,
                lua_isstring(L, -1) ? lua_tostring(L, -1) : "no status");
        lua_pop(L, 1);
    } else {
        err_set(msg, sizeof(msg), "expected status %s, got %d", want, r->status);
    }
    /* A server or transport failure stays technical; an unexpected but
     * valid answer (a redirect to the login page) is functional. */
    return check_fail(L, r, r->status == 0 || r->status >= 400, msg);
}

/* r:contains(s): plain substring of the body. */
static int r_contains(lua_State *L)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    size_t nn, hn;
    const char *needle = luaL_checklstring(L, 2, &nn);
    const char *hay;
    char msg[VU_MSG_MAX];

    no_response(L, r, "contains");

    lua_getiuservalue(L, 1, UV_BODY);
    hay = lua_tolstring(L, -1, &hn);
    if (nn == 0 || memmem(hay, hn, needle, nn) != NULL) {
        lua_settop(L, 1);
        return 1;
    }
    err_set(msg, sizeof(msg), "body does not contain \"%.*s\"", (int)(nn > 80 ? 80 : nn), needle);
    return check_fail(L, r, 0, msg);
}

/* r:match(pattern): string.match on the body; returns the captures (or the
 * whole match), fails the check when nothing matches. */
static int r_match(lua_State *L)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    const char *pat = luaL_checkstring(L, 2);
    int base, n;
    char msg[VU_MSG_MAX];

    no_response(L, r, "match");

    lua_settop(L, 2);
    base = lua_gettop(L);
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "match");
    lua_remove(L, -2);
    lua_getiuservalue(L, 1, UV_BODY);
    lua_pushvalue(L, 2);
    lua_call(L, 2, LUA_MULTRET);
    n = lua_gettop(L) - base;
    if (n > 0 && !lua_isnil(L, base + 1))
        return n;
    err_set(msg, sizeof(msg), "body does not match \"%.80s\"", pat);
    return check_fail(L, r, 0, msg);
}

static int r_json(lua_State *L)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    size_t n;
    const char *s;
    char err[ERR_MAX], msg[VU_MSG_MAX];
    int flags = 0;

    /* r:json{ null = true }: null as quern.json.null; nil by default, as
     * before quern.json existed */
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            if (lua_type(L, -2) != LUA_TSTRING || strcmp(lua_tostring(L, -2), "null") != 0)
                return luaL_error(L, "r:json: unknown option (known: null)");
            flags = lua_toboolean(L, -1) ? LJSON_NULL : 0;
            lua_pop(L, 1);
        }
    }
    no_response(L, r, "json");
    lua_getiuservalue(L, 1, UV_BODY);
    s = lua_tolstring(L, -1, &n);
    if (ljson_decode(L, s, n, flags, err, sizeof(err)))
        return 1;
    err_set(msg, sizeof(msg), "body is not JSON: %s", err);
    return check_fail(L, r, 0, msg);
}

static int xpath_common(lua_State *L, int all)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    const char *expr = luaL_checkstring(L, 2);
    size_t n;
    const char *s, *ct;
    int html;
    char err[ERR_MAX], msg[VU_MSG_MAX];

    err_set(msg, sizeof(msg), "xpath %.60s", expr);
    no_response(L, r, msg);
    push_headers(L, 1);
    lua_getfield(L, -1, "content-type");
    ct = lua_tostring(L, -1);
    lua_getiuservalue(L, 1, UV_BODY);
    s = lua_tolstring(L, -1, &n);
    html = ct != NULL ? strstr(ct, "html") != NULL : !(n >= 5 && memcmp(s, "<?xml", 5) == 0);
    if (lxml_xpath(L, s, n, html, expr, all, err, sizeof(err)))
        return 1;
    err_set(msg, sizeof(msg), "xpath %.60s: %s", expr, err);
    return check_fail(L, r, 0, msg);
}

static int r_xpath(lua_State *L)
{
    return xpath_common(L, 0);
}

static int r_xpath_all(lua_State *L)
{
    return xpath_common(L, 1);
}

/* r:header(name): case-insensitive lookup. */
static int r_header(lua_State *L)
{
    char name[HEADER_NAME_MAX];
    size_t n;
    const char *k;

    lapi_checkud(L, 1, &resp_key, RESP_MT);
    k = luaL_checklstring(L, 2, &n);
    lower_name(name, k, n);
    push_headers(L, 1);
    lua_getfield(L, -1, name);
    return 1;
}

/* __index of responses, a closure over the methods table: methods first. */
static int r_index(lua_State *L)
{
    const char *k;
    resp *r = lapi_index(L, &resp_key, RESP_MT, &k);

    if (r == NULL)
        return 1;
    if (strcmp(k, "status") == 0) {
        lua_pushinteger(L, r->status);
    } else if (strcmp(k, "body") == 0) {
        lua_getiuservalue(L, 1, UV_BODY);
    } else if (strcmp(k, "headers") == 0) {
        push_headers(L, 1);
    } else if (strcmp(k, "time") == 0) {
        lua_pushnumber(L, r->time_ms);
    } else if (strcmp(k, "ok") == 0) {
        lua_pushboolean(L, r->curl_rc == CURLE_OK && r->status > 0 && r->status < 400);
    } else if (strcmp(k, "error") == 0) {
        lua_getiuservalue(L, 1, UV_ERROR);
    } else if (strcmp(k, "url") == 0) {
        lua_getiuservalue(L, 1, UV_URL);
    } else if (strcmp(k, "trace_id") == 0) {
        if (r->trace_id[0] != '\0')
            lua_pushstring(L, r->trace_id);
        else
            lua_pushnil(L);
    } else if (strcmp(k, "protocol") == 0) {
        switch (r->http_version) {
        case CURL_HTTP_VERSION_1_0:
            lua_pushliteral(L, "HTTP/1.0");
            break;
        case CURL_HTTP_VERSION_1_1:
            lua_pushliteral(L, "HTTP/1.1");
            break;
        case CURL_HTTP_VERSION_2_0:
            lua_pushliteral(L, "HTTP/2");
            break;
        case CURL_HTTP_VERSION_3:
            lua_pushliteral(L, "HTTP/3");
            break;
        default:
            lua_pushnil(L);
        }
    } else if (strcmp(k, "resources") == 0 && r->page) {
        lua_createtable(L, 0, 5);
        lua_pushinteger(L, r->res.fetched);
        lua_setfield(L, -2, "fetched");
        lua_pushinteger(L, r->res.revalidated);
        lua_setfield(L, -2, "revalidated");
        lua_pushinteger(L, r->res.cached);
        lua_setfield(L, -2, "cached");
        lua_pushinteger(L, r->res.failed);
        lua_setfield(L, -2, "failed");
        lua_pushnumber(L, r->page_ms);
        lua_setfield(L, -2, "time");
    } else if (strcmp(k, "size") == 0) {
        lua_pushinteger(L, (lua_Integer)r->bytes_in);
    } else if (strcmp(k, "timings") == 0) {
        lua_createtable(L, 0, 5);
        lua_pushnumber(L, (double)r->dns_us / 1000.0);
        lua_setfield(L, -2, "dns");
        lua_pushnumber(L, (double)r->connect_us / 1000.0);
        lua_setfield(L, -2, "connect");
        lua_pushnumber(L, (double)r->tls_us / 1000.0);
        lua_setfield(L, -2, "tls");
        lua_pushnumber(L, (double)r->ttfb_us / 1000.0);
        lua_setfield(L, -2, "ttfb");
        lua_pushnumber(L, r->time_ms);
        lua_setfield(L, -2, "total");
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int r_tostring(lua_State *L)
{
    resp *r = lapi_checkud(L, 1, &resp_key, RESP_MT);
    lua_pushfstring(L, "response %d (%f ms)", r->status, r->time_ms);
    return 1;
}

void lresponse_metatable(lua_State *L)
{
    static const luaL_Reg resp_fns[] = {
        {"expect", r_expect}, {"contains", r_contains}, {"match", r_match},
        {"json", r_json},     {"xpath", r_xpath},       {"xpath_all", r_xpath_all},
        {"header", r_header}, {"check", lcheck_resp},   {NULL, NULL}};

    lapi_newmt(L, &resp_key, RESP_MT);
    lua_pushcfunction(L, r_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, resp_fns);
    lua_pushcclosure(L, r_index, 1); /* over the methods table */
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}
