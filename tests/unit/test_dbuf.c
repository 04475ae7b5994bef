/* Unit tests for common/dbuf: a growable buffer that doubles as it grows,
 * never passes its maximum (an append past it fails whole and leaves the
 * buffer as it was, formatted or not), and hands its bytes over or empties. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/dbuf.h"
#include "common/mem.h"

static void test_empty(void **state)
{
    dbuf z = {0};
    dbuf b;
    size_t len = 7;
    char *s;

    dbuf_free(&z); /* a zeroed dbuf frees without being initialised */
    dbuf_init(&b, 100);
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    assert_int_equal(dbuf_put(&b, "", 0), 0);
    s = dbuf_take(&b, &len);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    xfree(s);
    dbuf_free(&b);
}

/* The buffer doubles from DBUF_MIN and keeps every byte in order. */
static void test_growth(void **state)
{
    dbuf b;
    char piece[100];

    dbuf_init(&b, 1u << 20);
    memset(piece, 'a', sizeof(piece));
    assert_int_equal(dbuf_put(&b, piece, 10), 0);
    assert_int_equal(b.cap, DBUF_MIN);
    for (int i = 0; i < 100; i++) {
        piece[0] = (char)('0' + i % 10);
        assert_int_equal(dbuf_put(&b, piece, sizeof(piece)), 0);
    }
    assert_int_equal(b.len, 10 + 100 * sizeof(piece));
    assert_int_equal(b.cap, DBUF_MIN * 64); /* 10,010 bytes and the NUL: 256 doubled 6 times */
    assert_int_equal(b.p[b.len], '\0');
    for (int i = 0; i < 100; i++)
        assert_int_equal(b.p[10 + (size_t)i * sizeof(piece)], '0' + i % 10);
    dbuf_free(&b);
    assert_null(b.p);
    assert_int_equal(b.max, 1u << 20); /* usable again */
    assert_int_equal(dbuf_put(&b, "x", 1), 0);
    dbuf_free(&b);
}

/* Up to the maximum exactly; one byte more fails and changes nothing. */
static void test_bound(void **state)
{
    dbuf b;
    char big[1000];

    memset(big, 'b', sizeof(big));
    dbuf_init(&b, 600);
    assert_int_equal(dbuf_put(&b, big, 599), 0);
    assert_int_equal(dbuf_put(&b, "xy", 2), -1);
    assert_int_equal(b.len, 599);
    assert_int_equal(b.p[599], '\0');
    assert_int_equal(dbuf_put(&b, "x", 1), 0);
    assert_int_equal(b.len, 600);
    assert_int_equal(b.cap, 601); /* never more than the maximum and its NUL */
    assert_int_equal(dbuf_put(&b, "y", 1), -1);
    assert_int_equal(dbuf_put(&b, "", 0), 0);
    assert_int_equal(b.len, 600);
    assert_int_equal(b.p[599], 'x');
    dbuf_free(&b);

    dbuf_init(&b, 10); /* a maximum below DBUF_MIN allocates no more than it */
    assert_int_equal(dbuf_put(&b, big, sizeof(big)), -1);
    assert_null(b.p);
    assert_int_equal(dbuf_put(&b, "abc", 3), 0);
    assert_int_equal(b.cap, 11);
    dbuf_free(&b);
}

/* A formatted piece goes in whole or not at all, however it meets the
 * allocated size and the maximum. */
static void test_fmt(void **state)
{
    dbuf b;
    char big[400];

    memset(big, 'c', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    dbuf_init(&b, 1000);
    assert_int_equal(dbuf_fmt(&b, "%d %s", 200, "ok"), 0);
    assert_string_equal(b.p, "200 ok");
    assert_int_equal(dbuf_fmt(&b, "[%s]", big), 0); /* past the first allocation */
    assert_int_equal(b.len, 6 + 2 + 399);
    assert_int_equal(b.p[6], '[');
    assert_int_equal(b.p[b.len - 1], ']');
    assert_int_equal(b.p[b.len], '\0');
    assert_int_equal(dbuf_fmt(&b, "%s%s", big, big), -1); /* 798 more: past 1,000 */
    assert_int_equal(b.len, 407);
    assert_int_equal(b.p[407], '\0'); /* the partial piece is not kept */
    assert_int_equal(dbuf_fmt(&b, "%s", big), 0);
    assert_int_equal(b.len, 806);
    assert_int_equal(dbuf_fmt(&b, "%0194d", 1), 0); /* to the maximum exactly */
    assert_int_equal(b.len, 1000);
    assert_int_equal(dbuf_fmt(&b, "%d", 2), -1);
    assert_int_equal(dbuf_fmt(&b, "%s", ""), 0);
    assert_int_equal(b.len, 1000);
    assert_int_equal(b.p[999], '1');
    dbuf_free(&b);
}

static void test_take_reset_cut(void **state)
{
    dbuf b;
    size_t len = 0, cap;
    char *s;

    dbuf_init(&b, 64);
    dbuf_fmt(&b, "%s=%d", "vus", 10);
    s = dbuf_take(&b, &len);
    assert_string_equal(s, "vus=10");
    assert_int_equal(len, 6);
    assert_null(b.p); /* the caller owns the bytes now */
    assert_int_equal(b.len, 0);
    assert_int_equal(b.max, 64);
    xfree(s);

    dbuf_put(&b, "0123456789", 10);
    cap = b.cap;
    dbuf_cut(&b, 4);
    assert_string_equal(b.p, "0123");
    dbuf_cut(&b, 9); /* more than it holds: nothing changes */
    assert_int_equal(b.len, 4);
    dbuf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.p, "");
    assert_int_equal(b.cap, cap); /* the memory is kept */
    assert_int_equal(dbuf_put(&b, "again", 5), 0);
    assert_string_equal(b.p, "again");
    s = dbuf_take(&b, NULL);
    assert_string_equal(s, "again");
    xfree(s);
    dbuf_free(&b);
}

/* A refusal is remembered until the buffer is emptied: a writer of many
 * pieces learns at the end that one did not fit, though later ones did. */
static void test_refused(void **state)
{
    dbuf b;
    char big[100];
    char *s;

    memset(big, 'd', sizeof(big));
    dbuf_init(&b, 50);
    assert_int_equal(b.refused, 0);
    assert_int_equal(dbuf_put(&b, big, 40), 0);
    assert_int_equal(b.refused, 0);
    assert_int_equal(dbuf_put(&b, big, 20), -1);
    assert_int_equal(b.refused, 1);
    assert_int_equal(dbuf_put(&b, "ok", 2), 0); /* a later piece fits: still refused */
    assert_int_equal(b.refused, 1);
    assert_int_equal(b.len, 42);
    dbuf_reset(&b);
    assert_int_equal(b.refused, 0);
    assert_int_equal(dbuf_fmt(&b, "%.*s", 60, big), -1); /* formatted: the same */
    assert_int_equal(b.refused, 1);
    assert_int_equal(b.len, 0);
    s = dbuf_take(&b, NULL);
    assert_int_equal(b.refused, 0);
    xfree(s);
    assert_int_equal(dbuf_put(&b, big, 51), -1);
    dbuf_free(&b);
    assert_int_equal(b.refused, 0);
    dbuf_init(&b, 50);
    assert_int_equal(b.refused, 0);
    dbuf_free(&b);
}

/* A stream onto a dbuf: what is written arrives whole; a write past the
 * maximum makes fclose fail and the buffer say it refused. */
static void test_stream(void **state)
{
    dbuf b;
    FILE *f;
    char big[5000];

    dbuf_init(&b, 4096);
    f = dbuf_stream(&b);
    assert_non_null(f);
    assert_true(fprintf(f, "<svg n=\"%d\">", 7) > 0);
    fputs("</svg>", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(b.refused, 0);
    assert_string_equal(b.p, "<svg n=\"7\"></svg>");
    dbuf_reset(&b);
    memset(big, 'e', sizeof(big));
    f = dbuf_stream(&b);
    assert_non_null(f);
    fwrite(big, 1, sizeof(big), f); /* past 4096: refused, at the write or at fclose */
    assert_int_not_equal(fclose(f), 0);
    assert_int_equal(b.refused, 1);
    assert_true(b.len <= 4096);
    dbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),          cmocka_unit_test(test_growth),
        cmocka_unit_test(test_bound),          cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_take_reset_cut), cmocka_unit_test(test_refused),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
