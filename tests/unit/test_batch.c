/* Unit tests for worker/batch: the per-origin key of a batch's requests and
 * how r:expect's accepted statuses leave a batch's one sample its errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "worker/plugs/batch.h"
#include "worker/plugs/pageres.h"

static void test_origin_len(void **state)
{
    assert_int_equal(pageres_origin_len("http://h:8080/a/b?c"), strlen("http://h:8080"));
    assert_int_equal(pageres_origin_len("https://h"), strlen("https://h"));
}

/* A batch of n items, as batch_prepare leaves it, without a VU. */
static batch *mk(batch_item *it, uint8_t *busy, size_t n, enum batch_mode mode)
{
    static batch b;

    memset(&b, 0, sizeof(b));
    memset(it, 0, n * sizeof(*it));
    b.it = it;
    b.busy = busy;
    b.n = b.cap = n;
    b.mode = (uint8_t)mode;
    b.err_item = -1;
    return &b;
}

static void test_origins(void **state)
{
    batch_item it[5];
    uint8_t busy[5];
    batch *b = mk(it, busy, 5, BATCH_EACH);

    batch_set_url(b, 0, "http://a:1/x");
    batch_set_url(b, 1, "http://b:1/x");
    batch_set_url(b, 2, "HTTP://A:1/other?q"); /* an origin is compared without case */
    batch_set_url(b, 3, "http://a:2/x");       /* another port: another origin */
    batch_set_url(b, 4, "http://b:1");
    assert_int_equal(it[0].origin, 0);
    assert_int_equal(it[1].origin, 1);
    assert_int_equal(it[2].origin, 0);
    assert_int_equal(it[3].origin, 3);
    assert_int_equal(it[4].origin, 1);
}

/* Item i done with status st. */
static void done(batch *b, size_t i, int st)
{
    b->it[i].how = BATCH_DONE;
    b->it[i].res.status = st;
}

static void test_accept_one_sample(void **state)
{
    batch_item it[3];
    uint8_t busy[3];
    batch *b = mk(it, busy, 3, BATCH_ONE);
    sample s;

    memset(&s, 0, sizeof(s));
    s.seq = b->seq = 7;
    done(b, 0, 404);
    done(b, 1, 500);
    done(b, 2, 200);
    /* the 404 came first: the sample's error is its */
    s.err = SAMPLE_TECH;
    s.status_err = 1;
    err_set(s.msg, sizeof(s.msg), "HTTP status 404");
    b->err_item = 0;
    batch_accept(b, &s, 0);
    assert_int_equal(s.err, SAMPLE_TECH); /* the 500 takes its place */
    assert_string_equal(s.msg, "HTTP status 500");
    assert_int_equal(b->err_item, 1);
    batch_accept(b, &s, 2); /* another's status: the error stays */
    assert_int_equal(s.err, SAMPLE_TECH);
    batch_accept(b, &s, 1);
    assert_int_equal(s.err, SAMPLE_OK); /* every error status accepted */
    assert_int_equal(s.status_err, 0);
    assert_string_equal(s.msg, "");

    /* the 500 first: accepting the 404 leaves it */
    b = mk(it, busy, 3, BATCH_ONE);
    s.seq = b->seq = 8;
    done(b, 0, 404);
    done(b, 1, 500);
    s.err = SAMPLE_TECH;
    s.status_err = 1;
    err_set(s.msg, sizeof(s.msg), "HTTP status 500");
    b->err_item = 1;
    batch_accept(b, &s, 0);
    assert_string_equal(s.msg, "HTTP status 500");
    batch_accept(b, &s, 1); /* then the 404, already accepted, is no error */
    assert_int_equal(s.err, SAMPLE_OK);
}

static void test_accept_each(void **state)
{
    batch_item it[2];
    uint8_t busy[2];
    batch *b = mk(it, busy, 2, BATCH_EACH);

    done(b, 0, 404);
    it[0].s.err = SAMPLE_TECH;
    it[0].s.status_err = 1;
    batch_accept(b, &it[0].s, 0);
    assert_int_equal(it[0].s.err, SAMPLE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_len),
        cmocka_unit_test(test_origins),
        cmocka_unit_test(test_accept_one_sample),
        cmocka_unit_test(test_accept_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
