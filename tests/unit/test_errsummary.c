/* Unit tests for console/errsummary: a run's errors by kind in the end
 * summary (each step's ERRSUMMARY_TOP kinds by count, "and N more" for the
 * rest, times from the run's start, a step without errors not listed, text
 * from outside made safe for a terminal) and in the JSON (every kind, with
 * its example). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/stats.h"
#include "console/errsummary.h"

#define T0_US 1700000000000000LL /* the run's start */
#define T0_MS (T0_US / 1000)

/* What errsummary_print writes for steps (xfree it). */
static char *printed(const step_stats *steps, const char *const *ids, size_t n, int64_t start)
{
    char *buf = NULL, *text;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    errsummary_print(out, steps, ids, n, start);
    fclose(out);
    text = xstrdup(buf);
    free(buf); /* open_memstream's: malloc'd by libc */
    return text;
}

/* Step 0: 7 kinds, HTTP 503 the most (with an example), then 500, then 5
 * of one error each; step 1: none; step 2: one functional error. */
static step_stats *three_steps(void)
{
    step_stats *s = stats_array_new(3);
    errkind_example ex;

    errkinds_example_set(&ex, "http://shop.test/cart", 503, "busy", 4,
                         "0af7651916cd43dd8448eb211c80319c");
    for (int i = 0; i < 9; i++)
        stats_note_kind(&s[0], 1, 503, "HTTP status 503", T0_MS + 1500 + i * 100, &ex);
    for (int i = 0; i < 4; i++)
        stats_note_kind(&s[0], 1, 500, "HTTP status 500", T0_MS + 2000, NULL);
    for (int i = 0; i < 5; i++) {
        char m[64];
        snprintf(m, sizeof(m), "kind %c failed", 'a' + i);
        stats_note_kind(&s[0], 0, 0, m, T0_MS + 3000 + i, NULL);
    }
    stats_note_kind(&s[2], 0, 0, "expected \x1b[31mred\x1b[0m", T0_MS + 500, NULL);
    return s;
}

static void test_print(void **state)
{
    step_stats *s = three_steps();
    const char *const ids[3] = {"SC-S-STEP-1", "SC-S-STEP-2", "SC-S-STEP-3"};
    char *t = printed(s, ids, 3, T0_US), *p503, *p500, *more;

    assert_non_null(strstr(t, "Errors by kind (count, class, code, message, first..last):\n"));
    assert_non_null(strstr(t, "SC-S-STEP-1:\n"));
    assert_null(strstr(t, "SC-S-STEP-2:")); /* no error: not listed */
    assert_non_null(strstr(t, "SC-S-STEP-3:\n"));
    p503 = strstr(t, "          9  technical    503  HTTP status 503  (+1.5s..+2.3s)"
                     " e.g. http://shop.test/cart (trace 0af7651916cd43dd8448eb211c80319c)\n");
    p500 = strstr(t, "          4  technical    500  HTTP status 500  (+2.0s..+2.0s)\n");
    assert_non_null(p503);
    assert_non_null(p500);
    assert_true(p503 < p500); /* by count */
    /* 7 kinds: the top 5 shown, 2 of one error each left */
    more = strstr(t, "  and 2 more (2 errors)\n");
    assert_non_null(more);
    assert_true(more < strstr(t, "SC-S-STEP-3:"));
    assert_null(strchr(t, '\x1b')); /* an escape sequence never reaches the terminal */
    xfree(t);
    /* without the start: epoch ms */
    t = printed(s, ids, 3, 0);
    assert_non_null(strstr(t, "(1700000000500..1700000000500)"));
    xfree(t);
    stats_array_free(s, 3);
}

static void test_print_none(void **state)
{
    step_stats *s = stats_array_new(2);
    const char *const ids[2] = {"A", "B"};
    char *t = printed(s, ids, 2, T0_US);

    assert_string_equal(t, ""); /* no header for a run without errors */
    xfree(t);
    stats_array_free(s, 2);
}

static void test_json(void **state)
{
    step_stats *s = three_steps();
    json_t *a = errsummary_json(s[0].kinds), *k0, *none;

    assert_int_equal(json_array_size(a), 7); /* every kind, not the top 5 */
    k0 = json_array_get(a, 0);
    assert_string_equal(json_string_value(json_object_get(k0, "class")), "technical");
    assert_int_equal(json_integer_value(json_object_get(k0, "code")), 503);
    assert_string_equal(json_string_value(json_object_get(k0, "message")), "HTTP status 503");
    assert_int_equal(json_integer_value(json_object_get(k0, "count")), 9);
    assert_int_equal(json_integer_value(json_object_get(k0, "first")), T0_MS + 1500);
    assert_int_equal(json_integer_value(json_object_get(k0, "last")), T0_MS + 2300);
    assert_string_equal(json_string_value(json_object_get(json_object_get(k0, "example"), "url")),
                        "http://shop.test/cart");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(k0, "example"), "status")),
                     503);
    assert_string_equal(json_string_value(json_object_get(json_array_get(a, 1), "message")),
                        "HTTP status 500");
    json_decref(a);
    none = errsummary_json(NULL);
    assert_true(json_is_array(none));
    assert_int_equal(json_array_size(none), 0);
    json_decref(none);
    stats_array_free(s, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_print_none),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
