/* InfluxDB line protocol: escaping of measurements, tag keys and values
 * (spaces, commas, '=', backslashes, control characters) and field
 * strings, and the exact points of a small second and of the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "console/outinflux.h"

static const char *esc(const char *s, enum outinflux_what w)
{
    static char buf[256];

    outinflux_escape(s, w, buf, sizeof(buf));
    return buf;
}

static void test_escaping(void **state)
{
    char small[6];

    assert_string_equal(esc("SC-A-STEP-1)Log in, then=go", OUTINFLUX_KEY),
                        "SC-A-STEP-1)Log\\ in\\,\\ then\\=go");
    assert_string_equal(esc("a b,c=d", OUTINFLUX_MEASUREMENT), "a\\ b\\,c=d");
    assert_string_equal(esc("say \"hi\" \\o/", OUTINFLUX_STRING), "say \\\"hi\\\" \\\\o/");
    /* a literal backslash stays one, unless it would escape what follows */
    assert_string_equal(esc("C:\\temp", OUTINFLUX_KEY), "C:\\temp");
    assert_string_equal(esc("a\\ b", OUTINFLUX_KEY), "a\\\\\\ b");
    assert_string_equal(esc("end\\\\", OUTINFLUX_KEY), "end");
    assert_string_equal(esc("a\\\\b", OUTINFLUX_KEY), "a\\\\\\b");
    assert_string_equal(esc("two\nlines\tx", OUTINFLUX_KEY), "two\\ lines\\ x");
    /* truncation: the length needed is returned, the buffer stays a string */
    assert_int_equal(outinflux_escape("a b c d", OUTINFLUX_KEY, small, sizeof(small)), 10);
    assert_string_equal(small, "a\\ b\\");
}

static void test_points(void **state)
{
    step_stats st[2];
    const char *names[] = {"SC-A-STEP-1)Log in", "SC-A-STEP-2)Buy=now"};
    const char *scens[] = {"A b", ""};
    props *tags = props_new();
    out_input in = {0};
    size_t len;
    char *got;

    stats_init(&st[0]);
    stats_init(&st[1]);
    stats_record(&st[0], 1000, 1000);
    stats_record(&st[0], 3000, 3000);
    st[0].count = 2;
    st[0].err_tech = 1;
    st[0].bytes_in = 100;
    st[0].bytes_out = 50;
    props_set(tags, "env", "pre prod");
    props_set(tags, "run", "hidden"); /* quern's own tag wins */
    in.run = "night,ly";
    in.run_id = 7;
    in.second = 3;
    in.nsteps = 2;
    in.steps = st;
    in.names = names;
    in.scens = scens;
    in.vus = 4;
    in.has_arrivals = 1;
    in.arrivals.scheduled = 5;
    in.arrivals.started = 4;
    in.arrivals.dropped = 1;
    in.tags = tags;
    in.now_ns = 1700000000000000000;
    got = outinflux_render(&in, &len);
    assert_int_equal(len, strlen(got));
    assert_string_equal(
        got, "quern,step=SC-A-STEP-1)Log\\ in,scenario=A\\ b,run=7,name=night\\,ly,env=pre\\ prod "
             "count=2i,errors=1i,err_technical=1i,err_functional=0i,bytes_received=100i,"
             "bytes_sent=50i,mean=2.000,p50=1.000,p90=3.000,p95=3.000,p99=3.000,max=3.000 "
             "1700000000000000000\n"
             "quern,step=SC-A-STEP-2)Buy\\=now,run=7,name=night\\,ly,env=pre\\ prod "
             "count=0i,errors=0i,err_technical=0i,err_functional=0i,bytes_received=0i,"
             "bytes_sent=0i,mean=0.000,p50=0.000,p90=0.000,p95=0.000,p99=0.000,max=0.000 "
             "1700000000000000000\n"
             "quern_run,run=7,name=night\\,ly,env=pre\\ prod vus=4i,arrivals_scheduled=5i,"
             "arrivals_started=4i,arrivals_late=0i,arrivals_dropped=1i 1700000000000000000\n");
    xfree(got);
    in.final = 1;
    in.has_arrivals = 0;
    got = outinflux_render(&in, &len);
    assert_non_null(strstr(got, "quern_total,step=SC-A-STEP-1)Log\\ in,"));
    assert_null(strstr(got, "\nquern,"));
    assert_non_null(strstr(got, "quern_run,run=7,name=night\\,ly,env=pre\\ prod vus=4i "));
    xfree(got);
    /* errors by kind: one point per class and code, messages summed */
    stats_note_kind(&st[0], 1, 503, "HTTP status 503", 1, NULL);
    stats_note_kind(&st[0], 1, 503, "HTTP status 503", 2, NULL);
    stats_note_kind(&st[0], 0, 0, "check a", 3, NULL);
    stats_note_kind(&st[0], 0, 0, "check b", 4, NULL);
    in.final = 0;
    got = outinflux_render(&in, &len);
    assert_non_null(strstr(got, "\nquern_errors,step=SC-A-STEP-1)Log\\ in,scenario=A\\ b,run=7,"
                                "name=night\\,ly,env=pre\\ prod,class=technical,code=503 count=2i "
                                "1700000000000000000\n"));
    assert_non_null(strstr(got, ",class=functional,code=0 count=2i "));
    xfree(got);

    /* the script's checks and metrics: a point each, the check's name escaped */
    {
        tally t;
        char err[ERR_MAX];
        tally_init(&t);
        t.checks[tally_check_id(&t, "status is 200")].passes = 9;
        t.checks[tally_check_id(&t, "status is 200")].fails = 1;
        tally_counter_add(&t.metrics[tally_metric_def(&t, "orders", TALLY_COUNTER, err, 128)], 3);
        tally_metric_def(&t, "queue", TALLY_GAUGE, err, 128); /* never set: no point */
        tally_trend_add(&t.metrics[tally_metric_def(&t, "basket", TALLY_TREND, err, 128)], 2);
        in.tally = &t;
        in.final = 0;
        got = outinflux_render(&in, &len);
        assert_non_null(strstr(got, "quern_check,check=status\\ is\\ 200,run=7,name=night\\,ly,"
                                    "env=pre\\ prod passes=9i,fails=1i 1700000000000000000\n"));
        assert_non_null(strstr(got,
                               "quern_metric,metric=orders,kind=counter,run=7,"
                               "name=night\\,ly,env=pre\\ prod total=3 1700000000000000000\n"));
        assert_non_null(strstr(got, "quern_metric,metric=basket,kind=trend,run=7,name=night\\,ly,"
                                    "env=pre\\ prod count=1i,mean=2,p50=2,p95=2,p99=2,max=2 "));
        assert_null(strstr(got, "metric=queue"));
        xfree(got);
        in.final = 1;
        got = outinflux_render(&in, &len);
        assert_non_null(strstr(got, "quern_check_total,check=status\\ is\\ 200,"));
        assert_non_null(strstr(got, "quern_metric_total,metric=orders,"));
        xfree(got);
        tally_free(&t);
    }
    props_free(tags);
    stats_free(&st[0]);
    stats_free(&st[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_points),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
