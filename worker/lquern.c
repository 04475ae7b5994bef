#include "worker/lquern.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <lualib.h>
#include <libgen.h>
#include <string.h>

#include "common/clock.h"
#include "common/dur.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/salloc.h"
#include "worker/engine_int.h"

#define STEP_MT "quern.Step"
static const char step_key; /* its address files the Step metatable */
#define SCEN_MT "quern.Scenario"

/* Registry key of the engine pointer, and table key of a scenario's index. */
static const char engine_key = 'e';
static const char scen_key = 's';

typedef struct lstep {
    step *st; /**< borrowed from the engine's scen_set */
} lstep;

static struct engine *get_engine(lua_State *L)
{
    struct engine *e;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &engine_key);
    e = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return e;
}

/* "file:line" of the script line calling the current C function. */
static void where(lua_State *L, char *buf, size_t len)
{
    size_t n;
    const char *w;

    luaL_where(L, 1);
    w = lua_tolstring(L, -1, &n);
    /* luaL_where gives "file:line: " */
    while (n > 0 && (w[n - 1] == ' ' || w[n - 1] == ':'))
        n--;
    snprintf(buf, len, "%.*s", (int)n, n ? w : "?");
    lua_pop(L, 1);
}

int64_t lquern_check_duration(lua_State *L, int idx, const char *what)
{
    char err[160];
    int64_t us;

    if (lua_type(L, idx) == LUA_TNUMBER) {
        lua_Number s = lua_tonumber(L, idx);
        if (s < 0 || s > 1e9)
            return luaL_error(L, "%s: bad duration %f", what, (double)s);
        return (int64_t)(s * 1e6);
    }
    if (lua_type(L, idx) != LUA_TSTRING)
        return luaL_error(L, "%s: a duration is a string like \"2s\" or a number of seconds", what);
    if (dur_parse(lua_tostring(L, idx), &us, err, sizeof(err)) != 0)
        return luaL_error(L, "%s: %s", what, err);
    return us;
}

/* A duration or a {min=, max=} range. */
static void check_range(lua_State *L, int idx, const char *what, int64_t *lo, int64_t *hi)
{
    if (lua_type(L, idx) == LUA_TTABLE) {
        lua_getfield(L, idx, "min");
        lua_getfield(L, idx, "max");
        if (lua_isnil(L, -2) || lua_isnil(L, -1))
            luaL_error(L, "%s: a range needs both min and max", what);
        *lo = lquern_check_duration(L, -2, what);
        *hi = lquern_check_duration(L, -1, what);
        lua_pop(L, 2);
        if (*lo > *hi)
            luaL_error(L, "%s: min is larger than max", what);
        return;
    }
    *lo = *hi = lquern_check_duration(L, idx, what);
}

/* --- quern.threshold(expr) ---------------------------------------------- */

/* Records expr, declared at at, in the engine's list; raises the error. */
static void add_threshold(lua_State *L, struct engine *e, const char *expr, const char *at)
{
    char err[1024];

    if (scen_add_threshold(&e->scens, expr, at, err, sizeof(err)) != 0) {
        lua_pushstring(L, err);
        lua_error(L);
    }
}

/* Thresholds are checked and evaluated by the console (console/thresh.h):
 * the engine only keeps the expressions with where they were declared. */
static int l_threshold(lua_State *L)
{
    struct engine *e = get_engine(L);
    char at[512];

    if (e->loaded)
        return luaL_error(L, "thresholds are declared when the script loads, not from a VU");
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "quern.threshold wants an expression like \"p95<500ms\"");
    where(L, at, sizeof(at));
    add_threshold(L, e, lua_tostring(L, 1), at);
    return 0;
}

/* The thresholds option of scenario sc (a list of expressions at idx): an
 * expression without a scope is scoped to the scenario's steps. */
static void scen_thresholds(lua_State *L, struct engine *e, const scen *sc, int idx)
{
    char at[512], buf[SCEN_THRESHOLD_MAX + 300];
    lua_Integer n;

    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "scenario %s: thresholds is a list of expressions like {\"p95<500ms\"}",
                   sc->name);
    where(L, at, sizeof(at));
    n = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= n; i++) {
        const char *x;
        if (lua_geti(L, idx, i) != LUA_TSTRING)
            luaL_error(L, "scenario %s: thresholds[%d] is not a string", sc->name, (int)i);
        x = lua_tostring(L, -1);
        if (strchr(x, ':') == NULL && strlen(x) <= SCEN_THRESHOLD_MAX) {
            snprintf(buf, sizeof(buf), "SC-%s-STEP-*: %s", sc->name, x);
            x = buf;
        }
        add_threshold(L, e, x, at);
        lua_pop(L, 1);
    }
}

/* --- quern.scenario(name, opts) ---------------------------------------- */

static int l_scenario(lua_State *L)
{
    struct engine *e = get_engine(L);
    const char *name = luaL_checkstring(L, 1);
    char at[512], err[1024];
    scen *sc;

    if (e->loaded)
        return luaL_error(L, "scenarios are declared when the script loads, not from a VU");
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    where(L, at, sizeof(at));
    sc = scen_add(&e->scens, name, at, err, sizeof(err));
    if (sc == NULL) {
        lua_pushstring(L, err);
        return lua_error(L);
    }
    if (lua_istable(L, 2)) {
        lua_pushnil(L);
        while (lua_next(L, 2) != 0) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
            if (strcmp(k, "weight") == 0) {
                sc->weight = luaL_checknumber(L, -1);
                if (sc->weight < 0)
                    luaL_error(L, "scenario %s: weight must be 0 or more", name);
            } else if (strcmp(k, "pacing") == 0) {
                check_range(L, lua_gettop(L), "pacing", &sc->pacing_min_us, &sc->pacing_max_us);
            } else if (strcmp(k, "think") == 0) {
                check_range(L, lua_gettop(L), "think", &sc->think_min_us, &sc->think_max_us);
            } else if (strcmp(k, "cookies") == 0) {
                const char *c = luaL_checkstring(L, -1);
                if (strcmp(c, "keep") == 0)
                    sc->cookies_reset = 0;
                else if (strcmp(c, "reset") == 0)
                    sc->cookies_reset = 1;
                else
                    luaL_error(L, "scenario %s: cookies must be \"keep\" or \"reset\"", name);
            } else if (strcmp(k, "thresholds") == 0) {
                scen_thresholds(L, e, sc, lua_gettop(L));
            } else {
                luaL_error(L,
                           "scenario %s: unknown option \"%s\" (known: weight, pacing, think, "
                           "cookies, thresholds)",
                           name, k);
            }
            lua_pop(L, 1);
        }
    }
    lua_newtable(L);
    lua_pushinteger(L, sc->index);
    lua_rawsetp(L, -2, &scen_key);
    lua_pushstring(L, sc->name);
    lua_setfield(L, -2, "name");
    luaL_setmetatable(L, SCEN_MT);
    lua_pushvalue(L, -1);
    sc->table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 1;
}

/* sc:step(n, label) */
static int l_scen_step(lua_State *L)
{
    struct engine *e = get_engine(L);
    lua_Integer num;
    const char *label;
    char at[512], err[1024];
    scen *sc;
    step *st;
    lstep *ls;

    luaL_checktype(L, 1, LUA_TTABLE);
    num = luaL_checkinteger(L, 2);
    label = luaL_optstring(L, 3, "");
    if (e->loaded)
        return luaL_error(L, "steps are declared when the script loads, not from a VU");
    if (lua_rawgetp(L, 1, &scen_key) != LUA_TNUMBER)
        return luaL_error(L, "step: call it as sc:step(n, label) on a scenario");
    sc = e->scens.scens[lua_tointeger(L, -1)];
    if (num < 0 || num > 1000000)
        return luaL_error(L, "step number must be between 0 and 1000000");
    where(L, at, sizeof(at));
    st = scen_add_step(&e->scens, sc, (int)num, label, at, err, sizeof(err));
    if (st == NULL) {
        lua_pushstring(L, err);
        return lua_error(L);
    }
    ls = lua_newuserdatauv(L, sizeof(*ls), 0);
    ls->st = st;
    lquern_setmt(L, &step_key);
    return 1;
}

void lquern_newmt(lua_State *L, const void *key, const char *tname)
{
    luaL_newmetatable(L, tname);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void *lquern_checkud(lua_State *L, int idx, const void *key, const char *tname)
{
    void *p = lua_touserdata(L, idx);

    if (p != NULL && lua_getmetatable(L, idx)) {
        int same;
        lua_rawgetp(L, LUA_REGISTRYINDEX, key);
        same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
        if (same)
            return p;
    }
    luaL_typeerror(L, idx, tname);
    return NULL;
}

void *lquern_index(lua_State *L, const void *key, const char *tname, const char **k)
{
    void *p;

    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return NULL;
    lua_pop(L, 1);
    p = lquern_checkud(L, 1, key, tname);
    *k = luaL_checkstring(L, 2);
    return p;
}

void lquern_setmt(lua_State *L, const void *key)
{
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    lua_setmetatable(L, -2);
}

/* __index of steps, a closure over the methods table: methods, the common
 * case, are found first. */
static int l_step_index(lua_State *L)
{
    const char *k;
    lstep *ls = lquern_index(L, &step_key, STEP_MT, &k);

    if (ls == NULL)
        return 1;
    if (strcmp(k, "id") == 0)
        lua_pushstring(L, ls->st->id);
    else if (strcmp(k, "label") == 0)
        lua_pushstring(L, ls->st->label);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, ls->st->name);
    else if (strcmp(k, "number") == 0)
        lua_pushinteger(L, ls->st->num);
    else
        lua_pushnil(L);
    return 1;
}

static int l_step_tostring(lua_State *L)
{
    lstep *ls = lquern_checkud(L, 1, &step_key, STEP_MT);
    lua_pushstring(L, ls->st->name);
    return 1;
}

/* step index of the Step userdata at idx (for lhttp.c). */
static int step_index_at(lua_State *L, int idx)
{
    lstep *ls = lquern_checkud(L, idx, &step_key, STEP_MT);
    return ls->st->index;
}

/* The index of the Step at idx, which VU v is about to record into; raises,
 * naming the script line level levels up, when it is another scenario's. */
static int vu_step_at(lua_State *L, const vu *v, int idx, int level)
{
    lstep *ls = lquern_checkud(L, idx, &step_key, STEP_MT);

    if (ls->st->scen->index != (int)v->scen) {
        luaL_where(L, level);
        lua_pushfstring(L, "step %s belongs to scenario %s; this VU runs scenario %s", ls->st->id,
                        ls->st->scen->name, v->eng->scens.scens[v->scen]->name);
        lua_concat(L, 2);
        return lua_error(L);
    }
    return ls->st->index;
}

/* --- step:time(fn) primitives, used by the prelude ------------------------ */

static int time_begin_go(lua_State *L, int status, lua_KContext ctx)
{
    vu *v = vu_current(L);
    vu_sample_begin(v, (int)ctx);
    v->pend.in_block = 1;
    return 0;
}

static int l_time_begin(lua_State *L)
{
    vu *v = vu_current(L);
    int idx;
    scen *sc;

    if (v == NULL)
        return luaL_error(L, "step:time is used from a scenario's init, run or finish");
    idx = vu_step_at(L, v, 1, 2); /* level 1 is step:time itself (Lua), 2 the script */
    if (v->pend.in_block)
        return luaL_error(L, "step:time blocks do not nest");
    if (v->halting)
        return lquern_halt(L, v);
    vu_finalize(v);
    sc = v->eng->scens.scens[v->scen];
    if (v->steps_in_run > 0 && sc->think_max_us > 0) {
        vu_wait_timer(v, engine_rand_range(v->eng, sc->think_min_us, sc->think_max_us), VU_THINK);
        return lua_yieldk(L, 0, idx, time_begin_go);
    }
    return time_begin_go(L, LUA_OK, idx);
}

static int l_time_end(lua_State *L)
{
    vu *v = vu_current(L);
    int ok = lua_toboolean(L, 1);

    if (v == NULL || !v->pend.in_block)
        return 0;
    v->pend.in_block = 0;
    v->pend.elapsed_us = clock_mono_us() - v->pend.start_us;
    if (!ok && v->pend.err == SAMPLE_OK) {
        v->pend.err = SAMPLE_FUNC;
        snprintf(v->pend.msg, sizeof(v->pend.msg), "%s", luaL_tolstring(L, 2, NULL));
        lua_pop(L, 1);
    }
    return 0;
}

/* --- quern.property, quern.sleep, quern.log ------------------------------ */

static int l_property(lua_State *L)
{
    struct engine *e = get_engine(L);
    const char *key = luaL_checkstring(L, 1);
    const char *val = e->cfg.props ? props_get(e->cfg.props, key) : NULL;

    if (val == NULL) {
        lua_settop(L, 2);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TNUMBER) {
        if (lua_stringtonumber(L, val) == 0)
            return luaL_error(L, "property %s: \"%s\" is not a number", key, val);
        return 1;
    }
    if (lua_type(L, 2) == LUA_TBOOLEAN) {
        lua_pushboolean(L, strcmp(val, "true") == 0 || strcmp(val, "1") == 0 ||
                               strcmp(val, "yes") == 0);
        return 1;
    }
    lua_pushstring(L, val);
    return 1;
}

static int l_sleep(lua_State *L)
{
    vu *v = vu_current(L);
    int64_t us = lquern_check_duration(L, 1, "sleep");

    if (v == NULL)
        return luaL_error(L, "quern.sleep is used from a scenario's init, run or finish");
    if (v->halting)
        return lquern_halt(L, v);
    vu_finalize(v);
    vu_wait_timer(v, us, VU_SLEEP);
    return lua_yield(L, 0);
}

static int l_log(lua_State *L)
{
    vu *v = vu_current(L);
    luaL_Buffer b;
    int n = lua_gettop(L);

    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
        if (i < n)
            luaL_addchar(&b, ' ');
    }
    luaL_pushresult(&b);
    if (v != NULL)
        log_msg(LOG_INFO, "VU %u: %s", v->gid, lua_tostring(L, -1));
    else
        log_msg(LOG_INFO, "%s", lua_tostring(L, -1));
    return 0;
}

static int l_quern_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"scenario", l_scenario}, {"property", l_property},   {"sleep", l_sleep}, {"log", l_log},
        {"csv", lcsv_new},        {"threshold", l_threshold}, {NULL, NULL}};
    struct engine *e = get_engine(L);

    luaL_newlib(L, fns);
    lua_pushstring(L, QUERN_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, e->cfg.vus_total);
    lua_setfield(L, -2, "vus");
    return 1;
}

/* step:time is Lua so that the timed function may yield (make requests). */
static const char prelude[] = "local methods, begin, finish = ...\n"
                              "function methods.time(self, fn, ...)\n"
                              "  begin(self)\n"
                              "  local res = table.pack(pcall(fn, ...))\n"
                              "  finish(res[1], res[2])\n"
                              "  if not res[1] then error(res[2], 0) end\n"
                              "  return table.unpack(res, 2, res.n)\n"
                              "end\n";

static void make_metatables(lua_State *L)
{
    /* Scenario tables: sc:step(). */
    luaL_newmetatable(L, SCEN_MT);
    lua_newtable(L);
    lua_pushcfunction(L, l_scen_step);
    lua_setfield(L, -2, "step");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    /* Steps: fields, request methods (lhttp.c) and time (prelude). */
    lquern_newmt(L, &step_key, STEP_MT);
    lua_pushcfunction(L, l_step_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_newtable(L);
    lhttp_register(L, lua_gettop(L));
    if (luaL_loadbuffer(L, prelude, sizeof(prelude) - 1, "=quern") != LUA_OK)
        lua_error(L);
    lua_pushvalue(L, -2);
    lua_pushcfunction(L, l_time_begin);
    lua_pushcfunction(L, l_time_end);
    lua_call(L, 3, 0);
    lua_pushcclosure(L, l_step_index, 1); /* over the methods table */
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* lhttp.c needs to read steps. */
int lquern_step_index(lua_State *L, int idx)
{
    return step_index_at(L, idx);
}

int lquern_vu_step(lua_State *L, const vu *v, int idx)
{
    return vu_step_at(L, v, idx, 1);
}

const char *lquern_script_dir(lua_State *L)
{
    return get_engine(L)->script_dir;
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
    FILE *f;
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
    rc = lua_load(L, read_chunk, r, name, NULL);
    fclose(r->f);
    lua_remove(L, -2);
    return rc;
}

/* package.searchers[2] with shown names: package.searchpath, then load_file. */
static int search_lua(lua_State *L)
{
    struct engine *e = get_engine(L);
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

static int setup(lua_State *L)
{
    struct engine *e = lua_touserdata(L, 1);

    luaL_openlibs(L);
    lua_pushlightuserdata(L, e);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &engine_key);

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
    lua_pushcfunction(L, l_quern_open);
    lua_setfield(L, -2, "quern");
    lua_pushcfunction(L, lhttp_open);
    lua_setfield(L, -2, "quern.http");
    lua_pop(L, 2);

    make_metatables(L);
    lvu_push_metatable(L);
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

int lquern_load(struct engine *e, char *err, size_t errlen)
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
    L = lua_newstate(salloc_lua, NULL);
    if (L == NULL) {
        snprintf(err, errlen, "cannot create a Lua state");
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
        snprintf(err, errlen, "%s", lua_tostring(L, -1));
        return -1;
    }
    lwatch_load_begin(&e->watch, L);
    rc = load_file(L, e, e->cfg.script);
    if (rc == LUA_OK)
        rc = lua_pcall(L, 0, 0, 0);
    if (lwatch_load_end(&e->watch, L)) {
        snprintf(err, errlen, "%s", e->watch.msg);
        lua_pop(L, 1);
        return -1;
    }
    if (rc != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        snprintf(err, errlen, "%s", m ? m : "error object is not a string");
        lua_pop(L, 1);
        return -1;
    }
    if (e->scens.nscens == 0) {
        snprintf(err, errlen, "%s: no scenario declared (call quern.scenario)", e->cfg.script);
        return -1;
    }
    for (size_t i = 0; i < e->scens.nscens; i++) {
        scen *sc = e->scens.scens[i];
        lua_rawgeti(L, LUA_REGISTRYINDEX, sc->table_ref);
        for (int f = 0; f < 3; f++) {
            static const char *names[] = {"run", "init", "finish"};
            int t = lua_getfield(L, -1, names[f]);
            lua_pop(L, 1);
            if (f == 0 && t != LUA_TFUNCTION) {
                snprintf(err, errlen,
                         "%s: scenario %s has no run function (define function "
                         "sc.run(vu))",
                         sc->where, sc->name);
                lua_pop(L, 1);
                return -1;
            }
            if (t != LUA_TNIL && t != LUA_TFUNCTION) {
                snprintf(err, errlen, "%s: scenario %s: %s must be a function", sc->where, sc->name,
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

int lquern_new_vu_table(lua_State *L, vu *v)
{
    scen *sc = v->eng->scens.scens[v->scen];

    lua_createtable(L, 0, 4);
    lua_pushinteger(L, v->gid);
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, 0);
    lua_setfield(L, -2, "run");
    lua_newtable(L);
    lua_setfield(L, -2, "data");
    lua_pushstring(L, sc->name);
    lua_setfield(L, -2, "scenario");
    lvu_push_metatable(L);
    lua_setmetatable(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

int lquern_push_phase(vu *v, const char *fn)
{
    lua_State *co = v->co;
    scen *sc = v->eng->scens.scens[v->scen];

    lua_settop(co, 0);
    lua_rawgeti(co, LUA_REGISTRYINDEX, sc->table_ref);
    if (lua_getfield(co, -1, fn) != LUA_TFUNCTION) {
        lua_settop(co, 0);
        return 0;
    }
    lua_remove(co, 1);
    lua_rawgeti(co, LUA_REGISTRYINDEX, v->tbl_ref);
    lua_pushinteger(co, v->run);
    lua_setfield(co, -2, "run");
    return 1;
}

int lquern_halt(lua_State *L, vu *v)
{
    v->wait = VU_HALT;
    return lua_yield(L, 0);
}

void lquern_resume(vu *v, int nargs)
{
    lua_State *co = v->co;
    int nres = 0, st, held;
    const char *msg;

    v->check_failed = 0;
    lwatch_begin(&v->eng->watch, co);
    st = lua_resume(co, v->eng->L, nargs, &nres);
    held = lwatch_end(&v->eng->watch);
    if (st == LUA_YIELD && !held) {
        v->yielded = 1;
        lua_pop(co, nres);
        if (v->wait == VU_HALT)
            vu_halt(v);
        return;
    }
    if (st == LUA_OK && !held) {
        lua_settop(co, 0);
        vu_phase_end(v, 1);
        return;
    }
    lua_checkstack(co, 8);
    /* A VU that held the loop: the watch's message, whatever the script
     * made of the error on its way out. */
    msg = held ? v->eng->watch.msg : luaL_tolstring(co, -1, NULL);
    if (held || !v->check_failed) {
        /* A script error: logged with its traceback, counted against the
         * current step; the VU goes on with its next run. */
        engine_log_script_error(v->eng, v, msg);
        if (v->pend.step >= 0 && v->pend.err == SAMPLE_OK) {
            v->pend.err = SAMPLE_FUNC;
            v->pend.in_block = 0;
            snprintf(v->pend.msg, sizeof(v->pend.msg), "%s", msg);
        } else if (v->pend.step < 0) {
            scen *sc = v->eng->scens.scens[v->scen];
            int stp = v->cur_step >= 0 ? v->cur_step : sc->first_step ? sc->first_step->index : -1;
            vu_count_error(v, stp, 0, msg);
        }
    }
    v->pend.in_block = 0;
    if (held)
        vu_new_thread(v); /* its to-be-closed variables are not closed */
    else
        lua_closethread_compat(co);
    vu_phase_end(v, 0);
}
