#include "worker/ljson.h"

#include <jansson.h>
#include <lauxlib.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 64

static void push_value(lua_State *L, json_t *j, int depth)
{
    luaL_checkstack(L, 4, "JSON too deep");
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *val;
        lua_createtable(L, 0, (int)json_object_size(j));
        json_object_foreach(j, k, val)
        {
            push_value(L, val, depth + 1);
            lua_setfield(L, -2, k);
        }
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *val;
        lua_createtable(L, (int)json_array_size(j), 0);
        json_array_foreach(j, i, val)
        {
            push_value(L, val, depth + 1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        break;
    }
    case JSON_STRING:
        lua_pushlstring(L, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        lua_pushinteger(L, (lua_Integer)json_integer_value(j));
        break;
    case JSON_REAL:
        lua_pushnumber(L, json_real_value(j));
        break;
    case JSON_TRUE:
        lua_pushboolean(L, 1);
        break;
    case JSON_FALSE:
        lua_pushboolean(L, 0);
        break;
    default:
        lua_pushnil(L);
        break;
    }
}

int ljson_decode(lua_State *L, const char *s, size_t len, char *err, size_t errlen)
{
    json_error_t je;
    json_t *j = json_loadb(s, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);

    if (j == NULL) {
        snprintf(err, errlen, "%s (line %d, column %d)", je.text, je.line, je.column);
        return 0;
    }
    push_value(L, j, 0);
    json_decref(j);
    return 1;
}

/* Builds the JSON of the value at idx; NULL with a message pushed on error. */
static json_t *to_json(lua_State *L, int idx, int depth)
{
    idx = lua_absindex(L, idx);
    if (depth > JSON_DEPTH_MAX) {
        lua_pushstring(L, "json: table nested too deeply (a cycle?)");
        return NULL;
    }
    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return json_null();
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            return json_integer((json_int_t)lua_tointeger(L, idx));
        return json_real(lua_tonumber(L, idx));
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        json_t *j = json_stringn_nocheck(s, n);
        return j;
    }
    case LUA_TTABLE: {
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
        int array;
        json_t *out;
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            count++;
            lua_pop(L, 1);
        }
        array = n > 0 && count == n;
        out = array ? json_array() : json_object();
        if (array) {
            for (lua_Integer i = 1; i <= n; i++) {
                json_t *val;
                lua_rawgeti(L, idx, i);
                val = to_json(L, -1, depth + 1);
                if (val == NULL) {
                    lua_remove(L, -2); /* keep the message */
                    json_decref(out);
                    return NULL;
                }
                lua_pop(L, 1);
                json_array_append_new(out, val);
            }
            return out;
        }
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            json_t *val;
            if (lua_type(L, -2) != LUA_TSTRING && lua_type(L, -2) != LUA_TNUMBER) {
                lua_pop(L, 2);
                json_decref(out);
                lua_pushstring(L, "json: object keys must be strings");
                return NULL;
            }
            val = to_json(L, -1, depth + 1);
            if (val == NULL) {
                lua_replace(L, -3); /* the message takes the key's place */
                lua_pop(L, 1);
                json_decref(out);
                return NULL;
            }
            lua_pushvalue(L, -2); /* tostring on a copy, not the key */
            json_object_set_new(out, lua_tostring(L, -1), val);
            lua_pop(L, 2);
        }
        return out;
    }
    default:
        lua_pushfstring(L, "json: cannot encode a %s", luaL_typename(L, idx));
        return NULL;
    }
}

void ljson_encode(lua_State *L, int idx)
{
    json_t *j = to_json(L, idx, 0);
    char *s;

    if (j == NULL)
        lua_error(L);
    s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    if (s == NULL)
        luaL_error(L, "json: cannot encode");
    lua_pushstring(L, s);
    free(s);
}
