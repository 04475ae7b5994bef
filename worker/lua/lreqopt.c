/* lreqopt — a request's connection options read from Lua; see lreqopt.h. */
#include "worker/lua/lreqopt.h"

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
static const char lreqopt_key; /* its address files the metatable */
static uint64_t lreqopt_serials;

/* --- the userdata ------------------------------------------------------- */

static int gc(lua_State *L)
{
    reqopt_clear(lua_touserdata(L, 1));
    return 0;
}

reqopt *lreqopt_push(lua_State *L)
{
    reqopt *ro = lua_newuserdatauv(L, sizeof(*ro), 0);

    memset(ro, 0, sizeof(*ro));
    ro->serial = ++lreqopt_serials;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &lreqopt_key) == LUA_TNIL) {
        lua_pop(L, 1);
        lapi_newmt(L, &lreqopt_key, REQOPT_MT);
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
        lua_pushliteral(L, "request options");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    return ro;
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

void lreqopt_read(lua_State *L, int idx, const char *dir, int check_files, reqopt *ro,
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
