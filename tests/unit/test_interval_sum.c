/* Unit tests for proto/interval_sum: Interval messages built from step statistics
 * and summed over senders (counts, bytes, errors, timings, histograms merged
 * bucket by bucket, scenarios by name), and the refusals of a bad message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/hist.h"
#include "common/mem.h"
#include "proto/interval_sum.h"

static const char *const scens[] = {"LOGIN", "SHOP"};

/* One sender's second: step 0 with n samples of lat us each, step 1 idle. */
static Quern__Interval *sender(uint64_t n, uint64_t lat, uint64_t runs_shop, const char *err_tech)
{
    step_stats st[2];
    uint64_t runs[2] = {1, runs_shop}, missed[2] = {0, 2};
    Quern__Interval *m;

    stats_init(&st[0]);
    stats_init(&st[1]);
    st[0].count = n;
    st[0].bytes_in = 100 * n;
    st[0].bytes_out = 10 * n;
    st[0].sum_dns = 1;
    st[0].sum_connect = 2;
    st[0].sum_tls = 3;
    st[0].sum_ttfb = 4;
    st[0].new_conns = 1;
    st[0].requests = 7 * n + 1; /* pages of 6 resources, one redirect */
    hist_record_n(st[0].hist, lat, n);
    if (err_tech != NULL) {
        st[0].err_tech = 1;
        stats_note_error(&st[0], 1, err_tech);
    }
    m = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 3, 1, 0);
    {
        /* the open model's arrivals of the second scenario: n due, n - 1
         * started (one of them late), one dropped */
        rate_counts arr[2] = {{0, 0, 0, 0, 0, 0}, {n, n - 1, 1, 1, 0, 1}};
        interval_sum_msg_set_arrivals(m, arr);
    }
    /* Little's law's sums: n VUs the whole second, runs of lat, pauses of 1 ms */
    interval_sum_msg_set_little(m, n * 1000000, n * lat, n * 1000);
    /* --max-in-flight: n requests held back, 2 ms each, the longest lat */
    interval_sum_msg_set_held(m, n, n * 2000, lat);
    /* load asked and sent: n VUs due to start, n - 1 began a run; n slots
     * of 1 s paced, lat lost in all */
    interval_sum_msg_set_delivery(m, (uint32_t)n, (uint32_t)n - 1, n * 1000000, lat);
    stats_free(&st[0]);
    stats_free(&st[1]);
    return m;
}

static void test_message(void **state)
{
    Quern__Interval *m = sender(5, 1000, 4, NULL);

    assert_int_equal(m->run_id, 7);
    assert_int_equal(m->second, 42);
    assert_int_equal(m->n_steps, 1); /* the idle step is left out */
    assert_int_equal(m->steps[0]->step, 0);
    assert_int_equal(m->steps[0]->count, 5);
    assert_true(m->steps[0]->histogram.len > 0);
    assert_int_equal(m->steps[0]->sum_latency_us, 5000);
    assert_int_equal(m->steps[0]->requests, 36);
    assert_int_equal(m->n_scenarios, 2);
    assert_string_equal(m->scenarios[1]->name, "SHOP");
    assert_int_equal(m->scenarios[1]->runs, 4);
    assert_int_equal(m->active_vus, 3);
    interval_sum_msg_free(m);
    interval_sum_msg_free(NULL);
}

static void test_sum(void **state)
{
    Quern__Interval *a = sender(5, 1000, 4, "HTTP 500"), *b = sender(3, 200000, 6, "timeout");
    interval_sum s;
    char err[ERR_MAX];

    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_int_equal(s.senders, 2);
    assert_int_equal(s.steps[0].count, 8);
    assert_int_equal(s.steps[0].bytes_in, 800);
    assert_int_equal(s.steps[0].bytes_out, 80);
    assert_int_equal(s.steps[0].err_tech, 2);
    assert_int_equal(s.steps[0].err_func, 0);
    assert_int_equal(s.steps[0].sum_dns, 2);
    assert_int_equal(s.steps[0].sum_connect, 4);
    assert_int_equal(s.steps[0].sum_tls, 6);
    assert_int_equal(s.steps[0].sum_ttfb, 8);
    assert_int_equal(s.steps[0].new_conns, 2);
    assert_int_equal(s.steps[0].requests, 36 + 22); /* exact, not derived from the samples */
    assert_string_equal(s.steps[0].sample_tech, "HTTP 500"); /* the first one seen */
    /* Histograms merged, not averaged: the slow sender's tail is kept. */
    assert_int_equal(hist_count(s.steps[0].hist), 8);
    assert_true(hist_max(s.steps[0].hist) >= 199000);
    assert_true(hist_min(s.steps[0].hist) <= 1010);
    assert_true(hist_percentile(s.steps[0].hist, 99) >= 199000);
    assert_int_equal(s.steps[1].count, 0);
    assert_int_equal(s.runs[0], 2);
    assert_int_equal(s.runs[1], 10);
    assert_int_equal(s.missed[1], 4);
    assert_int_equal(s.arrivals[0].scheduled, 0);
    assert_int_equal(s.arrivals[1].scheduled, 8); /* summed like runs */
    assert_int_equal(s.arrivals[1].started, 6);
    assert_int_equal(s.arrivals[1].late, 2);
    assert_int_equal(s.arrivals[1].dropped, 2);
    assert_int_equal(s.arrivals[1].inits, 2); /* each worker's one init in the load */
    assert_int_equal(s.active_vus, 6);
    assert_int_equal(s.finished_vus, 2);
    assert_int_equal(s.vu_us, 8000000); /* Little's sums added up the way */
    assert_int_equal(s.run_us, 5 * 1000 + 3 * 200000);
    assert_int_equal(s.wait_us, 8000);
    assert_int_equal(s.held, 8); /* held back: counts and waits added, the longest kept */
    assert_int_equal(s.held_us, 16000);
    assert_int_equal(s.held_max_us, 200000);
    assert_int_equal(s.vus_planned, 8); /* load asked and sent: summed */
    assert_int_equal(s.vus_started, 6);
    assert_int_equal(s.pace_asked_us, 8000000);
    assert_int_equal(s.pace_lost_us, 1000 + 200000);

    interval_sum_reset(&s);
    assert_int_equal(s.senders, 0);
    assert_int_equal(s.steps[0].count, 0);
    assert_int_equal(s.steps[0].requests, 0);
    assert_int_equal(hist_count(s.steps[0].hist), 0);
    assert_int_equal(s.runs[1], 0);
    assert_int_equal(s.arrivals[1].scheduled, 0);
    assert_int_equal(s.active_vus, 0);
    assert_int_equal(s.vu_us + s.run_us + s.wait_us, 0);
    assert_int_equal(s.held + s.held_us + s.held_max_us, 0);
    assert_int_equal(s.vus_planned + s.vus_started + s.pace_asked_us + s.pace_lost_us, 0);
    /* The sum goes up again as one message, the same totals. */
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    {
        Quern__Interval *up = interval_sum_msg_new(7, 42, s.steps, s.nsteps, s.runs, s.missed,
                                                   scens, 2, s.active_vus, s.finished_vus, 1);
        interval_sum t;
        interval_sum_msg_set_arrivals(up, s.arrivals);
        interval_sum_msg_set_little(up, s.vu_us, s.run_us, s.wait_us);
        interval_sum_msg_set_held(up, s.held, s.held_us, s.held_max_us);
        interval_sum_msg_set_delivery(up, s.vus_planned, s.vus_started, s.pace_asked_us,
                                      s.pace_lost_us);
        interval_sum_init(&t, 2, 2);
        assert_int_equal(up->last, 1);
        assert_int_equal(interval_sum_add_msg(&t, up, scens, err, sizeof(err)), 0);
        assert_int_equal(t.steps[0].count, 8);
        assert_int_equal(up->steps[0]->requests, 58);
        assert_int_equal(t.steps[0].requests, 58); /* an agent's sum goes up exact */
        assert_int_equal(hist_count(t.steps[0].hist), 8);
        assert_int_equal(hist_max(t.steps[0].hist), hist_max(s.steps[0].hist));
        assert_int_equal(t.runs[1], 10);
        assert_int_equal(t.arrivals[1].dropped, 2); /* an agent's sum goes up whole */
        assert_int_equal(t.vu_us, 8000000);
        assert_int_equal(t.wait_us, 8000);
        assert_int_equal(t.held_max_us, 200000); /* the max goes up as a max */
        assert_int_equal(t.held, 8);
        assert_int_equal(t.vus_started, 6); /* an agent's sum goes up whole */
        assert_int_equal(t.pace_lost_us, 201000);
        interval_sum_free(&t);
        interval_sum_msg_free(up);
    }
    interval_sum_free(&s);
    interval_sum_free(&s); /* fine twice: emptied */
    interval_sum_msg_free(a);
    interval_sum_msg_free(b);
}

/* One sender's second for step 0: n on-time samples of lat us, and late
 * samples of service time lat whose response time is lat + lag (none when
 * late is 0). */
static Quern__Interval *sender_lag(uint64_t n, uint64_t late, uint64_t lat, uint64_t lag)
{
    step_stats st[2];
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    Quern__Interval *m;

    stats_init(&st[0]);
    stats_init(&st[1]);
    st[0].count = n + late;
    for (uint64_t i = 0; i < n; i++)
        stats_record(&st[0], lat, lat);
    for (uint64_t i = 0; i < late; i++)
        stats_record(&st[0], lat + lag, lat);
    m = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    stats_free(&st[0]);
    stats_free(&st[1]);
    return m;
}

/* Service times travel only when they differ, and the sums (worker to
 * agent to console) stay exact whatever the senders' order. */
static void test_service(void **state)
{
    Quern__Interval *ontime = sender_lag(4, 0, 2000, 0), *late = sender_lag(1, 3, 5000, 2000000);
    /* late by less than a bucket: the sums differ, it is sent */
    Quern__Interval *nearly = sender_lag(0, 2, 100000, 3);
    Quern__Interval *order[2][3] = {{ontime, late, nearly}, {late, nearly, ontime}};
    char err[ERR_MAX];

    assert_int_equal(ontime->steps[0]->service_histogram.len, 0);
    assert_true(late->steps[0]->service_histogram.len > 0);
    assert_true(nearly->steps[0]->service_histogram.len > 0);
    for (int k = 0; k < 2; k++) {
        interval_sum s, t;
        Quern__Interval *up;
        const hist *svc;

        interval_sum_init(&s, 2, 2);
        for (int i = 0; i < 3; i++)
            assert_int_equal(interval_sum_add_msg(&s, order[k][i], scens, err, sizeof(err)), 0);
        assert_int_equal(s.steps[0].svc_on, 1);
        svc = stats_service(&s.steps[0]);
        assert_int_equal(hist_count(s.steps[0].hist), 10);
        assert_int_equal(hist_count(svc), 10);
        /* response times: 4 x 2000, 5000, 3 x (5000 + 2 s), 2 x (100000 + 3);
         * the service times leave the lags out */
        assert_int_equal(hist_sum(s.steps[0].hist), 8000 + 5000 + 6015000 + 200006);
        assert_int_equal(hist_sum(svc), 8000 + 20000 + 200000);
        assert_int_equal(hist_max(svc), 100000);
        assert_true(hist_percentile(s.steps[0].hist, 80) >= 2000000);
        assert_true(hist_percentile(svc, 80) <= 100000);
        /* the agent's sum goes up and is read back the same */
        up = interval_sum_msg_new(7, 42, s.steps, s.nsteps, s.runs, s.missed, scens, 2, 1, 0, 0);
        assert_true(up->steps[0]->service_histogram.len > 0);
        interval_sum_init(&t, 2, 2);
        assert_int_equal(interval_sum_add_msg(&t, up, scens, err, sizeof(err)), 0);
        assert_int_equal(hist_sum(stats_service(&t.steps[0])), hist_sum(svc));
        assert_int_equal(hist_percentile(stats_service(&t.steps[0]), 50), hist_percentile(svc, 50));
        interval_sum_free(&t);
        interval_sum_msg_free(up);
        /* a second with nothing late merges one histogram */
        interval_sum_reset(&s);
        assert_int_equal(interval_sum_add_msg(&s, ontime, scens, err, sizeof(err)), 0);
        assert_int_equal(s.steps[0].svc_on, 0);
        interval_sum_free(&s);
    }
    interval_sum_msg_free(ontime);
    interval_sum_msg_free(late);
    interval_sum_msg_free(nearly);
}

/* The open model's start lags travel per scenario and merge bucket by
 * bucket; a scenario without any sends none. */
static void test_start_lag(void **state)
{
    step_stats st[2];
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    hist *lag[2] = {NULL, hist_new()};
    Quern__Interval *a, *b;
    interval_sum s;
    char err[ERR_MAX];

    stats_init(&st[0]);
    stats_init(&st[1]);
    hist_record_n(lag[1], 300, 98);    /* on schedule within 0.3 ms ... */
    hist_record_n(lag[1], 2000000, 2); /* ... but two waited 2 s */
    a = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    interval_sum_msg_set_lag(a, lag);
    assert_int_equal(a->scenarios[0]->start_lag_histogram.len, 0);
    assert_true(a->scenarios[1]->start_lag_histogram.len > 0);
    hist_reset(lag[1]);
    hist_record_n(lag[1], 500, 100);
    b = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    interval_sum_msg_set_lag(b, lag);
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_null(s.lag[0]);
    assert_int_equal(hist_count(s.lag[1]), 200);
    assert_int_equal(hist_max(s.lag[1]), 2000000);
    assert_in_range(hist_percentile(s.lag[1], 99), 498, 502); /* 2 of 200 is 1 % */
    assert_true(hist_percentile(s.lag[1], 99.5) >= 1990000);
    interval_sum_reset(&s);
    assert_int_equal(hist_count(s.lag[1]), 0);
    interval_sum_free(&s);
    interval_sum_msg_free(a);
    interval_sum_msg_free(b);
    hist_free(lag[1]);
    stats_free(&st[0]);
    stats_free(&st[1]);
}

/* Scenarios travel by name: an unknown one is ignored, a known one lands at
 * the receiver's index, whatever the sender's order. */
static void test_scenario_names(void **state)
{
    static const char *const mine[] = {"SHOP", "LOGIN"};
    Quern__Interval *a = sender(1, 10, 4, NULL);
    interval_sum s;
    char err[ERR_MAX];

    a->scenarios[0]->name[0] = 'X'; /* "XOGIN": not ours */
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, a, mine, err, sizeof(err)), 0);
    assert_int_equal(s.runs[0], 4);
    assert_int_equal(s.runs[1], 0);
    interval_sum_free(&s);
    interval_sum_msg_free(a);
}

static void test_limits(void **state)
{
    Quern__Interval *a = sender(2, 10, 0, NULL);
    interval_sum s;
    char err[ERR_MAX];
    uint8_t junk[3] = {0xff, 0xff, 0xff};

    /* A receiver that knows one step only: step 1 is out of range. */
    a->steps[0]->step = 1;
    interval_sum_init(&s, 1, 2);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), -1);
    assert_string_equal(err, "interval names step 1, only 1 declared");
    interval_sum_free(&s);

    a->steps[0]->step = 0;
    {
        uint8_t *saved = a->steps[0]->histogram.data;
        size_t len = a->steps[0]->histogram.len;
        a->steps[0]->histogram.data = junk;
        a->steps[0]->histogram.len = sizeof(junk);
        interval_sum_init(&s, 1, 2);
        assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), -1);
        assert_string_equal(err, "malformed histogram for step 0");
        interval_sum_free(&s);
        a->steps[0]->histogram.data = saved;
        a->steps[0]->histogram.len = len;
    }
    /* No steps and no scenarios at all. */
    interval_sum_init(&s, 0, 0);
    {
        Quern__Interval *none =
            interval_sum_msg_new(1, 0, s.steps, 0, NULL, NULL, NULL, 0, 0, 0, 0);
        assert_int_equal(none->n_steps, 0);
        assert_int_equal(none->n_scenarios, 0);
        assert_int_equal(interval_sum_add_msg(&s, none, NULL, err, sizeof(err)), 0);
        assert_int_equal(s.senders, 1);
        interval_sum_msg_free(none);
    }
    interval_sum_free(&s);
    interval_sum_msg_free(a);
}

/* A worker's own load: one entry each; the agent's sum concatenates them
 * (never sums), its message names the agent in each, and the console's sum
 * of two agents keeps all four apart, histograms and flags intact. */
static Quern__Interval *worker_load(uint32_t worker, uint32_t cpu, uint64_t lag_us, int sat)
{
    Quern__Interval *m = interval_sum_msg_new(1, 3, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0);
    interval_sum_load l;
    hist *h = hist_new();

    memset(&l, 0, sizeof(l));
    l.worker = worker;
    l.cpu_permille = cpu;
    l.loop_lag_max_us = (uint32_t)lag_us;
    l.start_lag_p99_us = 7;
    l.saturated = sat;
    l.why = sat ? 5 : 0;
    hist_record_n(h, lag_us, 3);
    interval_sum_load_set_lag(&l, h);
    interval_sum_msg_set_injector(m, &l, 1, NULL);
    interval_sum_load_clear(&l);
    hist_free(h);
    return m;
}

/* A second with WebSocket messages and no sample of their step: sent, and
 * added exactly. */
static void test_websocket(void **state)
{
    step_stats *st = stats_array_new(2);
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    Quern__Interval *m;
    interval_sum s;
    char err[ERR_MAX];

    st[1].ws_sent = 3;
    st[1].ws_recv = 5;
    st[1].ws_bytes_sent = 30;
    st[1].ws_bytes_recv = 57;
    m = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    assert_int_equal(m->n_steps, 1);
    assert_int_equal(m->steps[0]->step, 1);
    assert_int_equal(m->steps[0]->ws_messages_received, 5);
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, m, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, m, scens, err, sizeof(err)), 0);
    assert_int_equal(s.steps[1].count, 0);
    assert_int_equal(s.steps[1].ws_sent, 6);
    assert_int_equal(s.steps[1].ws_recv, 10);
    assert_int_equal(s.steps[1].ws_bytes_sent, 60);
    assert_int_equal(s.steps[1].ws_bytes_recv, 114);
    assert_int_equal(s.steps[0].ws_sent + s.steps[0].ws_recv, 0);
    interval_sum_msg_free(m);
    interval_sum_free(&s);
    stats_array_free(st, 2);
}

/* A second with a socket's bytes and no sample of their step (a
 * heartbeat's): sent, and added. */
static void test_socket_bytes(void **state)
{
    step_stats *st = stats_array_new(2);
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    Quern__Interval *m;
    interval_sum s;
    char err[ERR_MAX];

    st[1].bytes_out = 2;
    st[1].bytes_in = 4;
    m = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    assert_int_equal(m->n_steps, 1);
    assert_int_equal(m->steps[0]->step, 1);
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, m, scens, err, sizeof(err)), 0);
    assert_int_equal(s.steps[1].count, 0);
    assert_int_equal(s.steps[1].bytes_out, 2);
    assert_int_equal(s.steps[1].bytes_in, 4);
    interval_sum_msg_free(m);
    interval_sum_free(&s);
    stats_array_free(st, 2);
}

/* The trace ids of error samples and the slowest samples travel with a
 * step's interval; two senders' slowest add up to the top of both, and a
 * trace id that is not 32 hex digits is dropped. */
static void test_slowest(void **state)
{
    step_stats *st = stats_array_new(2);
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    Quern__Interval *a, *b;
    slowest_entry e, out[4];
    interval_sum s;
    char err[ERR_MAX];

    st[0].count = 3;
    st[0].err_tech = 1;
    stats_note_error_trace(&st[0], 1, "HTTP status 500", "0af7651916cd43dd8448eb211c80319c");
    for (uint32_t i = 1; i <= 3; i++) {
        memset(&e, 0, sizeof(e));
        e.latency_us = 1000 * i;
        e.start_us = 5;
        e.vu = i;
        snprintf(e.trace, sizeof(e.trace), "%032u", i);
        stats_offer_slow(&st[0], 3, &e);
    }
    a = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    assert_int_equal(a->steps[0]->n_slowest, 3);
    assert_string_equal(a->steps[0]->sample_technical_trace, "0af7651916cd43dd8448eb211c80319c");
    stats_reset(&st[0]);
    st[0].count = 1;
    memset(&e, 0, sizeof(e));
    e.latency_us = 2500;
    e.vu = 9;
    snprintf(e.trace, sizeof(e.trace), "not hex");
    stats_offer_slow(&st[0], 3, &e);
    b = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    assert_int_equal(b->steps[0]->n_slowest, 1);
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_string_equal(s.steps[0].sample_tech, "HTTP status 500");
    assert_string_equal(s.steps[0].trace_tech, "0af7651916cd43dd8448eb211c80319c");
    interval_sum_reset(&s);
    xfree(b->steps[0]->sample_technical);
    xfree(b->steps[0]->sample_technical_trace);
    b->steps[0]->sample_technical = xstrdup("HTTP status 503");
    b->steps[0]->sample_technical_trace = xstrdup("\x1b[2J0af7651916cd43dd8448eb211c80");
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_string_equal(s.steps[0].sample_tech, "HTTP status 503");
    assert_string_equal(s.steps[0].trace_tech, ""); /* not a trace id: dropped */
    interval_sum_reset(&s);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_int_equal(slowest_sorted(s.steps[0].slow, out), 4);
    assert_int_equal(out[0].latency_us, 3000);
    assert_int_equal(out[1].latency_us, 2500);
    assert_int_equal(out[1].vu, 9);
    assert_string_equal(out[1].trace, "");
    assert_string_equal(out[0].trace, "00000000000000000000000000000003");
    assert_null(s.steps[1].slow);
    interval_sum_msg_free(a);
    interval_sum_msg_free(b);
    interval_sum_free(&s);
    stats_array_free(st, 2);
}

/* Errors by kind travel with a step's interval, packed and unpacked, and
 * two senders' add by key; what a sender wrote is folded and cleaned again. */
static void test_error_kinds(void **state)
{
    step_stats *st = stats_array_new(2);
    uint64_t runs[2] = {0, 0}, missed[2] = {0, 0};
    Quern__Interval *a, *b, *c;
    errkind_example ex;
    const errkind *rows[ERRKIND_ROWS];
    interval_sum s;
    uint8_t buf[8192];
    size_t len;
    char err[ERR_MAX];
    (void)state;

    st[0].count = 3;
    st[0].err_tech = 3;
    errkinds_example_set(&ex, "http://h/a", 503, "down", 4, "0af7651916cd43dd8448eb211c80319c");
    stats_note_kind(&st[0], 1, 503, "HTTP status 503", 2000, &ex);
    stats_note_kind(&st[0], 1, 503, "HTTP status 503", 2500, NULL);
    stats_note_kind(&st[0], 1, 28, "Operation timed out after 1001 milliseconds", 2100, NULL);
    a = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    assert_int_equal(a->steps[0]->n_error_kinds, 2);
    len = quern__interval__pack(a, buf);
    assert_true(len < sizeof(buf));
    c = quern__interval__unpack(NULL, len, buf);
    assert_non_null(c);
    stats_reset(&st[0]);
    st[0].count = 1;
    st[0].err_tech = 1;
    stats_note_kind(&st[0], 1, 503, "HTTP status 503", 1500, NULL);
    b = interval_sum_msg_new(7, 42, st, 2, runs, missed, scens, 2, 1, 0, 0);
    xfree(b->steps[0]->error_kinds[0]->trace_id);
    b->steps[0]->error_kinds[0]->trace_id = xstrdup("\x1b[2J not an id");
    interval_sum_init(&s, 2, 2);
    assert_int_equal(interval_sum_add_msg(&s, c, scens, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&s, b, scens, err, sizeof(err)), 0);
    assert_int_equal(errkinds_sorted(s.steps[0].kinds, rows), 2);
    assert_int_equal(rows[0]->code, 503);
    assert_int_equal(rows[0]->count, 3);
    assert_int_equal(rows[0]->first_ms, 1500);
    assert_int_equal(rows[0]->last_ms, 2500);
    /* the earliest had no example (its trace id, not one, was dropped): the other's kept */
    assert_string_equal(rows[0]->ex.trace, "0af7651916cd43dd8448eb211c80319c");
    assert_string_equal(rows[1]->msg, "Operation timed out after N milliseconds");
    assert_null(s.steps[1].kinds);
    interval_sum_reset(&s);
    assert_int_equal(interval_sum_add_msg(&s, a, scens, err, sizeof(err)), 0);
    assert_int_equal(errkinds_sorted(s.steps[0].kinds, rows), 2);
    assert_string_equal(rows[0]->ex.url, "http://h/a");
    assert_string_equal(rows[0]->ex.body, "down");
    assert_string_equal(rows[0]->ex.trace, "0af7651916cd43dd8448eb211c80319c");
    quern__interval__free_unpacked(c, NULL);
    interval_sum_msg_free(a);
    interval_sum_msg_free(b);
    interval_sum_free(&s);
    stats_array_free(st, 2);
}

static void test_injector(void **state)
{
    interval_sum agent1, agent2, console;
    Quern__Interval *w0 = worker_load(0, 400, 1000, 0), *w1 = worker_load(1, 1000, 250000, 1);
    Quern__Interval *up1, *up2;
    char err[ERR_MAX];

    (void)state;
    assert_int_equal(w0->n_injector, 1);
    assert_string_equal(w0->injector[0]->agent, "");
    interval_sum_init(&agent1, 0, 0);
    interval_sum_init(&agent2, 0, 0);
    interval_sum_init(&console, 0, 0);
    assert_int_equal(interval_sum_add_msg(&agent1, w0, NULL, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&agent1, w1, NULL, err, sizeof(err)), 0);
    assert_int_equal(agent1.nload, 2);
    assert_int_equal(agent1.load[1].worker, 1);
    assert_int_equal(agent1.load[1].cpu_permille, 1000);
    up1 = interval_sum_msg_new(1, 3, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0);
    interval_sum_msg_set_injector(up1, agent1.load, agent1.nload, "east");
    assert_int_equal(interval_sum_add_msg(&agent2, w1, NULL, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&agent2, w0, NULL, err, sizeof(err)), 0);
    up2 = interval_sum_msg_new(1, 3, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0);
    interval_sum_msg_set_injector(up2, agent2.load, agent2.nload, "we\033st"); /* not printable */
    assert_int_equal(interval_sum_add_msg(&console, up1, NULL, err, sizeof(err)), 0);
    assert_int_equal(interval_sum_add_msg(&console, up2, NULL, err, sizeof(err)), 0);
    assert_int_equal(console.nload, 4);
    assert_string_equal(console.load[0].agent, "east");
    assert_int_equal(console.load[0].worker, 0);
    assert_int_equal(console.load[0].saturated, 0);
    assert_string_equal(console.load[1].agent, "east");
    assert_int_equal(console.load[1].worker, 1);
    assert_int_equal(console.load[1].saturated, 1);
    assert_int_equal(console.load[1].why, 5);
    assert_int_equal(console.load[1].loop_lag_max_us, 250000);
    assert_int_equal(console.load[1].start_lag_p99_us, 7);
    assert_string_equal(console.load[2].agent, "we?st");
    assert_int_equal(console.load[2].worker, 1);
    {
        hist *h = hist_new();
        assert_int_equal(hist_merge_encoded(h, console.load[1].lag, console.load[1].lag_len), 0);
        assert_int_equal(hist_count(h), 3);
        assert_int_equal(hist_max(h), 250000);
        hist_free(h);
    }
    interval_sum_reset(&console);
    assert_int_equal(console.nload, 0);
    interval_sum_free(&agent1);
    interval_sum_free(&agent2);
    interval_sum_free(&console);
    interval_sum_msg_free(up1);
    interval_sum_msg_free(up2);
    interval_sum_msg_free(w0);
    interval_sum_msg_free(w1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_message),      cmocka_unit_test(test_sum),
        cmocka_unit_test(test_service),      cmocka_unit_test(test_scenario_names),
        cmocka_unit_test(test_limits),       cmocka_unit_test(test_start_lag),
        cmocka_unit_test(test_injector),     cmocka_unit_test(test_websocket),
        cmocka_unit_test(test_socket_bytes), cmocka_unit_test(test_slowest),
        cmocka_unit_test(test_error_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
