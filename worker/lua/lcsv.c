#include "worker/lua/lcsv.h"

#include <errno.h>
#include <lauxlib.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/engine/lscript.h"

#define FEEDER_MT "quern.Feeder"
#define CSV_MAX_BYTES (64u << 20) /* the largest file quern.csv reads */
#define CSV_MAX_FIELDS 1024       /* columns of one row */

enum csv_mode { CSV_SEQUENTIAL, CSV_UNIQUE, CSV_CIRCULAR, CSV_RANDOM };
enum csv_exhausted { CSV_EX_ERROR, CSV_EX_WRAP, CSV_EX_STOP };

static const char *const mode_names[] = {"sequential", "unique", "circular", "random", NULL};
static const char *const exhausted_names[] = {"error", "wrap", "stop", NULL};

/* User values of a feeder. */
enum { UV_BUF = 1, UV_COUNTS, UV_NAMES, UV_N = UV_NAMES };

/** Where one field lies in the file buffer. */
typedef struct csv_cell {
    uint32_t off, len;
} csv_cell;

/** The feeder userdata. Its user values: the file buffer (a userdata the
 *  cells point into), the per-VU counts table, the column names (header). */
typedef struct feeder {
    int mode;         /**< enum csv_mode */
    int on_exhausted; /**< enum csv_exhausted */
    int header;       /**< rows are keyed by the names of the first line */
    int ncols;
    lua_Integer nrows;  /**< data rows, at least 1 */
    lua_Integer handed; /**< sequential: rows handed out by this worker */
    csv_cell *cells;    /**< owned (freed by __gc): ncells, row-major, header first */
    size_t ncells, cap;
    char name[256]; /**< the path as the script gave it, for messages */
} feeder;

/* --- parsing ------------------------------------------------------------- */

/** A field of the record being parsed: points into the file buffer. */
typedef struct csv_field {
    const char *s; /**< borrowed: in the file buffer */
    size_t len;
} csv_field;

/** The parser's state over one file buffer, unescaped in place. */
typedef struct csv_in {
    char *p, *end; /**< borrowed: the unread part of the buffer */
    long line;     /**< physical line of p, 1-based */
    long rec_line; /**< line where the last record started */
    int nf;        /**< fields of the last record */
    int quoted0;   /**< its first field was quoted */
    csv_field f[CSV_MAX_FIELDS];
    const char *name; /**< borrowed: file name for messages */
} csv_in;

/* 1 when p (at most in->end) is at the end of a line or of the input. */
static int at_line_end(const csv_in *in, const char *p)
{
    return p == in->end || *p == '\n' || (*p == '\r' && (p + 1 == in->end || p[1] == '\n'));
}

/* Reads one record. 1 read, 0 end of input, -1 with "name:line: why" in err.
 * Never reads at or past in->end: a field may start there (after a ',' that
 * ends the input), and is then empty. */
static int csv_record(csv_in *in, char *err, size_t errlen)
{
    char *p = in->p, *end = in->end;

    in->nf = 0;
    in->quoted0 = 0;
    in->rec_line = in->line;
    if (p == end)
        return 0;
    for (;;) {
        char *start = p, *w = p;
        int quoted = p < end && *p == '"';

        if (in->nf == CSV_MAX_FIELDS) {
            err_set(err, errlen, "%s:%ld: more than %d fields", in->name, in->line, CSV_MAX_FIELDS);
            return -1;
        }
        if (quoted) {
            long qline = in->line;
            p++;
            for (;;) {
                char c;
                if (p == end) {
                    err_set(err, errlen,
                            "%s:%ld: quoted field not closed before the end of "
                            "the file",
                            in->name, qline);
                    return -1;
                }
                c = *p++;
                if (c == '"') {
                    if (p < end && *p == '"') {
                        *w++ = '"';
                        p++;
                        continue;
                    }
                    break;
                }
                if (c == '\n')
                    in->line++;
                *w++ = c;
            }
            if (p < end && *p != ',' && !at_line_end(in, p)) {
                err_set(err, errlen,
                        "%s:%ld: unexpected character after a closing quote (a "
                        "quote inside a quoted field is written twice: \"\")",
                        in->name, in->line);
                return -1;
            }
            if (p < end && *p == '\r')
                p++;
        } else {
            while (p < end && *p != ',' && *p != '\n') {
                if (*p == '"') {
                    err_set(err, errlen,
                            "%s:%ld: quote in an unquoted field (quote the whole "
                            "field and write inner quotes twice)",
                            in->name, in->line);
                    return -1;
                }
                p++;
            }
            w = p;
            if ((p == end || *p == '\n') && w > start && w[-1] == '\r')
                w--;
        }
        in->f[in->nf].s = start;
        in->f[in->nf].len = (size_t)(w - start);
        if (in->nf == 0)
            in->quoted0 = quoted;
        in->nf++;
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end) { /* '\n' */
            p++;
            in->line++;
        }
        in->p = p;
        return 1;
    }
}

/* A blank line reads as one empty unquoted field: it is skipped. */
static int csv_blank(const csv_in *in)
{
    return in->nf == 1 && in->f[0].len == 0 && !in->quoted0;
}

/* Reads the whole file into a userdata left on the stack (collected with it,
 * so an error raised later leaks nothing). 0 ok; -1 with err. */
static int read_file(lua_State *L, const char *path, const char *name, char **buf, size_t *len,
                     char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t n;

    if (f == NULL) {
        err_set(err, errlen, "cannot open %s (%s): %s", name, path, strerror(errno));
        return -1;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        err_set(err, errlen, "%s (%s) is not a regular file", name, path);
        fclose(f);
        return -1;
    }
    if ((unsigned long long)st.st_size > CSV_MAX_BYTES) {
        err_set(err, errlen, "%s is larger than %u MiB", name, CSV_MAX_BYTES >> 20);
        fclose(f);
        return -1;
    }
    *buf = lua_newuserdatauv(L, (size_t)st.st_size + 1, 0);
    n = fread(*buf, 1, (size_t)st.st_size, f);
    (*buf)[n] = '\0'; /* the parser stops at len; this byte is never stale */
    if (ferror(f)) {
        err_set(err, errlen, "cannot read %s (%s): %s", name, path, strerror(errno));
        fclose(f);
        return -1;
    }
    fclose(f);
    *len = n;
    return 0;
}

/* Resolves path against the folder of the main script (where the agent
 * unpacked the bundle on an injector). */
static void resolve_path(lua_State *L, const char *path, char *out, size_t outlen)
{
    if (path[0] == '/')
        snprintf(out, outlen, "%s", path);
    else
        snprintf(out, outlen, "%s/%s", lscript_dir(L), path);
}

/* Appends a record's fields to the feeder's cells. */
static void add_cells(feeder *fd, const csv_in *in, const char *buf)
{
    if (fd->ncells + (size_t)in->nf > fd->cap) {
        fd->cap = fd->cap ? fd->cap * 2 : 1024;
        while (fd->cap < fd->ncells + (size_t)in->nf)
            fd->cap *= 2;
        fd->cells = xreallocarray(fd->cells, fd->cap, sizeof(*fd->cells));
    }
    for (int i = 0; i < in->nf; i++) {
        fd->cells[fd->ncells].off = (uint32_t)(in->f[i].s - buf);
        fd->cells[fd->ncells].len = (uint32_t)in->f[i].len;
        fd->ncells++;
    }
}

/* Parses the file into fd's cells, header first. 0, or -1 with err. */
static int parse_cells(feeder *fd, csv_in *in, const char *buf, long *first_line, char *err,
                       size_t errlen)
{
    int st;

    fd->ncols = -1;
    fd->nrows = 0;
    while ((st = csv_record(in, err, errlen)) == 1) {
        if (csv_blank(in))
            continue;
        if (fd->ncols < 0) {
            fd->ncols = in->nf;
            *first_line = in->rec_line;
        } else if (in->nf != fd->ncols) {
            err_set(err, errlen, "%s:%ld: %d field%s, expected %d (as on line %ld)", in->name,
                    in->rec_line, in->nf, in->nf == 1 ? "" : "s", fd->ncols, *first_line);
            return -1;
        }
        add_cells(fd, in, buf);
        fd->nrows++;
    }
    if (st < 0)
        return -1;
    if (fd->header && fd->nrows > 0)
        fd->nrows--;
    if (fd->nrows == 0) {
        err_set(err, errlen, "%s has no data rows", in->name);
        return -1;
    }
    return 0;
}

/* Pushes the table of column names, from the header's cells. */
static void push_names(lua_State *L, feeder *fd, const char *buf, long line)
{
    lua_createtable(L, fd->ncols, 0);
    lua_createtable(L, 0, fd->ncols); /* seen */
    for (int i = 0; i < fd->ncols; i++) {
        const csv_cell *c = &fd->cells[i];
        if (c->len == 0)
            luaL_error(L, "%s:%d: column %d of the header has no name", fd->name, (int)line, i + 1);
        lua_pushlstring(L, buf + c->off, c->len);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, -3) != LUA_TNIL)
            luaL_error(L, "%s:%d: column \"%s\" appears twice in the header", fd->name, (int)line,
                       lua_tostring(L, -2));
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -4, i + 1);
        lua_pushboolean(L, 1);
        lua_rawset(L, -3);
    }
    lua_pop(L, 1);
}

/* Records the feeder's columns (the names table on top) with where the
 * script made it, for `quern check` (common/loadinfo.h). */
static void note_columns(lua_State *L, const feeder *fd)
{
    struct engine *e = lapi_engine(L);
    const char *cols[CSV_MAX_FIELDS];
    size_t n, wlen;
    const char *w;
    char at[512];

    if (e == NULL) /* a state of its own, without an engine (the unit tests') */
        return;
    luaL_where(L, 1);
    w = lua_tolstring(L, -1, &wlen);
    while (wlen > 0 && (w[wlen - 1] == ' ' || w[wlen - 1] == ':'))
        wlen--; /* "file:line: " */
    snprintf(at, sizeof(at), "%.*s", (int)wlen, w);
    lua_pop(L, 1);
    for (n = 0; n < (size_t)fd->ncols; n++) {
        lua_rawgeti(L, -1, (lua_Integer)n + 1);
        cols[n] = lua_tostring(L, -1); /* anchored by the names table */
        lua_pop(L, 1);
    }
    loadinfo_add_csv(engine_loadinfo(e), fd->name, at, cols, n);
}

/* Pushes a fresh table of data row i (1-based). */
static void push_row(lua_State *L, int fidx, feeder *fd, lua_Integer i)
{
    const csv_cell *c = &fd->cells[(size_t)(i - 1 + fd->header) * (size_t)fd->ncols];
    const char *buf;

    luaL_checkstack(L, 4, "csv row");
    lua_getiuservalue(L, fidx, UV_BUF);
    buf = lua_touserdata(L, -1);
    if (fd->header) {
        lua_getiuservalue(L, fidx, UV_NAMES);
        lua_createtable(L, 0, fd->ncols);
        for (int k = 0; k < fd->ncols; k++) {
            lua_rawgeti(L, -2, k + 1);
            lua_pushlstring(L, buf + c[k].off, c[k].len);
            lua_rawset(L, -3);
        }
        lua_replace(L, -3);
        lua_pop(L, 1);
    } else {
        lua_createtable(L, fd->ncols, 0);
        for (int k = 0; k < fd->ncols; k++) {
            lua_pushlstring(L, buf + c[k].off, c[k].len);
            lua_rawseti(L, -2, k + 1);
        }
        lua_replace(L, -2);
    }
}

/* --- quern.csv(path, opts) ---------------------------------------------- */

static int l_next(lua_State *L);
static int l_count(lua_State *L);
static int l_row(lua_State *L);
static int l_tostring(lua_State *L);
static int l_gc(lua_State *L);

/* Creates the feeders' metatable the first time. */
static void make_metatable(lua_State *L)
{
    static const luaL_Reg methods[] = {
        {"next", l_next}, {"count", l_count}, {"row", l_row}, {NULL, NULL}};

    if (luaL_newmetatable(L, FEEDER_MT)) {
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, l_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, l_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
}

static int opt_enum(lua_State *L, int opts, const char *key, const char *const names[], int def)
{
    int t = lua_getfield(L, opts, key), r = def;

    if (t != LUA_TNIL) {
        const char *s = lua_tostring(L, -1);
        r = -1;
        for (int i = 0; t == LUA_TSTRING && names[i] != NULL; i++) {
            if (strcmp(s, names[i]) == 0)
                r = i;
        }
        if (r < 0) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (int i = 0; names[i] != NULL; i++) {
                luaL_addstring(&b, i ? ", \"" : "\"");
                luaL_addstring(&b, names[i]);
                luaL_addchar(&b, '"');
            }
            luaL_pushresult(&b);
            luaL_error(L, "quern.csv: %s must be one of %s", key, lua_tostring(L, -1));
        }
    }
    lua_pop(L, 1);
    return r;
}

int lcsv_new(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char full[4096], err[ERR_MAX];
    int exhausted_given;
    long first_line = 1;
    char *buf;
    size_t len;
    feeder *fd;
    csv_in *in;

    if (vu_current(L) != NULL)
        return luaL_error(L, "quern.csv is called when the script loads (at the top level), "
                             "not from a VU");
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    make_metatable(L);
    if (lua_istable(L, 2)) {
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "mode") != 0 && strcmp(k, "header") != 0 &&
                strcmp(k, "on_exhausted") != 0)
                return luaL_error(L,
                                  "quern.csv: unknown option \"%s\" (known: mode, header, "
                                  "on_exhausted)",
                                  k);
            lua_pop(L, 1);
        }
    }

    fd = lua_newuserdatauv(L, sizeof(*fd), UV_N); /* 3 */
    memset(fd, 0, sizeof(*fd));
    fd->header = 1;
    snprintf(fd->name, sizeof(fd->name), "%s", path);
    luaL_setmetatable(L, FEEDER_MT);
    if (lua_istable(L, 2)) {
        fd->mode = opt_enum(L, 2, "mode", mode_names, CSV_SEQUENTIAL);
        exhausted_given = lua_getfield(L, 2, "on_exhausted") != LUA_TNIL;
        lua_pop(L, 1);
        fd->on_exhausted = opt_enum(L, 2, "on_exhausted", exhausted_names,
                                    fd->mode == CSV_UNIQUE ? CSV_EX_ERROR : CSV_EX_WRAP);
        if (lua_getfield(L, 2, "header") != LUA_TNIL) {
            if (!lua_isboolean(L, -1))
                return luaL_error(L, "quern.csv: header must be true or false");
            fd->header = lua_toboolean(L, -1);
        }
        lua_pop(L, 1);
        if (exhausted_given && fd->on_exhausted != CSV_EX_WRAP &&
            (fd->mode == CSV_CIRCULAR || fd->mode == CSV_RANDOM))
            return luaL_error(L,
                              "quern.csv: %s mode never runs out of rows (on_exhausted "
                              "applies to unique and sequential)",
                              mode_names[fd->mode]);
    } else {
        fd->mode = CSV_SEQUENTIAL;
        fd->on_exhausted = CSV_EX_WRAP;
    }

    resolve_path(L, path, full, sizeof(full));
    if (read_file(L, full, path, &buf, &len, err, sizeof(err)) != 0) /* 4: buffer */
        return luaL_error(L, "%s", err);
    lua_setiuservalue(L, 3, UV_BUF);
    in = lua_newuserdatauv(L, sizeof(*in), 0); /* 4: parser state (16 KiB of fields) */
    in->p = buf;
    in->end = buf + len;
    in->line = 1;
    in->name = fd->name;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        in->p += 3; /* a UTF-8 byte order mark */
    if (parse_cells(fd, in, buf, &first_line, err, sizeof(err)) != 0)
        return luaL_error(L, "%s", err); /* the cells are freed by __gc */
    lua_pop(L, 1);
    if (fd->header) {
        push_names(L, fd, buf, first_line);
        note_columns(L, fd);
        lua_setiuservalue(L, 3, UV_NAMES);
    }
    lua_newtable(L);
    lua_setiuservalue(L, 3, UV_COUNTS);
    return 1;
}

/* --- feeder methods ------------------------------------------------------ */

/* The VU id for feeder:next: the vu table's id, or the running VU's. */
static lua_Integer next_vu_id(lua_State *L, feeder *fd, vu *cur)
{
    lua_Integer id;
    uint32_t total = engine_config(cur->eng)->vus_total;

    if (lua_isnoneornil(L, 2))
        return cur->gid;
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "id") != LUA_TNUMBER || !lua_isinteger(L, -1))
        return luaL_error(L, "%s: next(vu) takes the vu table (an integer id)", fd->name);
    id = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (id < 1 || id > (lua_Integer)total)
        return luaL_error(L, "%s: VU id %I is outside 1..%I", fd->name, id, (lua_Integer)total);
    return id;
}

/* feeder:next([vu]) -> row (nil when on_exhausted = "stop" and none is left) */
static int l_next(lua_State *L)
{
    feeder *fd = luaL_checkudata(L, 1, FEEDER_MT);
    vu *cur = vu_current(L);
    lua_Integer n = fd->nrows, row = 0;

    if (cur == NULL)
        return luaL_error(L, "%s: next is called from a scenario's init, run or finish", fd->name);
    switch (fd->mode) {
    case CSV_RANDOM:
        row = engine_rand_range(cur->eng, 1, n);
        break;
    case CSV_SEQUENTIAL:
        if (fd->handed >= n && fd->on_exhausted != CSV_EX_WRAP) {
            if (fd->on_exhausted == CSV_EX_STOP) {
                lua_pushnil(L);
                return 1;
            }
            return luaL_error(L, "%s: no row left (sequential mode, %I rows handed out)", fd->name,
                              n);
        }
        row = fd->handed % n + 1;
        fd->handed++;
        break;
    case CSV_UNIQUE:
    case CSV_CIRCULAR: {
        lua_Integer id = next_vu_id(L, fd, cur);
        lua_Integer total =
            engine_config(cur->eng)->vus_total ? engine_config(cur->eng)->vus_total : 1;
        lua_Integer calls;

        lua_getiuservalue(L, 1, UV_COUNTS);
        lua_rawgeti(L, -1, id);
        calls = lua_tointeger(L, -1); /* taken so far; 0 when absent */
        lua_pop(L, 1);
        if (fd->mode == CSV_UNIQUE && fd->on_exhausted != CSV_EX_WRAP &&
            (calls >= n || id + calls * total > n)) {
            if (fd->on_exhausted == CSV_EX_STOP) {
                lua_pushnil(L);
                return 1;
            }
            return luaL_error(L, "%s: no row left for VU %I (unique mode, %I rows for %I VUs)",
                              fd->name, id, n, total);
        }
        /* ((id-1) + calls*total) mod n, without overflow */
        row = ((id - 1) % n + (calls % n) * (total % n)) % n + 1;
        lua_pushinteger(L, calls + 1);
        lua_rawseti(L, -2, id);
        lua_pop(L, 1);
        break;
    }
    }
    push_row(L, 1, fd, row);
    return 1;
}

/* feeder:count() -> number of data rows */
static int l_count(lua_State *L)
{
    feeder *fd = luaL_checkudata(L, 1, FEEDER_MT);
    lua_pushinteger(L, fd->nrows);
    return 1;
}

/* feeder:row(i) -> row i, 1-based */
static int l_row(lua_State *L)
{
    feeder *fd = luaL_checkudata(L, 1, FEEDER_MT);
    lua_Integer i = luaL_checkinteger(L, 2);

    if (i < 1 || i > fd->nrows)
        return luaL_error(L, "%s: row %I is outside 1..%I", fd->name, i, fd->nrows);
    push_row(L, 1, fd, i);
    return 1;
}

static int l_gc(lua_State *L)
{
    feeder *fd = luaL_checkudata(L, 1, FEEDER_MT);
    xfree(fd->cells);
    fd->cells = NULL;
    return 0;
}

static int l_tostring(lua_State *L)
{
    feeder *fd = luaL_checkudata(L, 1, FEEDER_MT);
    lua_pushfstring(L, "csv feeder %s (%s, %I rows)", fd->name, mode_names[fd->mode], fd->nrows);
    return 1;
}
