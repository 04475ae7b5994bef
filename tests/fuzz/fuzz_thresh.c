/* fuzz_thresh — threshold expressions (console/thresh), from --threshold
 * and from scripts (quern.threshold, a scenario's thresholds).
 *
 * Input: the expression. Checks: a parsed threshold keeps its expression
 * within THRESH_EXPR_MAX and a known metric and operator; its scope check,
 * its evaluation on a small run's totals (with samples, and with none), the
 * --abort-on-fail rule and the JUnit cases built from it all run to the end
 * with a NUL-terminated description, on the steps' totals and on the
 * script's checks and metrics; a refused one leaves a message. */
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "console/jcases.h"
#include "console/thresh.h"
#include "console/threshtally.h"
#include "tests/fuzz/fuzz_util.h"

#define NSTEPS 3

static const char *const ids[NSTEPS] = {"SC-A-STEP-1", "SC-A-STEP-2", "SC-B-STEP-1"};
static const char *const names[NSTEPS] = {"SC-A-STEP-1)Login", "SC-A-STEP-2)Profil",
                                          "SC-B-STEP-1)Search"};

/* Evaluates t on a and checks what every caller relies on. */
static void check_eval(const thresh *t, const agg *a, double elapsed_s)
{
    thresh_result r;
    jcases j;
    const thresh *ts[1] = {t};

    memset(&r, 0x55, sizeof(r));
    fuzz_check(thresh_eval(t, a, ids, names, elapsed_s, &r) == r.passed);
    fuzz_check(r.passed == 0 || r.passed == 1);
    fuzz_check(memchr(r.desc, '\0', sizeof(r.desc)) != NULL);
    thresh_measured(t, &r);
    thresh_can_still_pass(t, &r, elapsed_s);
    thresh_eval(t, a, ids, NULL, elapsed_s, &r);
    jcases_build(&j, "fuzz", a, ids, names, elapsed_s, ts, &r, 1);
    fuzz_check(j.n == NSTEPS + 1);
    jcases_free(&j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), err[ERR_MAX];
    thresh *t;

    err[0] = '\0';
    t = thresh_parse(s, err, sizeof(err));
    if (t == NULL) {
        fuzz_check(err[0] != '\0');
        free(s);
        return 0;
    }
    fuzz_check(strlen(t->expr) <= THRESH_EXPR_MAX);
    fuzz_check(t->metric >= THRESH_PERCENTILE && t->metric <= THRESH_METRIC);
    fuzz_check(t->metric != THRESH_METRIC || (t->name != NULL && tally_name_ok(t->name)));
    fuzz_check(t->op >= THRESH_LT && t->op <= THRESH_GE);
    fuzz_check(t->metric != THRESH_PERCENTILE || (t->pct >= 0 && t->pct <= 100));
    thresh_unit(t);
    for (size_t i = 0; i < NSTEPS; i++)
        thresh_covers(t, ids[i], names[i]);
    thresh_covers(t, ids[0], NULL);
    thresh_check_scope(t, ids, names, NSTEPS, err, sizeof(err));
    {
        agg a;
        step_stats iv[NSTEPS];
        uint64_t runs[1] = {5}, missed[1] = {1};

        agg_init(&a, NSTEPS, 1);
        check_eval(t, &a, 0); /* no sample yet */
        for (size_t i = 0; i < NSTEPS; i++) {
            stats_init(&iv[i]);
            iv[i].count = 10 * (i + 1);
            iv[i].err_tech = i;
            iv[i].err_func = i == 2 ? 3 : 0;
            for (uint64_t k = 0; k < iv[i].count; k++)
                hist_record(iv[i].hist, 1000 * (k + 1) * (i + 1));
        }
        iv[1].count = 0; /* a step without samples */
        hist_reset(iv[1].hist);
        agg_add(&a, iv, runs, missed, 1000000, 4);
        {
            /* the script's checks and one metric of each kind (console/threshtally.h) */
            char e[128];
            tally *ty = &a.tally;
            ty->checks[tally_check_id(ty, "status is 200")].passes = 9;
            ty->checks[tally_check_id(ty, "status is 200")].fails = 1;
            tally_counter_add(&ty->metrics[tally_metric_def(ty, "orders", TALLY_COUNTER, e, 128)],
                              4);
            tally_gauge_set(&ty->metrics[tally_metric_def(ty, "queue", TALLY_GAUGE, e, 128)], 2, 1);
            tally_trend_add(&ty->metrics[tally_metric_def(ty, "basket", TALLY_TREND, e, 128)], 7);
            threshtally_check(t, ty, err, sizeof(err));
        }
        check_eval(t, &a, 1.0);
        check_eval(t, &a, 30.0);
        for (size_t i = 0; i < NSTEPS; i++)
            stats_free(&iv[i]);
        agg_free(&a);
    }
    thresh_free(t);
    free(s);
    return 0;
}
