/* fuzz_lcsv — the CSV parser of quern.csv (worker/lcsv), which reads a
 * tester's data file in the console's preflight and in every worker.
 *
 * Input: the file. Two passes:
 * - the parser itself (the .c is included to reach its static functions) on
 *   a buffer of exactly the input's length, so that a read at the end is an
 *   overflow under ASan: every field must lie inside the buffer, and an
 *   unquoted field holds no quote;
 * - quern.csv(path) in a Lua state on the same bytes (from a memory file;
 *   the state's new memory is filled with quotes, so that a read of the
 *   byte after the file buffer shows),
 *   with and without a header, then count() and row(i) of every row (up to
 *   a bound): a file either loads or raises a Lua error, never more. */
#include "worker/lua/lcsv.c"

#include <stdlib.h>

#include "tests/fuzz/fuzz_util.h"

#define FUZZ_ROWS_MAX 64

static void parse_exact(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1);
    csv_in *in = calloc(1, sizeof(*in));
    char err[ERR_MAX];
    int st, records = 0;

    fuzz_check(buf != NULL && in != NULL);
    memcpy(buf, data, size);
    in->p = buf;
    in->end = buf + size;
    in->line = 1;
    in->name = "fuzz.csv";
    while ((st = csv_record(in, err, sizeof(err))) == 1) {
        fuzz_check(in->nf >= 1 && in->nf <= CSV_MAX_FIELDS);
        fuzz_check(in->p >= buf && in->p <= in->end);
        for (int i = 0; i < in->nf; i++) {
            const csv_field *f = &in->f[i];
            fuzz_check(f->s >= buf && f->s + f->len <= in->end);
        }
        if (!in->quoted0)
            fuzz_check(memchr(in->f[0].s, '"', in->f[0].len) == NULL);
        records++;
        fuzz_check((size_t)records <= size + 1);
    }
    if (st < 0)
        fuzz_check(strncmp(err, "fuzz.csv:", 9) == 0);
    free(in);
    free(buf);
}

/* quern.csv(path, {header = ...}): count() rows, each one readable. */
static int load(lua_State *L)
{
    int header = (int)lua_toboolean(L, 2);
    lua_Integer n;

    lua_settop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushboolean(L, header);
    lua_setfield(L, -2, "header");
    lcsv_new(L);
    lua_getfield(L, -1, "count");
    lua_pushvalue(L, -2);
    lua_call(L, 1, 1);
    n = lua_tointeger(L, -1);
    fuzz_check(n >= 1);
    lua_pop(L, 1);
    for (lua_Integer i = 1; i <= n && i <= FUZZ_ROWS_MAX; i++) {
        lua_getfield(L, -1, "row");
        lua_pushvalue(L, -2);
        lua_pushinteger(L, i);
        lua_call(L, 2, 1);
        fuzz_check(lua_istable(L, -1));
        lua_pop(L, 1);
    }
    return 0;
}

/* A Lua allocator whose new bytes are all quotes, as a block reused from an
 * earlier string may be: the byte after the file buffer is never clean. */
static void *quote_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    size_t old = ptr == NULL ? 0 : osize;
    char *p;

    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    p = realloc(ptr, nsize);
    if (p != NULL && nsize > old)
        memset(p + old, '"', nsize - old);
    return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path;

    parse_exact(data, size);
    path = fuzz_file(data, size);
    if (path == NULL)
        return 0;
    for (int header = 0; header <= 1; header++) {
        lua_State *L = lua_newstate(quote_alloc, NULL);
        *(void **)lua_getextraspace(L) = NULL; /* no VU: the script is loading */
        lua_pushcfunction(L, load);
        lua_pushstring(L, path);
        lua_pushboolean(L, header);
        if (lua_pcall(L, 2, 0, 0) != LUA_OK)
            fuzz_check(lua_type(L, -1) == LUA_TSTRING);
        lua_close(L);
    }
    return 0;
}
