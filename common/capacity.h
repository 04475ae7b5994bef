/* capacity — the staircase of a capacity search: its loads, its windows,
 * and the stages that play it.
 *
 * What it is for: `quern run --capacity START:STEP:HOLD[:MAX]` holds a load
 * for HOLD, then START + STEP for HOLD, and so on, until a step fails its
 * thresholds or the next load would pass MAX. START and STEP are both rates
 * ("100/s:100/s:30s:2000/s", the open model) or both VU counts ("10:10:1m",
 * the closed model). The staircase is played as ordinary stages: each step
 * is a zero-length stage that jumps to its load and one of HOLD that keeps
 * it (common/stages.h, common/rate.h), so the workers need nothing new and
 * step i is the window [i * HOLD, (i + 1) * HOLD) of the run.
 *
 * A step is judged on the whole seconds of its window that begin at least
 * settle after its start (capacity_second): the first second after a jump
 * belongs to the change (new VUs run their init and connect, the pool
 * grows, queues fill), not to the load.
 *
 * Usage:
 *     capacity_plan p;
 *     if (capacity_parse("100/s:100/s:3s:500/s", &p, err, sizeof(err)) != 0) die(err);
 *     rate_stage st[2 * CAPACITY_STEPS_MAX];
 *     size_t n = capacity_rate_stages(&p, st);        // 0:100/s,3s:100/s,0:200/s,...
 *     size_t i; int last;
 *     if (capacity_second(&p, CAPACITY_SETTLE_US, 4, &i, &last) == 0) ...; // second 4: step 1
 */
#ifndef QUERN_CAPACITY_H
#define QUERN_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "common/rate.h"
#include "common/stages.h"

/** Most steps of a search (and the steps of one without MAX). */
#define CAPACITY_STEPS_MAX 100u
/** Default --capacity-settle: the first second of a step is not judged. */
#define CAPACITY_SETTLE_US 1000000ll
/** Longest text capacity_format writes. */
#define CAPACITY_LOAD_MAX 32

/** A parsed --capacity. */
typedef struct capacity_plan {
    int open;        /**< 1: loads are arrivals a second; 0: VUs */
    double start;    /**< the first step's load */
    double step;     /**< what each step adds (above 0) */
    double max;      /**< the highest load asked for; 0 when none */
    int64_t hold_us; /**< each step's length */
    size_t nsteps;   /**< steps of the staircase: up to MAX, at most CAPACITY_STEPS_MAX */
} capacity_plan;

/** Parses "START:STEP:HOLD[:MAX]" into *p. 0, or -1 with a message quoting
 *  the part at fault in err. */
int capacity_parse(const char *s, capacity_plan *p, char *err, size_t errlen);

/** The load of step i (from 0). */
double capacity_load(const capacity_plan *p, size_t i);

/** Writes a load as the user typed it: "200/s" or "30" (VUs). Returns buf. */
char *capacity_format(const capacity_plan *p, double load, char *buf, size_t len);

/** The unit of the loads: "/s" or "vus". Static string. */
const char *capacity_unit(const capacity_plan *p);

/** Step i's window [*t0_us, *t1_us) from the run's start. */
void capacity_window(const capacity_plan *p, size_t i, int64_t *t0_us, int64_t *t1_us);

/** The closed model's stages (2 * p->nsteps entries into out). Returns the count. */
size_t capacity_stages(const capacity_plan *p, stage *out);

/** The open model's rate stages (2 * p->nsteps entries into out). Returns the count. */
size_t capacity_rate_stages(const capacity_plan *p, rate_stage *out);

/** Which step run second `second` ([second, second + 1) s from the start)
 *  counts for: 0 with the step in *step and *last 1 when it is the step's
 *  last whole second; -1 when it counts for none (it begins less than
 *  settle_us after its step's start, runs past the step's end, or lies past
 *  the staircase). */
int capacity_second(const capacity_plan *p, int64_t settle_us, uint64_t second, size_t *step,
                    int *last);

/** Checks settle_us against the plan: each step must keep one whole second
 *  at least to judge. 0, or -1 with err. */
int capacity_check_settle(const capacity_plan *p, int64_t settle_us, char *err, size_t errlen);

#endif
