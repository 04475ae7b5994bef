/* Unit tests for worker/wire/rdframe: each kind of piece whole, cut at every
 * byte (fed as a growing buffer, the search resumed), and its bounds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "worker/wire/rdframe.h"

/* Feeds in as a buffer that grows a byte at a time from cut bytes on, the
 * search resumed; returns what the first call that decided gave. */
static int grow(const rdframe *w, const char *in, size_t n, size_t cut, size_t max, size_t *take,
                size_t *drop)
{
    size_t scanned = 0;
    int rc = 0;

    for (size_t len = cut; len <= n; len++) {
        rc = rdframe_find(w, in, len, max, &scanned, take, drop);
        if (rc != 0)
            return rc;
    }
    return rc;
}

/* w's piece of in, whole and from every cut: always piece (its bytes) and
 * drop; max 4096. */
static void assert_piece(const rdframe *w, const char *in, const char *piece, size_t want_drop)
{
    size_t n = strlen(in), take = 0, drop = 0;

    for (size_t cut = 0; cut <= n; cut++) {
        assert_int_equal(grow(w, in, n, cut, 4096, &take, &drop), 1);
        assert_int_equal(take, strlen(piece));
        assert_memory_equal(in, piece, take);
        assert_int_equal(drop, want_drop);
    }
}

static void test_line(void **state)
{
    rdframe w = {RDFRAME_LINE, 0, NULL, 0};
    size_t scanned = 0, take, drop;

    (void)state;
    assert_piece(&w, "+OK\r\nrest", "+OK", 5);
    assert_piece(&w, "plain\nrest", "plain", 6);
    assert_piece(&w, "\r\n", "", 2);
    assert_piece(&w, "a\rb\n", "a\rb", 4); /* a lone CR is the line's */
    assert_int_equal(rdframe_find(&w, "no end", 6, 4096, &scanned, &take, &drop), 0);
    assert_int_equal(scanned, 6);
}

static void test_until(void **state)
{
    rdframe w = {RDFRAME_UNTIL, 0, "END\r\n", 5};
    rdframe one = {RDFRAME_UNTIL, 0, ";", 1};

    (void)state;
    assert_piece(&w, "VALUE k 0 1\r\nx\r\nEND\r\ntail", "VALUE k 0 1\r\nx\r\n", 21);
    assert_piece(&w, "END\r\n", "", 5);
    assert_piece(&w, "ENEND\r\n", "EN", 7); /* a false start, then the delimiter */
    assert_piece(&one, "a;b;", "a", 2);
}

static void test_bytes_and_some(void **state)
{
    rdframe w = {RDFRAME_BYTES, 3, NULL, 0}, z = {RDFRAME_BYTES, 0, NULL, 0};
    rdframe s = {RDFRAME_SOME, 0, NULL, 0};
    size_t scanned = 0, take = 9, drop = 9;

    (void)state;
    assert_piece(&w, "abcdef", "abc", 3);
    assert_int_equal(rdframe_find(&w, "ab", 2, 4096, &scanned, &take, &drop), 0);
    assert_int_equal(rdframe_find(&z, "", 0, 4096, &scanned, &take, &drop), 1);
    assert_int_equal(take, 0);
    assert_int_equal(rdframe_find(&s, "", 0, 4096, &scanned, &take, &drop), 0);
    assert_int_equal(rdframe_find(&s, "xy", 2, 4096, &scanned, &take, &drop), 1);
    assert_int_equal(take, 2);
    assert_int_equal(drop, 2);
}

static void test_bounds(void **state)
{
    rdframe line = {RDFRAME_LINE, 0, NULL, 0}, big = {RDFRAME_BYTES, 9, NULL, 0};
    rdframe until = {RDFRAME_UNTIL, 0, "::", 2}, empty = {RDFRAME_UNTIL, 0, "", 0};
    size_t scanned = 0, take, drop;

    (void)state;
    assert_int_equal(rdframe_find(&big, "", 0, 8, &scanned, &take, &drop), -1);
    /* 8 bytes held, no line end: it can never fit */
    assert_int_equal(rdframe_find(&line, "abcdefgh", 8, 8, &scanned, &take, &drop), -1);
    scanned = 0;
    /* the end within the bound is found even with more held */
    assert_int_equal(rdframe_find(&line, "abcdef\nxyz", 10, 8, &scanned, &take, &drop), 1);
    assert_int_equal(take, 6);
    scanned = 0;
    /* a delimiter that would end past the bound is not taken */
    assert_int_equal(rdframe_find(&until, "abcdefg::", 9, 8, &scanned, &take, &drop), -1);
    scanned = 0;
    assert_int_equal(rdframe_find(&empty, "abc", 3, 8, &scanned, &take, &drop), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line),
        cmocka_unit_test(test_until),
        cmocka_unit_test(test_bytes_and_some),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
