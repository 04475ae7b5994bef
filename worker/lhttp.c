/* lhttp — HTTP requests from Lua: step methods, quern.http, responses.
 *
 * A request sets the VU's easy handle up, adds it to the engine's multi handle
 * and yields the VU's coroutine; the engine resumes it when the transfer
 * completes and the continuation returns a response object. Strings given to
 * libcurl (URL, body) stay on the suspended coroutine's stack, so they live as
 * long as the transfer without a copy. */
#include <lauxlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "worker/engine_int.h"
#include "worker/lquern.h"
#include "worker/trace.h"

#define RESP_MT "quern.Response"
static const char resp_key; /* its address files the Response metatable */

enum { CTX_THINK = 1, CTX_XFER = 2 };

/* User values of a response. */
enum { UV_BODY = 1, UV_HEADERS_RAW, UV_HEADERS, UV_URL, UV_ERROR, UV_COUNT = UV_ERROR };

typedef struct resp {
    uint32_t seq; /**< sample it belongs to, 0 when untimed */
    int step;     /**< step index, -1 when untimed */
    int status;   /**< HTTP status, 0 when none came */
    int curl_rc;
    double time_ms;
    int64_t dns_us, connect_us, tls_us, ttfb_us;
    uint64_t bytes_in;
} resp;

/* --- request building ----------------------------------------------------- */

/* Writes s percent-encoded at out (when out is not NULL); returns the length. */
static size_t escape(char *out, const char *s, size_t n, int form)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t len = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            if (out)
                out[len] = (char)c;
            len++;
        } else if (c == ' ' && form) {
            if (out)
                out[len] = '+';
            len++;
        } else {
            if (out) {
                out[len] = '%';
                out[len + 1] = hex[c >> 4];
                out[len + 2] = hex[c & 15];
            }
            len += 3;
        }
    }
    return len;
}

/* One pass over the table at idx writing "k=v&k=v" at out (or only measuring
 * when out is NULL). Values: strings, numbers, booleans, or arrays of those
 * for repeated keys. */
static size_t encode_pairs(lua_State *L, int idx, int form, const char *what, char *out)
{
    size_t len = 0;

    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        int list = lua_istable(L, -1);
        lua_Integer nvals = list ? luaL_len(L, -1) : 1;
        size_t kn;
        const char *k;
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "%s: keys must be strings", what);
        k = lua_tolstring(L, -2, &kn);
        for (lua_Integer i = 1; i <= nvals; i++) {
            size_t vn;
            const char *val;
            if (list)
                lua_geti(L, -1, i);
            else
                lua_pushvalue(L, -1);
            if (lua_isboolean(L, -1)) {
                val = lua_toboolean(L, -1) ? "true" : "false";
                vn = strlen(val);
            } else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
                /* tolstring converts a number in place: on a copy, not the key */
                val = lua_tolstring(L, -1, &vn);
            } else {
                return (size_t)luaL_error(L, "%s: value of \"%s\" must be a string or number", what,
                                          k);
            }
            if (len > 0) {
                if (out)
                    out[len] = '&';
                len++;
            }
            len += escape(out ? out + len : NULL, k, kn, form);
            if (out)
                out[len] = '=';
            len++;
            len += escape(out ? out + len : NULL, val, vn, form);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return len;
}

/* Pushes the encoded pairs of the table at idx. */
static void push_encoded_pairs(lua_State *L, int idx, int form, const char *what)
{
    luaL_Buffer b;
    size_t len;
    char *out;

    idx = lua_absindex(L, idx);
    len = encode_pairs(L, idx, form, what, NULL);
    out = luaL_buffinitsize(L, &b, len + 1);
    encode_pairs(L, idx, form, what, out);
    luaL_pushresultsize(&b, len);
}

/* Adds "Name: value" to the VU's request headers. */
static void add_header(vu *v, const char *name, const char *value)
{
    char line[8192];
    snprintf(line, sizeof(line), "%s: %s", name, value);
    v->req_headers = curl_slist_append(v->req_headers, line);
    if (v->req_headers == NULL)
        xmalloc((size_t)-1 >> 1); /* aborts through the one OOM path */
}

/* Stack: 1 step|nil, 2 method, 3 url, 4 opts|nil. Sets the easy handle up
 * and adds the transfer; the values it pushes (URL, body) stay on the stack
 * until the continuation runs. */
static int start_xfer(lua_State *L, vu *v)
{
    const char *method = lua_tostring(L, 2);
    const char *url = lua_tostring(L, 3);
    const char *body = NULL;
    size_t body_len = 0;
    long timeout_ms = 60000, max_redirs = 0;
    int is_head = strcmp(method, "HEAD") == 0;
    int is_get = strcmp(method, "GET") == 0;
    int is_post = strcmp(method, "POST") == 0;
    const char *ctype = NULL;
    int own_ua = 0; /* the step names its own User-Agent */
    CURL *h = vu_easy(v);

    lua_settop(L, 4);
    curl_slist_free_all(v->req_headers);
    v->req_headers = NULL;
    if (lua_istable(L, 4)) {
        lua_pushnil(L);
        while (lua_next(L, 4) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "headers") == 0) {
                luaL_checktype(L, -1, LUA_TTABLE);
            } else if (strcmp(k, "query") == 0) {
                luaL_checktype(L, -1, LUA_TTABLE);
            } else if (strcmp(k, "form") == 0) {
                luaL_checktype(L, -1, LUA_TTABLE);
            } else if (strcmp(k, "json") == 0 || strcmp(k, "body") == 0) {
                /* checked below */
            } else if (strcmp(k, "timeout") == 0) {
                timeout_ms = (long)(lquern_check_duration(L, -1, "timeout") / 1000);
            } else if (strcmp(k, "redirects") == 0) {
                if (lua_isboolean(L, -1))
                    max_redirs = lua_toboolean(L, -1) ? 10 : 0;
                else
                    max_redirs = (long)luaL_checkinteger(L, -1);
            } else {
                luaL_error(L,
                           "unknown request option \"%s\" (known: headers, query, form, json, "
                           "body, timeout, redirects)",
                           k);
            }
            lua_pop(L, 1);
        }
        /* query: appended to the URL */
        if (lua_getfield(L, 4, "query") == LUA_TTABLE) {
            push_encoded_pairs(L, -1, 0, "query");
            if (lua_rawlen(L, -1) > 0) {
                lua_pushstring(L, url);
                lua_pushstring(L, strchr(url, '?') ? "&" : "?");
                lua_pushvalue(L, -3);
                lua_concat(L, 3);
                lua_replace(L, 3);
                url = lua_tostring(L, 3);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        /* body: one of form, json, body */
        if (lua_getfield(L, 4, "form") == LUA_TTABLE) {
            push_encoded_pairs(L, -1, 1, "form");
            lua_replace(L, -2);
            ctype = "application/x-www-form-urlencoded";
        } else if (lua_pop(L, 1), lua_getfield(L, 4, "json") != LUA_TNIL) {
            ljson_encode(L, lua_gettop(L));
            lua_replace(L, -2);
            ctype = "application/json";
        } else if (lua_pop(L, 1), lua_getfield(L, 4, "body") != LUA_TNIL) {
            luaL_checktype(L, -1, LUA_TSTRING);
        }
        if (!lua_isnil(L, -1))
            body = lua_tolstring(L, -1, &body_len);
        /* stays at index 5 for the transfer's life */
        if (lua_getfield(L, 4, "headers") == LUA_TTABLE) {
            lua_pushnil(L);
            while (lua_next(L, -2) != 0) {
                if (lua_type(L, -2) != LUA_TSTRING ||
                    (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
                    luaL_error(L, "headers: names and values must be strings");
                if (ctype && strcasecmp(lua_tostring(L, -2), "content-type") == 0)
                    ctype = NULL;
                if (strcasecmp(lua_tostring(L, -2), "user-agent") == 0)
                    own_ua = 1;
                add_header(v, lua_tostring(L, -2), lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    if (body == NULL && is_post) {
        body = "";
        body_len = 0;
    }
    if (ctype != NULL)
        add_header(v, "Content-Type", ctype);
    if (body != NULL && body_len > 1024)
        add_header(v, "Expect", ""); /* no 100-continue round trip */
    /* quern's User-Agent goes with the other headers: as CURLOPT_USERAGENT,
     * libcurl would format it twice per request (8 % of a small request's
     * instructions). A request with no header of its own uses the engine's
     * one-line list. */
    if (v->req_headers != NULL && !own_ua)
        add_header(v, "User-Agent", QUERN_USER_AGENT);

    /* Every option a previous request may have changed is set again. The
     * URL string still names the URL (effective URL, retries); its parsed
     * form, made once per distinct URL, spares libcurl the parse. */
    curl_easy_setopt(h, CURLOPT_URL, url);
    v->url = urlc_get(v->eng->urls, url, strlen(url));
    curl_easy_setopt(h, CURLOPT_CURLU, v->url != NULL ? v->url->u : NULL);
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE,
                     (long)(v->url != NULL ? v->url->recv_buf : URLC_RECV_FIRST));
    curl_easy_setopt(h, CURLOPT_NOBODY, is_head ? 1L : 0L);
    if (!is_head)
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (body != NULL) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    }
    /* A body goes out through POSTFIELDS, which makes a POST unless the
     * method is named (a GET with a body stays a GET). */
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST,
                     (is_get && body == NULL) || is_head || (is_post && body != NULL) ? NULL
                                                                                      : method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, v->req_headers != NULL ? v->req_headers : v->eng->ua);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, max_redirs > 0 ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, max_redirs);
    if (v->eng->trace != NULL)
        trace_request(v->eng->trace, v, h, method);

    vu_xfer_begin(v);
    v->wait = VU_XFER;
    engine_start_xfer(v->eng, v);
    return -1;
}

static int push_response(lua_State *L, vu *v);

static int request_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);

    if (ctx == CTX_THINK) {
        if (!lua_isnil(L, 1))
            vu_sample_begin(v, lquern_step_index(L, 1));
        v->xfer_timed = 1;
        start_xfer(L, v);
        return lua_yieldk(L, 0, CTX_XFER, request_k);
    }
    return push_response(L, v);
}

/* Stack: 1 step|nil, 2 method, 3 url, 4 opts. */
static int do_request(lua_State *L)
{
    vu *v = vu_current(L);
    int is_step = !lua_isnil(L, 1);
    scen *sc;

    if (v == NULL)
        return luaL_error(L, "HTTP requests are made from a scenario's init, run or finish, "
                             "not while the script loads");
    if (v->wait != VU_IDLE)
        return luaL_error(L, "a VU makes one request at a time");
    if (v->halting)
        return lquern_halt(L, v);
    luaL_checkstring(L, 3);
    if (!lua_isnoneornil(L, 4))
        luaL_checktype(L, 4, LUA_TTABLE);
    lua_settop(L, 4);
    if (is_step)
        lquern_vu_step(L, v, 1);
    if (is_step && !v->pend.in_block) {
        /* A new step sample: the previous one is recorded, then the think
         * time between steps, then the request. */
        vu_finalize(v);
        sc = v->eng->scens.scens[v->scen];
        if (v->steps_in_run > 0 && sc->think_max_us > 0) {
            vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us),
                          VU_THINK);
            return lua_yieldk(L, 0, CTX_THINK, request_k);
        }
        vu_sample_begin(v, lquern_step_index(L, 1));
    }
    v->xfer_timed = is_step || v->pend.in_block;
    start_xfer(L, v);
    return lua_yieldk(L, 0, CTX_XFER, request_k);
}

/* step:get(url, opts) and friends; http.get(url, opts) and friends. */
#define METHOD_FN(fname, m, is_step)                                                               \
    static int fname(lua_State *L)                                                                 \
    {                                                                                              \
        if (!(is_step))                                                                            \
            lua_pushnil(L), lua_insert(L, 1);                                                      \
        lua_settop(L, 3);                                                                          \
        lua_pushstring(L, m);                                                                      \
        lua_insert(L, 2);                                                                          \
        return do_request(L);                                                                      \
    }
METHOD_FN(step_get, "GET", 1)
METHOD_FN(step_post, "POST", 1)
METHOD_FN(step_put, "PUT", 1)
METHOD_FN(step_patch, "PATCH", 1)
METHOD_FN(step_delete, "DELETE", 1)
METHOD_FN(step_head, "HEAD", 1)
METHOD_FN(http_get, "GET", 0)
METHOD_FN(http_post, "POST", 0)
METHOD_FN(http_put, "PUT", 0)
METHOD_FN(http_patch, "PATCH", 0)
METHOD_FN(http_delete, "DELETE", 0)
METHOD_FN(http_head, "HEAD", 0)

static int check_method(lua_State *L, int idx)
{
    const char *m = luaL_checkstring(L, idx);
    for (const char *p = m; *p; p++)
        if (!(*p >= 'A' && *p <= 'Z'))
            return luaL_error(L, "bad HTTP method \"%s\" (use upper case, e.g. \"GET\")", m);
    return 0;
}

/* step:request(method, url, opts) */
static int step_request(lua_State *L)
{
    check_method(L, 2);
    lua_settop(L, 4);
    return do_request(L);
}

/* http.request(method, url, opts) */
static int http_request(lua_State *L)
{
    check_method(L, 1);
    lua_settop(L, 3);
    lua_pushnil(L);
    lua_insert(L, 1);
    return do_request(L);
}

/* --- responses ------------------------------------------------------------ */

static int push_response(lua_State *L, vu *v)
{
    resp *r = lua_newuserdatauv(L, sizeof(*r), UV_COUNT);
    const xfer_result *x = &v->x;

    r->seq = v->xfer_timed && v->pend.step >= 0 ? v->pend.seq : 0;
    r->step = v->xfer_timed ? v->pend.step : -1;
    r->status = x->status;
    r->curl_rc = x->curl_rc;
    r->time_ms = (double)x->elapsed_us / 1000.0;
    r->dns_us = x->dns_us;
    r->connect_us = x->connect_us;
    r->tls_us = x->tls_us;
    r->ttfb_us = x->ttfb_us;
    r->bytes_in = x->bytes_in;
    lquern_setmt(L, &resp_key);
    lua_pushlstring(L, v->xh->body.data ? v->xh->body.data : "", v->xh->body.len);
    lua_setiuservalue(L, -2, UV_BODY);
    lua_pushlstring(L, v->xh->hdr.data ? v->xh->hdr.data : "", v->xh->hdr.len);
    lua_setiuservalue(L, -2, UV_HEADERS_RAW);
    lua_pushvalue(L, 3);
    lua_setiuservalue(L, -2, UV_URL);
    if (x->curl_rc != CURLE_OK) {
        lua_pushstring(L, v->xh->errbuf[0] ? v->xh->errbuf : curl_easy_strerror(x->curl_rc));
        lua_setiuservalue(L, -2, UV_ERROR);
    }
    return 1;
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
            char name[256];
            size_t nl =
                (size_t)(colon - p) < sizeof(name) - 1 ? (size_t)(colon - p) : sizeof(name) - 1;
            const char *vs = colon + 1, *ve = line_end;
            for (size_t i = 0; i < nl; i++)
                name[i] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
            name[nl] = '\0';
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
static int check_fail(lua_State *L, resp *r, int technical, const char *msg)
{
    vu *v = vu_current(L);

    if (v != NULL) {
        if (r->seq != 0 && v->pend.step >= 0 && v->pend.seq == r->seq) {
            if (v->pend.err == SAMPLE_OK) {
                v->pend.err = technical ? SAMPLE_TECH : SAMPLE_FUNC;
                snprintf(v->pend.msg, sizeof(v->pend.msg), "%s", msg);
            }
        } else if (r->step >= 0) {
            vu_count_error(v, r->step, technical, msg);
        } else {
            /* An untimed request's check counts against the current step. */
            scen *sc = v->eng->scens.scens[v->scen];
            vu_count_error(v,
                           v->cur_step >= 0 ? v->cur_step
                           : sc->first_step ? sc->first_step->index
                                            : -1,
                           technical, msg);
        }
        v->check_failed = 1;
    }
    luaL_where(L, 1);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    return lua_error(L);
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
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    vu *v = vu_current(L);
    char msg[VU_MSG_MAX], want[64] = "";

    if (lua_type(L, 2) != LUA_TNUMBER && lua_type(L, 2) != LUA_TTABLE)
        return luaL_error(L, "expect: give a status or a list of statuses");
    if (status_in(L, 2, r->status)) {
        /* The step accepts this status: an error status is not an error. */
        if (v != NULL && r->seq != 0 && v->pend.seq == r->seq && v->pend.status_err) {
            v->pend.err = SAMPLE_OK;
            v->pend.status_err = 0;
            v->pend.msg[0] = '\0';
        }
        lua_settop(L, 1);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TNUMBER) {
        snprintf(want, sizeof(want), "%d", (int)lua_tointeger(L, 2));
    } else {
        size_t off = 0;
        for (lua_Integer i = 1, n = luaL_len(L, 2); i <= n && off < sizeof(want) - 8; i++) {
            lua_geti(L, 2, i);
            off += (size_t)snprintf(want + off, sizeof(want) - off, "%s%d", i > 1 ? "|" : "",
                                    (int)lua_tointeger(L, -1));
            lua_pop(L, 1);
        }
    }
    if (r->status == 0) {
        lua_getiuservalue(L, 1, UV_ERROR);
        snprintf(msg, sizeof(msg), "expected status %s, got no response (%s)", want,
                 lua_isstring(L, -1) ? lua_tostring(L, -1) : "no status");
        lua_pop(L, 1);
    } else {
        snprintf(msg, sizeof(msg), "expected status %s, got %d", want, r->status);
    }
    /* A server or transport failure stays technical; an unexpected but
     * valid answer (a redirect to the login page) is functional. */
    return check_fail(L, r, r->status == 0 || r->status >= 400, msg);
}

/* r:contains(s): plain substring of the body. */
static int r_contains(lua_State *L)
{
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    size_t nn, hn;
    const char *needle = luaL_checklstring(L, 2, &nn);
    const char *hay;
    char msg[VU_MSG_MAX];

    lua_getiuservalue(L, 1, UV_BODY);
    hay = lua_tolstring(L, -1, &hn);
    if (nn == 0 || memmem(hay, hn, needle, nn) != NULL) {
        lua_settop(L, 1);
        return 1;
    }
    snprintf(msg, sizeof(msg), "body does not contain \"%.*s\"", (int)(nn > 80 ? 80 : nn), needle);
    return check_fail(L, r, 0, msg);
}

/* r:match(pattern): string.match on the body; returns the captures (or the
 * whole match), fails the check when nothing matches. */
static int r_match(lua_State *L)
{
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    const char *pat = luaL_checkstring(L, 2);
    int base, n;
    char msg[VU_MSG_MAX];

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
    snprintf(msg, sizeof(msg), "body does not match \"%.80s\"", pat);
    return check_fail(L, r, 0, msg);
}

static int r_json(lua_State *L)
{
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    size_t n;
    const char *s;
    char err[160], msg[VU_MSG_MAX];

    lua_getiuservalue(L, 1, UV_BODY);
    s = lua_tolstring(L, -1, &n);
    if (ljson_decode(L, s, n, err, sizeof(err)))
        return 1;
    snprintf(msg, sizeof(msg), "body is not JSON: %s", err);
    return check_fail(L, r, 0, msg);
}

static int xpath_common(lua_State *L, int all)
{
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    const char *expr = luaL_checkstring(L, 2);
    size_t n;
    const char *s, *ct;
    int html;
    char err[160], msg[VU_MSG_MAX];

    push_headers(L, 1);
    lua_getfield(L, -1, "content-type");
    ct = lua_tostring(L, -1);
    lua_getiuservalue(L, 1, UV_BODY);
    s = lua_tolstring(L, -1, &n);
    html = ct != NULL ? strstr(ct, "html") != NULL : !(n >= 5 && memcmp(s, "<?xml", 5) == 0);
    if (lxml_xpath(L, s, n, html, expr, all, err, sizeof(err)))
        return 1;
    snprintf(msg, sizeof(msg), "xpath %.60s: %s", expr, err);
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
    char name[256];
    size_t n;
    const char *k;

    lquern_checkud(L, 1, &resp_key, RESP_MT);
    k = luaL_checklstring(L, 2, &n);
    if (n >= sizeof(name))
        n = sizeof(name) - 1;
    for (size_t i = 0; i < n; i++)
        name[i] = (char)((k[i] >= 'A' && k[i] <= 'Z') ? k[i] + 32 : k[i]);
    name[n] = '\0';
    push_headers(L, 1);
    lua_getfield(L, -1, name);
    return 1;
}

/* __index of responses, a closure over the methods table: methods first. */
static int r_index(lua_State *L)
{
    const char *k;
    resp *r = lquern_index(L, &resp_key, RESP_MT, &k);

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
    resp *r = lquern_checkud(L, 1, &resp_key, RESP_MT);
    lua_pushfstring(L, "response %d (%f ms)", r->status, r->time_ms);
    return 1;
}

void lhttp_register(lua_State *L, int methods)
{
    static const luaL_Reg step_fns[] = {{"get", step_get},         {"post", step_post},
                                        {"put", step_put},         {"patch", step_patch},
                                        {"delete", step_delete},   {"head", step_head},
                                        {"request", step_request}, {NULL, NULL}};
    static const luaL_Reg resp_fns[] = {
        {"expect", r_expect}, {"contains", r_contains},   {"match", r_match},   {"json", r_json},
        {"xpath", r_xpath},   {"xpath_all", r_xpath_all}, {"header", r_header}, {NULL, NULL}};

    lua_pushvalue(L, methods);
    luaL_setfuncs(L, step_fns, 0);
    lua_pop(L, 1);

    lquern_newmt(L, &resp_key, RESP_MT);
    lua_pushcfunction(L, r_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, resp_fns);
    lua_pushcclosure(L, r_index, 1); /* over the methods table */
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

int lhttp_open(lua_State *L)
{
    static const luaL_Reg fns[] = {{"get", http_get},         {"post", http_post},
                                   {"put", http_put},         {"patch", http_patch},
                                   {"delete", http_delete},   {"head", http_head},
                                   {"request", http_request}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
