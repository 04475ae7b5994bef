/* preflight — the script loaded once before any load, for the console.
 *
 * What it is for: before sending anything to an agent, the console loads the
 * script as every worker will, so that a broken script is reported with its
 * own "file:line: ..." and nothing starts; and it needs the steps the script
 * declares and the thresholds it states, to check and evaluate them. The
 * console may not include worker/ (only the agent forks workers), so this
 * loads through the worker's engine and hands back a plain copy the console
 * owns.
 *
 * Usage:
 *     preflight pf;
 *     if (preflight_load(script, props, vus, mem_limit, &pf, err, sizeof(err)) != 0)
 *         ... err is "file:line: ..." ...
 *     for (size_t i = 0; i < pf.nsteps; i++) ... pf.steps[i].id, pf.steps[i].name
 *     for (size_t i = 0; i < pf.nthresholds; i++) ... pf.thresholds[i].expr, .where
 *     preflight_free(&pf); */
#ifndef QUERN_PREFLIGHT_H
#define QUERN_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/loadinfo.h"
#include "common/props.h"
#include "common/rate.h"
#include "common/tally.h"
#include "common/stages.h"
#include "proto/bundle.h"

/** One step the script declares. */
typedef struct preflight_step {
    char *id;    /**< owned: "SC-<scenario>-STEP-<n>" */
    char *name;  /**< owned: id + ")" + label */
    char *label; /**< owned: the declared label */
    char *where; /**< owned: "file:line" of the declaration */
    size_t scen; /**< index of its scenario in preflight.scens */
} preflight_step;

/** One scenario the script declares, as `quern check` shows it. */
typedef struct preflight_scen {
    char *name;                           /**< owned */
    char *where;                          /**< owned: "file:line" of the declaration */
    double weight;                        /**< share of the run's VUs */
    int64_t pacing_min_us, pacing_max_us; /**< 0: none */
    int64_t think_min_us, think_max_us;   /**< 0: none */
    stage *stages;                        /**< owned: its own stages, NULL: none */
    size_t nstages;
    rate_stage *rate_stages; /**< owned: its own rate, NULL: none */
    size_t nrate_stages;
    int rate_const; /**< rate = "R": its length is the run's --duration */
} preflight_scen;

/** One threshold the script states (quern.threshold, a scenario's
 *  thresholds option). */
typedef struct preflight_threshold {
    char *expr;  /**< owned: "p95<500ms", "SC-X-STEP-2: p99<1s" */
    char *where; /**< owned: "file:line" of the declaration */
} preflight_threshold;

/** What the loaded script declares. */
typedef struct preflight {
    preflight_step *steps; /**< owned: nsteps, by step index */
    size_t nsteps;
    preflight_scen *scens; /**< owned: nscens, in declaration order */
    size_t nscens;
    loadinfo info;                   /**< the properties and CSV feeders the load asked for */
    preflight_threshold *thresholds; /**< owned: nthresholds, in declaration order */
    size_t nthresholds;
    int has_shared;          /**< a scenario without stages of its own can play the run's VUs */
    uint64_t staged_ids;     /**< VU ids the scenarios' own stages use in all (0: none has any) */
    uint64_t staged_max;     /**< the sum of their largest targets */
    int64_t stages_us;       /**< the longest of their lists */
    rate_stage *rate_stages; /**< owned: a scenario's rate or rate_stages option, NULL: none */
    size_t nrate_stages;
    int rate_const;         /**< it is rate = "R": its length is the run's --duration */
    char rate_err[ERR_MAX]; /**< why the script cannot play that rate ("" when it can) */
    int rate_closed;        /**< other scenarios with a weight play --vus beside it (a mixed run) */

    size_t has_setup;    /**< scenarios with a setup function (agent/setuprun.h) */
    size_t has_teardown; /**< scenarios with a teardown function */
    bundle made;         /**< files the load made for the bundle (grpc.load's descriptor sets,
                              compiled here so that agents need no protoc): bundle_add them */
    tally metrics;       /**< the custom metrics the script declares: names and kinds */
} preflight;

/** Loads script as a worker does (properties p, borrowed, may be NULL;
 *  vus_total VUs in the run, this one playing from VU 1; its Lua state may
 *  hold mem_limit bytes, 0: no bound) and fills out. Returns 0, or -1 with
 *  err set ("file:line: ..." for a script error) and out empty. */
int preflight_load(const char *script, const props *p, uint32_t vus_total, uint64_t mem_limit,
                   preflight *out, char *err, size_t errlen);

/** 1 when key is an option of an HTTP request (step:get(url, { KEY = ... })
 *  and the others): for the console's reading of a script's text
 *  (console/scan.h), which may not include worker/. */
int preflight_request_option(const char *key);

/** Frees what preflight_load filled and empties pf; fine on an empty one. */
void preflight_free(preflight *pf);

#endif
