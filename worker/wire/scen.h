/* scen — the scenarios and steps a script declares, and how VUs are shared.
 *
 * A script declares scenarios (quern.scenario) and their steps (sc:step(n,
 * label)). Each step gets a test id "SC-<scenario>-STEP-<n>" and a display
 * name "SC-<scenario>-STEP-<n>)<label>", as The Grinder article names tests.
 * Ids are declared, never counted, so a duplicate anywhere is an error naming
 * both places. Steps are numbered 0..n-1 in declaration order: that index is
 * what statistics use on the wire.
 *
 * VUs are given to scenarios by weight, deterministically from the VU's
 * global index: the exact per-scenario counts come from largest remainders,
 * and a smooth weighted round-robin interleaves them so that any ramp-up
 * prefix is mixed too. */
#ifndef QUERN_SCEN_H
#define QUERN_SCEN_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"
#include "common/stages.h"

struct scen;

/** One declared step. */
typedef struct step {
    int index;         /**< position among all steps of the run, 0-based */
    int num;           /**< the declared number n */
    char *id;          /**< owned: "SC-<scenario>-STEP-<n>" */
    char *label;       /**< owned: the declared label */
    char *name;        /**< owned: id + ")" + label */
    char *where;       /**< owned: "file:line" of the declaration */
    struct scen *scen; /**< borrowed: the scenario that declared it */
} step;

/** One declared scenario. */
typedef struct scen {
    int index;             /**< declaration order, 0-based */
    char *name;            /**< owned */
    char *where;           /**< owned: "file:line" of the declaration */
    double weight;         /**< share of the VUs (default 1) */
    int64_t pacing_min_us; /**< start-to-start interval of runs; 0 = none */
    int64_t pacing_max_us;
    int64_t think_min_us; /**< pause before each step after the first of a run */
    int64_t think_max_us;
    int cookies_reset; /**< 1: a fresh cookie jar each run (The Grinder's way) */
    int traceparent;   /**< 1: its requests carry a W3C traceparent (worker/wire/traceid.h) */
    int table_ref;     /**< Lua registry ref of the scenario's table */
    step *first_step;  /**< borrowed: lowest-declared step, for errors outside steps */
    stage *stages;     /**< owned: the stages option, NULL without; such a scenario gets no
                            share of the run's VUs: its VUs are its stages' ids */
    size_t nstages;
    rate_stage *rate_stages; /**< owned: the rate or rate_stages option (the open model: the
                                  run's arrivals, when no --rate is given), NULL without */
    size_t nrate_stages;
    int rate_const;     /**< rate = "R": one stage at R, its length the run's --duration */
    uint32_t id_base;   /**< with stages: its ids are global indexes id_base+1..id_base+ids
                             (set by scen_layout) */
    struct reqopt *req; /**< borrowed: the `request` defaults (worker/wire/reqopt.h), a userdata
                             anchored by req_ref; NULL: none */
    int req_ref;        /**< Lua registry ref of req */
} scen;

/** A pass/fail threshold the script declares (quern.threshold, or a
 *  scenario's thresholds option). Workers only keep it; the console parses
 *  and evaluates it (console/thresh.h). */
typedef struct scen_threshold {
    char *expr;  /**< owned: "p95<500ms", "SC-X-STEP-2: p99<1s" */
    char *where; /**< owned: "file:line" of the declaration */
} scen_threshold;

/** All scenarios and steps of a loaded script. */
typedef struct scen_set {
    scen **scens; /**< owned array of owned scenarios */
    size_t nscens;
    step **steps; /**< owned array of owned steps, by index */
    size_t nsteps;
    scen_threshold *thresholds; /**< owned array, in declaration order */
    size_t nthresholds;
} scen_set;

/** Initialises an empty set. */
void scen_set_init(scen_set *set);
/** Frees everything the set owns. */
void scen_set_free(scen_set *set);

/** Declares a scenario. Returns it, or NULL with "where: message" in err when
 *  the name is not valid UTF-8, is empty, has characters other than letters,
 *  digits, '-' and '_', or is already declared. */
scen *scen_add(scen_set *set, const char *name, const char *where, char *err, size_t errlen);

/** Declares step n of sc. Returns it, or NULL with an error naming both
 *  places when the id is already declared (n must be >= 0), or with
 *  "where: ..." when label is not valid UTF-8. */
step *scen_add_step(scen_set *set, scen *sc, int num, const char *label, const char *where,
                    char *err, size_t errlen);

/** Records a threshold expression declared at where (both copied; the
 *  expression is not checked here). Returns 0, or -1 with "where: message"
 *  in err when it is empty or longer than SCEN_THRESHOLD_MAX bytes, or when
 *  there are already SCEN_THRESHOLDS_MAX. */
int scen_add_threshold(scen_set *set, const char *expr, const char *where, char *err,
                       size_t errlen);

/** Longest threshold expression accepted, in bytes. */
#define SCEN_THRESHOLD_MAX 512
/** Most thresholds a script may declare. */
#define SCEN_THRESHOLDS_MAX 1000

/** 1 when a scenario without stages of its own has a weight above 0: one
 *  that the run's --vus or --stages can play. */
int scen_has_shared(const scen_set *set);

/** Lays the staged scenarios' ids after the shared indexes 1..shared, in
 *  declaration order (each one's id_base), and returns how many ids they use
 *  in all (the sum of their stages_ids). */
uint64_t scen_layout(scen_set *set, uint32_t shared);

/** The staged scenario whose ids hold global index gid, or NULL. */
const scen *scen_of_id(const scen_set *set, uint32_t gid);

/** Computes how many of vus_total VUs each scenario gets (largest remainder
 *  over the weights), writing nscens counts into counts. Returns 0, or -1 if
 *  all weights are zero. */
int scen_split(const scen_set *set, uint32_t vus_total, uint32_t *counts);

/** Fills assign[i] (for global VU index i+1, i < vus_total) with the scenario
 *  index that VU plays. Deterministic; exact counts as scen_split. A
 *  scenario with stages of its own counts as weight 0 in both. */
int scen_assign(const scen_set *set, uint32_t vus_total, uint16_t *assign);

#endif
