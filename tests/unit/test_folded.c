/* Unit tests for common/folded: stacks summed, the bound and "[other]",
 * the trim, the functions' self and total shares. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/folded.h"
#include "common/mem.h"

static void add(folded *f, const char *s, uint64_t v)
{
    folded_add(f, s, strlen(s), v);
}

static uint64_t value_of(const folded *f, const char *s)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->e[i].frames, s) == 0)
            return f->e[i].value;
    return 0;
}

static void test_sum(void **state)
{
    folded f;

    (void)state;
    folded_init(&f, 8);
    add(&f, "main;serve;seq_next", 3);
    add(&f, "main;serve;find_item", 5);
    add(&f, "main;serve;seq_next", 4);
    assert_int_equal(f.n, 2);
    assert_int_equal(value_of(&f, "main;serve;seq_next"), 7);
    assert_int_equal(f.total, 12);
    folded_free(&f);
}

/* Past the bound every new stack goes to "[other]", and the total stays exact. */
static void test_bound(void **state)
{
    folded f;
    char s[32];

    (void)state;
    folded_init(&f, 4);
    for (int i = 0; i < 10; i++) {
        snprintf(s, sizeof(s), "a;f%d", i);
        add(&f, s, (uint64_t)(i + 1));
    }
    assert_int_equal(f.n, 5); /* four and "[other]" */
    assert_int_equal(value_of(&f, FOLDED_OTHER), 5 + 6 + 7 + 8 + 9 + 10);
    assert_int_equal(f.total, 55);
    add(&f, "a;f2", 100); /* one it holds still sums into its own */
    assert_int_equal(value_of(&f, "a;f2"), 103);
    folded_free(&f);
}

static void test_trim(void **state)
{
    folded f, g;

    (void)state;
    folded_init(&f, 100);
    add(&f, "x;small", 1);
    add(&f, "x;big", 50);
    add(&f, "x;mid", 10);
    add(&f, "x;tiny", 2);
    folded_trim(&f, 2);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.e[0].frames, "x;big");
    assert_string_equal(f.e[1].frames, "x;mid");
    assert_string_equal(f.e[2].frames, FOLDED_OTHER);
    assert_int_equal(f.e[2].value, 3);
    assert_int_equal(f.total, 63);
    /* after a trim the table still finds what it holds */
    add(&f, "x;big", 1);
    assert_int_equal(value_of(&f, "x;big"), 51);
    folded_init(&g, 100);
    folded_merge(&g, &f);
    folded_merge(&g, &f);
    assert_int_equal(value_of(&g, "x;big"), 102);
    assert_int_equal(value_of(&g, FOLDED_OTHER), 6);
    folded_free(&f);
    folded_free(&g);
}

/* A recursive function counts once a stack in its total. */
static void test_funcs(void **state)
{
    folded f;
    folded_func *fn;

    (void)state;
    folded_init(&f, 100);
    add(&f, "main;walk;walk;leaf", 6);
    add(&f, "main;walk", 4);
    add(&f, "main;other", 10);
    size_t n = folded_funcs(&f, &fn);
    assert_int_equal(n, 4);
    assert_int_equal(fn[0].len, 4);
    assert_memory_equal(fn[0].name, "main", 4);
    assert_int_equal(fn[0].total, 20);
    assert_int_equal(fn[0].self, 0);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (fn[i].len == 4 && memcmp(fn[i].name, "walk", 4) == 0) {
            assert_int_equal(fn[i].total, 10);
            assert_int_equal(fn[i].self, 4);
            found = 1;
        }
    assert_true(found);
    xfree(fn);
    folded_free(&f);
}

static int is_lock(const char *name, size_t len, void *arg)
{
    (void)arg;
    return len == 18 && memcmp(name, "pthread_mutex_lock", 18) == 0;
}

static void test_sum_if(void **state)
{
    folded f;

    (void)state;
    folded_init(&f, 100);
    add(&f, "main;seq_next;pthread_mutex_lock;__lll_lock_wait", 700);
    add(&f, "main;accept", 300);
    add(&f, "main;pthread_mutex_lock;x;pthread_mutex_lock", 5);
    assert_int_equal(folded_sum_if(&f, is_lock, NULL), 705);
    folded_free(&f);
}

/* A stack longer than the bound keeps its leaf end. */
static void test_long(void **state)
{
    folded f;
    char *s = xmalloc(FOLDED_STACK_MAX * 2 + 16);
    size_t len = 0;

    (void)state;
    while (len < FOLDED_STACK_MAX * 2) {
        memcpy(s + len, "frame;", 6);
        len += 6;
    }
    memcpy(s + len, "leaf", 5);
    len += 4;
    folded_init(&f, 4);
    folded_add(&f, s, len, 1);
    assert_true(strlen(f.e[0].frames) <= FOLDED_STACK_MAX);
    size_t l = strlen(f.e[0].frames);
    assert_string_equal(f.e[0].frames + l - 10, "frame;leaf");
    assert_true(f.e[0].frames[0] == 'f');
    xfree(s);
    folded_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum),   cmocka_unit_test(test_bound),  cmocka_unit_test(test_trim),
        cmocka_unit_test(test_funcs), cmocka_unit_test(test_sum_if), cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
