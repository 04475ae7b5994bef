/* Unit tests for worker/sseparse: the event-stream interpretation of the
 * HTML standard, each input also cut at every byte boundary and fed a byte
 * at a time, which must give the same events. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "worker/wire/sseparse.h"

/* The events seen, one record each: "id|event|data|retry;" (data as is). */
typedef struct seen {
    char out[8192];
    size_t len;
    int stop_after; /* the callback stops the feed after this many, 0 never */
    int count;
} seen;

static int on_event(void *ud, const sseparse_event *ev)
{
    seen *s = ud;
    int big = ev->data_len > 1000; /* a bound's test: its length only */
    int n =
        snprintf(s->out + s->len, sizeof(s->out) - s->len, "%.*s|%.*s|%.*s%s|%lld;",
                 (int)ev->id_len, ev->id, (int)ev->event_len, ev->event,
                 big ? 0 : (int)ev->data_len, ev->data, big ? "<big>" : "", (long long)ev->retry);

    assert_true(n > 0 && (size_t)n < sizeof(s->out) - s->len);
    s->len += (size_t)n;
    s->count++;
    return s->stop_after > 0 && s->count >= s->stop_after ? 7 : 0;
}

/* Feeds in in pieces cut at the given points; the events into s. */
static int feed_cut(const char *in, size_t n, size_t cut, seen *s, char *last_id, size_t idlen)
{
    sseparse p;
    char err[ERR_MAX];
    int rc;

    memset(s, 0, sizeof(*s));
    sseparse_init(&p);
    rc = sseparse_feed(&p, in, cut, on_event, s, err, sizeof(err));
    if (rc == 0)
        rc = sseparse_feed(&p, in + cut, n - cut, on_event, s, err, sizeof(err));
    if (last_id != NULL)
        snprintf(last_id, idlen, "%.*s", (int)p.last_id.len, p.last_id.p ? p.last_id.p : "");
    sseparse_free(&p);
    return rc;
}

/* The events of in (length n), checked to be the same however it is cut. */
static const char *parse_n(const char *in, size_t n, char *last_id, size_t idlen)
{
    static seen whole;
    seen part;
    sseparse p;
    char id2[256];

    assert_int_equal(feed_cut(in, n, n, &whole, last_id, idlen), 0);
    for (size_t cut = 0; cut < n; cut++) {
        assert_int_equal(feed_cut(in, n, cut, &part, id2, sizeof(id2)), 0);
        if (strcmp(part.out, whole.out) != 0)
            fail_msg("cut at %zu: \"%s\" != \"%s\"", cut, part.out, whole.out);
        if (last_id != NULL)
            assert_string_equal(id2, last_id);
    }
    memset(&part, 0, sizeof(part));
    sseparse_init(&p);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(sseparse_feed(&p, in + i, 1, on_event, &part, NULL, 0), 0);
    sseparse_free(&p);
    assert_string_equal(part.out, whole.out);
    return whole.out;
}

static const char *parse(const char *in)
{
    return parse_n(in, strlen(in), NULL, 0);
}

static void test_basic(void **state)
{
    assert_string_equal(parse("data: hello\n\n"), "|message|hello|-1;");
    assert_string_equal(parse("data: a\n\ndata: b\n\n"), "|message|a|-1;|message|b|-1;");
    /* no blank line yet: nothing; the end of the stream drops it */
    assert_string_equal(parse("data: pending\n"), "");
    assert_string_equal(parse("data: pending"), "");
    assert_string_equal(parse(""), "");
}

static void test_line_ends(void **state)
{
    const char *want = "|message|x|-1;|message|y|-1;";

    assert_string_equal(parse("data: x\n\ndata: y\n\n"), want);
    assert_string_equal(parse("data: x\r\rdata: y\r\r"), want);
    assert_string_equal(parse("data: x\r\n\r\ndata: y\r\n\r\n"), want);
    assert_string_equal(parse("data: x\r\n\ndata: y\n\r\n"), want);
    /* CR LF is one end, LF CR two */
    assert_string_equal(parse("data: x\n\rdata: y\r\n\r\n"), want);
    /* CR CR LF: a line end, then a blank line */
    assert_string_equal(parse("data: x\r\r\ndata: y\r\r\n"), want);
}

static void test_bom(void **state)
{
    assert_string_equal(parse("\xef\xbb\xbf"
                              "data: b\n\n"),
                        "|message|b|-1;");
    /* a second BOM is text: a field name of its own, ignored */
    assert_string_equal(parse("\xef\xbb\xbf\xef\xbb\xbf"
                              "data: b\n\ndata: c\n\n"),
                        "|message|c|-1;");
    /* a BOM's beginning only: the bytes are text */
    assert_string_equal(parse("\xef\xbb"
                              "data: b\n\ndata: c\n\n"),
                        "|message|c|-1;");
    assert_string_equal(parse("\xef"
                              "\n"
                              "data: c\n\n"),
                        "|message|c|-1;");
    /* not at the start: part of the value */
    assert_string_equal(parse("data: \xef\xbb\xbf"
                              "x\n\n"),
                        "|message|\xef\xbb\xbfx|-1;");
}

static void test_comments(void **state)
{
    assert_string_equal(parse(": hello\n:\n::x\ndata: a\n: between\ndata: b\n\n"),
                        "|message|a\nb|-1;");
    /* a comment alone and a blank line: nothing to dispatch */
    assert_string_equal(parse(": keep-alive\n\n"), "");
}

static void test_fields(void **state)
{
    /* one space is stripped, not two, nor a tab */
    assert_string_equal(parse("data:no space\n\n"), "|message|no space|-1;");
    assert_string_equal(parse("data:  two\n\n"), "|message| two|-1;");
    assert_string_equal(parse("data:\ttab\n\n"), "|message|\ttab|-1;");
    /* a value's later colons are its own */
    assert_string_equal(parse("data: a:b: c\n\n"), "|message|a:b: c|-1;");
    /* a line without a colon is a field with an empty value */
    assert_string_equal(parse("data\n\n"), "|message||-1;");
    assert_string_equal(parse("data\ndata\n\n"), "|message|\n|-1;");
    /* names are case-sensitive; unknown fields ignored */
    assert_string_equal(parse("Data: x\nfoo: bar\ndata: y\n\n"), "|message|y|-1;");
    assert_string_equal(parse("foo: bar\n\n"), "");
}

static void test_data(void **state)
{
    assert_string_equal(parse("data: one\ndata: two\ndata: three\n\n"),
                        "|message|one\ntwo\nthree|-1;");
    /* an empty data line counts: an event with empty data */
    assert_string_equal(parse("data:\n\n"), "|message||-1;");
    assert_string_equal(parse("data: \n\n"), "|message||-1;");
    /* no data line: not dispatched, the event type is reset */
    assert_string_equal(parse("event: x\n\ndata: y\n\n"), "|message|y|-1;");
    /* a trailing empty line of data keeps its LF, the last LF only goes */
    assert_string_equal(parse("data: a\ndata:\n\n"), "|message|a\n|-1;");
}

static void test_event(void **state)
{
    assert_string_equal(parse("event: add\ndata: 1\n\ndata: 2\n\n"), "|add|1|-1;|message|2|-1;");
    assert_string_equal(parse("event: a\nevent: b\ndata: 1\n\n"), "|b|1|-1;");
    /* an empty type is the default */
    assert_string_equal(parse("event:\ndata: 1\n\n"), "|message|1|-1;");
}

static void test_id(void **state)
{
    char last[256];
    const char *s = "id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n";

    /* the id stays until the server sets another; an empty id resets it */
    assert_string_equal(parse_n(s, strlen(s), last, sizeof(last)),
                        "1|message|a|-1;1|message|b|-1;2|message|c|-1;|message|d|-1;");
    assert_string_equal(last, "");
    /* an id with a NUL is ignored */
    static const char nul[] = "id: 5\ndata: a\n\nid: 6\0x\ndata: b\n\n";
    assert_string_equal(parse_n(nul, sizeof(nul) - 1, last, sizeof(last)),
                        "5|message|a|-1;5|message|b|-1;");
    assert_string_equal(last, "5");
    /* an id in a block without data: no event, but the last event ID moves */
    s = "id: 7\ndata: a\n\nid: 8\n\n";
    assert_string_equal(parse_n(s, strlen(s), last, sizeof(last)), "7|message|a|-1;");
    assert_string_equal(last, "8");
    /* an id seen but no blank line yet: not the last event ID */
    s = "id: 7\ndata: a\n\nid: 9\ndata: b\n";
    assert_string_equal(parse_n(s, strlen(s), last, sizeof(last)), "7|message|a|-1;");
    assert_string_equal(last, "7");
    assert_string_equal(parse("id:  x \ndata: a\n\n"), " x |message|a|-1;");
}

static void test_retry(void **state)
{
    assert_string_equal(parse("retry: 3000\ndata: a\n\n"), "|message|a|3000;");
    /* kept for the next events; a later one replaces it */
    assert_string_equal(parse("retry: 10\n\ndata: a\n\nretry: 20\ndata: b\n\n"),
                        "|message|a|10;|message|b|20;");
    /* not all digits, or empty: ignored */
    assert_string_equal(parse("retry: 10\n\nretry: 5s\ndata: a\n\n"), "|message|a|10;");
    assert_string_equal(parse("retry: -1\ndata: a\n\n"), "|message|a|-1;");
    assert_string_equal(parse("retry: 1 \ndata: a\n\n"), "|message|a|-1;");
    assert_string_equal(parse("retry:\ndata: a\n\n"), "|message|a|-1;");
    assert_string_equal(parse("retry: 007\ndata: a\n\n"), "|message|a|7;");
    /* too large: saturates */
    assert_string_equal(parse("retry: 99999999999999999999999\ndata: a\n\n"),
                        "|message|a|9223372036854775807;");
}

static void test_line_bound(void **state)
{
    size_t n = SSEPARSE_LINE_MAX + 2;
    char *big = malloc(n + 8), err[ERR_MAX];
    sseparse p;
    seen s;

    /* a line of exactly the maximum is taken */
    memcpy(big, "data:", 5);
    memset(big + 5, 'x', SSEPARSE_LINE_MAX - 5);
    memcpy(big + SSEPARSE_LINE_MAX, "\n\n", 2);
    memset(&s, 0, sizeof(s));
    sseparse_init(&p);
    assert_int_equal(sseparse_feed(&p, big, SSEPARSE_LINE_MAX / 2, on_event, &s, err, 128), 0);
    assert_int_equal(sseparse_feed(&p, big + SSEPARSE_LINE_MAX / 2, n - SSEPARSE_LINE_MAX / 2,
                                   on_event, &s, err, sizeof(err)),
                     0);
    assert_int_equal(s.count, 1);
    sseparse_free(&p);
    /* one more byte fails, whole or in pieces, and for good */
    memset(big + 5, 'x', SSEPARSE_LINE_MAX - 4);
    memcpy(big + SSEPARSE_LINE_MAX + 1, "\n\n", 2);
    sseparse_init(&p);
    assert_int_equal(sseparse_feed(&p, big, n + 1, on_event, &s, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "line"));
    assert_int_equal(sseparse_feed(&p, "data: a\n\n", 9, on_event, &s, err, sizeof(err)), -1);
    sseparse_free(&p);
    sseparse_init(&p);
    assert_int_equal(sseparse_feed(&p, big, 1000, on_event, &s, err, sizeof(err)), 0);
    assert_int_equal(sseparse_feed(&p, big + 1000, n + 1 - 1000, on_event, &s, err, sizeof(err)),
                     -1);
    sseparse_free(&p);
    free(big);
}

static void test_data_bound(void **state)
{
    size_t line = 1000, lines = SSEPARSE_DATA_MAX / line + 1;
    char *l = malloc(line + 8), err[ERR_MAX];
    sseparse p;
    seen s;
    int rc = 0;

    memcpy(l, "data: ", 6);
    memset(l + 6, 'y', line - 1);
    l[6 + line - 1] = '\n'; /* each line adds line bytes to the data */
    memset(&s, 0, sizeof(s));
    sseparse_init(&p);
    for (size_t i = 0; i < lines && rc == 0; i++)
        rc = sseparse_feed(&p, l, 6 + line, on_event, &s, err, sizeof(err));
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "data"));
    assert_int_equal(s.count, 0);
    sseparse_free(&p);
    /* up to the maximum it is taken */
    sseparse_init(&p);
    for (size_t i = 0; i < SSEPARSE_DATA_MAX / line; i++)
        assert_int_equal(sseparse_feed(&p, l, 6 + line, on_event, &s, err, sizeof(err)), 0);
    assert_int_equal(sseparse_feed(&p, "\n", 1, on_event, &s, err, sizeof(err)), 0);
    assert_int_equal(s.count, 1);
    /* its large buffer is given back once dispatched */
    assert_int_equal(p.data.cap, 0);
    sseparse_free(&p);
    free(l);
}

static void test_stop(void **state)
{
    sseparse p;
    seen s;

    memset(&s, 0, sizeof(s));
    s.stop_after = 1;
    sseparse_init(&p);
    assert_int_equal(sseparse_feed(&p, "data: a\n\ndata: b\n\n", 18, on_event, &s, NULL, 0), 7);
    assert_int_equal(s.count, 1);
    assert_int_equal(p.events, 1);
    sseparse_free(&p);
}

static void test_mixed(void **state)
{
    /* a stream of every kind, cut everywhere */
    static const char s[] =
        "\xef\xbb\xbf: welcome\r\nretry: 2500\r\nid: 42\r\nevent: tick\r\ndata: first\r\n"
        "data:second\r\n\r\n:ping\n\nid: 43\nunknown: x\ndata\n\nid: 4\0004\n\r"
        "data: z\r";

    assert_string_equal(parse_n(s, sizeof(s) - 1, NULL, 0),
                        "42|tick|first\nsecond|2500;43|message||2500;");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),      cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_bom),        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_fields),     cmocka_unit_test(test_data),
        cmocka_unit_test(test_event),      cmocka_unit_test(test_id),
        cmocka_unit_test(test_retry),      cmocka_unit_test(test_line_bound),
        cmocka_unit_test(test_data_bound), cmocka_unit_test(test_stop),
        cmocka_unit_test(test_mixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
