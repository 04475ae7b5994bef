#include "worker/lua/lhttp.h"

#include <lauxlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/engine/engine.h"
#include "worker/wire/urlc.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lbatch.h"
#include "worker/lua/ljson.h"
#include "worker/lua/lquern.h"
#include "worker/lua/lresponse.h"
#include "worker/engine/lscript.h"
#include "worker/lua/mpart.h"
#include "worker/plugs/pageres.h"
#include "worker/lua/lreqopt.h"
#include "worker/wire/reqopt.h"
#include "worker/engine/inflight.h"
#include "worker/plugs/trace.h"

enum { CTX_THINK = 1, CTX_XFER = 2, CTX_SLOT = 3 };

/* A request's stack, while it is built (lhttp_build) and while it is in
 * flight (request_k): what libcurl is given stays referenced here until the
 * transfer ends. IDX_BODY and IDX_RO are there only when the options are. */
enum {
    IDX_STEP = 1,   /* the step, or nil (quern.http) */
    IDX_METHOD = 2, /* the HTTP method, upper case */
    IDX_URL = 3,    /* the URL, with its query once built */
    IDX_OPTS = 4,   /* the options, or nil */
    IDX_BODY = 5,   /* the body: a string, a multipart's userdata, or nil */
    IDX_RO = 6,     /* the request's own connection options (lreqopt_push), if any */
};

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

/* What a request's arguments and options ask for, read before its handle is
 * set up. */
typedef struct lhttp_spec {
    const char *method; /**< borrowed: the string at IDX_METHOD */
    const char *url;    /**< borrowed: the string at IDX_URL */
    const char *body;   /**< borrowed: the string at IDX_BODY, or a literal ""; NULL none */
    size_t body_len;    /**< bytes of body */
    curl_mime *mime;    /**< owned by the userdata at IDX_BODY; NULL: no multipart */
    const char *ctype;  /**< borrowed: a literal, the Content-Type the body implies; NULL none */
    const reqopt *sro;  /**< borrowed from the scenario: its connection options; NULL none */
    const reqopt *rro;  /**< borrowed: the userdata at IDX_RO; NULL none */
    long timeout_ms;    /**< the request's timeout */
    long max_redirs;    /**< redirects followed, 0 none */
    int is_head, is_get, is_post;
    int own_ua;     /**< the step names its own User-Agent */
    int own_ae;     /**< ... its own Accept-Encoding */
    int own_tp;     /**< ... its own traceparent */
    int own_ro;     /**< ... connection options of its own */
    int traced;     /**< a traceparent of quern's goes with it */
    int compressed; /**< it asks for a compressed response */
} lhttp_spec;

/* The scenario's defaults, before the request's options. */
static void spec_init(lua_State *L, vu *v, lhttp_spec *s)
{
    memset(s, 0, sizeof(*s));
    s->method = lua_tostring(L, IDX_METHOD);
    s->url = lua_tostring(L, IDX_URL);
    s->timeout_ms = 60000;
    s->is_head = strcmp(s->method, "HEAD") == 0;
    s->is_get = strcmp(s->method, "GET") == 0;
    s->is_post = strcmp(s->method, "POST") == 0;
    s->sro = engine_scens(v->eng)->scens[v->scen]->req;
    if (s->sro != NULL && (s->sro->set & REQOPT_TIMEOUT))
        s->timeout_ms = s->sro->timeout_ms;
    if (s->sro != NULL && (s->sro->set & REQOPT_REDIRECTS))
        s->max_redirs = s->sro->max_redirs;
}

/* Checks every key of the options, reading the timeout and the redirects;
 * the others are read where they are used. */
static void check_options(lua_State *L, lhttp_spec *s)
{
    lua_pushnil(L);
    while (lua_next(L, IDX_OPTS) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        if (strcmp(k, "headers") == 0) {
            luaL_checktype(L, -1, LUA_TTABLE);
        } else if (strcmp(k, "query") == 0) {
            luaL_checktype(L, -1, LUA_TTABLE);
        } else if (strcmp(k, "form") == 0) {
            luaL_checktype(L, -1, LUA_TTABLE);
        } else if (strcmp(k, "json") == 0 || strcmp(k, "body") == 0) {
            /* checked with the body */
        } else if (strcmp(k, "multipart") == 0) {
            luaL_checktype(L, -1, LUA_TTABLE);
        } else if (strcmp(k, "timeout") == 0) {
            s->timeout_ms = (long)(lapi_check_duration(L, -1, "timeout") / 1000);
        } else if (strcmp(k, "redirects") == 0) {
            if (lua_isboolean(L, -1))
                s->max_redirs = lua_toboolean(L, -1) ? 10 : 0;
            else
                s->max_redirs = (long)luaL_checkinteger(L, -1);
        } else if (reqopt_is_key(k)) {
            s->own_ro = 1;
        } else {
            luaL_error(L,
                       "unknown request option \"%s\" (known: headers, query, form, json, "
                       "body, multipart, timeout, redirects, tls, http1, http2, resolve, auth, "
                       "compressed, connect_timeout, resources, cache)",
                       k);
        }
        lua_pop(L, 1);
    }
}

/* Appends the query option to the URL at IDX_URL. */
static void append_query(lua_State *L, lhttp_spec *s)
{
    if (lua_getfield(L, IDX_OPTS, "query") == LUA_TTABLE) {
        push_encoded_pairs(L, -1, 0, "query");
        if (lua_rawlen(L, -1) > 0) {
            int pairs = lua_gettop(L);
            lua_pushstring(L, s->url);
            lua_pushstring(L, strchr(s->url, '?') ? "&" : "?");
            lua_pushvalue(L, pairs);
            lua_concat(L, 3);
            lua_replace(L, IDX_URL);
            s->url = lua_tostring(L, IDX_URL);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

/* Leaves option k of the options at IDX_BODY; returns its type. */
static int body_field(lua_State *L, const char *k)
{
    lua_settop(L, IDX_OPTS);
    return lua_getfield(L, IDX_OPTS, k);
}

/* Leaves the body at IDX_BODY: multipart, or one of form, json, body. */
static void push_body(lua_State *L, CURL *h, lhttp_spec *s)
{
    if (body_field(L, "multipart") == LUA_TTABLE) {
        lua_getfield(L, IDX_OPTS, "form");
        lua_getfield(L, IDX_OPTS, "json");
        lua_getfield(L, IDX_OPTS, "body");
        if (!lua_isnil(L, -1) || !lua_isnil(L, -2) || !lua_isnil(L, -3))
            luaL_error(L, "multipart is a body of its own: not with form, json or body");
        lua_settop(L, IDX_BODY);
        s->mime = mpart_push(L, IDX_BODY, h, lscript_dir(L));
        lua_replace(L, IDX_BODY); /* the userdata owns it for the transfer's life */
    } else if (body_field(L, "form") == LUA_TTABLE) {
        push_encoded_pairs(L, IDX_BODY, 1, "form");
        lua_replace(L, IDX_BODY);
        s->ctype = "application/x-www-form-urlencoded";
    } else if (body_field(L, "json") != LUA_TNIL) {
        ljson_encode(L, IDX_BODY);
        lua_replace(L, IDX_BODY);
        s->ctype = "application/json";
    } else if (body_field(L, "body") != LUA_TNIL) {
        luaL_checktype(L, IDX_BODY, LUA_TSTRING);
    }
    if (s->mime == NULL && !lua_isnil(L, IDX_BODY))
        s->body = lua_tolstring(L, IDX_BODY, &s->body_len);
}

/* Adds the headers option to the request's, noting those quern would
 * otherwise add. */
static void add_own_headers(lua_State *L, lhttp_req *q, lhttp_spec *s)
{
    if (lua_getfield(L, IDX_OPTS, "headers") == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2) != 0) {
            const char *name, *value;
            if (lua_type(L, -2) != LUA_TSTRING ||
                (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER))
                luaL_error(L, "headers: names and values must be strings");
            name = lua_tostring(L, -2);
            value = lua_tostring(L, -1);
            if (s->ctype && strcasecmp(name, "content-type") == 0)
                s->ctype = NULL;
            if (strcasecmp(name, "user-agent") == 0)
                s->own_ua = 1;
            if (strcasecmp(name, "accept-encoding") == 0)
                s->own_ae = 1;
            if (strcasecmp(name, "traceparent") == 0) {
                s->own_tp = 1; /* its id is the response's when well formed */
                traceid_parse(value, q->trace_id);
            }
            add_header(q->hdrs, name, value);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
}

/* Reads the options at IDX_OPTS, leaving the body at IDX_BODY and, when
 * the request has connection options of its own, them at IDX_RO. */
static void read_options(lua_State *L, vu *v, lhttp_req *q, lhttp_spec *s)
{
    check_options(L, s);
    append_query(L, s);
    push_body(L, q->x->easy, s);
    add_own_headers(L, q, s);
    if (s->own_ro) {
        /* On the stack, as the body: the resolve list lives until the
         * transfer starts. */
        reqopt *ro = lreqopt_push(L);
        lreqopt_read(L, IDX_OPTS, lscript_dir(L), 0, ro, engine_run_reqopt(v->eng), 0);
        s->rro = ro;
    }
}

/* Adds the headers quern gives a request after the script's own. */
static void add_quern_headers(vu *v, lhttp_req *q, lhttp_spec *s)
{
    if (s->ctype != NULL)
        add_header(q->hdrs, "Content-Type", s->ctype);
    if ((s->body != NULL && s->body_len > 1024) || s->mime != NULL)
        add_header(q->hdrs, "Expect", ""); /* no 100-continue round trip */
    /* quern's User-Agent and Accept-Encoding go with the other headers: as
     * CURLOPT_USERAGENT and CURLOPT_ACCEPT_ENCODING's own line, libcurl
     * would format each twice per request (8 % and 10 % of a small
     * request's instructions). A request with no header of its own uses one
     * of the engine's shared lists, or, traced, its handle's own, whose
     * traceparent line is rewritten in place (xh_traceparent). */
    s->traced = !s->own_tp && (engine_config(v->eng)->traceparent ||
                               engine_scens(v->eng)->scens[v->scen]->traceparent);
    if (s->traced && *q->hdrs != NULL) {
        char line[TRACEID_LINE_LEN + 1];
        traceid_line(engine_traceid(v->eng), line, q->trace_id);
        add_line(q->hdrs, line);
    }
    s->compressed = reqopt_compressed(s->rro, s->sro, engine_run_reqopt(v->eng));
    if (*q->hdrs != NULL && !s->own_ua)
        add_header(q->hdrs, "User-Agent", QUERN_USER_AGENT);
    if (*q->hdrs != NULL && s->compressed && !s->own_ae)
        add_line(q->hdrs, reqopt_accept_encoding());
}

/* Sets the easy handle up for the request s describes. Every option a
 * previous request may have changed is set again. */
static void set_easy(vu *v, lhttp_req *q, const lhttp_spec *s)
{
    CURL *h = q->x->easy;
    int has_body = s->body != NULL || s->mime != NULL;

    /* The URL string still names the URL (effective URL, retries); its
     * parsed form, made once per distinct URL, spares libcurl the parse. */
    curl_easy_setopt(h, CURLOPT_URL, s->url);
    *q->url = urlc_get(engine_urls(v->eng), s->url, strlen(s->url));
    curl_easy_setopt(h, CURLOPT_CURLU, *q->url != NULL ? (*q->url)->u : NULL);
    /* HTTP/2 frames are read whole into this buffer: libcurl 7.88 stalls
     * on a body when it is smaller than its default. */
    curl_easy_setopt(h, CURLOPT_BUFFERSIZE,
                     reqopt_http2(s->rro, s->sro, engine_run_reqopt(v->eng)) ? (long)URLC_RECV_MAX
                     : *q->url != NULL ? (long)(*q->url)->recv_buf
                                       : (long)URLC_RECV_FIRST);
    curl_easy_setopt(h, CURLOPT_NOBODY, s->is_head ? 1L : 0L);
    if (!s->is_head)
        curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (s->body != NULL) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->body_len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, s->body);
    }
    if (s->mime != NULL)
        curl_easy_setopt(h, CURLOPT_MIMEPOST, s->mime);
    /* A body goes out through POSTFIELDS, which makes a POST unless the
     * method is named (a GET with a body stays a GET). */
    curl_easy_setopt(
        h, CURLOPT_CUSTOMREQUEST,
        (s->is_get && !has_body) || s->is_head || (s->is_post && has_body) ? NULL : s->method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER,
                     *q->hdrs != NULL ? *q->hdrs
                     : s->traced
                         ? xh_traceparent(q->x, engine_traceid(v->eng), s->compressed, q->trace_id)
                     : s->compressed ? engine_user_agent(v->eng, 1)
                                     : engine_user_agent(v->eng, 0));
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, s->timeout_ms);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, s->max_redirs > 0 ? 1L : 0L);
    /* libcurl counts digest's second round trip against MAXREDIRS: with
     * redirects off, FOLLOWLOCATION alone keeps Location unfollowed. */
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, s->max_redirs > 0 ? s->max_redirs : -1L);
    reqopt_apply(h, &q->x->ro, s->rro, s->sro, engine_run_reqopt(v->eng),
                 strncasecmp(s->url, "https:", 6) == 0, engine_env_ca(v->eng));
}

void lhttp_build(lua_State *L, vu *v, lhttp_req *q)
{
    lhttp_spec s;

    spec_init(L, v, &s);
    lua_settop(L, IDX_OPTS);
    q->trace_id[0] = '\0';
    if (lua_istable(L, IDX_OPTS))
        read_options(L, v, q, &s);
    if (s.body == NULL && s.mime == NULL && s.is_post) {
        s.body = "";
        s.body_len = 0;
    }
    add_quern_headers(v, q, &s);
    set_easy(v, q, &s);
    q->timeout_ms = s.timeout_ms;
    q->rro = s.rro;
    q->is_head = s.is_head;
}

/* Stack as IDX_*, up to IDX_OPTS. Sets the VU's easy handle up and adds
 * the transfer; the values it pushes (URL, body) stay on the
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
    if (engine_trace(v->eng) != NULL)
        trace_request(engine_trace(v->eng), v, h, lua_tostring(L, IDX_METHOD));
    pageres_want(v, q.is_head ? NULL : q.rro,
                 q.is_head ? NULL : engine_scens(v->eng)->scens[v->scen]->req, q.timeout_ms);

    vu_xfer_begin(v);
    v->wait = VU_XFER;
    engine_start_xfer(v->eng, v);
    return -1;
}

static int request_k(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);

    if (ctx == CTX_THINK) {
        if (!lua_isnil(L, IDX_STEP))
            vu_sample_begin(v, lquern_step_index(L, IDX_STEP));
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
    if (lua_istable(L, IDX_OPTS) && lua_getfield(L, IDX_OPTS, "multipart") == LUA_TTABLE)
        curl_easy_setopt(v->xh->easy, CURLOPT_MIMEPOST, NULL); /* its body goes with the GC */
    if (lua_istable(L, IDX_OPTS))
        lua_pop(L, 1);
    return lresponse_push(L, v, IDX_URL);
}

/* Stack as IDX_*, up to IDX_OPTS. */
static int do_request(lua_State *L)
{
    vu *v = lapi_request_vu(L, "HTTP requests", "are made", "an HTTP request");
    int is_step = !lua_isnil(L, IDX_STEP);
    scen *sc;

    if (v->halting)
        return lapi_halt(L, v);
    luaL_checkstring(L, IDX_URL);
    if (!lua_isnoneornil(L, IDX_OPTS))
        luaL_checktype(L, IDX_OPTS, LUA_TTABLE);
    lua_settop(L, IDX_OPTS);
    if (is_step)
        lquern_vu_step(L, v, IDX_STEP);
    if (is_step && !v->pend.in_block) {
        /* A new step sample: the previous one is recorded, then the think
         * time between steps, then the request. */
        vu_finalize(v);
        sc = engine_scens(v->eng)->scens[v->scen];
        if (v->steps_in_run > 0 && sc->think_max_us > 0) {
            vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us),
                          VU_THINK);
            return lua_yieldk(L, 0, CTX_THINK, request_k);
        }
        vu_sample_begin(v, lquern_step_index(L, IDX_STEP));
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
    lua_insert(L, IDX_METHOD);
    return do_request(L);
}

/* http.get(url, opts) and friends: the same without a step. */
static int http_method(lua_State *L)
{
    lua_pushnil(L);
    lua_insert(L, IDX_STEP);
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
    check_method(L, IDX_METHOD);
    lua_settop(L, IDX_OPTS);
    return do_request(L);
}

/* http.request(method, url, opts) */
static int http_request(lua_State *L)
{
    check_method(L, 1);
    lua_settop(L, 3);
    lua_pushnil(L);
    lua_insert(L, IDX_STEP);
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
