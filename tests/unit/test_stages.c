/* Unit tests for common/stages: parsing, targets, ids and their times. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/err.h"
#include "common/stages.h"

#include <string.h>

#define S 1000000ll

static size_t parse_ok(const char *s, stage *st)
{
    char err[ERR_MAX] = "";
    size_t n = 99;

    if (stages_parse(s, st, STAGES_MAX, &n, err, sizeof(err)) != 0)
        fail_msg("stages_parse(\"%s\") failed: %s", s, err);
    return n;
}

static void parse_fails(const char *s, const char *want)
{
    stage st[8];
    char err[ERR_MAX] = "";
    size_t n = 99;

    if (stages_parse(s, st, 8, &n, err, sizeof(err)) != -1)
        fail_msg("stages_parse(\"%s\") accepted it", s);
    assert_int_equal(n, 0);
    if (strstr(err, want) == NULL)
        fail_msg("stages_parse(\"%s\"): error \"%s\" lacks \"%s\"", s, err, want);
}

static void times(const stage *st, size_t n, uint64_t id, int64_t *start, int64_t *leave)
{
    if (stages_id_times(st, n, id, start, leave) != 0)
        fail_msg("id %llu has no times", (unsigned long long)id);
}

static void test_parse(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("3s:20,4s:20,3s:0", st);

    assert_int_equal(n, 3);
    assert_int_equal(st[0].dur_us, 3 * S);
    assert_int_equal(st[0].target, 20);
    assert_int_equal(st[1].dur_us, 4 * S);
    assert_int_equal(st[1].target, 20);
    assert_int_equal(st[2].dur_us, 3 * S);
    assert_int_equal(st[2].target, 0);
    assert_int_equal(stages_total_us(st, n), 10 * S);
    assert_int_equal(stages_max(st, n), 20);
    n = parse_ok("1m30s:5", st);
    assert_int_equal(n, 1);
    assert_int_equal(st[0].dur_us, 90 * S);
    n = parse_ok("0s:10,500ms:10", st);
    assert_int_equal(st[0].dur_us, 0);
    assert_int_equal(st[1].dur_us, 500000);
}

static void test_parse_errors(void **state)
{
    stage one;
    char err[ERR_MAX];

    parse_fails("", "empty");
    parse_fails("3s", "\"3s\" is not D:N");
    parse_fails("3x:20", "\"3x:20\": ");
    parse_fails("3x:20", "unit");
    parse_fails("3s:x", "\"x\" is not a whole number of VUs");
    parse_fails("3s:-1", "not a whole number");
    parse_fails("3s:20000000", "not a whole number");
    parse_fails(":20", "no duration");
    parse_fails("3s:20,", "empty stage at position 2");
    parse_fails("3s:20,,3s:0", "empty stage at position 2");
    parse_fails("3s:0", "every stage targets 0 VUs");
    parse_fails("0s:5", "last 0s in all");
    parse_fails("32d:5", "\"32d:5\": ");
    parse_fails("745h:5", "31 days at most");
    parse_fails("1s:1,1s:1,1s:1,1s:1,1s:1,1s:1,1s:1,1s:1,1s:1", "more than 8 stages");
    assert_int_equal(stages_parse_one("2s:4", &one, err, sizeof(err)), 0);
    assert_int_equal(one.target, 4);
    assert_int_equal(stages_parse_one("2s", &one, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "\"2s\" is not D:N"));
}

static void test_target(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("3s:20,4s:20,3s:0", st);

    assert_true(stages_target(st, n, -1) == 0);
    assert_true(stages_target(st, n, 0) == 0);
    assert_true(stages_target(st, n, 1500000) == 10);
    assert_true(stages_target(st, n, 3 * S) == 20);
    assert_true(stages_target(st, n, 5 * S) == 20);
    assert_true(stages_target(st, n, 8500000) == 10);
    assert_true(stages_target(st, n, 10 * S) == 0);
    assert_true(stages_target(st, n, 99 * S) == 0);
    n = parse_ok("0s:10,2s:20", st); /* a jump, then a climb */
    assert_true(stages_target(st, n, 0) == 10);
    assert_true(stages_target(st, n, 1 * S) == 15);
}

/* The one-stage case is --ramp-up's: id i starts at (i - 1) * D / N. */
static void test_ramp_compat(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("7s:3", st);
    int64_t start, leave;

    assert_int_equal(stages_ids(st, n), 3);
    for (uint64_t i = 1; i <= 3; i++) {
        times(st, n, i, &start, &leave);
        assert_int_equal(start, (int64_t)((double)(i - 1) * (double)(7 * S) / 3.0));
        assert_int_equal(leave, -1);
    }
    assert_int_equal(stages_id_times(st, n, 4, &start, &leave), -1);
    assert_int_equal(stages_id_times(st, n, 0, &start, &leave), -1);
}

/* Ramp up, hold, ramp down: the highest ids leave first; occupancy is the
 * ceiling of the target at every instant. */
static void test_lifo(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("3s:20,4s:20,3s:0", st);
    int64_t start[21], leave[21];

    assert_int_equal(stages_ids(st, n), 20);
    for (uint64_t i = 1; i <= 20; i++) {
        times(st, n, i, &start[i], &leave[i]);
        assert_int_equal(start[i], (int64_t)(i - 1) * 150000);
        assert_int_equal(leave[i], 7 * S + (int64_t)(21 - i) * 150000);
        if (i > 1) {
            assert_true(start[i] > start[i - 1]);
            assert_true(leave[i] < leave[i - 1]);
        }
    }
    assert_int_equal(leave[1], 10 * S); /* the last one leaves at the end */
    for (int64_t t = 0; t <= 11 * S; t += 50000) {
        unsigned active = 0;
        double want = stages_target(st, n, t);
        for (int i = 1; i <= 20; i++)
            active += start[i] <= t && (leave[i] < 0 || t < leave[i]);
        /* at a slot's own instant the counts may differ by the slot */
        assert_true((double)active >= want - 1e-9 && (double)active < want + 1 + 1e-9);
    }
}

/* A climb after a descent takes new ids beyond those used. */
static void test_climb_again(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("2s:4,2s:0,2s:4", st);
    int64_t start, leave;

    assert_int_equal(stages_ids(st, n), 8);
    for (uint64_t i = 1; i <= 4; i++) {
        times(st, n, i, &start, &leave);
        assert_true(start < 2 * S);
        assert_true(leave > 2 * S && leave <= 4 * S);
    }
    times(st, n, 4, &start, &leave);
    assert_int_equal(leave, 2 * S + 500000); /* the highest first */
    times(st, n, 1, &start, &leave);
    assert_int_equal(leave, 4 * S);
    for (uint64_t i = 5; i <= 8; i++) {
        times(st, n, i, &start, &leave);
        assert_int_equal(start, 4 * S + (int64_t)(i - 5) * 500000);
        assert_int_equal(leave, -1);
    }
    assert_int_equal(stages_id_times(st, n, 9, &start, &leave), -1);
    /* a partial descent: the survivors keep their ids, the climb adds new ones */
    n = parse_ok("1s:5,1s:2,1s:6", st);
    assert_int_equal(stages_ids(st, n), 9);
    times(st, n, 2, &start, &leave);
    assert_int_equal(leave, -1);
    times(st, n, 3, &start, &leave);
    assert_int_equal(leave, 2 * S);
    times(st, n, 6, &start, &leave); /* slot 3 again */
    assert_int_equal(start, 2 * S);
    times(st, n, 9, &start, &leave); /* slot 6 */
    assert_int_equal(start, 2 * S + 750000);
}

/* Zero-length stages jump: every slot is taken or left at the same instant. */
static void test_zero_length(void **state)
{
    stage st[STAGES_MAX];
    size_t n = parse_ok("0s:3,2s:3,0s:1,1s:1", st);
    int64_t start, leave;

    assert_int_equal(stages_ids(st, n), 3);
    for (uint64_t i = 1; i <= 3; i++) {
        times(st, n, i, &start, &leave);
        assert_int_equal(start, 0);
        assert_int_equal(leave, i == 1 ? -1 : 2 * S);
    }
    n = parse_ok("1s:2,0s:0,0s:2,1s:2", st);
    assert_int_equal(stages_ids(st, n), 4);
    times(st, n, 2, &start, &leave);
    assert_int_equal(leave, 1 * S);
    times(st, n, 3, &start, &leave);
    assert_int_equal(start, 1 * S);
    assert_int_equal(leave, -1);
}

static void test_check(void **state)
{
    stage st[2] = {{1000000, 5}, {-1, 0}};
    char err[ERR_MAX];

    assert_int_equal(stages_check(st, 1, err, sizeof(err)), 0);
    assert_int_equal(stages_check(st, 2, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "stage 2"));
    assert_int_equal(stages_check(st, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no stage"));
}

/* A list written back reads as the same list; a short buffer is cut. */
static void test_format(void **state)
{
    stage st[STAGES_MAX], back[STAGES_MAX];
    size_t n = 0, m = 0;
    char err[ERR_MAX], buf[256], tiny[8];

    (void)state;
    assert_int_equal(
        stages_parse("3s:20,4000ms:20,1m30s:0,0:5", st, STAGES_MAX, &n, err, sizeof(err)), 0);
    assert_string_equal(stages_format(st, n, buf, sizeof(buf)), "3s:20,4s:20,1m30s:0,0s:5");
    assert_int_equal(stages_parse(buf, back, STAGES_MAX, &m, err, sizeof(err)), 0);
    assert_int_equal(m, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(back[i].dur_us, st[i].dur_us);
        assert_int_equal(back[i].target, st[i].target);
    }
    stages_format(st, n, tiny, sizeof(tiny));
    assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
    assert_string_equal(stages_format(st, 0, buf, sizeof(buf)), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),       cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_target),      cmocka_unit_test(test_ramp_compat),
        cmocka_unit_test(test_lifo),        cmocka_unit_test(test_climb_again),
        cmocka_unit_test(test_zero_length), cmocka_unit_test(test_check),
        cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
