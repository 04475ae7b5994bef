/* Unit tests for common/salloc: freed small blocks come back, bounded. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "common/salloc.h"

static void test_block_reused(void **state)
{
    void *a = salloc_malloc(20);
    size_t before;

    assert_non_null(a);
    memset(a, 0xab, 20);
    before = salloc_cached();
    salloc_free(a);
    assert_int_equal(salloc_cached(), before + 1);
    /* Any size of the same class gets the same block back. */
    assert_ptr_equal(salloc_malloc(24), a);
    assert_int_equal(salloc_cached(), before);
    salloc_free(a);
}

static void test_calloc_zeroes_reused_block(void **state)
{
    unsigned char *a = salloc_malloc(100);
    unsigned char *b;

    memset(a, 0xff, 100);
    salloc_free(a);
    b = salloc_calloc(10, 10);
    assert_ptr_equal(a, b);
    for (int i = 0; i < 100; i++)
        assert_int_equal(b[i], 0);
    salloc_free(b);
    assert_null(salloc_calloc(SIZE_MAX / 2, 4)); /* overflow */
}

static void test_realloc_keeps_content(void **state)
{
    char *p = salloc_malloc(10);
    memcpy(p, "0123456789", 10);
    p = salloc_realloc(p, 500);
    assert_memory_equal(p, "0123456789", 10);
    p = salloc_realloc(p, 5000); /* past the largest class */
    assert_memory_equal(p, "0123456789", 10);
    p = salloc_realloc(p, 12);
    assert_memory_equal(p, "0123456789", 10);
    salloc_free(p);
    char *s = salloc_strdup("quern");
    assert_string_equal(s, "quern");
    salloc_free(s);
}

/* Blocks malloc() made (libcurl's resolver thread, say) may be freed here. */
static void test_foreign_blocks(void **state)
{
    void *p = malloc(40);
    void *big = malloc(100000);
    assert_non_null(p);
    salloc_free(p);
    salloc_free(big);
    salloc_free(NULL);
}

/* Per class, at most a bounded number of blocks are kept. */
static void test_bounded(void **state)
{
    enum { N = 5000 };
    void **v = calloc(N, sizeof(*v));
    size_t before = salloc_cached();

    for (int i = 0; i < N; i++)
        v[i] = salloc_malloc(300);
    for (int i = 0; i < N; i++)
        salloc_free(v[i]);
    assert_true(salloc_cached() - before <= SALLOC_CLASS_KEEP);
    assert_true(salloc_cached() - before >= SALLOC_CLASS_KEEP - 10);
    for (int i = 0; i < N; i++)
        v[i] = salloc_malloc(300); /* drain again: nothing lost */
    for (int i = 0; i < N; i++)
        salloc_free(v[i]);
    free(v);
}

/* The Lua allocator: free on nsize 0, realloc otherwise. */
static void test_lua_alloc(void **state)
{
    char *p = salloc_lua(NULL, NULL, 0, 16);
    memcpy(p, "abc", 4);
    p = salloc_lua(NULL, p, 16, 64);
    assert_string_equal(p, "abc");
    assert_null(salloc_lua(NULL, p, 64, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_reused),
        cmocka_unit_test(test_calloc_zeroes_reused_block),
        cmocka_unit_test(test_realloc_keeps_content),
        cmocka_unit_test(test_foreign_blocks),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_lua_alloc),
    };
    salloc_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
