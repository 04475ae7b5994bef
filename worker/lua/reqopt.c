#include "worker/lua/reqopt.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/hostres.h"
#include "worker/lua/lapi.h"

#define REQOPT_MT "quern.RequestOptions"
static const char reqopt_key; /* its address files the metatable */
static uint64_t reqopt_serials;

/* --- values ------------------------------------------------------------- */

char *reqopt_env_ca(void)
{
    const char *env = getenv("CURL_CA_BUNDLE");
    char *found = NULL;
    CURL *h;

    if (env == NULL || env[0] == '\0')
        env = getenv("SSL_CERT_FILE");
    if (env != NULL && env[0] != '\0')
        return xstrdup(env);
    h = curl_easy_init();
    if (h != NULL && curl_easy_getinfo(h, CURLINFO_CAINFO, &found) == CURLE_OK && found != NULL)
        found = xstrdup(found);
    else
        found = NULL;
    curl_easy_cleanup(h);
    return found;
}

int reqopt_tls_version(const char *s, long *out)
{
    static const char *const names[] = {"1.0", "1.1", "1.2", "1.3"};
    static const long vals[] = {CURL_SSLVERSION_TLSv1_0, CURL_SSLVERSION_TLSv1_1,
                                CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3};

    for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = vals[i];
            return 0;
        }
    }
    return -1;
}

int reqopt_auth_type(const char *s)
{
    if (s == NULL)
        return -1;
    if (strcmp(s, "basic") == 0)
        return REQOPT_AUTH_BASIC;
    if (strcmp(s, "digest") == 0)
        return REQOPT_AUTH_DIGEST;
    if (strcmp(s, "bearer") == 0)
        return REQOPT_AUTH_BEARER;
    return -1;
}

size_t reqopt_path(const char *dir, const char *path, char *out, size_t outlen)
{
    int n;

    if (path[0] == '/' || dir == NULL || dir[0] == '\0')
        n = snprintf(out, outlen, "%s", path);
    else
        n = snprintf(out, outlen, "%s/%s", dir, path);
    return n < 0 ? 0 : (size_t)n;
}

int reqopt_is_key(const char *k)
{
    static const char *const keys[] = {"tls",  "http1",      "http2",           "resolve",
                                       "auth", "compressed", "connect_timeout", "resources",
                                       "cache"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

/* --- the userdata ------------------------------------------------------- */

void reqopt_clear(reqopt *ro)
{
    if (ro == NULL)
        return;
    xfree(ro->ca);
    xfree(ro->cert);
    xfree(ro->key);
    xfree(ro->key_password);
    xfree(ro->user);
    xfree(ro->password);
    xfree(ro->token);
    curl_slist_free_all(ro->resolve);
    embed_filter_clear(&ro->res_filt);
    memset(ro, 0, sizeof(*ro));
}

static int reqopt_gc(lua_State *L)
{
    reqopt_clear(lua_touserdata(L, 1));
    return 0;
}

reqopt *reqopt_push(lua_State *L)
{
    reqopt *ro = lua_newuserdatauv(L, sizeof(*ro), 0);

    memset(ro, 0, sizeof(*ro));
    ro->serial = ++reqopt_serials;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &reqopt_key) == LUA_TNIL) {
        lua_pop(L, 1);
        lapi_newmt(L, &reqopt_key, REQOPT_MT);
        lua_pushcfunction(L, reqopt_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "request options");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    return ro;
}

int reqopt_add_resolve(reqopt *ro, const char *entry, char *err, size_t errlen)
{
    struct curl_slist *l;

    if (hostres_check(entry, err, errlen) != 0)
        return -1;
    l = curl_slist_append(ro->resolve, entry);
    if (l == NULL)
        xoom("curl_slist_append");
    ro->resolve = l;
    ro->set |= REQOPT_RESOLVE;
    return 0;
}

/* --- reading a table ---------------------------------------------------- */

/* An owned copy of the string field k of the table at idx (NULL when nil),
 * what naming it in errors. */
static char *str_field(lua_State *L, int idx, const char *k, const char *what)
{
    char *s = NULL;

    if (lua_getfield(L, idx, k) != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s.%s must be a string", what, k);
        s = xstrdup(lua_tostring(L, -1));
    }
    lua_pop(L, 1);
    return s;
}

/* The file field k of the tls table at idx, joined to dir, into *dst. */
static void file_field(lua_State *L, int idx, const char *k, const char *dir, int check, char **dst,
                       unsigned bit, unsigned *set)
{
    char path[4096];
    char *rel = str_field(L, idx, k, "tls");

    if (rel == NULL)
        return;
    if (reqopt_path(dir, rel, path, sizeof(path)) >= sizeof(path)) {
        xfree(rel);
        luaL_error(L, "tls.%s: path too long", k);
    }
    xfree(rel);
    if (check && access(path, R_OK) != 0)
        luaL_error(L, "tls.%s: cannot read %s: %s", k, path, strerror(errno));
    xfree(*dst);
    *dst = xstrdup(path);
    *set |= bit;
}

static void read_tls(lua_State *L, int idx, const char *dir, int check, reqopt *ro)
{
    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        if (strcmp(k, "ca") != 0 && strcmp(k, "cert") != 0 && strcmp(k, "key") != 0 &&
            strcmp(k, "password") != 0 && strcmp(k, "insecure") != 0 && strcmp(k, "min") != 0)
            luaL_error(L,
                       "unknown tls option \"%s\" (known: ca, cert, key, password, insecure, "
                       "min)",
                       k);
        lua_pop(L, 1);
    }
    file_field(L, idx, "ca", dir, check, &ro->ca, REQOPT_CA, &ro->set);
    file_field(L, idx, "cert", dir, check, &ro->cert, REQOPT_CERT, &ro->set);
    file_field(L, idx, "key", dir, check, &ro->key, REQOPT_KEY, &ro->set);
    if (lua_getfield(L, idx, "password") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "tls.password must be a string");
        xfree(ro->key_password);
        ro->key_password = xstrdup(lua_tostring(L, -1));
        ro->set |= REQOPT_KEY_PASSWORD;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "insecure") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TBOOLEAN);
        ro->insecure = lua_toboolean(L, -1);
        ro->set |= REQOPT_INSECURE;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "min") != LUA_TNIL) {
        const char *v = lua_tostring(L, -1);
        if (lua_type(L, -1) != LUA_TSTRING || reqopt_tls_version(v, &ro->tls_min) != 0)
            luaL_error(L, "tls.min must be \"1.0\", \"1.1\", \"1.2\" or \"1.3\"");
        ro->set |= REQOPT_TLS_MIN;
    }
    lua_pop(L, 1);
}

static void read_resolve(lua_State *L, int idx, reqopt *ro, const reqopt *run)
{
    char err[ERR_MAX];
    lua_Integer n;

    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx))
        luaL_error(L, "resolve is a list like {\"host:443:127.0.0.1\"}");
    n = luaL_len(L, idx);
    if (n < 1 || n > HOSTRES_ENTRIES_MAX)
        luaL_error(L, "resolve: give 1 to %d entries", HOSTRES_ENTRIES_MAX);
    curl_slist_free_all(ro->resolve);
    ro->resolve = NULL;
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, idx, i) != LUA_TSTRING)
            luaL_error(L, "resolve[%d] is not a string like \"host:443:127.0.0.1\"", (int)i);
        if (reqopt_add_resolve(ro, lua_tostring(L, -1), err, sizeof(err)) != 0)
            luaL_error(L, "resolve[%d]: %s", (int)i, err);
        lua_pop(L, 1);
    }
    /* The run's entries come after: for the same host and port, they win. */
    for (const struct curl_slist *e = run != NULL ? run->resolve : NULL; e != NULL; e = e->next)
        reqopt_add_resolve(ro, e->data, err, sizeof(err));
}

static void read_auth(lua_State *L, int idx, reqopt *ro)
{
    char *type;

    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        if (strcmp(k, "user") != 0 && strcmp(k, "password") != 0 && strcmp(k, "type") != 0 &&
            strcmp(k, "token") != 0)
            luaL_error(L, "unknown auth option \"%s\" (known: user, password, type, token)", k);
        lua_pop(L, 1);
    }
    type = str_field(L, idx, "type", "auth");
    ro->auth = type != NULL ? reqopt_auth_type(type) : REQOPT_AUTH_BASIC;
    xfree(type);
    if (ro->auth < 0)
        luaL_error(L, "auth.type must be \"basic\", \"digest\" or \"bearer\"");
    xfree(ro->user);
    xfree(ro->password);
    xfree(ro->token);
    ro->user = ro->password = ro->token = NULL;
    ro->set |= REQOPT_AUTH;
    if (ro->auth == REQOPT_AUTH_BEARER) {
        ro->token = str_field(L, idx, "token", "auth");
        if (ro->token == NULL)
            luaL_error(L, "auth: type \"bearer\" needs a token");
        return;
    }
    ro->user = str_field(L, idx, "user", "auth");
    ro->password = str_field(L, idx, "password", "auth");
    if (ro->user == NULL)
        luaL_error(L, "auth: type \"%s\" needs a user (and a password)",
                   ro->auth == REQOPT_AUTH_BASIC ? "basic" : "digest");
}

static int check_bool(lua_State *L, int idx, const char *what)
{
    if (!lua_isboolean(L, idx))
        luaL_error(L, "%s must be true or false", what);
    return lua_toboolean(L, idx);
}

/* resources = true | false | { include = { patterns }, exclude = { patterns } } */
static void read_resources(lua_State *L, int idx, reqopt *ro)
{
    static const char *const lists[] = {"include", "exclude"};

    ro->set |= REQOPT_RESOURCES;
    if (lua_isboolean(L, idx)) {
        ro->resources = lua_toboolean(L, idx);
        return;
    }
    if (!lua_istable(L, idx))
        luaL_error(L, "resources must be true, false or { include = {...}, exclude = {...} }");
    ro->resources = 1;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING || (strcmp(lua_tostring(L, -2), "include") != 0 &&
                                               strcmp(lua_tostring(L, -2), "exclude") != 0))
            luaL_error(L, "resources: unknown key \"%s\" (known: include, exclude)",
                       lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
        lua_pop(L, 1);
    }
    for (int x = 0; x < 2; x++) {
        int t = lua_getfield(L, idx, lists[x]);
        if (t == LUA_TSTRING) {
            embed_filter_add(&ro->res_filt, x, lua_tostring(L, -1));
        } else if (t == LUA_TTABLE) {
            lua_Integer n = luaL_len(L, -1);
            for (lua_Integer i = 1; i <= n; i++) {
                if (lua_geti(L, -1, i) != LUA_TSTRING)
                    luaL_error(L, "resources.%s: patterns must be strings", lists[x]);
                embed_filter_add(&ro->res_filt, x, lua_tostring(L, -1));
                lua_pop(L, 1);
            }
        } else if (t != LUA_TNIL) {
            luaL_error(L, "resources.%s must be a list of patterns", lists[x]);
        }
        lua_pop(L, 1);
    }
}

void reqopt_read(lua_State *L, int idx, const char *dir, int check_files, reqopt *ro,
                 const reqopt *run, int defaults)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
        int top = lua_gettop(L);
        if (strcmp(k, "tls") == 0) {
            read_tls(L, top, dir, check_files, ro);
        } else if (strcmp(k, "http2") == 0 || strcmp(k, "http1") == 0) {
            int on = check_bool(L, top, k);
            int v = k[4] == '2' ? REQOPT_HTTP2 : REQOPT_HTTP1;
            if (on) {
                if ((ro->set & REQOPT_HTTPV) && ro->http != v)
                    luaL_error(L, "http1 and http2 are exclusive");
                ro->http = v;
                ro->set |= REQOPT_HTTPV;
            }
        } else if (strcmp(k, "resolve") == 0) {
            read_resolve(L, top, ro, run);
        } else if (strcmp(k, "auth") == 0) {
            read_auth(L, top, ro);
        } else if (strcmp(k, "compressed") == 0) {
            ro->compressed = check_bool(L, top, "compressed");
            ro->set |= REQOPT_COMPRESSED;
        } else if (strcmp(k, "connect_timeout") == 0) {
            ro->connect_timeout_ms = (long)(lapi_check_duration(L, top, "connect_timeout") / 1000);
            if (ro->connect_timeout_ms < 1)
                ro->connect_timeout_ms = 1; /* 0 would mean libcurl's default */
            ro->set |= REQOPT_CONNECT_TIMEOUT;
        } else if (strcmp(k, "resources") == 0) {
            read_resources(L, top, ro);
        } else if (strcmp(k, "cache") == 0) {
            ro->cache = check_bool(L, top, "cache");
            ro->set |= REQOPT_CACHE;
        } else if (defaults && strcmp(k, "timeout") == 0) {
            ro->timeout_ms = (long)(lapi_check_duration(L, top, "timeout") / 1000);
            ro->set |= REQOPT_TIMEOUT;
        } else if (defaults && strcmp(k, "redirects") == 0) {
            if (lua_isboolean(L, top))
                ro->max_redirs = lua_toboolean(L, top) ? 10 : 0;
            else
                ro->max_redirs = (long)luaL_checkinteger(L, top);
            ro->set |= REQOPT_REDIRECTS;
        } else if (defaults) {
            luaL_error(L,
                       "unknown request default \"%s\" (known: tls, http1, http2, resolve, auth, "
                       "compressed, connect_timeout, resources, cache, timeout, redirects)",
                       k);
        }
        lua_settop(L, top - 1);
    }
}

/* --- setting a handle up ------------------------------------------------ */

const reqopt *reqopt_pick(unsigned bit, const reqopt *a, const reqopt *b, const reqopt *c)
{
    if (a != NULL && (a->set & bit))
        return a;
    if (b != NULL && (b->set & bit))
        return b;
    if (c != NULL && (c->set & bit))
        return c;
    return NULL;
}

int reqopt_http2(const reqopt *req, const reqopt *scen, const reqopt *run)
{
    const reqopt *o = reqopt_pick(REQOPT_HTTPV, req, scen, run);

    return o != NULL && o->http == REQOPT_HTTP2;
}

int reqopt_compressed(const reqopt *req, const reqopt *scen, const reqopt *run)
{
    const reqopt *o = reqopt_pick(REQOPT_COMPRESSED, req, scen, run);

    return o == NULL || o->compressed;
}

const char *reqopt_accept_encoding(void)
{
    /* libcurl's order (content_encoding.c): deflate and gzip with zlib, br,
     * zstd; identity alone when it decodes nothing. */
    static const char *const lines[8] = {
        "Accept-Encoding: identity", "Accept-Encoding: deflate, gzip",
        "Accept-Encoding: br",       "Accept-Encoding: deflate, gzip, br",
        "Accept-Encoding: zstd",     "Accept-Encoding: deflate, gzip, zstd",
        "Accept-Encoding: br, zstd", "Accept-Encoding: deflate, gzip, br, zstd",
    };
    static const char *line; /* found once: a request's list takes it as it is */
    const curl_version_info_data *vi;

    if (line == NULL) {
        vi = curl_version_info(CURLVERSION_NOW);
        line = lines[((vi->features & CURL_VERSION_LIBZ) ? 1 : 0) |
                     ((vi->features & CURL_VERSION_BROTLI) ? 2 : 0) |
                     ((vi->features & CURL_VERSION_ZSTD) ? 4 : 0)];
    }
    return line;
}

void reqopt_apply(CURL *h, reqopt_mark *mark, const reqopt *req, const reqopt *scen,
                  const reqopt *run, int https, const char *env_ca)
{
    uint64_t rs = req != NULL ? req->serial : 0, ss = scen != NULL ? scen->serial : 0;
    const reqopt *o;
    int insecure, http2;

    if (mark->valid && mark->req == rs && mark->scen == ss && mark->https == https)
        return;
    mark->valid = 1;
    mark->req = rs;
    mark->scen = ss;
    mark->https = https;

    o = reqopt_pick(REQOPT_CA, req, scen, run);
    curl_easy_setopt(h, CURLOPT_CAINFO, o != NULL ? o->ca : env_ca);
    o = reqopt_pick(REQOPT_CERT, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLCERT, o != NULL ? o->cert : NULL);
    o = reqopt_pick(REQOPT_KEY, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLKEY, o != NULL ? o->key : NULL);
    o = reqopt_pick(REQOPT_KEY_PASSWORD, req, scen, run);
    curl_easy_setopt(h, CURLOPT_KEYPASSWD, o != NULL ? o->key_password : NULL);
    o = reqopt_pick(REQOPT_INSECURE, req, scen, run);
    insecure = o != NULL && o->insecure;
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, insecure ? 0L : 2L);
    o = reqopt_pick(REQOPT_TLS_MIN, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLVERSION, o != NULL ? o->tls_min : (long)CURL_SSLVERSION_DEFAULT);

    http2 = reqopt_http2(req, scen, run);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION,
                     !http2  ? (long)CURL_HTTP_VERSION_1_1
                     : https ? (long)CURL_HTTP_VERSION_2TLS
                             : (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    /* libcurl before 8.0 fails the second request on an h2c connection
     * with prior knowledge ("Error in the HTTP2 framing layer", curl issue
     * 10634): such a connection serves one request there. */
    curl_easy_setopt(
        h, CURLOPT_FORBID_REUSE,
        http2 && !https && curl_version_info(CURLVERSION_NOW)->version_num < 0x080000 ? 1L : 0L);

    /* Entries load into the multi handle's DNS cache when the transfer
     * starts and stay there. */
    o = reqopt_pick(REQOPT_RESOLVE, req, scen, run);
    curl_easy_setopt(h, CURLOPT_RESOLVE, o != NULL ? o->resolve : NULL);

    o = reqopt_pick(REQOPT_AUTH, req, scen, run);
    if (o != NULL && o->auth == REQOPT_AUTH_BEARER) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, o->token);
        curl_easy_setopt(h, CURLOPT_USERNAME, NULL);
        curl_easy_setopt(h, CURLOPT_PASSWORD, NULL);
    } else {
        if (o != NULL && o->auth == REQOPT_AUTH_DIGEST)
            mark->digest = 1;
        curl_easy_setopt(h, CURLOPT_HTTPAUTH,
                         o != NULL && o->auth == REQOPT_AUTH_DIGEST ? (long)CURLAUTH_DIGEST
                                                                    : (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, NULL);
        curl_easy_setopt(h, CURLOPT_USERNAME, o != NULL ? o->user : NULL);
        curl_easy_setopt(h, CURLOPT_PASSWORD, o != NULL ? o->password : NULL);
    }

    /* The header itself is in the request's list (reqopt_accept_encoding);
     * this turns decoding on. */
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, reqopt_compressed(req, scen, run) ? "" : NULL);
    o = reqopt_pick(REQOPT_CONNECT_TIMEOUT, req, scen, run);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o != NULL ? o->connect_timeout_ms : 0L);
}
