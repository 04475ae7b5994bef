#include "worker/lhttp.h"

#include <lauxlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/engine_int.h"
#include "worker/lapi.h"
#include "worker/lbatch.h"
#include "worker/ljson.h"
#include "worker/lquern.h"
#include "worker/lresponse.h"
#include "worker/lscript.h"
#include "worker/mpart.h"
#include "worker/pageres.h"
#include "worker/reqopt.h"
#include "worker/inflight.h"
#include "worker/trace.h"

enum { CTX_THINK = 1, CTX_XFER = 2, CTX_SLOT = 3 };

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

/* Adds "Name: value" to a request's headers. */
static void add_line(struct curl_slist **l, const char *line)
{
    struct curl_slist *n = curl_slist_append(*l, line);
    if (n == NULL)
        xoom("curl_slist_append");
    *l = n;
}

static void add_header(struct curl_slist **l, const char *name, const char *value)
{
    char line[8192];
    snprintf(line, sizeof(line), "%s: %s", name, value);
    add_line(l, line);
}

void lhttp_build(lua_State *L, vu *v, lhttp_req *q)
{
    const char *method = lua_tostring(L, 2);
    const char *url = lua_tostring(L, 3);
    const char *body = NULL;
    size_t body_len = 0;
    long timeout_ms = 60000, max_redirs = 0;
    int is_head = strcmp(method, "HEAD") == 0;
    int is_get = strcmp(method, "GET") == 0;
    int is_post = strcmp(method, "POST") == 0;
    int compressed;
    const char *ctype = NULL;
    int own_ua = 0;         /* the step names its own User-Agent */
    int own_ae = 0;         /* ... its own Accept-Encoding */
    int own_tp = 0;         /* ... its own traceparent */
    int traced;             /* a traceparent of quern's goes with it */
    int own_ro = 0;         /* the request gives connection options of its own */
    curl_mime *mime = NULL; /* a multipart body, owned by a userdata on the stack */
    const reqopt *sro = v->eng->scens.scens[v->scen]->req, *rro = NULL;
    CURL *h = q->x->easy;

    if (sro != NULL && (sro->set & REQOPT_TIMEOUT))
        timeout_ms = sro->timeout_ms;
    if (sro != NULL && (sro->set & REQOPT_REDIRECTS))
        max_redirs = sro->max_redirs;
    lua_settop(L, 4);
    q->trace_id[0] = '\0';
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
            } else if (strcmp(k, "multipart") == 0) {
                luaL_checktype(L, -1, LUA_TTABLE);
            } else if (strcmp(k, "timeout") == 0) {
                timeout_ms = (long)(lapi_check_duration(L, -1, "timeout") / 1000);
            } else if (strcmp(k, "redirects") == 0) {
                if (lua_isboolean(L, -1))
                    max_redirs = lua_toboolean(L, -1) ? 10 : 0;
                else
                    max_redirs = (long)luaL_checkinteger(L, -1);
            } else if (reqopt_is_key(k)) {
                own_ro = 1;
            } else {
                luaL_error(L,
                           "unknown request option \"%s\" (known: headers, query, form, json, "
                           "body, multipart, timeout, redirects, tls, http1, http2, resolve, auth, "
                           "compressed, connect_timeout, resources, cache)",
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
        /* body: multipart, or one of form, json, body */
        if (lua_getfield(L, 4, "multipart") == LUA_TTABLE) {
            lua_getfield(L, 4, "form");
            lua_getfield(L, 4, "json");
            lua_getfield(L, 4, "body");
            if (!lua_isnil(L, -1) || !lua_isnil(L, -2) || !lua_isnil(L, -3))
                luaL_error(L, "multipart is a body of its own: not with form, json or body");
            lua_pop(L, 3);
            mime = mpart_push(L, -1, h, lscript_dir(L));
            lua_replace(L, -2); /* the userdata owns it for the transfer's life */
        } else if (lua_pop(L, 1), lua_getfield(L, 4, "form") == LUA_TTABLE) {
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
        if (mime == NULL && !lua_isnil(L, -1))
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
                if (strcasecmp(lua_tostring(L, -2), "accept-encoding") == 0)
                    own_ae = 1;
                if (strcasecmp(lua_tostring(L, -2), "traceparent") == 0) {
                    own_tp = 1; /* its id is the response's when well formed */
                    traceid_parse(lua_tostring(L, -1), q->trace_id);
                }
                add_header(q->hdrs, lua_tostring(L, -2), lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        if (own_ro) {
            /* On the stack, as the body: the resolve list lives until the
             * transfer starts. */
            reqopt *ro = reqopt_push(L);
            reqopt_read(L, 4, lscript_dir(L), 0, ro, v->eng->run_ro, 0);
            rro = ro;
        }
    }
    if (body == NULL && mime == NULL && is_post) {
        body = "";
        body_len = 0;
    }
    if (ctype != NULL)
        add_header(q->hdrs, "Content-Type", ctype);
    if ((body != NULL && body_len > 1024) || mime != NULL)
        add_header(q->hdrs, "Expect", ""); /* no 100-continue round trip */
    /* quern's User-Agent and Accept-Encoding go with the other headers: as
     * CURLOPT_USERAGENT and CURLOPT_ACCEPT_ENCODING's own line, libcurl
     * would format each twice per request (8 % and 10 % of a small
     * request's instructions). A request with no header of its own uses one
     * of the engine's shared lists, or, traced, its handle's own, whose
     * traceparent line is rewritten in place (xh_traceparent). */
    traced = !own_tp && (v->eng->cfg.traceparent || v->eng->scens.scens[v->scen]->traceparent);
    if (traced && *q->hdrs != NULL) {
        char line[TRACEID_LINE_LEN + 1];
        traceid_line(&v->eng->tid, line, q->trace_id);
        add_line(q->hdrs, line);
    }
    compressed = reqopt_compressed(rro, sro, v->eng->run_ro);
    if (*q->hdrs != NULL && !own_ua)
        add_header(q->hdrs, "User-Agent", QUERN_USER_AGENT);
    if (*q->hdrs != NULL && compressed && !own_ae)
        add_line(q->hdrs, reqopt_accept_encoding());

    /* Every option a previous request may have changed is set again. The
     * URL string still names the URL (effective URL, retries); its parsed
     * form, made once per distinct URL, spares libcurl the parse. */
    curl_easy_setopt(h, CURLOPT_URL, url);
    *q->url = urlc_get(v->eng->urls, url, strlen(url));
    curl_easy_setopt(h, CURLOPT_CURLU, *q->url != NULL ? (*q->url)->u : NULL);
    /* HTTP/2 frames are read whole into this buffer: libcurl 7.88 stalls
     * on a body when it is smaller than its default. */
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE,
                     reqopt_http2(rro, sro, v->eng->run_ro) ? (long)URLC_RECV_MAX
                     : *q->url != NULL                      ? (long)(*q->url)->recv_buf
                                                            : (long)URLC_RECV_FIRST);
    curl_easy_setopt(h, CURLOPT_NOBODY, is_head ? 1L : 0L);
    if (!is_head)
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (body != NULL) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    }
    if (mime != NULL)
        curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    /* A body goes out through POSTFIELDS, which makes a POST unless the
     * method is named (a GET with a body stays a GET). */
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST,
                     (is_get && body == NULL && mime == NULL) || is_head ||
                             (is_post && (body != NULL || mime != NULL))
                         ? NULL
                         : method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER,
                     *q->hdrs != NULL ? *q->hdrs
                     : traced         ? xh_traceparent(q->x, &v->eng->tid, compressed, q->trace_id)
                     : compressed     ? v->eng->ua_ae
                                      : v->eng->ua);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, max_redirs > 0 ? 1L : 0L);
    /* libcurl counts digest's second round trip against MAXREDIRS: with
     * redirects off, FOLLOWLOCATION alone keeps Location unfollowed. */
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, max_redirs > 0 ? max_redirs : -1L);
    reqopt_apply(h, &q->x->ro, rro, sro, v->eng->run_ro, strncasecmp(url, "https:", 6) == 0,
                 v->eng->env_ca);
    q->timeout_ms = timeout_ms;
    q->rro = rro;
    q->is_head = is_head;
}

/* Stack: 1 step|nil, 2 method, 3 url, 4 opts|nil. Sets the VU's easy handle
 * up and adds the transfer; the values it pushes (URL, body) stay on the
 * stack until the continuation runs. */
static int start_xfer(lua_State *L, vu *v)
{
    lhttp_req q;
    CURL *h = vu_easy(v);

    curl_slist_free_all(v->req_headers);
    v->req_headers = NULL;
    q.x = v->xh;
    q.hdrs = &v->req_headers;
    q.trace_id = v->x.trace_id;
    q.url = &v->url;
    lhttp_build(L, v, &q);
    if (v->eng->trace != NULL)
        trace_request(v->eng->trace, v, h, lua_tostring(L, 2));
    pageres_want(v, q.is_head ? NULL : q.rro, q.is_head ? NULL : v->eng->scens.scens[v->scen]->req,
                 q.timeout_ms);

    vu_xfer_begin(v);
    v->wait = VU_XFER;
    engine_start_xfer(v->eng, v);
    return -1;
}

static int request_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);

    if (ctx == CTX_THINK) {
        if (!lua_isnil(L, 1))
            vu_sample_begin(v, lquern_step_index(L, 1));
        v->xfer_timed = 1;
        if (inflight_wait(v))
            return lua_yieldk(L, 0, CTX_SLOT, request_k);
        start_xfer(L, v);
        return lua_yieldk(L, 0, CTX_XFER, request_k);
    }
    if (ctx == CTX_SLOT) {
        inflight_took(v);
        start_xfer(L, v);
        return lua_yieldk(L, 0, CTX_XFER, request_k);
    }
    if (lua_istable(L, 4) && lua_getfield(L, 4, "multipart") == LUA_TTABLE)
        curl_easy_setopt(v->xh->easy, CURLOPT_MIMEPOST, NULL); /* its body goes with the GC */
    if (lua_istable(L, 4))
        lua_pop(L, 1);
    return lresponse_push(L, v, 3); /* the URL is argument 3 */
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
    lapi_wait_ok(L, "an HTTP request");
    if (v->halting)
        return lapi_halt(L, v);
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
    if (inflight_wait(v))
        return lua_yieldk(L, 0, CTX_SLOT, request_k);
    start_xfer(L, v);
    return lua_yieldk(L, 0, CTX_XFER, request_k);
}

int lhttp_option_known(const char *key)
{
    static const char *const own[] = {"headers", "query",     "form",    "json",
                                      "body",    "multipart", "timeout", "redirects"};

    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strcmp(key, own[i]) == 0)
            return 1;
    return reqopt_is_key(key);
}

/* The methods with a function of their own: step:get(url, opts) and
 * http.get(url, opts), ... (Lua name, HTTP method). */
static const char *const short_methods[][2] = {{"get", "GET"},       {"post", "POST"},
                                               {"put", "PUT"},       {"patch", "PATCH"},
                                               {"delete", "DELETE"}, {"head", "HEAD"}};

/* step:get(url, opts) and friends: a closure over the HTTP method. */
static int step_method(lua_State *L)
{
    lua_settop(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 2);
    return do_request(L);
}

/* http.get(url, opts) and friends: the same without a step. */
static int http_method(lua_State *L)
{
    lua_pushnil(L);
    lua_insert(L, 1);
    return step_method(L); /* the same closure: upvalue 1 is the method */
}

/* Sets a closure of fn over each short method's HTTP method into the table
 * at the top of the stack. */
static void set_short_methods(lua_State *L, lua_CFunction fn)
{
    for (size_t i = 0; i < sizeof(short_methods) / sizeof(short_methods[0]); i++) {
        lua_pushstring(L, short_methods[i][1]);
        lua_pushcclosure(L, fn, 1);
        lua_setfield(L, -2, short_methods[i][0]);
    }
}

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

void lhttp_register(lua_State *L, int methods)
{
    lua_pushvalue(L, methods);
    set_short_methods(L, step_method);
    lua_pushcfunction(L, step_request);
    lua_setfield(L, -2, "request");
    lbatch_register(L);
    lua_pop(L, 1);
    lresponse_metatable(L);
}

int lhttp_open(lua_State *L)
{
    lua_createtable(L, 0, 7);
    set_short_methods(L, http_method);
    lua_pushcfunction(L, http_request);
    lua_setfield(L, -2, "request");
    lbatch_open_field(L);
    return 1;
}
