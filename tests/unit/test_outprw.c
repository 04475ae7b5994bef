/* Remote write: the request of a small run decoded back (snappy, then
 * protobuf-c) gives prom.c's series with the labels name and the tags,
 * sorted by name, one sample each at the push's time; label values are
 * unescaped from the text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <snappy-c.h>
#include <string.h>

#include "common/mem.h"
#include "console/outprw.h"
#include "console/prom.h"
#include "proto/prw.pb-c.h"

/* The value of label name in ts, or NULL. */
static const char *label(const Prw__TimeSeries *ts, const char *name)
{
    for (size_t i = 0; i < ts->n_labels; i++)
        if (strcmp(ts->labels[i]->name, name) == 0)
            return ts->labels[i]->value;
    return NULL;
}

/* The series named name whose label k is v (k NULL: any). */
static const Prw__TimeSeries *series(const Prw__WriteRequest *wr, const char *name, const char *k,
                                     const char *v)
{
    for (size_t i = 0; i < wr->n_timeseries; i++) {
        const Prw__TimeSeries *ts = wr->timeseries[i];
        const char *n = label(ts, "__name__");
        if (n != NULL && strcmp(n, name) == 0 && (k == NULL || strcmp(label(ts, k), v) == 0))
            return ts;
    }
    return NULL;
}

static void test_round_trip(void **state)
{
    agg a;
    step_stats *st = stats_array_new(1);
    uint64_t runs = 1, missed = 0;
    const char *names[] = {"SC-A-STEP-1)Log \"in\""}, *scens[] = {"A"};
    props *tags = props_new();
    out_input in = {0};
    size_t len, plen;
    uint8_t *body;
    char *plain;
    Prw__WriteRequest *wr;
    const Prw__TimeSeries *ts;

    agg_init(&a, 1, 1);
    for (int i = 0; i < 3; i++)
        stats_record(&st[0], 1000 * (i + 1), 1000 * (i + 1));
    st[0].count = 3;
    st[0].err_tech = 1;
    agg_add(&a, st, &runs, &missed, 1000000, 2);
    props_set(tags, "env", "ci");
    props_set(tags, "9-team.x", "a b");
    props_set(tags, "run", "hidden"); /* quern's own label wins */
    in.run = "nightly";
    in.nsteps = 1;
    in.names = names;
    in.scens = scens;
    in.tags = tags;
    in.a = &a;
    in.vus_max = 5;
    in.now_ns = 1700000000123456789;
    body = outprw_render(&in, &len);
    assert_non_null(body);
    assert_int_equal(snappy_uncompressed_length((const char *)body, len, &plen), SNAPPY_OK);
    plain = xmalloc(plen);
    assert_int_equal(snappy_uncompress((const char *)body, len, plain, &plen), SNAPPY_OK);
    wr = prw__write_request__unpack(NULL, plen, (const uint8_t *)plain);
    assert_non_null(wr);
    ts = series(wr, "quern_requests_total", NULL, NULL);
    assert_non_null(ts);
    assert_string_equal(label(ts, "step"), names[0]);
    assert_string_equal(label(ts, "run"), "nightly");
    assert_string_equal(label(ts, "name"), "nightly");
    assert_string_equal(label(ts, "env"), "ci");
    assert_string_equal(label(ts, "_9_team_x"), "a b");
    assert_int_equal(ts->n_labels, 6);
    assert_int_equal(ts->n_samples, 1);
    assert_true(ts->samples[0]->value == 3.0);
    assert_int_equal(ts->samples[0]->timestamp, 1700000000123);
    ts = series(wr, "quern_errors_total", "kind", "technical");
    assert_non_null(ts);
    assert_true(ts->samples[0]->value == 1.0);
    ts = series(wr, "quern_latency_seconds_bucket", "le", "+Inf");
    assert_non_null(ts);
    assert_true(ts->samples[0]->value == 3.0);
    ts = series(wr, "quern_latency_seconds_bucket", "le", "0.0025");
    assert_non_null(ts);
    assert_true(ts->samples[0]->value == 2.0);
    assert_non_null(series(wr, "quern_service_seconds_count", NULL, NULL));
    ts = series(wr, "quern_vus_max", NULL, NULL);
    assert_true(ts->samples[0]->value == 5.0);
    /* every series' labels are sorted by name, and no label is repeated */
    for (size_t i = 0; i < wr->n_timeseries; i++)
        for (size_t j = 1; j < wr->timeseries[i]->n_labels; j++)
            assert_true(strcmp(wr->timeseries[i]->labels[j - 1]->name,
                               wr->timeseries[i]->labels[j]->name) < 0);
    prw__write_request__free_unpacked(wr, NULL);
    xfree(plain);
    xfree(body);
    props_free(tags);
    stats_array_free(st, 1);
    agg_free(&a);
}

static void test_from_text(void **state)
{
    const char *extra[] = {"name", "n"};
    const char *text = "# HELP x y\n# TYPE x counter\nx{run=\"a\\\\b\\\"c\\nd\",step=\"s\"} 4\n"
                       "y 2.5\nbroken{run=\"x} 1\n";
    size_t len;
    uint8_t *pb = outprw_from_text(text, extra, 1, 42, &len);
    Prw__WriteRequest *wr = prw__write_request__unpack(NULL, len, pb);

    assert_non_null(wr);
    assert_int_equal(wr->n_timeseries, 2);
    assert_string_equal(label(wr->timeseries[0], "run"), "a\\b\"c\nd");
    assert_string_equal(wr->timeseries[0]->labels[0]->name, "__name__");
    assert_string_equal(wr->timeseries[0]->labels[1]->name, "name");
    assert_string_equal(label(wr->timeseries[1], "__name__"), "y");
    assert_true(wr->timeseries[1]->samples[0]->value == 2.5);
    assert_int_equal(wr->timeseries[1]->samples[0]->timestamp, 42);
    prw__write_request__free_unpacked(wr, NULL);
    xfree(pb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_from_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
