#include "worker/engine/lscript.h"

#include <errno.h>
#include <lauxlib.h>
#include <libgen.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/memsize.h"
#include "worker/engine/engine_int.h"
#include "worker/lua/lalloc.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lcookies.h"
#include "worker/lua/lgrpc.h"
#include "worker/lua/lmods.h"
#include "worker/lua/lhttp.h"
#include "worker/lua/lquern.h"

const char *lscript_dir(lua_State *L)
{
    return lapi_engine(L)->script_dir;
}

/* The name a file of the script's folder has in messages: the tester's path
 * (tests/x.lua:12), not the agent's unpacked copy (/tmp/quern-run.XXX/x.lua). */
static void shown_name(const struct engine *e, const char *real, char *out, size_t len)
{
    size_t n = strlen(e->script_dir);

    if (e->display_dir[0] != '\0' && strncmp(real, e->script_dir, n) == 0 && real[n] == '/')
        snprintf(out, len, "@%s%s", e->display_dir, real + n);
    else
        snprintf(out, len, "@%s", real);
}

typedef struct file_reader {
    FILE *f; /* owned: the script, closed after lua_load */
    char buf[8192];
} file_reader;

static const char *read_chunk(lua_State *L, void *ud, size_t *size)
{
    file_reader *r = ud;
    *size = fread(r->buf, 1, sizeof(r->buf), r->f);
    return *size > 0 ? r->buf : NULL;
}

/* luaL_loadfile with the shown name as chunk name. */
static int load_file(lua_State *L, const struct engine *e, const char *path)
{
    char name[4200];
    file_reader *r;
    int rc;

    shown_name(e, path, name, sizeof(name));
    r = lua_newuserdatauv(L, sizeof(*r), 0); /* freed by the GC, even on error */
    r->f = fopen(path, "r");
    if (r->f == NULL) {
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot open %s: %s", name + 1, strerror(errno));
        return LUA_ERRFILE;
    }
    rc = lua_load(L, read_chunk, r, name, "t"); /* Lua has no bytecode verifier */
    fclose(r->f);
    lua_remove(L, -2);
    return rc;
}

/* package.searchers[2] with shown names: package.searchpath, then load_file. */
static int search_lua(lua_State *L)
{
    struct engine *e = lapi_engine(L);
    const char *name = luaL_checkstring(L, 1);
    const char *path;

    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchpath");
    lua_pushstring(L, name);
    lua_getfield(L, -3, "path");
    lua_call(L, 2, 2);
    if (lua_isnil(L, -2))
        return 1; /* the message of the places tried */
    path = lua_tostring(L, -2);
    if (load_file(L, e, path) != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path,
                          lua_tostring(L, -1));
    lua_pushstring(L, path);
    return 2;
}

/* os.exit's replacement: leaving the process from a scenario would end a
 * worker mid-run, or make the console's check of the script exit 0 with
 * nothing run. An error at the caller's line instead. */
static int refused_exit(lua_State *L)
{
    return luaL_error(L, "os.exit is not allowed in a scenario");
}

/* Puts refused_exit wherever the standard library filed os.exit: the os
 * table (global os and package.loaded.os are that one table), and any other
 * module table of package.loaded that holds the same function. */
static void refuse_exit(lua_State *L)
{
    lua_getglobal(L, "os");
    lua_getfield(L, -1, "exit"); /* the original, to find its other references */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
        if (lua_istable(L, -1)) {
            lua_pushnil(L);
            while (lua_next(L, -2) != 0) {
                if (lua_rawequal(L, -1, -6)) {
                    lua_pushvalue(L, -2);
                    lua_pushcfunction(L, refused_exit);
                    lua_rawset(L, -5);
                }
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    lua_pushcfunction(L, refused_exit);
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
}

static int errtext_convert(lua_State *L)
{
    luaL_tolstring(L, 1, NULL);
    return 1;
}

const char *lscript_errtext(lua_State *L, int idx)
{
    int t;

    idx = lua_absindex(L, idx);
    t = lua_type(L, idx);
    if (t == LUA_TSTRING) {
        lua_pushvalue(L, idx);
        return lua_tostring(L, -1);
    }
    /* luaL_tolstring calls __tostring, which may raise, and that outside
     * any protected call would abort the worker. */
    lua_pushcfunction(L, errtext_convert);
    lua_pushvalue(L, idx);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushfstring(L, "(error object is a %s value)", lua_typename(L, t));
    }
    return lua_tostring(L, -1);
}

/* Lua's memory error has no position, and the stack that had one is gone:
 * the script's name and the limit it met. */
static void load_memory_error(const struct engine *e, char *err, size_t errlen)
{
    char lim[MEMSIZE_FORMAT_MAX];
    const char *name = e->cfg.script_display != NULL ? e->cfg.script_display : e->cfg.script;

    err_set(err, errlen,
            "%s: not enough memory while the script loaded (its Lua state may hold %s, "
            "--worker-memory)",
            name, memsize_format(e->mem.limit, lim, sizeof(lim)));
}

static int setup(lua_State *L)
{
    struct engine *e = lua_touserdata(L, 1);

    luaL_openlibs(L);
    refuse_exit(L);
    lapi_set_engine(L, e);

    /* require finds the script's own modules first. */
    lua_getglobal(L, "package");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", e->script_dir, e->script_dir);
    lua_getfield(L, -2, "path");
    lua_concat(L, 2);
    lua_setfield(L, -2, "path");
    lua_getfield(L, -1, "searchers");
    lua_pushcfunction(L, search_lua);
    lua_rawseti(L, -2, 2);
    lua_pop(L, 1);
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, lquern_open);
    lua_setfield(L, -2, "quern");
    lua_pushcfunction(L, lhttp_open);
    lua_setfield(L, -2, "quern.http");
    lua_pushcfunction(L, lgrpc_open);
    lua_setfield(L, -2, "quern.grpc");
    lmods_preload(L);
    lua_pop(L, 2);

    lquern_metatables(L);
    lcookies_push_metatable(L);
    lua_pop(L, 1);
    return 0;
}

/* An error outside any protected call: nothing can be unwound, as with
 * luaL_newstate's own handler. */
static int panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);
    log_msg(LOG_ERROR, "Lua: unprotected error: %s", msg != NULL ? msg : "(not a string)");
    return 0; /* Lua aborts */
}

int lscript_load(struct engine *e, char *err, size_t errlen)
{
    lua_State *L;
    char *dir = xstrdup(e->cfg.script);
    int rc;

    snprintf(e->script_dir, sizeof(e->script_dir), "%s", dirname(dir));
    xfree(dir);
    if (e->cfg.script_display != NULL) {
        dir = xstrdup(e->cfg.script_display);
        snprintf(e->display_dir, sizeof(e->display_dir), "%s", dirname(dir));
        xfree(dir);
        if (strcmp(e->display_dir, e->script_dir) == 0)
            e->display_dir[0] = '\0';
    }
    e->mem.limit = (size_t)e->cfg.mem_limit;
    L = lua_newstate(lalloc_fn, &e->mem);
    if (L == NULL) {
        err_set(err, errlen, "cannot create a Lua state");
        return -1;
    }
    e->L = L;
    lua_atpanic(L, panic);
    /* Each request leaves a response object and its strings behind: most die
     * young, which the generational collector frees soonest, keeping RSS per
     * VU down with thousands of VUs. */
    lua_gc(L, LUA_GCGEN, 0, 0);
    *(vu **)lua_getextraspace(L) = NULL;
    lua_pushcfunction(L, setup);
    lua_pushlightuserdata(L, e);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        err_set(err, errlen, "%s", lscript_errtext(L, -1));
        lua_pop(L, 2);
        return -1;
    }
    lwatch_load_begin(&e->watch, L);
    lalloc_enforce(&e->mem, 1);
    rc = load_file(L, e, e->cfg.script);
    if (rc == LUA_OK)
        rc = lua_pcall(L, 0, 0, 0);
    lalloc_enforce(&e->mem, 0);
    if (lwatch_load_end(&e->watch, L)) {
        err_set(err, errlen, "%s", e->watch.msg);
        lua_pop(L, 1);
        return -1;
    }
    if (rc == LUA_ERRMEM) {
        load_memory_error(e, err, errlen);
        lua_pop(L, 1);
        return -1;
    }
    if (rc != LUA_OK) {
        err_set(err, errlen, "%s", lscript_errtext(L, -1));
        lua_pop(L, 2);
        return -1;
    }
    if (e->scens.nscens == 0) {
        err_set(err, errlen, "%s: no scenario declared (call quern.scenario)", e->cfg.script);
        return -1;
    }
    for (size_t i = 0; i < e->scens.nscens; i++) {
        scen *sc = e->scens.scens[i];
        lua_rawgeti(L, LUA_REGISTRYINDEX, sc->table_ref);
        for (int f = 0; f < 5; f++) {
            static const char *names[] = {"run", "init", "finish", "setup", "teardown"};
            int t = lua_getfield(L, -1, names[f]);
            lua_pop(L, 1);
            if (f == 0 && t != LUA_TFUNCTION) {
                err_set(err, errlen,
                        "%s: scenario %s has no run function (define function "
                        "sc.run(vu))",
                        sc->where, sc->name);
                lua_pop(L, 1);
                return -1;
            }
            if (t != LUA_TNIL && t != LUA_TFUNCTION) {
                err_set(err, errlen, "%s: scenario %s: %s must be a function", sc->where, sc->name,
                        names[f]);
                lua_pop(L, 1);
                return -1;
            }
        }
        lua_pop(L, 1);
    }
    e->loaded = 1;
    return 0;
}
