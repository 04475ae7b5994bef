/* Unit tests for common/errkinds: the folding gives one text per cause,
 * tables stay bounded (the rest in one row per class, nothing lost), merges
 * add by exact key in any grouping, and examples are bounded and clean. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/errkinds.h"

#include <stdio.h>
#include <string.h>

#include "common/stats.h"

static const char *fold(const char *msg, int32_t code)
{
    static char out[ERRKIND_MSG_MAX];
    errkinds_fold(msg, code, out, sizeof(out));
    return out;
}

static const char *again(const char *msg, int32_t code)
{
    static char once[ERRKIND_MSG_MAX];
    snprintf(once, sizeof(once), "%s", fold(msg, code));
    return once;
}

static void test_fold(void **state)
{
    (void)state;
    assert_string_equal(fold("HTTP status 503", 503), "HTTP status 503");
    assert_string_equal(fold("timed out after 28 ms", 28), "timed out after N ms"); /* no status */
    assert_string_equal(
        fold("Operation timed out after 2001 milliseconds with 0 bytes received", 28),
        "Operation timed out after N milliseconds with N bytes received");
    assert_string_equal(
        fold("Failed to connect to 127.0.0.1 port 39117 after 0 ms: Couldn't connect to server", 7),
        "Failed to connect to N.N.N.N port N after N ms: Couldn't connect to server");
    /* ids: a UUID, a hash, a session token; a date's parts are numbers */
    assert_string_equal(fold("order 3f2a1c9e-7b4d-4e1a-9c3b-0d5e6f7a8b9c not found", 0),
                        "order ID not found");
    assert_string_equal(fold("etag deadbeef01 token Xy7Kq9zT2mPw4RtL8", 0), "etag ID token ID");
    assert_string_equal(fold("on 2026-12-02 at 10:07", 0), "on N-N-N at N:N");
    /* names with digits stay; a number a word starts with is folded */
    assert_string_equal(fold("tests/e2e/x.lua:28: http2 after 200ms", 0),
                        "tests/e2e/x.lua:28: http2 after Nms");
    /* a check's statuses say the cause; other numbers do not */
    assert_string_equal(fold("expected status 200, got 503 (1234 bytes)", 0),
                        "expected status 200, got 503 (N bytes)");
    /* ... a whole word's: "xstatus 500" is no check's status */
    assert_string_equal(fold("xstatus 500", 0), "xstatus N");
    /* quoted values kept short; an apostrophe inside a word is no quote */
    assert_string_equal(
        fold("body does not contain \"a very long expected value, longer than that\"", 0),
        "body does not contain \"a very long expected val...\"");
    assert_string_equal(fold("can't find 'user 42'", 0), "can't find 'user 42'");
    /* spaces and controls collapse; passwords are redacted */
    assert_string_equal(fold("  a\r\n\tb  ", 0), "a b");
    assert_string_equal(fold("GET http://u:secret@h/x failed", 0), "GET http://u:***@h/x failed");
    assert_string_equal(fold(NULL, 0), "error");
    /* idempotent: a receiver folds again what it got */
    assert_string_equal(fold(again("body does not contain \"a very long expected value, longer\" "
                                   "after 12 s, id 0af7651916cd43dd8448eb211c80319c",
                                   0),
                             0),
                        "body does not contain \"a very long expected val...\" after N s, id ID");
}

static void test_fold_bounded(void **state)
{
    char big[2000], out[ERRKIND_MSG_MAX];
    (void)state;
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[100] = ' ';
    assert_true(errkinds_fold(big, 0, out, sizeof(out)) < ERRKIND_MSG_MAX);
    /* a bad byte becomes '?', a character cut by the bound is dropped */
    assert_string_equal(fold("bad \xff byte", 0), "bad ? byte");
    memset(big, 'a', ERRKIND_MSG_MAX - 2);
    memcpy(big + ERRKIND_MSG_MAX - 2, "\xc3\xa9\xc3\xa9", 5);
    errkinds_fold(big, 0, out, sizeof(out));
    assert_int_equal(strlen(out), ERRKIND_MSG_MAX - 2);
}

static void test_note_counts_by_kind(void **state)
{
    errkinds *t = errkinds_new();
    const errkind *rows[ERRKIND_ROWS];
    errkind_example ex;
    (void)state;

    errkinds_example_set(&ex, "http://u:pw@h/a", 503, "<h1>503 Service\x01 Unavailable</h1>", 33,
                         "0af7651916cd43dd8448eb211c80319c");
    for (int i = 0; i < 72; i++)
        errkinds_note(t, 1, 503, "HTTP status 503", 1000 + i, &ex);
    for (int i = 0; i < 20; i++)
        errkinds_note(t, 1, 500, "HTTP status 500", 2000 + i, NULL);
    for (int i = 0; i < 5; i++) {
        char m[96];
        snprintf(m, sizeof(m), "Operation timed out after %d milliseconds", 1000 + i);
        errkinds_note(t, 1, 28, m, 3000 + i, NULL);
    }
    errkinds_note(t, 0, 0, "expected status 200, got 302", 4000, NULL);
    assert_int_equal(errkinds_sorted(t, rows), 4);
    assert_int_equal(rows[0]->count, 72);
    assert_int_equal(rows[0]->code, 503);
    assert_int_equal(rows[0]->first_ms, 1000);
    assert_int_equal(rows[0]->last_ms, 1071);
    assert_string_equal(rows[0]->ex.url, "http://u:***@h/a");
    assert_string_equal(rows[0]->ex.body, "<h1>503 Service  Unavailable</h1>");
    assert_int_equal(rows[0]->ex.status, 503);
    assert_string_equal(rows[0]->ex.trace, "0af7651916cd43dd8448eb211c80319c");
    assert_int_equal(rows[1]->count, 20);
    assert_string_equal(rows[1]->ex.url, "");
    assert_int_equal(rows[2]->count, 5);
    assert_string_equal(rows[2]->msg, "Operation timed out after N milliseconds");
    assert_string_equal(errkinds_class(rows[3]), "functional");
    assert_int_equal(errkinds_total(t), 98);
    errkinds_reset(t);
    assert_int_equal(errkinds_total(t), 0);
    assert_int_equal(errkinds_sorted(t, rows), 0);
    errkinds_free(t);
    errkinds_free(NULL);
}

static void test_bounded(void **state)
{
    errkinds *t = errkinds_new();
    const errkind *rows[ERRKIND_ROWS];
    char m[64];
    (void)state;

    /* distinct causes (a word each, not a number): the first ERRKIND_MAX
     * get rows, the rest go to their class's other row */
    for (int i = 0; i < ERRKIND_MAX + 10; i++) {
        snprintf(m, sizeof(m), "cause %c%c", 'a' + i % 26, 'a' + i / 26);
        errkinds_note(t, i % 2, 0, m, 100 + i, NULL);
    }
    errkinds_note(t, 0, 0, "cause aa", 500, NULL); /* an existing kind still counts */
    assert_int_equal(t->n, ERRKIND_MAX);
    assert_int_equal(errkinds_sorted(t, rows), ERRKIND_MAX + 2);
    assert_string_equal(rows[0]->msg, "cause aa");
    assert_int_equal(rows[0]->count, 2);
    assert_true(errkinds_is_other(rows[ERRKIND_MAX]));
    assert_true(errkinds_is_other(rows[ERRKIND_MAX + 1]));
    assert_int_equal(rows[ERRKIND_MAX]->technical, 1); /* technical first */
    assert_int_equal(rows[ERRKIND_MAX]->count + rows[ERRKIND_MAX + 1]->count, 10);
    assert_int_equal(rows[ERRKIND_MAX]->first_ms, 100 + ERRKIND_MAX + 1);
    assert_int_equal(errkinds_total(t), ERRKIND_MAX + 11);
    /* a script's message that reads like the other row stays its own kind */
    errkinds_reset(t);
    errkinds_note(t, 0, 0, ERRKIND_OTHER, 1, NULL);
    assert_int_equal(t->n, 1);
    assert_false(errkinds_is_other(&t->k[0]));
    errkinds_free(t);
}

/* Worker intervals merged per agent then at the console, or all at once,
 * give the same counts, times and examples. */
static void test_merge_exact(void **state)
{
    errkinds *w[3], *ab = errkinds_new(), *all = errkinds_new(), *agent = errkinds_new();
    const errkind *x[ERRKIND_ROWS], *y[ERRKIND_ROWS];
    errkind_example e1, e2;
    size_t n;
    (void)state;

    errkinds_example_set(&e1, "http://h/late", 500, "late", 4, NULL);
    errkinds_example_set(&e2, "http://h/early", 500, "early", 5, NULL);
    for (int i = 0; i < 3; i++)
        w[i] = errkinds_new();
    errkinds_note(w[0], 1, 500, "HTTP status 500", 300, &e1);
    errkinds_note(w[0], 1, 500, "HTTP status 500", 900, &e1);
    errkinds_note(w[1], 1, 500, "HTTP status 500", 100, &e2);
    errkinds_note(w[1], 1, 503, "HTTP status 503", 200, NULL);
    errkinds_note(w[2], 0, 0, "check failed at 17", 50, NULL);
    errkinds_note(w[2], 1, 503, "HTTP status 503", 800, NULL);
    errkinds_merge(agent, w[0]);
    errkinds_merge(agent, w[1]);
    errkinds_merge(ab, w[2]);
    errkinds_merge(ab, agent);
    for (int i = 2; i >= 0; i--)
        errkinds_merge(all, w[i]);
    errkinds_merge(all, NULL);
    n = errkinds_sorted(ab, x);
    assert_int_equal(n, 3);
    assert_int_equal(errkinds_sorted(all, y), n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(x[i]->msg, y[i]->msg);
        assert_int_equal(x[i]->count, y[i]->count);
        assert_int_equal(x[i]->first_ms, y[i]->first_ms);
        assert_int_equal(x[i]->last_ms, y[i]->last_ms);
        assert_string_equal(x[i]->ex.url, y[i]->ex.url);
    }
    assert_int_equal(x[0]->code, 500);
    assert_int_equal(x[0]->count, 3);
    assert_int_equal(x[0]->first_ms, 100);
    assert_int_equal(x[0]->last_ms, 900);
    assert_string_equal(x[0]->ex.url, "http://h/early"); /* the earliest's */
    assert_string_equal(x[0]->ex.body, "early");
    assert_int_equal(x[1]->code, 503);
    assert_int_equal(x[1]->count, 2);
    assert_string_equal(x[2]->msg, "check failed at N");
    for (int i = 0; i < 3; i++)
        errkinds_free(w[i]);
    errkinds_free(ab);
    errkinds_free(all);
    errkinds_free(agent);
}

/* step_stats: no table until an error; reset keeps it, empty; merge adds. */
static void test_stats(void **state)
{
    step_stats a, b;
    (void)state;

    stats_init(&a);
    stats_init(&b);
    stats_merge(&a, &b);
    assert_null(a.kinds);
    stats_note_kind(&b, 1, 500, "HTTP status 500", 10, NULL);
    stats_merge(&a, &b);
    stats_merge(&a, &b);
    assert_non_null(a.kinds);
    assert_int_equal(a.kinds->k[0].count, 2);
    stats_reset(&a);
    assert_non_null(a.kinds);
    assert_int_equal(errkinds_total(a.kinds), 0);
    stats_free(&a);
    stats_free(&b);
}

static void test_example_bounded(void **state)
{
    char body[1000];
    errkind_example ex;
    (void)state;

    memset(body, 'b', sizeof(body));
    memcpy(body + 10, "http://x:pw@h/", 14);
    errkinds_example_set(&ex, NULL, 0, body, sizeof(body), NULL);
    assert_true(strlen(ex.body) <= ERRKIND_BODY_MAX);
    assert_non_null(strstr(ex.body, "http://x:***@h/"));
    assert_string_equal(ex.url, "");
    assert_string_equal(ex.trace, "");
}

static void test_by_code(void **state)
{
    errkinds *t = errkinds_new();
    errkind sums[ERRKIND_ROWS];
    (void)state;

    errkinds_note(t, 1, 28, "Operation timed out after 5 ms", 10, NULL);
    errkinds_note(t, 1, 28, "Operation timed out after 5 ms with 3 bytes", 5, NULL);
    errkinds_note(t, 1, 28, "Operation timed out after 7 ms", 20, NULL);
    errkinds_note(t, 1, 500, "HTTP status 500", 1, NULL);
    errkinds_note(t, 0, 28, "a check naming 28", 1, NULL);
    assert_int_equal(errkinds_by_code(t, sums), 3);
    assert_int_equal(sums[0].code, 28);
    assert_int_equal(sums[0].technical, 1);
    assert_int_equal(sums[0].count, 3);
    assert_int_equal(sums[0].first_ms, 5);
    assert_int_equal(sums[0].last_ms, 20);
    assert_string_equal(sums[0].msg, "");
    assert_int_equal(sums[1].count + sums[2].count, 2);
    errkinds_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_fold_bounded),
        cmocka_unit_test(test_note_counts_by_kind),
        cmocka_unit_test(test_bounded),
        cmocka_unit_test(test_merge_exact),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_example_bounded),
        cmocka_unit_test(test_by_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
