#include "agent/preflight.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/stages.h"
#include "worker/engine/engine.h"
#include "worker/lua/lhttp.h"
#include "worker/engine/lifecycle.h"
#include "worker/wire/scen.h"

int preflight_load(const char *script, const props *p, uint32_t vus_total, uint64_t mem_limit,
                   preflight *out, char *err, size_t errlen)
{
    engine_cfg cfg;
    engine *e;
    const scen_set *ss;

    memset(out, 0, sizeof(*out));
    memset(&cfg, 0, sizeof(cfg));
    cfg.script = script;
    cfg.props = p;
    cfg.vus_total = vus_total;
    cfg.vu_first = 1;
    cfg.mem_limit = mem_limit;
    e = engine_new(&cfg, err, errlen);
    if (e == NULL)
        return -1;
    {
        const char *path;
        const void *data;
        size_t len;
        for (size_t i = 0; engine_made_file(e, i, &path, &data, &len); i++)
            if (bundle_add(&out->made, path, data, len, err, errlen) != 0) {
                engine_free(e);
                preflight_free(out);
                return -1;
            }
    }
    ss = engine_scens(e);
    out->steps = xcalloc(ss->nsteps + 1, sizeof(*out->steps));
    out->nsteps = ss->nsteps;
    for (size_t i = 0; i < ss->nsteps; i++) {
        out->steps[i].id = xstrdup(ss->steps[i]->id);
        out->steps[i].name = xstrdup(ss->steps[i]->name);
        out->steps[i].label = xstrdup(ss->steps[i]->label);
        out->steps[i].where = xstrdup(ss->steps[i]->where);
        out->steps[i].scen = (size_t)ss->steps[i]->scen->index;
    }
    out->scens = xcalloc(ss->nscens + 1, sizeof(*out->scens));
    out->nscens = ss->nscens;
    for (size_t i = 0; i < ss->nscens; i++) {
        const scen *sc = ss->scens[i];
        preflight_scen *o = &out->scens[i];
        o->name = xstrdup(sc->name);
        o->where = xstrdup(sc->where);
        o->weight = sc->weight;
        o->pacing_min_us = sc->pacing_min_us;
        o->pacing_max_us = sc->pacing_max_us;
        o->think_min_us = sc->think_min_us;
        o->think_max_us = sc->think_max_us;
        if (sc->nstages > 0) {
            o->stages = xcalloc(sc->nstages, sizeof(*o->stages));
            memcpy(o->stages, sc->stages, sc->nstages * sizeof(*sc->stages));
            o->nstages = sc->nstages;
        }
        if (sc->nrate_stages > 0) {
            o->rate_stages = xcalloc(sc->nrate_stages, sizeof(*o->rate_stages));
            memcpy(o->rate_stages, sc->rate_stages, sc->nrate_stages * sizeof(*sc->rate_stages));
            o->nrate_stages = sc->nrate_stages;
        }
        o->rate_const = sc->rate_const;
    }
    engine_take_loadinfo(e, &out->info);
    out->thresholds = xcalloc(ss->nthresholds + 1, sizeof(*out->thresholds));
    out->nthresholds = ss->nthresholds;
    for (size_t i = 0; i < ss->nthresholds; i++) {
        out->thresholds[i].expr = xstrdup(ss->thresholds[i].expr);
        out->thresholds[i].where = xstrdup(ss->thresholds[i].where);
    }
    tally_init(&out->metrics);
    for (size_t i = 0; i < engine_tally(e)->nmetrics; i++) {
        const tally_metric *m = &engine_tally(e)->metrics[i];
        tally_metric_def(&out->metrics, m->name, m->kind, NULL, 0);
    }
    out->has_shared = scen_has_shared(ss);
    out->has_setup = lifecycle_has(e, ENGINE_LIFE_SETUP);
    out->has_teardown = lifecycle_has(e, ENGINE_LIFE_TEARDOWN);
    for (size_t i = 0; i < ss->nscens; i++) {
        const scen *sc = ss->scens[i];
        int64_t len;
        if (sc->nstages == 0)
            continue;
        out->staged_ids += stages_ids(sc->stages, sc->nstages);
        out->staged_max += stages_max(sc->stages, sc->nstages);
        len = stages_total_us(sc->stages, sc->nstages);
        if (len > out->stages_us)
            out->stages_us = len;
    }
    /* A scenario's own rate: the open model plays that one scenario; the
     * others with a weight play --vus (closed) beside it. */
    for (size_t i = 0; i < ss->nscens; i++) {
        const scen *sc = ss->scens[i];
        if (sc->nrate_stages == 0)
            continue;
        if (out->rate_stages != NULL) {
            err_set(out->rate_err, sizeof(out->rate_err),
                    "%s: scenarios %s and another have a rate: the open model plays one scenario",
                    script, sc->name);
            break;
        }
        out->rate_stages = xcalloc(sc->nrate_stages, sizeof(*out->rate_stages));
        memcpy(out->rate_stages, sc->rate_stages, sc->nrate_stages * sizeof(*sc->rate_stages));
        out->nrate_stages = sc->nrate_stages;
        out->rate_const = sc->rate_const;
        /* The others with a weight are closed: they play --vus beside it. */
        for (size_t j = 0; j < ss->nscens; j++)
            if (j != i && ss->scens[j]->weight > 0 && ss->scens[j]->nstages == 0)
                out->rate_closed = 1;
        if (sc->nstages > 0 || sc->weight <= 0)
            err_set(out->rate_err, sizeof(out->rate_err), "%s: scenario %s has a rate and %s",
                    script, sc->name, sc->nstages > 0 ? "stages of its own" : "weight 0");
    }
    engine_free(e);
    return 0;
}

int preflight_request_option(const char *key)
{
    return lhttp_option_known(key);
}

void preflight_free(preflight *pf)
{
    if (pf == NULL)
        return;
    xfree(pf->rate_stages);
    bundle_free(&pf->made);
    for (size_t i = 0; i < pf->nsteps; i++) {
        xfree(pf->steps[i].id);
        xfree(pf->steps[i].name);
        xfree(pf->steps[i].label);
        xfree(pf->steps[i].where);
    }
    for (size_t i = 0; i < pf->nscens; i++) {
        xfree(pf->scens[i].name);
        xfree(pf->scens[i].where);
        xfree(pf->scens[i].stages);
        xfree(pf->scens[i].rate_stages);
    }
    xfree(pf->scens);
    loadinfo_free(&pf->info);
    for (size_t i = 0; i < pf->nthresholds; i++) {
        xfree(pf->thresholds[i].expr);
        xfree(pf->thresholds[i].where);
    }
    xfree(pf->steps);
    xfree(pf->thresholds);
    tally_free(&pf->metrics);
    memset(pf, 0, sizeof(*pf));
}
