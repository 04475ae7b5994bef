/* web_state — what the --web page shows, as one JSON text rendered once per
 * merged second.
 *
 * What it is for: console/serve/web.c serves this text at /state.json; the loop
 * renders it after each merged second and the HTTP thread only copies it,
 * so the cost is per second and per step, never per client. It holds:
 *   "run", "final" (the run is over), "elapsed_s", "planned_s" (0: not
 *   known), "vus", "vus_max";
 *   "steps": the live table of the terminal view, a row per step and
 *   "total" for all steps: of the latest second "tps", "mean_ms",
 *   "p95_ms", "p99_ms", "tech", "func" (errors by kind), and of the whole
 *   run "count", "tech_total", "func_total";
 *   "agents": name, host, state, vus, requests, errors;
 *   "thresholds": expr, passed, desc (each on the totals so far);
 *   "checks", "metrics": the script's soft checks and custom metrics so
 *   far, as the summary JSON has them (console/sumtally.h);
 *   "injector": "saturated" when a worker did not keep up in one of the
 *   latest WEB_STATE_SAT_HOLD_S seconds (a stall's seconds arrive together
 *   once it ends: held so that it stays in sight), with that stretch's
 *   worst "worker" (name), "cpu_pct", "lag_ms", "workers",
 *   "workers_saturated", else those of the latest second; of the run
 *   "saturated_s", "measured_s" and the "bands" [from, to) of seconds the
 *   charts shade (null before any second);
 *   "charts": throughput, percentiles, errors and VUs over time, each an
 *   SVG <figure> drawn by reports/chart.h, the saturated seconds shaded;
 *   "summary": once the run is over, the --summary-json object (verdict,
 *   per-step table), else null.
 * The history behind the charts keeps at most WEB_STATE_POINTS points: when
 * full, neighbours are paired and each point then covers twice the time
 * (rates are averaged; a paired point's percentile is the larger of the
 * two, an upper bound, as percentiles cannot be averaged). The charts are
 * drawn when a point closes (each second, then every 2, 4... s), not at
 * each rendering, and at the end with the last partial point.
 *
 * Usage:
 *     web_state *w = web_state_new();
 *     each merged second, after agg_add:  web_state_add(w, &agg, late);
 *     char *json = web_state_render(w, &in, &len);   // owned; NULL: too big
 *     web_state_free(w); */
#ifndef QUERN_WEB_STATE_H
#define QUERN_WEB_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"
#include "console/agg.h"

struct json_t;

/** Most points of a chart. */
#define WEB_STATE_POINTS 300
/** Seconds the page keeps saying "saturated" after the last such second. */
#define WEB_STATE_SAT_HOLD_S 5
/** Longest SVG of one chart, in bytes (a full chart, 300 points, is some
 *  50 KiB); a chart past it is null in the state, and logged. */
#define WEB_STATE_CHART_MAX (4u << 20)
/** Longest text web_state_render writes, in bytes. */
#define WEB_STATE_TEXT_MAX (32u << 20)

/** An agent as the page lists it. All borrowed. */
typedef struct web_state_agent {
    const char *name;  /**< borrowed: its name */
    const char *host;  /**< borrowed: its host */
    const char *state; /**< borrowed: "starting", "running", "finished", "lost" */
    uint32_t vus;      /**< VUs active on it at its last second */
    uint32_t slots;    /**< VU slots it was given (the open model's pool, a steered ceiling) */
    uint64_t requests; /**< samples it sent */
    uint64_t errors;   /**< of them, errors */
} web_state_agent;

/** A threshold's verdict so far. All borrowed. */
typedef struct web_state_threshold {
    const char *expr; /**< borrowed: as given */
    int passed;       /**< 1 passed, 0 failed */
    const char *desc; /**< borrowed: measured value and limit */
} web_state_threshold;

/** What one rendering shows. All borrowed. */
typedef struct web_state_input {
    const char *run;          /**< borrowed: the run's name */
    const char *const *steps; /**< borrowed: a->nsteps full step names */
    const agg *a;             /**< borrowed: the totals; NULL before the steps are known */
    const step_stats *second; /**< borrowed: a->nsteps, each step's latest second; NULL: none */
    uint32_t vus_max;         /**< the VUs asked for */
    int64_t planned_us;       /**< the run's planned length, 0 when not known */
    const web_state_agent *agents; /**< borrowed: nagents */
    size_t nagents;
    const web_state_threshold *th; /**< borrowed: nth */
    size_t nth;
    const struct json_t *summary; /**< borrowed: the summary once the run is over, else NULL */
    int paused;                   /**< quern ctl paused the load (console/steering.h) */
} web_state_input;

/** The history of the charts; opaque. */
typedef struct web_state web_state;

/** An empty history. */
web_state *web_state_new(void);
/** Frees w; NULL is fine. */
void web_state_free(web_state *w);
/** Adds one merged second: a->last (every step of it), a->active_vus,
 *  a->last_length_us. A late second (late 1) adds its counts to the
 *  current point without adding time. */
void web_state_add(web_state *w, const agg *a, int late);
/** Points kept so far, and the seconds each covers. */
size_t web_state_points(const web_state *w, unsigned *width_s);
/** Renders in with w's charts as JSON: an owned NUL-terminated string of
 *  *len bytes (xfree), or NULL when it would pass WEB_STATE_TEXT_MAX. */
char *web_state_render(const web_state *w, const web_state_input *in, size_t *len);

#endif
