/* enginefix — an engine run over a script, its intervals summed (enginefix.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "tests/unit/enginefix.h"

static void on_interval(void *ud, const engine_interval *iv)
{
    enginefix *f = ud;
    char err[ERR_MAX];

    if (iv->second != f->intervals)
        f->seconds_in_order = 0;
    f->intervals++;
    for (size_t i = 0; i < iv->nsteps && i < f->nsteps; i++)
        stats_merge(&f->steps[i], &iv->steps[i]);
    for (size_t i = 0; i < iv->nscens; i++) {
        f->runs += iv->scens[i].runs;
        f->missed_pacing += iv->scens[i].missed_pacing;
    }
    f->pace_asked_us += iv->pace_asked_us;
    f->vus_started += iv->vus_started;
    f->paused_us += iv->paused_us;
    f->active_end = iv->active_vus;
    if (iv->tally != NULL && tally_merge(&f->tally, iv->tally, err, sizeof(err)) != 0)
        fail_msg("tally_merge: %s", err);
}

/* The stop descriptor is readable: the run is asked to stop, once. */
static int on_stop(void *ud)
{
    enginefix *f = ud;
    char b;

    assert_int_equal(read(f->stop_fd, &b, 1), 1);
    engine_stop(f->e, ENGINE_STOPPED);
    if (f->stopped_fd >= 0)
        assert_int_equal(write(f->stopped_fd, "!", 1), 1);
    return -1;
}

void enginefix_cfg(engine_cfg *cfg, const char *path, uint32_t vus, uint32_t runs)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->script = path;
    cfg->vus_total = vus;
    cfg->vu_first = 1;
    cfg->vu_stride = 1;
    cfg->vu_count = vus;
    cfg->runs = runs;
    cfg->grace_us = 2000000;
}

void enginefix_new(enginefix *f, engine_cfg *cfg, int stop_fd, int stopped_fd)
{
    char err[ERR_MAX];

    memset(f, 0, sizeof(*f));
    f->seconds_in_order = 1;
    tally_init(&f->tally);
    f->stop_fd = stop_fd;
    f->stopped_fd = stopped_fd;
    cfg->sink = on_interval;
    cfg->sink_ud = f;
    if (stop_fd >= 0) {
        cfg->ctl = on_stop;
        cfg->ctl_fd = stop_fd;
    }
    f->e = engine_new(cfg, err, sizeof(err));
    if (f->e == NULL)
        fail_msg("engine_new: %s", err);
    f->nsteps = engine_scens(f->e)->nsteps;
    f->steps = stats_array_new(f->nsteps);
}

void enginefix_run(enginefix *f)
{
    int64_t t0 = clock_mono_us();

    f->status = engine_run(f->e);
    f->run_us = clock_mono_us() - t0;
}

void enginefix_free(enginefix *f)
{
    engine_free(f->e);
    stats_array_free(f->steps, f->nsteps);
    tally_free(&f->tally);
    memset(f, 0, sizeof(*f));
}
