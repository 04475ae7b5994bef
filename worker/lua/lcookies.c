#include "worker/lua/lcookies.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/ofile.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"

#define VU_MT "quern.VU"

static vu *check_vu(lua_State *L)
{
    vu *v = vu_current(L);
    if (v == NULL)
        luaL_error(L, "cookies belong to a VU: use them from init, run or finish");
    return v;
}

/* Splits one Netscape cookie line into its 7 fields; 0 if malformed. */
static int split_line(char *line, char *f[7])
{
    char *p = line;
    /* "#HttpOnly_" prefixes the domain of HttpOnly cookies. */
    for (int i = 0; i < 7; i++) {
        f[i] = p;
        if (i < 6) {
            p = strchr(p, '\t');
            if (p == NULL)
                return 0;
            *p++ = '\0';
        }
    }
    return 1;
}

/* vu:cookies() -> { {name=, value=, domain=, path=, secure=, expires=}, ... } */
static int l_cookies(lua_State *L)
{
    vu *v = check_vu(L);
    struct curl_slist *list = NULL;
    int n = 0;

    curl_easy_getinfo(vu_easy(v), CURLINFO_COOKIELIST, &list);
    lua_newtable(L);
    for (struct curl_slist *c = list; c != NULL; c = c->next) {
        char *f[7];
        char *line = xstrdup(c->data);
        /* An expired cookie (Max-Age=0 from a logout) is no longer in the jar. */
        if (split_line(line, f) &&
            !(strtoll(f[4], NULL, 10) != 0 && strtoll(f[4], NULL, 10) < (long long)time(NULL))) {
            const char *dom = f[0];
            int http_only = strncmp(dom, "#HttpOnly_", 10) == 0;
            lua_createtable(L, 0, 7);
            lua_pushstring(L, http_only ? dom + 10 : dom);
            lua_setfield(L, -2, "domain");
            lua_pushstring(L, f[2]);
            lua_setfield(L, -2, "path");
            lua_pushboolean(L, strcmp(f[3], "TRUE") == 0);
            lua_setfield(L, -2, "secure");
            lua_pushinteger(L, strtoll(f[4], NULL, 10));
            lua_setfield(L, -2, "expires");
            lua_pushstring(L, f[5]);
            lua_setfield(L, -2, "name");
            lua_pushstring(L, f[6]);
            lua_setfield(L, -2, "value");
            lua_pushboolean(L, http_only);
            lua_setfield(L, -2, "http_only");
            lua_rawseti(L, -2, ++n);
        }
        xfree(line);
    }
    curl_slist_free_all(list);
    return 1;
}

/* vu:cookie(name) -> value or nil */
static int l_cookie(lua_State *L)
{
    const char *name = luaL_checkstring(L, 2);
    lua_settop(L, 1);
    l_cookies(L);
    for (lua_Integer i = 1, n = luaL_len(L, -1); i <= n; i++) {
        lua_geti(L, -1, i);
        lua_getfield(L, -1, "name");
        if (strcmp(lua_tostring(L, -1), name) == 0) {
            lua_getfield(L, -2, "value");
            return 1;
        }
        lua_pop(L, 2);
    }
    lua_pushnil(L);
    return 1;
}

/* vu:add_cookie{name=, value=, domain=, path=, secure=, expires=}
 * or vu:add_cookie("Set-Cookie: a=b; Domain=x; Path=/") */
static int l_add_cookie(lua_State *L)
{
    vu *v = check_vu(L);
    char line[4096];

    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *s = lua_tostring(L, 2);
        if (strncasecmp(s, "Set-Cookie:", 11) == 0)
            snprintf(line, sizeof(line), "%s", s);
        else
            snprintf(line, sizeof(line), "Set-Cookie: %s", s);
    } else {
        const char *name, *value, *domain, *path;
        int secure;
        lua_Integer expires;
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_getfield(L, 2, "name");
        lua_getfield(L, 2, "value");
        lua_getfield(L, 2, "domain");
        lua_getfield(L, 2, "path");
        lua_getfield(L, 2, "secure");
        lua_getfield(L, 2, "expires");
        name = luaL_checkstring(L, -6);
        value = luaL_optstring(L, -5, "");
        domain = luaL_optstring(L, -4, "127.0.0.1");
        path = luaL_optstring(L, -3, "/");
        secure = lua_toboolean(L, -2);
        expires = luaL_optinteger(L, -1, 0);
        if (strchr(name, '\t') || strchr(value, '\t') || strchr(domain, '\t'))
            return luaL_error(L, "add_cookie: fields cannot contain tabs");
        /* Netscape format: domain, include subdomains, path, secure, expiry, name, value */
        snprintf(line, sizeof(line), "%s\t%s\t%s\t%s\t%lld\t%s\t%s", domain,
                 domain[0] == '.' ? "TRUE" : "FALSE", path, secure ? "TRUE" : "FALSE",
                 (long long)expires, name, value);
    }
    curl_easy_setopt(vu_easy(v), CURLOPT_COOKIELIST, line);
    return 0;
}

/* vu:clear_cookies() */
static int l_clear_cookies(lua_State *L)
{
    vu *v = check_vu(L);
    curl_easy_setopt(vu_easy(v), CURLOPT_COOKIELIST, "ALL");
    return 0;
}

/* vu:save_cookies(path): writes the jar in Netscape format. */
static int l_save_cookies(lua_State *L)
{
    vu *v = check_vu(L);
    const char *path = luaL_checkstring(L, 2);
    struct curl_slist *list = NULL;
    char oerr[ERR_MAX];
    ofile o;
    FILE *f;
    int n = 0;

    if (ofile_open(&o, path, OFILE_REPLACE, oerr, sizeof(oerr)) != 0)
        return luaL_error(L, "save_cookies: cannot write %s", oerr);
    f = ofile_stream(&o);
    if (f == NULL) {
        ofile_abort(&o);
        return luaL_error(L, "save_cookies: cannot write %s: %s", path, strerror(errno));
    }
    curl_easy_getinfo(vu_easy(v), CURLINFO_COOKIELIST, &list);
    fputs("# Netscape HTTP Cookie File\n", f);
    for (struct curl_slist *c = list; c != NULL; c = c->next, n++)
        fprintf(f, "%s\n", c->data);
    curl_slist_free_all(list);
    if (ofile_commit(&o, oerr, sizeof(oerr)) != 0)
        return luaL_error(L, "save_cookies: cannot write %s", oerr);
    lua_pushinteger(L, n);
    return 1;
}

/* vu:load_cookies(path): adds the cookies of a Netscape-format file. */
static int l_load_cookies(lua_State *L)
{
    vu *v = check_vu(L);
    const char *path = luaL_checkstring(L, 2);
    char line[8192];
    FILE *f = fopen(path, "r");
    int n = 0;

    if (f == NULL)
        return luaL_error(L, "load_cookies: cannot read %s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), f) != NULL) {
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        if (len == 0 || (line[0] == '#' && strncmp(line, "#HttpOnly_", 10) != 0))
            continue;
        curl_easy_setopt(vu_easy(v), CURLOPT_COOKIELIST, line);
        n++;
    }
    fclose(f);
    lua_pushinteger(L, n);
    return 1;
}

void lcookies_push_metatable(lua_State *L)
{
    static const luaL_Reg fns[] = {{"cookies", l_cookies},
                                   {"cookie", l_cookie},
                                   {"add_cookie", l_add_cookie},
                                   {"clear_cookies", l_clear_cookies},
                                   {"save_cookies", l_save_cookies},
                                   {"load_cookies", l_load_cookies},
                                   {NULL, NULL}};
    if (luaL_newmetatable(L, VU_MT)) {
        luaL_newlib(L, fns);
        lua_setfield(L, -2, "__index");
    }
}
