/* runfix — the run the unit tests of the results store and the reports
 * write (runfix.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/props.h"
#include "common/stats.h"
#include "store/db.h"
#include "tests/unit/runfix.h"

/* Begins the run *ri names (its two steps, the second labelled home_label,
 * and its one scenario filled in here); returns its id. */
static int64_t begin(db *d, db_run_info *ri, const char *home_label)
{
    const db_step steps[2] = {{"SC-S-STEP-1", "Login", "S"}, {"SC-S-STEP-2", home_label, "S"}};
    static const char *const scens[1] = {"S"};
    char err[ERR_MAX];
    int64_t id;

    ri->steps = steps;
    ri->nsteps = 2;
    ri->scen_names = scens;
    ri->nscens = 1;
    id = db_run_begin(d, ri, err, sizeof(err));
    assert_true(id > 0);
    ri->steps = NULL; /* steps ends with this call */
    return id;
}

int64_t runfix_begin(db *d, const char *script, const props *tags)
{
    db_run_info ri = {0};

    ri.name = "plan";
    ri.tags = tags;
    ri.script = script;
    ri.vus = 3;
    ri.started_us = 1700000000123456;
    return begin(d, &ri, "Home");
}

int64_t runfix_write(db *d, const char *script, const char *name, const char *home_label, int end)
{
    db_run_info ri = {0};
    step_stats s[2], tot[2];
    uint64_t runs = 1, missed = 0;
    rate_counts arr = {.scheduled = 4,
                       .started = 3,
                       .late = 1,
                       .dropped = 1}; /* the open model's arrivals each second */
    db_iv iv = {0};
    char err[ERR_MAX];
    int64_t id;

    ri.name = name;
    ri.script = script;
    ri.vus = 2;
    ri.started_us = 1700000000000000;
    id = begin(d, &ri, home_label);
    for (int i = 0; i < 2; i++) {
        stats_init(&s[i]);
        stats_init(&tot[i]);
    }
    iv.length_us = 1000000;
    iv.active_vus = 2;
    iv.steps = s;
    iv.nsteps = 2;
    iv.runs = &runs;
    iv.missed = &missed;
    iv.nscens = 1;
    iv.arrivals = &arr;
    for (uint64_t sec = 0; sec < 3; sec++) {
        for (int i = 0; i < 2; i++)
            stats_reset(&s[i]);
        s[0].count = 2;
        hist_record(s[0].hist, 1000);
        hist_record(s[0].hist, 3000);
        if (sec == 1) {
            s[1].count = 1;
            s[1].err_tech = 1;
            stats_note_error(&s[1], 1, "connection refused");
            hist_record(s[1].hist, 500);
        }
        iv.second = sec;
        iv.start_us = ri.started_us + (int64_t)sec * 1000000;
        assert_int_equal(db_interval(d, id, &iv, err, sizeof(err)), 0);
        for (int i = 0; i < 2; i++)
            stats_merge(&tot[i], &s[i]);
    }
    if (end) {
        db_run_end_info ei = {"completed", ri.started_us + 3000000, 3000000, tot, 2, NULL};
        assert_int_equal(db_run_end(d, id, &ei, err, sizeof(err)), 0);
    }
    for (int i = 0; i < 2; i++) {
        stats_free(&s[i]);
        stats_free(&tot[i]);
    }
    return id;
}
