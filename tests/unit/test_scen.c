/* Step ids, duplicate detection and the VU split by weight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "worker/wire/scen.h"

static void test_step_ids_and_names(void **state)
{
    scen_set set;
    char err[ERR_MAX];
    scen *sc;
    step *st;

    scen_set_init(&set);
    sc = scen_add(&set, "CONSULTATION-PROFIL", "a.lua:3", err, sizeof(err));
    assert_non_null(sc);
    st = scen_add_step(&set, sc, 2, "Consultation du profil", "a.lua:5", err, sizeof(err));
    assert_non_null(st);
    assert_string_equal(st->id, "SC-CONSULTATION-PROFIL-STEP-2");
    assert_string_equal(st->name, "SC-CONSULTATION-PROFIL-STEP-2)Consultation du profil");
    assert_int_equal(st->index, 0);
    st = scen_add_step(&set, sc, 1, "Login", "a.lua:4", err, sizeof(err));
    assert_int_equal(st->index, 1);
    assert_ptr_equal(sc->first_step, st); /* lowest declared number */
    scen_set_free(&set);
}

static void test_duplicate_step_names_both_places(void **state)
{
    scen_set set;
    char err[ERR_MAX];
    scen *sc;

    scen_set_init(&set);
    sc = scen_add(&set, "X", "a.lua:1", err, sizeof(err));
    assert_non_null(scen_add_step(&set, sc, 1, "one", "a.lua:2", err, sizeof(err)));
    assert_null(scen_add_step(&set, sc, 1, "again", "b.lua:7", err, sizeof(err)));
    assert_string_equal(err,
                        "b.lua:7: duplicate step id SC-X-STEP-1 (already declared at a.lua:2)");
    /* Same number in another scenario is another id. */
    sc = scen_add(&set, "Y", "a.lua:9", err, sizeof(err));
    assert_non_null(scen_add_step(&set, sc, 1, "one", "a.lua:10", err, sizeof(err)));
    assert_int_equal(set.nsteps, 2);
    scen_set_free(&set);
}

static void test_bad_and_duplicate_scenarios(void **state)
{
    scen_set set;
    char err[ERR_MAX];

    scen_set_init(&set);
    assert_null(scen_add(&set, "", "a.lua:1", err, sizeof(err)));
    assert_null(scen_add(&set, "has space", "a.lua:1", err, sizeof(err)));
    assert_non_null(strstr(err, "bad scenario name"));
    assert_non_null(scen_add(&set, "A_b-1", "a.lua:2", err, sizeof(err)));
    assert_null(scen_add(&set, "A_b-1", "c.lua:3", err, sizeof(err)));
    assert_string_equal(err, "c.lua:3: scenario \"A_b-1\" is already declared at a.lua:2");
    assert_null(scen_add_step(&set, set.scens[0], -1, "neg", "a.lua:4", err, sizeof(err)));
    scen_set_free(&set);
}

static void make3(scen_set *set, double w0, double w1, double w2)
{
    char err[ERR_MAX];
    scen_set_init(set);
    scen_add(set, "A", "x:1", err, sizeof(err))->weight = w0;
    scen_add(set, "B", "x:2", err, sizeof(err))->weight = w1;
    scen_add(set, "C", "x:3", err, sizeof(err))->weight = w2;
}

static void test_split_exact_50_25_25(void **state)
{
    scen_set set;
    uint32_t counts[3];
    uint16_t assign[100];
    uint32_t seen[3] = {0, 0, 0};

    make3(&set, 50, 25, 25);
    assert_int_equal(scen_split(&set, 100, counts), 0);
    assert_int_equal(counts[0], 50);
    assert_int_equal(counts[1], 25);
    assert_int_equal(counts[2], 25);
    assert_int_equal(scen_assign(&set, 100, assign), 0);
    for (int i = 0; i < 100; i++)
        seen[assign[i]]++;
    assert_int_equal(seen[0], 50);
    assert_int_equal(seen[1], 25);
    assert_int_equal(seen[2], 25);
    /* Interleaved, so a ramp-up's first VUs are mixed too: every block of 4
     * has two A, one B, one C. */
    for (int b = 0; b < 100; b += 4) {
        uint32_t blk[3] = {0, 0, 0};
        for (int i = b; i < b + 4; i++)
            blk[assign[i]]++;
        assert_int_equal(blk[0], 2);
        assert_int_equal(blk[1], 1);
        assert_int_equal(blk[2], 1);
    }
    scen_set_free(&set);
}

static void test_split_remainders_and_zero(void **state)
{
    scen_set set;
    uint32_t counts[3];
    uint16_t assign[7];

    make3(&set, 1, 1, 1);
    assert_int_equal(scen_split(&set, 7, counts), 0);
    assert_int_equal(counts[0] + counts[1] + counts[2], 7);
    assert_true(counts[0] >= 2 && counts[1] >= 2 && counts[2] >= 2);
    assert_int_equal(scen_assign(&set, 7, assign), 0);
    scen_set_free(&set);

    make3(&set, 1, 0, 3);
    assert_int_equal(scen_split(&set, 8, counts), 0);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 6);
    scen_set_free(&set);

    make3(&set, 0, 0, 0);
    assert_int_equal(scen_split(&set, 8, counts), -1);
    scen_set_free(&set);
}

static void test_thresholds_kept(void **state)
{
    scen_set set;
    char err[ERR_MAX], big[SCEN_THRESHOLD_MAX + 2];

    scen_set_init(&set);
    assert_int_equal(scen_add_threshold(&set, "p95<500ms", "a.lua:3", err, sizeof(err)), 0);
    assert_int_equal(scen_add_threshold(&set, "SC-X-*: errors<1%", "b.lua:9", err, sizeof(err)), 0);
    assert_int_equal(set.nthresholds, 2);
    assert_string_equal(set.thresholds[1].expr, "SC-X-*: errors<1%");
    assert_string_equal(set.thresholds[1].where, "b.lua:9");
    assert_int_equal(scen_add_threshold(&set, "  ", "a.lua:4", err, sizeof(err)), -1);
    assert_string_equal(err, "a.lua:4: threshold: the expression is empty");
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(scen_add_threshold(&set, big, "a.lua:5", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "a.lua:5: threshold: longer than"));
    assert_int_equal(set.nthresholds, 2);
    scen_set_free(&set);
    assert_int_equal(set.nthresholds, 0);
}

/* A scenario with stages of its own gets no share of the run's VUs; its
 * ids come after the shared ones, a block per staged scenario in order. */
static void test_staged_layout(void **state)
{
    scen_set set;
    uint32_t counts[3];
    uint16_t assign[4];

    make3(&set, 1, 1, 1);
    assert_int_equal(scen_has_shared(&set), 1);
    set.scens[0]->stages = xcalloc(2, sizeof(stage));
    set.scens[0]->stages[0] = (stage){1000000, 5};
    set.scens[0]->stages[1] = (stage){1000000, 0};
    set.scens[0]->nstages = 2;
    set.scens[2]->stages = xcalloc(3, sizeof(stage));
    set.scens[2]->stages[0] = (stage){1000000, 2};
    set.scens[2]->stages[1] = (stage){1000000, 0};
    set.scens[2]->stages[2] = (stage){1000000, 3};
    set.scens[2]->nstages = 3;
    assert_int_equal(scen_split(&set, 4, counts), 0);
    assert_int_equal(counts[0], 0);
    assert_int_equal(counts[1], 4);
    assert_int_equal(counts[2], 0);
    assert_int_equal(scen_assign(&set, 4, assign), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(assign[i], 1);
    assert_int_equal(scen_layout(&set, 4), 5 + 5);
    assert_int_equal(set.scens[0]->id_base, 4);
    assert_int_equal(set.scens[2]->id_base, 9);
    assert_null(scen_of_id(&set, 4));
    assert_ptr_equal(scen_of_id(&set, 5), set.scens[0]);
    assert_ptr_equal(scen_of_id(&set, 9), set.scens[0]);
    assert_ptr_equal(scen_of_id(&set, 10), set.scens[2]);
    assert_ptr_equal(scen_of_id(&set, 14), set.scens[2]);
    assert_null(scen_of_id(&set, 15));
    set.scens[1]->weight = 0;
    assert_int_equal(scen_has_shared(&set), 0);
    assert_int_equal(scen_split(&set, 4, counts), -1);
    scen_set_free(&set);
}

/* Names reach /metrics, the JSON summary and JUnit as UTF-8: a bad byte is
 * refused where it is declared, not passed on. */
static void test_names_must_be_utf8(void **state)
{
    scen_set set;
    char err[ERR_MAX];
    scen *sc;
    (void)state;

    scen_set_init(&set);
    assert_null(scen_add(&set, "A\xff", "a.lua:1", err, sizeof(err)));
    assert_string_equal(err, "a.lua:1: scenario name is not valid UTF-8 (byte 2)");
    sc = scen_add(&set, "A", "a.lua:2", err, sizeof(err));
    assert_non_null(sc);
    assert_null(scen_add_step(&set, sc, 3, "caf\xc3", "a.lua:3", err, sizeof(err)));
    assert_string_equal(err, "a.lua:3: step 3: label is not valid UTF-8 (byte 4)");
    assert_null(scen_add_step(&set, sc, 4, "\xed\xa0\x80", "a.lua:4", err, sizeof(err)));
    assert_int_equal(set.nsteps, 0);
    assert_non_null(
        scen_add_step(&set, sc, 5, "caf\xc3\xa9 \xe2\x82\xac", "a.lua:5", err, sizeof(err)));
    scen_set_free(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_ids_and_names),
        cmocka_unit_test(test_duplicate_step_names_both_places),
        cmocka_unit_test(test_bad_and_duplicate_scenarios),
        cmocka_unit_test(test_split_exact_50_25_25),
        cmocka_unit_test(test_split_remainders_and_zero),
        cmocka_unit_test(test_thresholds_kept),
        cmocka_unit_test(test_staged_layout),
        cmocka_unit_test(test_names_must_be_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
