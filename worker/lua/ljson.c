#include "worker/lua/ljson.h"

#include <jansson.h>
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* Their addresses file, in the registry, what every state makes once. */
static const char null_key, array_key, object_key, box_key;

/* An array of fewer entries than this is never refused for its holes. */
#define SPARSE_FREE 16
/* Bytes of a key quoted in an error's path. */
#define PATH_KEY_MAX 40

enum kind { KIND_ARRAY = 1, KIND_OBJECT };

static int null_tostring(lua_State *L)
{
    lua_pushliteral(L, "null");
    return 1;
}

/* A box owns a json_t while Lua values are made from it or into it: a Lua
 * error (out of memory, a bad value) leaves it to the collector. */
static int box_gc(lua_State *L)
{
    json_t **b = lua_touserdata(L, 1);

    json_decref(*b);
    *b = NULL;
    return 0;
}

/* Pushes the registry value filed at key (one of the four above), made the
 * first time it is asked for. */
static void push_shared(lua_State *L, const char *key)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, key) != LUA_TNIL)
        return;
    lua_pop(L, 1);
    if (key == &null_key) {
        lua_newuserdatauv(L, 1, 0);
        lua_createtable(L, 0, 3);
        lua_pushcfunction(L, null_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "quern.json.null");
        lua_setfield(L, -2, "__name");
        lua_pushliteral(L, "quern.json.null");
        lua_setfield(L, -2, "__metatable"); /* one null: its metatable stays */
        lua_setmetatable(L, -2);
    } else if (key == &box_key) {
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, box_gc);
        lua_setfield(L, -2, "__gc");
    } else {
        lua_createtable(L, 0, 1);
        lua_pushstring(L, key == &array_key ? "quern.json.array" : "quern.json.object");
        lua_setfield(L, -2, "__name");
    }
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

static json_t **box_push(lua_State *L)
{
    json_t **b = lua_newuserdatauv(L, sizeof(*b), 0);

    *b = NULL;
    push_shared(L, &box_key);
    lua_setmetatable(L, -2);
    return b;
}

/* --- decoding ------------------------------------------------------------ */

typedef struct dec {
    lua_State *L; /**< borrowed: the state decoding */
    int null;     /**< stack index of quern.json.null, or of a nil */
    int amt;      /**< stack index of the array marker */
    int omt;      /**< stack index of the object marker */
} dec;

static int table_size(size_t n)
{
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* Pushes the Lua value of j at depth (0: the root); 0 (the stack left to
 * the caller) when it nests more than LJSON_DEPTH_MAX arrays and objects. */
static int push_value(const dec *d, json_t *j, int depth)
{
    lua_State *L = d->L;

    /* an array or object at depth LJSON_DEPTH_MAX would be one level more */
    if (depth >= LJSON_DEPTH_MAX && (json_is_array(j) || json_is_object(j)))
        return 0;
    luaL_checkstack(L, 3, "JSON too deep");
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        const char *k;
        size_t klen;
        json_t *val;
        lua_createtable(L, 0, table_size(json_object_size(j)));
        lua_pushvalue(L, d->omt);
        lua_setmetatable(L, -2);
        json_object_keylen_foreach(j, k, klen, val)
        {
            lua_pushlstring(L, k, klen);
            if (!push_value(d, val, depth + 1))
                return 0;
            lua_rawset(L, -3);
        }
        break;
    }
    case JSON_ARRAY: {
        size_t i;
        json_t *val;
        lua_createtable(L, table_size(json_array_size(j)), 0);
        lua_pushvalue(L, d->amt);
        lua_setmetatable(L, -2);
        json_array_foreach(j, i, val)
        {
            if (!push_value(d, val, depth + 1))
                return 0;
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
        lua_pushvalue(L, d->null);
        break;
    }
    return 1;
}

int ljson_decode(lua_State *L, const char *s, size_t len, int flags, char *err, size_t errlen)
{
    int base = lua_gettop(L), ok;
    dec d = {L, base + 3, base + 1, base + 2};
    json_error_t je;
    json_t **box;

    luaL_checkstack(L, 6, "JSON");
    push_shared(L, &array_key);
    push_shared(L, &object_key);
    if (flags & LJSON_NULL)
        push_shared(L, &null_key);
    else
        lua_pushnil(L);
    box = box_push(L);
    *box = json_loadb(s, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (*box == NULL) {
        err_set(err, errlen, "%s (line %d, column %d)", je.text, je.line, je.column);
        lua_settop(L, base);
        return 0;
    }
    ok = push_value(&d, *box, 0);
    json_decref(*box);
    *box = NULL;
    if (!ok) {
        err_set(err, errlen, "nested deeper than %d", LJSON_DEPTH_MAX);
        lua_settop(L, base);
        return 0;
    }
    lua_replace(L, base + 1);
    lua_settop(L, base + 1);
    return 1;
}

/* --- encoding ------------------------------------------------------------ */

/* How the encoder reached a value: an object member or an array element. */
typedef struct seg {
    int key;       /**< stack index of the member's key; 0 for an element */
    lua_Integer i; /**< the element's Lua index */
} seg;

typedef struct enc {
    lua_State *L;     /**< borrowed: the state encoding */
    const char *what; /**< borrowed (static): the errors' prefix */
    const void *null; /**< borrowed: quern.json.null (the registry holds it) */
    int amt;          /**< stack index of the array marker */
    int omt;          /**< stack index of the object marker */
    json_t **box;     /**< borrowed: a userdata on the stack, which owns the value built */
    int depth;        /**< of the value being encoded; 0 is the root */
    int digits;       /**< significant digits every real so far needs (15 to 17) */
    const void *tables[LJSON_DEPTH_MAX]; /**< borrowed: the tables being encoded, outermost first */
    seg path[LJSON_DEPTH_MAX + 1];       /**< path[1..depth]: how the value was reached */
} enc;

static int is_ident(const char *s, size_t n)
{
    if (n == 0 || n > PATH_KEY_MAX || (s[0] >= '0' && s[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return 0;
    }
    return 1;
}

/* Writes the path of the value being encoded, "$.items[2]["a b"]", into buf. */
static void path_text(const enc *e, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "$");

    for (int d = 1; d <= e->depth && n < len; d++) {
        const seg *s = &e->path[d];
        size_t kl = 0;
        /* lua_tolstring would turn a number key into a string: strings only */
        const char *k = s->key != 0 && lua_type(e->L, s->key) == LUA_TSTRING
                            ? lua_tolstring(e->L, s->key, &kl)
                            : NULL;
        int w;

        if (s->key == 0) {
            w = snprintf(buf + n, len - n, "[%lld]", (long long)s->i);
        } else if (lua_type(e->L, s->key) != LUA_TSTRING) {
            /* a number key of a quern.json.object */
            if (lua_isinteger(e->L, s->key))
                w = snprintf(buf + n, len - n, "[%lld]", (long long)lua_tointeger(e->L, s->key));
            else
                w = snprintf(buf + n, len - n, "[%.14g]", (double)lua_tonumber(e->L, s->key));
        } else if (is_ident(k, kl)) {
            w = snprintf(buf + n, len - n, ".%s", k);
        } else {
            char q[PATH_KEY_MAX + 1];
            size_t m = kl < PATH_KEY_MAX ? kl : PATH_KEY_MAX;
            for (size_t i = 0; i < m; i++)
                q[i] = k[i] >= 0x20 && k[i] < 0x7f && k[i] != '"' ? k[i] : '?';
            q[m] = '\0';
            w = snprintf(buf + n, len - n, "[\"%s%s\"]", q, kl > m ? "..." : "");
        }
        n += w > 0 ? (size_t)w : 0;
    }
}

/* Raises "what: $.path: msg"; the box frees what was built. */
__attribute__((format(printf, 2, 3))) static int fail(const enc *e, const char *fmt, ...)
{
    char path[512], msg[256];
    va_list ap;

    path_text(e, path, sizeof(path));
    va_start(ap, fmt);
    err_vset(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return luaL_error(e->L, "%s: %s: %s", e->what, path, msg);
}

/* The fewest significant digits, from at least, that read v back exactly. */
static int real_digits(double v, int at_least)
{
    char b[40];

    for (int p = at_least; p < 17; p++) {
        snprintf(b, sizeof(b), "%.*g", p, v);
        if (strtod(b, NULL) == v)
            return p;
    }
    return 17;
}

static json_t *scalar(enc *e, int idx)
{
    lua_State *L = e->L;
    json_t *j;
    double d;

    switch (lua_type(L, idx)) {
    case LUA_TNIL:
        return json_null();
    case LUA_TBOOLEAN:
        return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            return json_integer((json_int_t)lua_tointeger(L, idx));
        if (!isfinite((double)lua_tonumber(L, idx)))
            fail(e, "NaN and infinity have no JSON form");
        d = (double)lua_tonumber(L, idx);
        if (e->digits < 17)
            e->digits = real_digits(d, e->digits);
        return json_real(d);
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, idx, &n);
        j = json_stringn(s, n);
        if (j == NULL)
            fail(e, "a string that is not UTF-8 (binary data goes in base64: quern.base64)");
        return j;
    }
    case LUA_TUSERDATA:
        if (lua_touserdata(L, idx) == e->null)
            return json_null();
        break;
    default:
        break;
    }
    fail(e, "cannot encode a %s", luaL_typename(L, idx));
    return NULL;
}

/* A key at idx that is neither a string nor an array index, in words. */
static const char *bad_key(lua_State *L, int idx, char *buf, size_t len)
{
    if (lua_isinteger(L, idx))
        snprintf(buf, len, "key %lld", (long long)lua_tointeger(L, idx));
    else if (lua_type(L, idx) == LUA_TNUMBER)
        snprintf(buf, len, "key %.14g", (double)lua_tonumber(L, idx));
    else
        snprintf(buf, len, "a %s key", luaL_typename(L, idx));
    return buf;
}

/* The kind of the table at idx (its marker, else its keys), with the
 * largest index of an array in *n; raises on a table JSON cannot carry. */
static enum kind classify(enc *e, int idx, lua_Integer *n)
{
    lua_State *L = e->L;
    const void *p = lua_topointer(L, idx);
    lua_Integer count = 0, strings = 0, max = 0;
    enum kind marked = 0;
    char kb[64];

    if (e->depth >= LJSON_DEPTH_MAX)
        fail(e, "nested deeper than %d", LJSON_DEPTH_MAX);
    for (int d = 0; d < e->depth; d++)
        if (e->tables[d] == p)
            fail(e, "a cycle: the table contains itself");
    e->tables[e->depth] = p;
    luaL_checkstack(L, 4, "JSON too deep");
    if (lua_getmetatable(L, idx)) {
        if (lua_rawequal(L, -1, e->amt))
            marked = KIND_ARRAY;
        else if (lua_rawequal(L, -1, e->omt))
            marked = KIND_OBJECT;
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        count++;
        if (lua_type(L, -1) == LUA_TSTRING)
            strings++;
        else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0)
            max = lua_tointeger(L, -1) > max ? lua_tointeger(L, -1) : max;
        else if (marked != KIND_OBJECT || lua_type(L, -1) != LUA_TNUMBER)
            fail(e, "%s is neither a string nor an array index (1, 2, ...)",
                 bad_key(L, -1, kb, sizeof(kb)));
    }
    if (marked == KIND_OBJECT || (marked == 0 && strings == count))
        return KIND_OBJECT;
    if (strings > 0)
        fail(e, marked ? "a string key in a quern.json.array"
                       : "a table with both array indices and string keys (quern.json.object(t) "
                         "writes the indices as keys)");
    if (max > SPARSE_FREE && max / 2 > count)
        fail(e, "an array of %lld values up to index %lld, more than half holes", (long long)count,
             (long long)max);
    *n = max;
    return KIND_ARRAY;
}

static void put(enc *e, int idx, json_t *parent, const char *k, size_t klen);

static void fill_array(enc *e, int idx, json_t *arr, lua_Integer n)
{
    lua_State *L = e->L;

    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        e->depth++;
        e->path[e->depth] = (seg){0, i};
        put(e, lua_gettop(L), arr, NULL, 0);
        e->depth--;
        lua_pop(L, 1);
    }
}

static void fill_object(enc *e, int idx, json_t *obj)
{
    lua_State *L = e->L;

    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        char num[48];
        size_t kl;
        const char *k;

        if (lua_type(L, -2) == LUA_TSTRING) {
            k = lua_tolstring(L, -2, &kl);
        } else {
            /* a number key of a quern.json.object: written as Lua prints it */
            if (lua_isinteger(L, -2))
                snprintf(num, sizeof(num), "%lld", (long long)lua_tointeger(L, -2));
            else
                snprintf(num, sizeof(num), "%.14g", (double)lua_tonumber(L, -2));
            k = num;
            kl = strlen(num);
        }
        e->depth++;
        e->path[e->depth] = (seg){lua_gettop(L) - 1, 0};
        put(e, lua_gettop(L), obj, k, kl);
        e->depth--;
        lua_pop(L, 1);
    }
}

/* Encodes the value at idx into parent: appended to an array (k NULL), set
 * under k in an object, or the root (parent NULL). A container is attached
 * before it is filled, so that the box always owns all that was built. */
static void put(enc *e, int idx, json_t *parent, const char *k, size_t klen)
{
    enum kind kind = 0;
    lua_Integer n = 0;
    json_t *v;

    if (lua_type(e->L, idx) == LUA_TTABLE) {
        kind = classify(e, idx, &n);
        v = kind == KIND_ARRAY ? json_array() : json_object();
    } else {
        v = scalar(e, idx);
    }
    if (parent == NULL)
        *e->box = v;
    else if (k == NULL)
        json_array_append_new(parent, v);
    else if (json_object_setn_new(parent, k, klen, v) != 0)
        fail(e, "a key that is not UTF-8");
    if (kind == KIND_ARRAY)
        fill_array(e, idx, v, n);
    else if (kind == KIND_OBJECT)
        fill_object(e, idx, v);
}

/* Pushes the JSON of the value at idx, dumped with jansson's flags. */
static void encode_at(lua_State *L, int idx, const char *what, size_t flags)
{
    enc e;
    int base = lua_gettop(L);
    luaL_Buffer b;
    size_t n;
    char *p;

    idx = lua_absindex(L, idx);
    luaL_checkstack(L, 6, "JSON");
    e.L = L;
    e.what = what;
    e.depth = 0;
    e.digits = 15;
    push_shared(L, &array_key);
    e.amt = base + 1;
    push_shared(L, &object_key);
    e.omt = base + 2;
    push_shared(L, &null_key);
    e.null = lua_touserdata(L, -1);
    e.box = box_push(L);
    put(&e, idx, NULL, NULL, 0);
    /* one precision for the whole text: 0.1 is written 0.1 unless another
     * number needs 17 digits */
    flags |= JSON_ENCODE_ANY | JSON_REAL_PRECISION(e.digits);
    n = json_dumpb(*e.box, NULL, 0, flags);
    if (n == 0)
        luaL_error(L, "%s: cannot encode", what);
    p = luaL_buffinitsize(L, &b, n);
    json_dumpb(*e.box, p, n, flags);
    json_decref(*e.box);
    *e.box = NULL;
    luaL_pushresultsize(&b, n);
    lua_replace(L, base + 1);
    lua_settop(L, base + 1);
}

void ljson_encode(lua_State *L, int idx)
{
    encode_at(L, idx, "json", JSON_COMPACT);
}

/* --- quern.json ---------------------------------------------------------- */

/* quern.json.encode(v [, { pretty = true, sort_keys = true }]) */
static int l_encode(lua_State *L)
{
    size_t flags = JSON_COMPACT;

    luaL_checkany(L, 1);
    lua_settop(L, 2);
    if (!lua_isnil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            int on = lua_toboolean(L, -1);
            if (strcmp(k, "pretty") == 0)
                flags = on ? (flags & ~(size_t)JSON_COMPACT) | JSON_INDENT(2) : flags;
            else if (strcmp(k, "sort_keys") == 0)
                flags |= on ? JSON_SORT_KEYS : 0;
            else
                return luaL_error(L,
                                  "quern.json.encode: unknown option \"%s\" (known: pretty, "
                                  "sort_keys)",
                                  k);
            lua_pop(L, 1);
        }
    }
    encode_at(L, 1, "quern.json.encode", flags);
    return 1;
}

/* quern.json.decode(s [, { null = false }]) */
static int l_decode(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    int flags = LJSON_NULL;
    char err[ERR_MAX];

    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "null") != 0)
                return luaL_error(L, "quern.json.decode: unknown option \"%s\" (known: null)", k);
            flags = lua_toboolean(L, -1) ? LJSON_NULL : 0;
            lua_pop(L, 1);
        }
    }
    lua_settop(L, 1);
    if (!ljson_decode(L, s, n, flags, err, sizeof(err)))
        return luaL_error(L, "quern.json.decode: %s", err);
    return 1;
}

/* Sets the marker at key on table 1 (a new one if none) and returns it. */
static int mark(lua_State *L, const char *key, const char *what)
{
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_newtable(L);
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    if (lua_getmetatable(L, 1)) {
        push_shared(L, &array_key);
        push_shared(L, &object_key);
        if (!lua_rawequal(L, -1, -3) && !lua_rawequal(L, -2, -3))
            return luaL_error(L, "%s: the table has a metatable of its own", what);
        lua_settop(L, 1);
    }
    push_shared(L, key);
    lua_setmetatable(L, 1);
    return 1;
}

static int l_array(lua_State *L)
{
    return mark(L, &array_key, "quern.json.array");
}

static int l_object(lua_State *L)
{
    return mark(L, &object_key, "quern.json.object");
}

void ljson_register(lua_State *L, int idx)
{
    static const luaL_Reg fns[] = {{"encode", l_encode},
                                   {"decode", l_decode},
                                   {"array", l_array},
                                   {"object", l_object},
                                   {NULL, NULL}};

    idx = lua_absindex(L, idx);
    luaL_newlib(L, fns);
    push_shared(L, &null_key);
    lua_setfield(L, -2, "null");
    lua_setfield(L, idx, "json");
}
