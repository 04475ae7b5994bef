#include "worker/lua/mpart.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/mem.h"
#include "worker/lua/lapi.h"

#define MPART_MT "quern.Multipart"
static const char mpart_key;       /* its address files the metatable */
static const char mpart_cache_key; /* the registry's table of files read: path -> bytes */

/** The userdata that owns a body. */
typedef struct mpart {
    curl_mime *mime; /**< owned */
} mpart;

/** Where libcurl reads one file field from. */
typedef struct mpart_src {
    const char *p; /**< borrowed: the bytes kept in the cache table */
    size_t len, pos;
} mpart_src;

static size_t mpart_read(char *buf, size_t size, size_t n, void *arg)
{
    mpart_src *s = arg;
    size_t want = size * n, left = s->len - s->pos;

    if (want > left)
        want = left;
    memcpy(buf, s->p + s->pos, want);
    s->pos += want;
    return want;
}

static int mpart_seek(void *arg, curl_off_t off, int origin)
{
    mpart_src *s = arg;

    if (origin != SEEK_SET || off < 0 || (size_t)off > s->len)
        return CURL_SEEKFUNC_CANTSEEK;
    s->pos = (size_t)off;
    return CURL_SEEKFUNC_OK;
}

static int mpart_gc(lua_State *L)
{
    mpart *m = lua_touserdata(L, 1);

    curl_mime_free(m->mime); /* unbinds it from the easy handle too */
    m->mime = NULL;
    return 0;
}

/* Pushes the cache table of files read, made on first use. */
static void push_cache(lua_State *L)
{
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &mpart_cache_key) == LUA_TTABLE)
        return;
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &mpart_cache_key);
}

size_t mpart_files_read(lua_State *L)
{
    size_t n = 0;

    push_cache(L);
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        n++;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return n;
}

/* Pushes the bytes of the file at path, read the first time only. */
static void push_file(lua_State *L, const char *field, const char *path)
{
    struct stat st;
    luaL_Buffer b;
    FILE *f;
    char *out;
    size_t got;

    push_cache(L);
    if (lua_getfield(L, -1, path) == LUA_TSTRING) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    f = fopen(path, "rb");
    if (f == NULL)
        luaL_error(L, "multipart.%s: cannot read %s: %s", field, path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MPART_FILE_MAX) {
        fclose(f);
        luaL_error(L, "multipart.%s: %s is not a regular file of at most %d MiB", field, path,
                   (int)(MPART_FILE_MAX >> 20));
    }
    out = luaL_buffinitsize(L, &b, (size_t)st.st_size + 1);
    got = fread(out, 1, (size_t)st.st_size, f);
    fclose(f);
    if (got != (size_t)st.st_size)
        luaL_error(L, "multipart.%s: %s changed while it was read", field, path);
    luaL_pushresultsize(&b, got);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, path); /* cache[path] = bytes */
    lua_remove(L, -2);
}

/* Adds the file field at the top of the stack (a table) to mime. */
static void add_file(lua_State *L, curl_mime *mime, const char *field, const char *dir)
{
    int t = lua_gettop(L);
    const char *rel, *type = NULL, *name = NULL, *slash;
    char path[4096];
    curl_mimepart *part;
    mpart_src *src;
    size_t len;
    int n;

    if (lua_getfield(L, t, "path") != LUA_TSTRING)
        luaL_error(L, "multipart.%s: a file is { path = \"file\", type =, name = }", field);
    rel = lua_tostring(L, -1);
    if (lua_getfield(L, t, "type") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "multipart.%s: type must be a string", field);
        type = lua_tostring(L, -1);
    }
    if (lua_getfield(L, t, "name") != LUA_TNIL) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "multipart.%s: name must be a string", field);
        name = lua_tostring(L, -1);
    }
    n = rel[0] == '/' || dir == NULL || dir[0] == '\0'
            ? snprintf(path, sizeof(path), "%s", rel)
            : snprintf(path, sizeof(path), "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof(path))
        luaL_error(L, "multipart.%s: path too long", field);
    if (name == NULL) {
        slash = strrchr(rel, '/');
        name = slash != NULL ? slash + 1 : rel;
    }
    push_file(L, field, path); /* anchored by the cache for the worker's life */
    src = xmalloc(sizeof(*src));
    src->p = lua_tolstring(L, -1, &len);
    src->len = len;
    src->pos = 0;
    part = curl_mime_addpart(mime);
    curl_mime_name(part, field);
    curl_mime_filename(part, name);
    if (type != NULL)
        curl_mime_type(part, type);
    curl_mime_data_cb(part, (curl_off_t)len, mpart_read, mpart_seek, xfree, src);
    lua_settop(L, t);
}

curl_mime *mpart_push(lua_State *L, int idx, CURL *easy, const char *dir)
{
    mpart *m;
    int fields = 0;

    idx = lua_absindex(L, idx);
    m = lua_newuserdatauv(L, sizeof(*m), 0);
    m->mime = NULL;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &mpart_key) == LUA_TNIL) {
        lua_pop(L, 1);
        lapi_newmt(L, &mpart_key, MPART_MT);
        lua_pushcfunction(L, mpart_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    m->mime = curl_mime_init(easy);
    if (m->mime == NULL)
        xoom("curl_mime_init");
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        const char *field;
        if (lua_type(L, -2) != LUA_TSTRING)
            luaL_error(L, "multipart: field names must be strings");
        if (++fields > MPART_FIELDS_MAX)
            luaL_error(L, "multipart: more than %d fields", MPART_FIELDS_MAX);
        field = lua_tostring(L, -2);
        if (lua_istable(L, -1)) {
            add_file(L, m->mime, field, dir);
        } else if (lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
            size_t len;
            const char *s;
            curl_mimepart *part = curl_mime_addpart(m->mime);
            lua_pushvalue(L, -1); /* tolstring converts a number: on a copy */
            s = lua_tolstring(L, -1, &len);
            curl_mime_name(part, field);
            curl_mime_data(part, s, len); /* copied */
            lua_pop(L, 1);
        } else {
            luaL_error(L, "multipart.%s: a string, a number or a file { path = }", field);
        }
        lua_pop(L, 1);
    }
    return m->mime;
}
