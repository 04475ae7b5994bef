#include "worker/lua/setupdata.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/lua/ljson.h"

/* Setup data nests no deeper than what ljson encodes (64 tables). */
#define FREEZE_DEPTH_MAX 64

/* ljson's encoder pushes a few values per level of nesting and does not
 * grow the stack itself: room for its deepest table first. */
#define ENCODE_STACK (4 * 64 + 16)

static int encode_protected(lua_State *L)
{
    luaL_checkstack(L, ENCODE_STACK, "setup data nested too deeply");
    ljson_encode(L, 1);
    return 1;
}

int setupdata_encode(lua_State *L, int idx, char **out, size_t *len, char *err, size_t errlen)
{
    int top = lua_gettop(L), rc = -1;
    const char *s;
    size_t n;

    *out = NULL;
    *len = 0;
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, encode_protected);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        s = lua_tostring(L, -1);
        err_set(err, errlen, "%s", s != NULL ? s : "json: cannot encode");
        goto out;
    }
    s = lua_tolstring(L, -1, &n);
    if (n > SETUPDATA_MAX) {
        err_set(err, errlen, "%zu bytes as JSON, more than %u (1 MiB)", n, SETUPDATA_MAX);
        goto out;
    }
    *out = xmalloc(n + 1);
    memcpy(*out, s, n + 1);
    *len = n;
    rc = 0;
out:
    lua_settop(L, top);
    return rc;
}

static int ro_newindex(lua_State *L)
{
    return luaL_error(L, "vu.setup is read-only");
}

/* __len: the length of the real table (upvalue 1). */
static int ro_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* The iterator of pairs: next over the real table (upvalue 1), which the
 * script never gets hold of. */
static int ro_next(lua_State *L)
{
    lua_settop(L, 2);
    if (lua_next(L, lua_upvalueindex(1)) == 0) {
        lua_pushnil(L);
        return 1;
    }
    return 2;
}

static int ro_pairs(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, ro_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/* 0, or -1 when the tables nest deeper than FREEZE_DEPTH_MAX (the table at
 * idx is then left partly frozen). */
static int freeze(lua_State *L, int idx, int depth)
{
    idx = lua_absindex(L, idx);
    if (depth > FREEZE_DEPTH_MAX || !lua_checkstack(L, 8))
        return -1;
    /* The nested tables first: a value replaced during lua_next is fine. */
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            if (freeze(L, -1, depth + 1) != 0) {
                lua_pop(L, 2);
                return -1;
            }
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, idx);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_newtable(L); /* the proxy */
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, ro_len, 1);
    lua_setfield(L, -2, "__len");
    lua_pushvalue(L, idx);
    lua_pushcclosure(L, ro_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable"); /* setmetatable cannot undo it */
    lua_setmetatable(L, -2);
    lua_replace(L, idx);
    return 0;
}

int setupdata_freeze(lua_State *L, int idx)
{
    return freeze(L, idx, 0);
}

int setupdata_decode(lua_State *L, const char *s, size_t len, char *err, size_t errlen)
{
    char why[256];

    if (len > SETUPDATA_MAX) {
        err_set(err, errlen, "setup data of %zu bytes, more than %u", len, SETUPDATA_MAX);
        return 0;
    }
    if (!ljson_decode(L, s, len, 0, why, sizeof(why))) {
        err_set(err, errlen, "setup data is not JSON: %s", why);
        return 0;
    }
    if (lua_type(L, -1) != LUA_TTABLE) {
        lua_pop(L, 1);
        err_set(err, errlen, "setup data is not a JSON object");
        return 0;
    }
    if (setupdata_freeze(L, -1) != 0) {
        lua_pop(L, 1);
        err_set(err, errlen, "setup data nests tables deeper than %d", FREEZE_DEPTH_MAX);
        return 0;
    }
    return 1;
}
