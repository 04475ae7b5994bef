#include "worker/lua/lmetric.h"

#include <lauxlib.h>
#include <math.h>

#include "common/clock.h"
#include "common/err.h"
#include "worker/engine/engine.h"
#include "worker/engine/vu.h"
#include "worker/lua/lapi.h"

#define METRIC_MT "quern.Metric"

static const char metric_key = 0;

/** A metric object: its index in the engine's tally. */
typedef struct metric_ud {
    int id;
    enum tally_kind kind;
} metric_ud;

static int declare(lua_State *L, enum tally_kind kind)
{
    struct engine *e = lapi_engine(L);
    const char *name = luaL_checkstring(L, 1);
    char err[ERR_MAX];
    metric_ud *m;
    int id;

    if (engine_loaded(e))
        return luaL_error(L, "metrics are declared when the script loads, not from a VU");
    id = tally_metric_def(engine_script_tally(e), name, kind, err, sizeof(err));
    if (id < 0)
        return luaL_error(L, "%s", err);
    m = lua_newuserdatauv(L, sizeof(*m), 0);
    m->id = id;
    m->kind = kind;
    lapi_setmt(L, &metric_key);
    return 1;
}

static int l_counter(lua_State *L)
{
    return declare(L, TALLY_COUNTER);
}

static int l_gauge(lua_State *L)
{
    return declare(L, TALLY_GAUGE);
}

static int l_trend(lua_State *L)
{
    return declare(L, TALLY_TREND);
}

/* The metric at 1, recorded from a VU's phase, and the engine's entry for it. */
static tally_metric *recording(lua_State *L, enum tally_kind want, const char *method)
{
    metric_ud *m = lapi_checkud(L, 1, &metric_key, METRIC_MT);
    struct engine *e = lapi_engine(L);
    tally_metric *t = &engine_script_tally(e)->metrics[m->id];

    if (m->kind != want)
        luaL_error(L, "metric %s is a %s: it has no %s", t->name, tally_kind_name(m->kind), method);
    if (!engine_loaded(e))
        luaL_error(L, "metric %s: values are recorded from a scenario's init, run or finish",
                   t->name);
    return t;
}

static double number(lua_State *L, int idx, const tally_metric *t, int nonneg)
{
    double v = luaL_checknumber(L, idx);

    if (!isfinite(v) || (nonneg && v < 0))
        luaL_error(L, "metric %s: %f is not a %s number", t->name, v,
                   nonneg ? "finite, non-negative" : "finite");
    return v;
}

static int m_add(lua_State *L)
{
    metric_ud *m = lapi_checkud(L, 1, &metric_key, METRIC_MT);
    tally_metric *t = recording(L, m->kind == TALLY_TREND ? TALLY_TREND : TALLY_COUNTER, "add");

    if (m->kind == TALLY_TREND)
        tally_trend_add(t, number(L, 2, t, 1));
    else
        tally_counter_add(t, lua_isnoneornil(L, 2) ? 1.0 : number(L, 2, t, 1));
    return 0;
}

static int m_set(lua_State *L)
{
    tally_metric *t = recording(L, TALLY_GAUGE, "set");

    tally_gauge_set(t, number(L, 2, t, 0), clock_wall_us());
    return 0;
}

static int m_tostring(lua_State *L)
{
    metric_ud *m = lapi_checkud(L, 1, &metric_key, METRIC_MT);
    struct engine *e = lapi_engine(L);

    lua_pushfstring(L, "%s %s", tally_kind_name(m->kind),
                    engine_script_tally(e)->metrics[m->id].name);
    return 1;
}

void lmetric_register(lua_State *L, int idx)
{
    static const luaL_Reg decl[] = {
        {"counter", l_counter}, {"gauge", l_gauge}, {"trend", l_trend}, {NULL, NULL}};
    static const luaL_Reg methods[] = {{"add", m_add}, {"set", m_set}, {NULL, NULL}};

    idx = lua_absindex(L, idx);
    lapi_newmt(L, &metric_key, METRIC_MT);
    lua_pushcfunction(L, m_tostring);
    lua_setfield(L, -2, "__tostring");
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_newlib(L, decl);
    lua_setfield(L, idx, "metric");
}
