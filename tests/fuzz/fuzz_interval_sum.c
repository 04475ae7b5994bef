/* fuzz_interval_sum — Interval messages as an agent receives them from its workers
 * and the console from its agents (proto/interval_sum, proto/interval_window): step indices,
 * encoded histograms and scenario names all come from the sender.
 *
 * Input: byte 0 gives the receiver's step and scenario counts and whether
 * the message goes through a merge window; the rest is one packed
 * Quern__Interval. Checks: a message that is added sums to what
 * interval_sum_msg_new rebuilds, and that rebuilt message, packed and unpacked,
 * adds to the same counts and histograms; adding it twice doubles them (or
 * is refused), the load asked and sent (VUs planned and started, pacing)
 * too; through interval_window every second is handed on once the window is
 * flushed. The service times and the start lags travel the same way, and
 * the errors by kind keep their counts. */
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "proto/interval_window.h"
#include "tests/fuzz/fuzz_util.h"

static const char *const scen_names[] = {"CONSULTATION-PROFIL", "API", "", "B"};

/* Counts the seconds interval_window hands on. */
static void on_second(void *ud, uint64_t second, const interval_sum *sum, int late)
{
    (*(unsigned *)ud)++;
    fuzz_check(sum->nsteps <= 8);
}

/* a and b hold the same counts (b rebuilt from a: a step without samples
 * nor errors is not sent, whatever else it holds). */
static void check_same(const interval_sum *a, const interval_sum *b)
{
    for (size_t i = 0; i < a->nsteps; i++) {
        if (a->steps[i].count == 0 && hist_count(a->steps[i].hist) == 0 &&
            a->steps[i].err_tech == 0 && a->steps[i].err_func == 0) {
            fuzz_check(b->steps[i].count == 0 && hist_count(b->steps[i].hist) == 0);
            continue;
        }
        fuzz_check(a->steps[i].count == b->steps[i].count);
        fuzz_check(a->steps[i].err_tech == b->steps[i].err_tech);
        fuzz_check(a->steps[i].err_func == b->steps[i].err_func);
        fuzz_check(hist_count(a->steps[i].hist) == hist_count(b->steps[i].hist));
        fuzz_check(hist_max(a->steps[i].hist) == hist_max(b->steps[i].hist));
        /* the service times, sent only when kept apart, read back the same */
        fuzz_check(hist_count(stats_service(&a->steps[i])) ==
                   hist_count(stats_service(&b->steps[i])));
        fuzz_check(hist_sum(stats_service(&a->steps[i])) == hist_sum(stats_service(&b->steps[i])));
        fuzz_check(strcmp(a->steps[i].sample_tech, b->steps[i].sample_tech) == 0);
        /* the errors by kind: folded again, merged again, none lost */
        fuzz_check(errkinds_total(a->steps[i].kinds) == errkinds_total(b->steps[i].kinds));
    }
    for (size_t j = 0; j < a->nscens; j++) {
        fuzz_check(a->runs[j] == b->runs[j] && a->missed[j] == b->missed[j]);
        fuzz_check((a->lag[j] == NULL ? 0 : hist_count(a->lag[j])) ==
                   (b->lag[j] == NULL ? 0 : hist_count(b->lag[j])));
    }
    fuzz_check(a->active_vus == b->active_vus && a->finished_vus == b->finished_vus);
    fuzz_check(a->vus_planned == b->vus_planned && a->vus_started == b->vus_started);
    fuzz_check(a->pace_asked_us == b->pace_asked_us && a->pace_lost_us == b->pace_lost_us);
}

static void roundtrip(const interval_sum *s)
{
    Quern__Interval *m =
        interval_sum_msg_new(7, 3, s->steps, s->nsteps, s->runs, s->missed, scen_names, s->nscens,
                             s->active_vus, s->finished_vus, 0);
    size_t len;
    uint8_t *buf;
    Quern__Interval *back;
    interval_sum s2;
    char err[ERR_MAX];

    interval_sum_msg_set_lag(m, s->lag);
    interval_sum_msg_set_delivery(m, s->vus_planned, s->vus_started, s->pace_asked_us,
                                  s->pace_lost_us);
    len = quern__interval__get_packed_size(m);
    buf = malloc(len ? len : 1);

    fuzz_check(buf != NULL);
    fuzz_check(quern__interval__pack(m, buf) == len);
    back = quern__interval__unpack(NULL, len, buf);
    fuzz_check(back != NULL);
    interval_sum_init(&s2, s->nsteps, s->nscens);
    fuzz_check(interval_sum_add_msg(&s2, back, scen_names, err, sizeof(err)) == 0);
    check_same(s, &s2);
    interval_sum_free(&s2);
    quern__interval__free_unpacked(back, NULL);
    free(buf);
    interval_sum_msg_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Quern__Interval *m;
    size_t nsteps, nscens;
    char err[ERR_MAX];
    interval_sum s;

    if (size < 1)
        return 0;
    nsteps = data[0] & 7;
    nscens = (data[0] >> 3) & 3;
    m = quern__interval__unpack(NULL, size - 1, data + 1);
    if (m == NULL)
        return 0;
    if (data[0] & 0x80) {
        interval_window w;
        unsigned emitted = 0;
        int added = 0;
        memset(&w, 0, sizeof(w));
        interval_window_init(&w, nsteps, nscens, 1000000, on_second, &emitted);
        for (int k = 0; k < 3; k++) {
            if (interval_window_add(&w, m, scen_names, 2, err, sizeof(err)) != 0)
                break;
            added++;
            m->second += 1 + (uint64_t)k * 5; /* later seconds, not in order */
        }
        interval_window_flush(&w, 2, 1);
        fuzz_check(added == 0 || emitted >= 1);
        interval_window_free(&w);
    } else {
        interval_sum_init(&s, nsteps, nscens);
        if (interval_sum_add_msg(&s, m, scen_names, err, sizeof(err)) == 0) {
            roundtrip(&s);
            interval_sum_add_msg(&s, m, scen_names, err, sizeof(err));
            interval_sum_reset(&s);
            for (size_t i = 0; i < nsteps; i++)
                fuzz_check(s.steps[i].count == 0 && hist_count(s.steps[i].hist) == 0);
        } else {
            fuzz_check(err[0] != '\0');
        }
        interval_sum_free(&s);
    }
    quern__interval__free_unpacked(m, NULL);
    return 0;
}
