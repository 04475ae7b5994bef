/* Unit tests for proto/interval_decode: an Envelope holding an Interval (steps,
 * scenarios, injector entries, every scalar) decoded in place packs back to
 * the very bytes protobuf-c packed, its histograms pointing into the frame;
 * other messages, unknown fields, status lists and truncated frames are left
 * to protobuf-c; and over thousands of one-byte mutations, whatever
 * interval_decode takes protobuf-c also takes, with the same content. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/stats.h"
#include "proto/interval_decode.h"
#include "proto/interval_sum.h"
#include "proto/interval_tally.h"

static uint64_t seed = 88172645463325252ull;

static uint64_t rng(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* A packed Envelope with an Interval of nsteps steps of samples, one
 * scenario, and injector entries: what an agent sends. */
static uint8_t *packed_interval(size_t nsteps, size_t *len)
{
    step_stats *st = stats_array_new(nsteps);
    const char *names[] = {"FANIN"};
    uint64_t runs = 7, missed = 1;
    rate_counts arr = {10, 9, 2, 1, 0, 0};
    hist *lag = hist_new();
    interval_sum_load load[2];
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Interval *m;
    uint8_t *out;
    tally t;
    char err[ERR_MAX];

    tally_init(&t);
    t.checks[tally_check_id(&t, "status is 200")].passes = 9;
    t.checks[tally_check_id(&t, "status is 200")].fails = 1;
    tally_counter_add(&t.metrics[tally_metric_def(&t, "orders", TALLY_COUNTER, err, 128)], 2.5);
    tally_gauge_set(&t.metrics[tally_metric_def(&t, "queue", TALLY_GAUGE, err, 128)], -3.25,
                    1700000000000000);
    tally_trend_add(&t.metrics[tally_metric_def(&t, "basket", TALLY_TREND, err, 128)], 12.5);
    for (size_t i = 0; i < nsteps; i++) {
        for (int k = 0; k < 20; k++) {
            uint64_t us = 1000 + rng() % 200000;
            stats_record(&st[i], us, us);
        }
        st[i].err_tech = i % 3 == 0 ? 1 : 0;
        st[i].bytes_in = 100 * i;
        if (i == 1)
            stats_note_error_trace(&st[i], 1, "connection refused",
                                   "0af7651916cd43dd8448eb211c80319c");
        for (int k = 0; k < (int)(i % 3); k++) { /* slowest samples, none in some steps */
            slowest_entry e = {rng() % 100000, k == 0 ? -5 : (int64_t)(rng() >> 12),
                               (uint32_t)(rng() % 1000), "4bf92f3577b34da6a3ce929d0e0e4736"};
            stats_offer_slow(&st[i], 10, &e);
        }
    }
    hist_record(lag, 4200);
    memset(load, 0, sizeof(load));
    snprintf(load[0].agent, sizeof(load[0].agent), "east");
    load[0].cpu_permille = 950;
    load[0].loop_lag_max_us = 80000;
    load[0].saturated = 1;
    load[0].why = 1;
    interval_sum_load_set_lag(&load[0], lag);
    load[1].worker = 1;
    m = interval_sum_msg_new(77, 12, st, nsteps, &runs, &missed, names, 1, 40, 2, 0);
    interval_sum_msg_set_arrivals(m, &arr);
    interval_sum_msg_set_lag(m, &lag);
    interval_sum_msg_set_injector(m, load, 2, "agent-a");
    interval_sum_msg_set_little(m, 5, 6, 7);
    interval_sum_msg_set_held(m, 3, 300, 200);
    interval_tally_msg_set(m, &t);
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = m;
    *len = quern__envelope__get_packed_size(&env);
    out = xmalloc(*len);
    quern__envelope__pack(&env, out);
    interval_sum_msg_free(m);
    tally_free(&t);
    interval_sum_load_clear(&load[0]);
    hist_free(lag);
    stats_array_free(st, nsteps);
    return out;
}

/* The envelope packed again by protobuf-c, into a new buffer of *len bytes. */
static uint8_t *repack(const Quern__Envelope *env, size_t *len)
{
    uint8_t *out;

    *len = quern__envelope__get_packed_size(env);
    out = xmalloc(*len ? *len : 1);
    quern__envelope__pack(env, out);
    return out;
}

static void test_round_trip(void **state)
{
    size_t len, len2;
    uint8_t *buf = packed_interval(50, &len), *copy = xmalloc(len), *again;
    interval_decode d;

    (void)state;
    memcpy(copy, buf, len);
    assert_int_equal(interval_decode_envelope(buf, len, &d), 1);
    assert_int_equal(d.env.body_case, QUERN__ENVELOPE__BODY_INTERVAL);
    assert_int_equal(d.iv.run_id, 77);
    assert_int_equal(d.iv.second, 12);
    assert_int_equal(d.iv.n_steps, 50);
    assert_int_equal(d.iv.n_scenarios, 1);
    assert_int_equal(d.iv.n_injector, 2);
    assert_string_equal(d.iv.scenarios[0]->name, "FANIN");
    assert_string_equal(d.iv.injector[0]->agent, "agent-a");
    assert_string_equal(d.iv.steps[1]->sample_technical, "connection refused");
    assert_int_equal(d.iv.n_checks, 1);
    assert_string_equal(d.iv.checks[0]->name, "status is 200");
    assert_int_equal(d.iv.checks[0]->fails, 1);
    assert_int_equal(d.iv.n_metrics, 3);
    assert_true(d.iv.metrics[0]->sum == 2.5);
    assert_true(d.iv.metrics[1]->value == -3.25 && d.iv.metrics[1]->set_us == 1700000000000000);
    assert_int_equal(d.iv.steps[3]->errors_technical, 1);
    /* the histograms are not copied: they point into the frame */
    assert_true(d.iv.steps[0]->histogram.data > buf && d.iv.steps[0]->histogram.data < buf + len);
    again = repack(&d.env, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(again, copy, len);
    xfree(again);
    interval_decode_free(&d);
    assert_memory_equal(buf, copy, len); /* read only */
    xfree(copy);
    xfree(buf);
}

static void test_left_to_protobuf(void **state)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Ping ping = QUERN__PING__INIT;
    Quern__Interval iv = QUERN__INTERVAL__INIT;
    Quern__StepInterval si = QUERN__STEP_INTERVAL__INIT, *sip = &si;
    Quern__StatusCount sc = QUERN__STATUS_COUNT__INIT, *scp = &sc;
    size_t len;
    uint8_t *buf, *big;
    interval_decode d;

    (void)state;
    ping.seq = 3;
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &ping;
    buf = repack(&env, &len);
    assert_int_equal(interval_decode_envelope(buf, len, &d), 0);
    assert_null(d.block);
    xfree(buf);
    /* a status list: not read here */
    si.count = 1;
    sc.code = 200;
    sc.count = 1;
    si.statuses = &scp;
    si.n_statuses = 1;
    iv.steps = &sip;
    iv.n_steps = 1;
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = &iv;
    buf = repack(&env, &len);
    assert_int_equal(interval_decode_envelope(buf, len, &d), 0);
    xfree(buf);
    /* truncated, or an unknown field added to the Interval */
    si.n_statuses = 0;
    buf = repack(&env, &len);
    assert_int_equal(interval_decode_envelope(buf, len, &d), 1);
    interval_decode_free(&d);
    assert_int_equal(interval_decode_envelope(buf, len - 1, &d), 0);
    big = xmalloc(len + 3);
    memcpy(big, buf, len);
    big[1] += 3;      /* the Interval's length (one byte here) */
    big[len] = 0xe0;  /* field 60, unknown to Interval, a varint: */
    big[len + 1] = 3; /* key (60 << 3) | 0 in two bytes */
    big[len + 2] = 1;
    assert_int_equal(interval_decode_envelope(big, len + 3, &d), 0);
    {
        Quern__Envelope *ref = quern__envelope__unpack(NULL, len + 3, big);
        assert_non_null(ref); /* protobuf-c keeps it as an unknown field */
        quern__envelope__free_unpacked(ref, NULL);
    }
    xfree(big);
    xfree(buf);
}

/* Sets every plain field of msg (of md) to a value of its own; a field of a
 * type interval_decode does not read in place fails the test. */
static void fill_scalars(const ProtobufCMessageDescriptor *md, void *msg, char *str)
{
    for (unsigned i = 0; i < md->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &md->fields[i];
        char *p = (char *)msg + fd->offset;

        if (fd->label != PROTOBUF_C_LABEL_NONE)
            continue;
        switch (fd->type) {
        case PROTOBUF_C_TYPE_UINT32:
            *(uint32_t *)p = 1000 + fd->id;
            break;
        case PROTOBUF_C_TYPE_UINT64:
            *(uint64_t *)p = 100000 + fd->id;
            break;
        case PROTOBUF_C_TYPE_INT64:
            *(int64_t *)p = -100000 - fd->id;
            break;
        case PROTOBUF_C_TYPE_BOOL:
            *(protobuf_c_boolean *)p = 1;
            break;
        case PROTOBUF_C_TYPE_DOUBLE:
            *(double *)p = -0.5 - fd->id;
            break;
        case PROTOBUF_C_TYPE_STRING:
            *(char **)p = str;
            break;
        case PROTOBUF_C_TYPE_BYTES:
            ((ProtobufCBinaryData *)p)->data = (uint8_t *)str;
            ((ProtobufCBinaryData *)p)->len = strlen(str);
            break;
        default:
            fail_msg("%s.%s: a type interval_decode does not read in place", md->name, fd->name);
        }
    }
}

/* Every field quern.proto gives the Interval and its entries, set at once,
 * is read in place (a field the decoder does not know would send every
 * Interval to protobuf-c) and packs back to the same bytes. */
static void test_every_field_in_place(void **state)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Interval iv = QUERN__INTERVAL__INIT;
    Quern__StepInterval si = QUERN__STEP_INTERVAL__INIT, *sip = &si;
    Quern__ScenarioCount sc = QUERN__SCENARIO_COUNT__INIT, *scp = &sc;
    Quern__InjectorLoad il = QUERN__INJECTOR_LOAD__INIT, *ilp = &il;
    Quern__SlowSample sl[2] = {QUERN__SLOW_SAMPLE__INIT, QUERN__SLOW_SAMPLE__INIT};
    Quern__SlowSample *slp[2] = {&sl[0], &sl[1]};
    Quern__CheckCount cc = QUERN__CHECK_COUNT__INIT, *ccp = &cc;
    Quern__MetricSample ms = QUERN__METRIC_SAMPLE__INIT, *msp = &ms;
    char str[] = "abc";
    size_t len, len2;
    uint8_t *buf, *again;
    interval_decode d;

    (void)state;
    fill_scalars(&quern__interval__descriptor, &iv, str);
    fill_scalars(&quern__step_interval__descriptor, &si, str);
    fill_scalars(&quern__scenario_count__descriptor, &sc, str);
    fill_scalars(&quern__injector_load__descriptor, &il, str);
    fill_scalars(&quern__slow_sample__descriptor, &sl[0], str);
    fill_scalars(&quern__slow_sample__descriptor, &sl[1], str);
    fill_scalars(&quern__check_count__descriptor, &cc, str);
    fill_scalars(&quern__metric_sample__descriptor, &ms, str);
    sl[1].latency_us = 7;
    iv.checks = &ccp;
    iv.n_checks = 1;
    iv.metrics = &msp;
    iv.n_metrics = 1;
    si.slowest = slp;
    si.n_slowest = 2;
    iv.steps = &sip;
    iv.n_steps = 1;
    iv.scenarios = &scp;
    iv.n_scenarios = 1;
    iv.injector = &ilp;
    iv.n_injector = 1;
    env.body_case = QUERN__ENVELOPE__BODY_INTERVAL;
    env.interval = &iv;
    buf = repack(&env, &len);
    assert_int_equal(interval_decode_envelope(buf, len, &d), 1);
    again = repack(&d.env, &len2);
    assert_int_equal(len2, len);
    assert_memory_equal(again, buf, len);
    xfree(again);
    interval_decode_free(&d);
    xfree(buf);
}

/* What interval_decode takes protobuf-c takes, with the same content. */
static void test_mutations_agree(void **state)
{
    size_t len;
    uint8_t *good = packed_interval(6, &len), *bad = xmalloc(len);
    unsigned taken = 0;

    (void)state;
    for (int i = 0; i < 20000; i++) {
        interval_decode d;
        size_t cut = i % 7 == 0 ? (size_t)(rng() % len) : len;
        memcpy(bad, good, len);
        bad[rng() % len] = (uint8_t)rng();
        if (interval_decode_envelope(bad, cut, &d) == 1) {
            Quern__Envelope *ref = quern__envelope__unpack(NULL, cut, bad);
            size_t a, b;
            uint8_t *pa, *pb;
            assert_non_null(ref);
            pa = repack(&d.env, &a);
            pb = repack(ref, &b);
            assert_int_equal(a, b);
            assert_memory_equal(pa, pb, a);
            xfree(pa);
            xfree(pb);
            quern__envelope__free_unpacked(ref, NULL);
            interval_decode_free(&d);
            taken++;
        }
    }
    assert_true(taken > 1000); /* most one-byte changes land in a count */
    xfree(bad);
    xfree(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_left_to_protobuf),
        cmocka_unit_test(test_every_field_in_place),
        cmocka_unit_test(test_mutations_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
