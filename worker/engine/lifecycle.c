#include "worker/engine/lifecycle.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"
#include "worker/engine/engine_int.h"
#include "worker/lua/lapi.h"
#include "worker/engine/lcoro.h"
#include "worker/lua/setupdata.h"

const char *lifecycle_fn(const engine *e)
{
    return e->cfg.life == ENGINE_LIFE_TEARDOWN ? "teardown" : "setup";
}

/* 1 when scenario sc's table has a function named fn. */
static int has_fn(lua_State *L, const scen *sc, const char *fn)
{
    int t;

    lua_rawgeti(L, LUA_REGISTRYINDEX, sc->table_ref);
    t = lua_getfield(L, -1, fn);
    lua_pop(L, 2);
    return t == LUA_TFUNCTION;
}

size_t lifecycle_has(const engine *e, enum engine_life which)
{
    const char *fn = which == ENGINE_LIFE_TEARDOWN ? "teardown" : "setup";
    size_t n = 0;

    for (size_t i = 0; i < e->scens.nscens; i++)
        n += (size_t)has_fn(e->L, e->scens.scens[i], fn);
    return n;
}

int lifecycle_load_data(engine *e, char *err, size_t errlen)
{
    if (e->cfg.setup_data == NULL || e->cfg.setup_len == 0)
        return 0;
    if (!setupdata_decode(e->L, e->cfg.setup_data, e->cfg.setup_len, err, errlen))
        return -1;
    e->setup_ref = luaL_ref(e->L, LUA_REGISTRYINDEX);
    return 0;
}

void lifecycle_push_setup(lua_State *L, const vu *v)
{
    if (v->eng->setup_ref == 0) {
        lua_pushnil(L);
        return;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, v->eng->setup_ref);
    lua_getfield(L, -1, v->eng->scens.scens[v->scen]->name);
    lua_remove(L, -2);
}

int lifecycle_make_vus(engine *e, char *err, size_t errlen)
{
    const char *fn = lifecycle_fn(e);
    uint32_t n = (uint32_t)lifecycle_has(e, e->cfg.life);

    e->cfg.vus_total = e->cfg.vu_count = n;
    e->cfg.vu_first = 1;
    e->cfg.vu_stride = 1;
    e->cfg.runs = 0;
    e->cfg.duration_us = LIFECYCLE_MAX_US;
    e->cfg.grace_us = 0;
    e->vus = xcalloc(n ? n : 1, sizeof(*e->vus));
    if (e->cfg.life == ENGINE_LIFE_SETUP) {
        lua_newtable(e->L);
        e->life_ref = luaL_ref(e->L, LUA_REGISTRYINDEX);
    }
    for (size_t i = 0; i < e->scens.nscens; i++) {
        if (!has_fn(e->L, e->scens.scens[i], fn))
            continue;
        if (vu_init(&e->vus[e->nvus], e, e->nvus + 1, (uint16_t)i) != 0) {
            err_set(err, errlen, "cannot create the VU of %s (libcurl)", fn);
            return -1;
        }
        e->nvus++;
    }
    return 0;
}

/* "file:line" where the VU's scenario defines its function. */
static void fn_where(const vu *v, char *out, size_t len)
{
    lua_State *L = v->eng->L;
    lua_Debug ar;

    lua_rawgeti(L, LUA_REGISTRYINDEX, v->eng->scens.scens[v->scen]->table_ref);
    lua_getfield(L, -1, lifecycle_fn(v->eng));
    lua_remove(L, -2);
    if (lua_getinfo(L, ">S", &ar))
        snprintf(out, len, "%s:%d", ar.short_src, ar.linedefined);
    else
        snprintf(out, len, "%s", v->eng->scens.scens[v->scen]->where);
}

void lifecycle_failed(vu *v, const char *msg)
{
    engine *e = v->eng;
    size_t n;

    if (e->life_err != NULL)
        return;
    n = strlen(msg) + strlen(e->scens.scens[v->scen]->name) + 64;
    e->life_err = xmalloc(n);
    err_set(e->life_err, n, "%s (%s of scenario %s)", msg, lifecycle_fn(e),
            e->scens.scens[v->scen]->name);
}

void lifecycle_returned(vu *v, lua_State *co, int nres)
{
    engine *e = v->eng;
    lua_State *L = e->L;
    char where[LUA_IDSIZE + 32], why[512], msg[sizeof(where) + sizeof(why) + 64], *json;
    size_t len;
    int t;

    v->init_ok = 1;
    if (e->cfg.life != ENGINE_LIFE_SETUP || nres < 1)
        return;
    t = lua_type(co, -nres);
    if (t == LUA_TNIL)
        return;
    fn_where(v, where, sizeof(where));
    if (t != LUA_TTABLE) {
        err_set(msg, sizeof(msg), "%s: setup must return a table (or nothing), not a %s", where,
                lua_typename(co, t));
        lifecycle_failed(v, msg);
        return;
    }
    lua_pushvalue(co, -nres);
    lua_xmove(co, L, 1);
    if (setupdata_encode(L, -1, &json, &len, why, sizeof(why)) != 0) {
        err_set(msg, sizeof(msg), "%s: what setup returned cannot be sent: %s", where, why);
        lua_pop(L, 1);
        lifecycle_failed(v, msg);
        return;
    }
    xfree(json);
    lua_rawgeti(L, LUA_REGISTRYINDEX, e->life_ref);
    lua_insert(L, -2);
    lua_setfield(L, -2, e->scens.scens[v->scen]->name);
    lua_pop(L, 1);
}

int lifecycle_xfer_failed(vu *v)
{
    const xfer_result *x = &v->x;
    char at[LUA_IDSIZE + 32], what[512], url[512], msg[sizeof(at) + sizeof(what) + 64];
    const char *eff = NULL, *method = NULL;

    if (x->curl_rc == CURLE_OK && x->status < 400)
        return 0;
    curl_easy_getinfo(v->xh->easy, CURLINFO_EFFECTIVE_URL, &eff);
    curl_easy_getinfo(v->xh->easy, CURLINFO_EFFECTIVE_METHOD, &method);
    redact_url(eff != NULL ? eff : "", url, sizeof(url));
    if (x->curl_rc != CURLE_OK)
        snprintf(what, sizeof(what), "%s",
                 v->xh->errbuf[0] ? v->xh->errbuf : curl_easy_strerror((CURLcode)x->curl_rc));
    else
        snprintf(what, sizeof(what), "HTTP status %d", x->status);
    lcoro_where(v->co, at, sizeof(at));
    err_set(msg, sizeof(msg), "%s%s %s: %s", at, method != NULL ? method : "GET", url, what);
    lifecycle_failed(v, msg);
    lua_closethread_compat(v->co);
    vu_phase_end(v, 0);
    return 1;
}

int lifecycle_result(engine *e, char **json, size_t *len, char *err, size_t errlen)
{
    char why[256];
    int rc;

    *json = NULL;
    *len = 0;
    if (e->life_err != NULL) {
        err_set(err, errlen, "%s", e->life_err);
        return -1;
    }
    for (uint32_t i = 0; i < e->nvus; i++) {
        if (!e->vus[i].init_ok) {
            char where[LUA_IDSIZE + 32];
            fn_where(&e->vus[i], where, sizeof(where));
            if (e->status == ENGINE_COMPLETED)
                err_set(err, errlen, "%s: %s of scenario %s did not end within %d s", where,
                        lifecycle_fn(e), e->scens.scens[e->vus[i].scen]->name,
                        LIFECYCLE_MAX_US / 1000000);
            else
                err_set(err, errlen, "%s: %s of scenario %s was interrupted", where,
                        lifecycle_fn(e), e->scens.scens[e->vus[i].scen]->name);
            return -1;
        }
    }
    if (e->life_ref == 0)
        return 0;
    lua_rawgeti(e->L, LUA_REGISTRYINDEX, e->life_ref);
    lua_pushnil(e->L);
    if (lua_next(e->L, -2) == 0) {
        lua_pop(e->L, 1);
        return 0; /* no setup returned anything */
    }
    lua_pop(e->L, 2);
    rc = setupdata_encode(e->L, -1, json, len, why, sizeof(why));
    lua_pop(e->L, 1);
    if (rc != 0)
        err_set(err, errlen, "%s: what the setups returned cannot be sent: %s",
                e->cfg.script_display != NULL ? e->cfg.script_display : e->cfg.script, why);
    return rc;
}
