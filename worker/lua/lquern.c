#include "worker/lua/lquern.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/rate.h"
#include "common/stages.h"
#include "common/version.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"
#include "worker/lua/lcheck.h"
#include "worker/lua/lcodec.h"
#include "worker/lua/lcrypto.h"
#include "worker/lua/lcsv.h"
#include "worker/lua/lhttp.h"
#include "worker/lua/lmetric.h"
#include "worker/lua/ljson.h"
#include "worker/engine/lscript.h"
#include "worker/lua/lsock.h"
#include "worker/lua/ludp.h"
#include "worker/lua/lsse.h"
#include "worker/lua/lgrpc.h"
#include "worker/lua/lwebsocket.h"
#include "worker/lua/lreqopt.h"
#include "worker/wire/reqopt.h"

#define STEP_MT "quern.Step"
static const char step_key; /* its address files the Step metatable */
#define SCEN_MT "quern.Scenario"

/* Table key of a scenario's index. */
static const char scen_key = 's';

typedef struct lstep {
    step *st; /**< borrowed from the engine's scen_set */
} lstep;

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

static void check_range(lua_State *L, int idx, const char *what, int64_t *lo, int64_t *hi)
{
    if (lua_type(L, idx) == LUA_TTABLE) {
        lua_getfield(L, idx, "min");
        lua_getfield(L, idx, "max");
        if (lua_isnil(L, -2) || lua_isnil(L, -1))
            luaL_error(L, "%s: a range needs both min and max", what);
        *lo = lapi_check_duration(L, -2, what);
        *hi = lapi_check_duration(L, -1, what);
        lua_pop(L, 2);
        if (*lo > *hi)
            luaL_error(L, "%s: min is larger than max", what);
        return;
    }
    *lo = *hi = lapi_check_duration(L, idx, what);
}

/* --- quern.threshold(expr) ---------------------------------------------- */

/* Records expr, declared at at, in the engine's list; raises the error. */
static void add_threshold(lua_State *L, struct engine *e, const char *expr, const char *at)
{
    /* not ERR_MAX: the script's where (at[512]) and the expression at fault
     * (tests/lint/errrule.allow) */
    char err[1024];

    if (scen_add_threshold(engine_declared(e), expr, at, err, sizeof(err)) != 0) {
        lua_pushstring(L, err);
        lua_error(L);
    }
}

/* Thresholds are checked and evaluated by the console (console/thresh.h):
 * the engine only keeps the expressions with where they were declared. */
static int l_threshold(lua_State *L)
{
    struct engine *e = lapi_engine(L);
    char at[512];

    if (engine_loaded(e))
        return luaL_error(L, "thresholds are declared when the script loads, not from a VU");
    if (lua_type(L, 1) != LUA_TSTRING)
        return luaL_error(L, "quern.threshold wants an expression like \"p95<500ms\"");
    where(L, at, sizeof(at));
    add_threshold(L, e, lua_tostring(L, 1), at);
    return 0;
}

/* The thresholds option of scenario sc (a list of expressions at idx): an
 * expression without a scope is scoped to the scenario's steps. */
static void declare_thresholds(lua_State *L, struct engine *e, const scen *sc, int idx)
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

/* The stages option of scenario sc (a list of "D:N" at idx): checked as a
 * whole, so that a bad one fails the load before any request. */
static void declare_stages(lua_State *L, scen *sc, int idx)
{
    char err[ERR_MAX];
    lua_Integer n;

    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "scenario %s: stages is a list like {\"30s:20\", \"1m:20\", \"30s:0\"}",
                   sc->name);
    n = luaL_len(L, idx);
    if (n < 1 || n > STAGES_MAX)
        luaL_error(L, "scenario %s: stages: give 1 to %u stages", sc->name, STAGES_MAX);
    xfree(sc->stages);
    sc->stages = xcalloc((size_t)n, sizeof(*sc->stages));
    sc->nstages = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, idx, i) != LUA_TSTRING)
            luaL_error(L, "scenario %s: stages[%d] is not a string like \"30s:20\"", sc->name,
                       (int)i);
        if (stages_parse_one(lua_tostring(L, -1), &sc->stages[i - 1], err, sizeof(err)) != 0)
            luaL_error(L, "scenario %s: stages[%d]: %s", sc->name, (int)i, err);
        lua_pop(L, 1);
    }
    if (stages_check(sc->stages, (size_t)n, err, sizeof(err)) != 0)
        luaL_error(L, "scenario %s: stages: %s", sc->name, err);
    if (stages_ids(sc->stages, (size_t)n) > STAGES_VUS_MAX)
        luaL_error(L,
                   "scenario %s: stages: %llu VUs in all (each climb adds new ones), more than %u",
                   sc->name, (unsigned long long)stages_ids(sc->stages, (size_t)n), STAGES_VUS_MAX);
    sc->nstages = (size_t)n;
}

/* The rate option ("200/s") or rate_stages option (a list of "D:R") of
 * scenario sc at idx: the open model's arrivals (common/rate.h). */
static void declare_rate(lua_State *L, scen *sc, int idx, int staged)
{
    char err[ERR_MAX];
    lua_Integer n = 1;

    if (sc->rate_stages != NULL)
        luaL_error(L, "scenario %s: rate and rate_stages: give one of them", sc->name);
    if (!staged) {
        sc->rate_stages = xcalloc(2, sizeof(*sc->rate_stages));
        if (lua_type(L, idx) != LUA_TSTRING ||
            rate_parse(lua_tostring(L, idx), 0, &sc->rate_stages[1].per_s, err, sizeof(err)) != 0)
            luaL_error(L, "scenario %s: rate: %s", sc->name,
                       lua_type(L, idx) != LUA_TSTRING ? "a string like \"200/s\"" : err);
        sc->rate_stages[0].per_s = sc->rate_stages[1].per_s;
        sc->nrate_stages = 2;
        sc->rate_const = 1;
        return;
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "scenario %s: rate_stages is a list like {\"1m:100/s\", \"5m:100/s\"}",
                   sc->name);
    n = luaL_len(L, idx);
    if (n < 1 || n > RATE_STAGES_MAX)
        luaL_error(L, "scenario %s: rate_stages: give 1 to %u stages", sc->name, RATE_STAGES_MAX);
    sc->rate_stages = xcalloc((size_t)n, sizeof(*sc->rate_stages));
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, idx, i) != LUA_TSTRING)
            luaL_error(L, "scenario %s: rate_stages[%d] is not a string like \"1m:100/s\"",
                       sc->name, (int)i);
        if (rate_stage_parse_one(lua_tostring(L, -1), &sc->rate_stages[i - 1], err, sizeof(err)) !=
            0)
            luaL_error(L, "scenario %s: rate_stages[%d]: %s", sc->name, (int)i, err);
        lua_pop(L, 1);
    }
    if (rate_stages_check(sc->rate_stages, (size_t)n, err, sizeof(err)) != 0)
        luaL_error(L, "scenario %s: rate_stages: %s", sc->name, err);
    sc->nrate_stages = (size_t)n;
}

/* --- quern.scenario(name, opts) ---------------------------------------- */

static int l_scenario(lua_State *L)
{
    struct engine *e = lapi_engine(L);
    size_t name_len;
    const char *name = luaL_checklstring(L, 1, &name_len);
    /* not ERR_MAX: the script's where (at[512]) and the name at fault (tests/lint/errrule.allow) */
    char at[512], err[1024];
    scen *sc;

    if (engine_loaded(e))
        return luaL_error(L, "scenarios are declared when the script loads, not from a VU");
    if (strlen(name) != name_len)
        return luaL_error(L, "scenario name has a NUL byte");
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    where(L, at, sizeof(at));
    sc = scen_add(engine_declared(e), name, at, err, sizeof(err));
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
            } else if (strcmp(k, "traceparent") == 0) {
                luaL_checktype(L, -1, LUA_TBOOLEAN);
                sc->traceparent = lua_toboolean(L, -1);
            } else if (strcmp(k, "thresholds") == 0) {
                declare_thresholds(L, e, sc, lua_gettop(L));
            } else if (strcmp(k, "stages") == 0) {
                declare_stages(L, sc, lua_gettop(L));
            } else if (strcmp(k, "rate") == 0 || strcmp(k, "rate_stages") == 0) {
                declare_rate(L, sc, lua_gettop(L), k[4] == '_');
            } else if (strcmp(k, "request") == 0) {
                int t = lua_gettop(L);
                luaL_checktype(L, t, LUA_TTABLE);
                sc->req = lreqopt_push(L); /* read once, here: files are checked now */
                lreqopt_read(L, t, lscript_dir(L), 1, sc->req, engine_run_reqopt(e), 1);
                sc->req_ref = luaL_ref(L, LUA_REGISTRYINDEX);
            } else {
                luaL_error(L,
                           "scenario %s: unknown option \"%s\" (known: weight, pacing, think, "
                           "cookies, thresholds, stages, rate, rate_stages, request, traceparent)",
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
    struct engine *e = lapi_engine(L);
    lua_Integer num;
    const char *label;
    size_t label_len;
    /* not ERR_MAX: the script's where (at[512]) and the label at fault (tests/lint/errrule.allow)
     */
    char at[512], err[1024];
    scen *sc;
    step *st;
    lstep *ls;

    luaL_checktype(L, 1, LUA_TTABLE);
    num = luaL_checkinteger(L, 2);
    label = luaL_optlstring(L, 3, "", &label_len);
    if (engine_loaded(e))
        return luaL_error(L, "steps are declared when the script loads, not from a VU");
    if (strlen(label) != label_len)
        return luaL_error(L, "step %d: label has a NUL byte", (int)num);
    if (lua_rawgetp(L, 1, &scen_key) != LUA_TNUMBER)
        return luaL_error(L, "step: call it as sc:step(n, label) on a scenario");
    sc = engine_scens(e)->scens[lua_tointeger(L, -1)];
    if (num < 0 || num > 1000000)
        return luaL_error(L, "step number must be between 0 and 1000000");
    where(L, at, sizeof(at));
    st = scen_add_step(engine_declared(e), sc, (int)num, label, at, err, sizeof(err));
    if (st == NULL) {
        lua_pushstring(L, err);
        return lua_error(L);
    }
    ls = lua_newuserdatauv(L, sizeof(*ls), 0);
    ls->st = st;
    lapi_setmt(L, &step_key);
    return 1;
}

/* __index of steps, a closure over the methods table: methods, the common
 * case, are found first. */
static int l_step_index(lua_State *L)
{
    const char *k;
    lstep *ls = lapi_index(L, &step_key, STEP_MT, &k);

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
    lstep *ls = lapi_checkud(L, 1, &step_key, STEP_MT);
    lua_pushstring(L, ls->st->name);
    return 1;
}

/* step index of the Step userdata at idx (for lhttp.c). */
static int step_index_at(lua_State *L, int idx)
{
    lstep *ls = lapi_checkud(L, idx, &step_key, STEP_MT);
    return ls->st->index;
}

/* The index of the Step at idx, which VU v is about to record into; raises,
 * naming the script line level levels up, when it is another scenario's. */
static int step_at(lua_State *L, const vu *v, int idx, int level)
{
    lstep *ls = lapi_checkud(L, idx, &step_key, STEP_MT);

    if (ls->st->scen->index != (int)v->scen) {
        luaL_where(L, level);
        lua_pushfstring(L, "step %s belongs to scenario %s; this VU runs scenario %s", ls->st->id,
                        ls->st->scen->name, engine_scens(v->eng)->scens[v->scen]->name);
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
    idx = step_at(L, v, 1, 2); /* level 1 is step:time itself (Lua), 2 the script */
    if (v->pend.in_block) {    /* a block inside a block is the outer's (a client's call) */
        if (v->pend.in_block == UINT8_MAX)
            return luaL_error(L, "step:time blocks nest %d deep at most", UINT8_MAX - 1);
        v->pend.in_block++;
        return 0;
    }
    lapi_wait_ok(L, "step:time");
    if (v->halting)
        return lapi_halt(L, v);
    vu_finalize(v);
    sc = engine_scens(v->eng)->scens[v->scen];
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
    if (--v->pend.in_block > 0)
        return 0; /* an inner block: the outer times it; its error goes up to it */
    v->pend.elapsed_us = clock_mono_us() - v->pend.start_us;
    if (!ok && v->pend.err == SAMPLE_OK) {
        v->pend.err = SAMPLE_FUNC;
        err_set(v->pend.msg, sizeof(v->pend.msg), "%s", lscript_errtext(L, 2));
        lua_pop(L, 1);
    }
    return 0;
}

/* --- quern.property, quern.sleep, quern.log ------------------------------ */

/* The options of quern.property (a table at 3, or none): 1 when it says
 * { optional = true }. */
static int property_optional(lua_State *L, const char *key)
{
    int optional;

    if (lua_isnoneornil(L, 3))
        return 0;
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 3) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING || strcmp(lua_tostring(L, -2), "optional") != 0)
            luaL_error(L, "property %s: unknown option \"%s\" (known: optional)", key,
                       lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
        lua_pop(L, 1);
    }
    lua_getfield(L, 3, "optional");
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
        luaL_error(L, "property %s: optional must be true or false", key);
    optional = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return optional;
}

/* A property with no default and no value is an error where the script asks
 * for it, unless it is optional: a typo in a -p flag, or a forgotten one,
 * stops the run before its load rather than sending requests to "nil". The
 * console loads the script with the properties it sends every worker, so a
 * worker's load finds what the console's did. */
static int l_property(lua_State *L)
{
    struct engine *e = lapi_engine(L);
    const char *key = luaL_checkstring(L, 1);
    const char *val = engine_config(e)->props ? props_get(engine_config(e)->props, key) : NULL;
    int optional = property_optional(L, key);

    if (!engine_loaded(e)) { /* what `quern check` lists; VUs' calls are not recorded */
        char at[512];
        where(L, at, sizeof(at));
        loadinfo_add_prop(engine_loadinfo(e), key, at,
                          lua_isnoneornil(L, 2) ? NULL : luaL_tolstring(L, 2, NULL), optional);
        if (!lua_isnoneornil(L, 2))
            lua_pop(L, 1);
    }
    if (val == NULL) {
        if (lua_isnoneornil(L, 2) && !optional)
            return luaL_error(L, "property \"%s\" has no value: give it with -p %s=...", key, key);
        lua_settop(L, 2);
        return 1;
    }
    lua_settop(L, 2);
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
    int64_t us = lapi_check_duration(L, 1, "sleep");

    if (v == NULL)
        return luaL_error(L, "quern.sleep is used from a scenario's init, run or finish");
    lapi_wait_ok(L, "quern.sleep");
    if (v->halting)
        return lapi_halt(L, v);
    vu_finalize(v);
    vu_wait_timer(v, us, VU_SLEEP);
    return lua_yield(L, 0);
}

/* quern.now(): seconds on the monotonic clock, for a script's own deadlines */
static int l_now(lua_State *L)
{
    lua_pushnumber(L, (lua_Number)clock_mono_us() / 1e6);
    return 1;
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

int lquern_open(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"scenario", l_scenario}, {"property", l_property},   {"sleep", l_sleep}, {"log", l_log},
        {"csv", lcsv_new},        {"threshold", l_threshold}, {"now", l_now},     {NULL, NULL}};
    struct engine *e = lapi_engine(L);

    luaL_newlib(L, fns);
    lcodec_register(L, -1);
    ljson_register(L, -1);
    lcrypto_register(L, -1);
    lcheck_register(L, -1);
    lmetric_register(L, -1);
    lua_pushstring(L, QUERN_VERSION);
    lua_setfield(L, -2, "version");
    lua_pushinteger(L, engine_config(e)->vus_total);
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

void lquern_metatables(lua_State *L)
{
    /* Scenario tables: sc:step(). */
    luaL_newmetatable(L, SCEN_MT);
    lua_newtable(L);
    lua_pushcfunction(L, l_scen_step);
    lua_setfield(L, -2, "step");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    /* Steps: fields, request methods (lhttp.c) and time (prelude). */
    lapi_newmt(L, &step_key, STEP_MT);
    lua_pushcfunction(L, l_step_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_newtable(L);
    lhttp_register(L, lua_gettop(L));
    lwebsocket_register(L, lua_gettop(L));
    lsse_register(L, lua_gettop(L));
    lsock_register(L, lua_gettop(L));
    ludp_register(L, lua_gettop(L));
    lgrpc_register(L, lua_gettop(L));
    lcheck_register_step(L, lua_gettop(L));
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
    return step_at(L, v, idx, 1);
}
