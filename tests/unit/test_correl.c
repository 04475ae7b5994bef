/* Unit tests for record/correl.c: which sent values are found in earlier
 * responses, and the expression that extracts each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/err.h"
#include "record/correl.h"

/* Entries: GET /a answers resp (of MIME mime, Location loc), then POST /b
 * sends body (form-encoded) and GET url. */
static void find(const char *mime, const char *resp, const char *loc, const char *body,
                 const char *url, correl *c, har *h)
{
    char text[8192], err[ERR_MAX];
    unsigned char keep[3] = {1, 1, 1};

    snprintf(
        text, sizeof(text),
        "{\"log\": {\"entries\": ["
        "{\"startedDateTime\": \"2026-01-01T00:00:00Z\", \"request\": {\"method\": \"POST\", "
        "\"url\": \"http://h/a\", \"postData\": {\"mimeType\": "
        "\"application/x-www-form-urlencoded\", \"text\": \"user=alice42\"}}, "
        "\"response\": {\"status\": %d, \"headers\": [{\"name\": \"Location\", \"value\": "
        "\"%s\"}], \"content\": {\"mimeType\": \"%s\", \"text\": %s}}},"
        "{\"startedDateTime\": \"2026-01-01T00:00:01Z\", \"request\": {\"method\": \"POST\", "
        "\"url\": \"http://h/b\", \"postData\": {\"mimeType\": "
        "\"application/x-www-form-urlencoded\", \"text\": \"%s\"}}, \"response\": {\"status\": "
        "200}},"
        "{\"startedDateTime\": \"2026-01-01T00:00:02Z\", \"request\": {\"method\": \"GET\", "
        "\"url\": \"%s\"}, \"response\": {\"status\": 200}}]}}",
        loc[0] ? 302 : 200, loc, mime, resp, body, url);
    assert_int_equal(har_parse(text, strlen(text), h, err, sizeof(err)), 0);
    correl_find(h, keep, c);
}

static void test_hidden_input(void **state)
{
    correl c;
    har h;

    (void)state;
    find("text/html",
         "\"<form><input type=hidden name='authenticity_token' value='a&amp;b9Zq'></form>\"", "",
         "authenticity_token=a%26b9Zq&qty=2", "http://h/c", &c, &h);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.r[0].var, "authenticity_token");
    assert_string_equal(c.r[0].value, "a&b9Zq");
    assert_string_equal(c.r[0].expr, "r:xpath(\"//input[@name='authenticity_token']/@value\")");
    assert_string_equal(c.r[0].why, "the hidden input \"authenticity_token\" of the page POST /a");
    assert_int_equal(c.r[0].src, 0);
    assert_null(correl_lookup(&c, "a&b9Zq", 0)); /* not before its source */
    assert_non_null(correl_lookup(&c, "a&b9Zq", 1));
    correl_free(&c);
    har_free(&h);
}

/* JSON ids at depth, in a later URL's path and query. */
static void test_json_ids(void **state)
{
    correl c;
    har h;

    (void)state;
    find("application/json",
         "\"{\\\"data\\\": [{\\\"id\\\": 4711, \\\"ref\\\": \\\"r-9x8y\\\"}]}\"", "", "x=1",
         "http://h/items/4711?ref=r-9x8y", &c, &h);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.r[0].var, "id");
    assert_string_equal(c.r[0].expr, "r:json()[\"data\"][1][\"id\"]");
    assert_string_equal(c.r[1].var, "ref");
    assert_string_equal(c.r[1].expr, "r:json()[\"data\"][1][\"ref\"]");
    correl_free(&c);
    har_free(&h);
}

/* An id in a Location header, as a path segment. */
static void test_location(void **state)
{
    correl c;
    har h;

    (void)state;
    find("text/html", "\"\"", "/carts/c-77.a/items", "", "http://h/carts/c-77.a", &c, &h);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.r[0].var, "carts_id");
    assert_string_equal(c.r[0].expr, "r:header(\"location\"):match(\"/carts/([^/?&#]+)\")");
    correl_free(&c);
    har_free(&h);
}

/* What the tester typed, echoed back, stays literal; short or common values too. */
static void test_not_correlated(void **state)
{
    correl c;
    har h;

    (void)state;
    find("application/json",
         "\"{\\\"user\\\": \\\"alice42\\\", \\\"n\\\": 7, \\\"ok\\\": \\\"true\\\", \\\"w\\\": "
         "\\\"items\\\"}\"",
         "", "user=alice42&n=7&ok=true", "http://h/items", &c, &h);
    assert_int_equal(c.n, 0);
    correl_free(&c);
    har_free(&h);
}

/* A recording built entry by entry: the requests in order, one second
 * apart, each response of MIME mime with text resp and Location loc, each
 * request posting the form body form (or nothing). */
typedef struct rec {
    json_t *entries;
    int n;
} rec;

static void rec_add(rec *r, const char *url, const char *mime, const char *resp, const char *loc,
                    const char *form)
{
    char when[64];
    json_t *e, *req, *resp_o;

    snprintf(when, sizeof(when), "2026-01-01T%02d:%02d:%02dZ", r->n / 3600, r->n / 60 % 60,
             r->n % 60);
    req = json_pack("{s:s, s:s}", "method", form ? "POST" : "GET", "url", url);
    if (form)
        json_object_set_new(
            req, "postData",
            json_pack("{s:s, s:s}", "mimeType", "application/x-www-form-urlencoded", "text", form));
    resp_o = json_pack("{s:i, s:[], s:{s:s, s:s}}", "status", loc ? 302 : 200, "headers", "content",
                       "mimeType", mime, "text", resp);
    if (loc)
        json_array_append_new(json_object_get(resp_o, "headers"),
                              json_pack("{s:s, s:s}", "name", "Location", "value", loc));
    e = json_pack("{s:s, s:s, s:o, s:o}", "startedDateTime", when, "_resourceType", "fetch",
                  "request", req, "response", resp_o);
    json_array_append_new(r->entries, e);
    r->n++;
}

/* Parses the recording and finds its rules, every entry kept. */
static void rec_find(rec *r, har *h, correl *c)
{
    json_t *root = json_pack("{s:{s:o}}", "log", "entries", r->entries);
    char *text = json_dumps(root, 0), err[ERR_MAX];
    unsigned char *keep;

    assert_int_equal(har_parse(text, strlen(text), h, err, sizeof(err)), 0);
    keep = calloc(h->n + 1, 1);
    memset(keep, 1, h->n);
    correl_find(h, keep, c);
    free(keep);
    free(text);
    json_decref(root);
}

/* The latest response that holds a value is its source, whatever holds it
 * there; in one response a hidden input wins over a JSON leaf, and both
 * over a Location; a value sent again keeps its first rule. */
static void test_latest_source(void **state)
{
    rec r = {json_array(), 0};
    correl c;
    har h;

    (void)state;
    rec_add(&r, "http://h/a", "text/html", "<input name=tok value=abc123>", NULL, NULL);
    rec_add(&r, "http://h/b", "application/json", "{\"tok\": \"abc123\", \"id\": 5550}", NULL,
            NULL);
    rec_add(&r, "http://h/c", "text/html", "", "/items/abc123", NULL);
    rec_add(&r, "http://h/d", "text/html", "[\"<input name='k' value='zz99zz'>\", \"zz99zz\"]",
            "/k/zz99zz", "tok=abc123&id=5550&k=zz99zz");
    rec_add(&r, "http://h/e", "text/html", "", NULL, "tok=abc123&k=zz99zz");
    rec_find(&r, &h, &c);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.r[0].value, "abc123");
    assert_int_equal(c.r[0].src, 2);
    assert_string_equal(c.r[0].var, "items_id");
    assert_string_equal(c.r[0].expr, "r:header(\"location\"):match(\"/items/([^/?&#]+)\")");
    assert_string_equal(c.r[1].value, "5550");
    assert_int_equal(c.r[1].src, 1);
    assert_string_equal(c.r[1].expr, "r:json()[\"id\"]");
    /* zz99zz is held by the request that first sends it, not before: literal */
    assert_null(correl_lookup(&c, "zz99zz", 4));
    assert_ptr_equal(correl_lookup(&c, "abc123", 4), &c.r[0]);
    assert_null(correl_lookup(&c, "abc123", 2));
    correl_free(&c);
    har_free(&h);
    r = (rec){json_array(), 0};
    rec_add(&r, "http://h/a", "text/html", "[\"<input name='k' value='zz99zz'>\", \"zz99zz\"]",
            "/k/zz99zz", NULL);
    rec_add(&r, "http://h/b", "text/html", "", NULL, "k=zz99zz");
    rec_find(&r, &h, &c);
    assert_int_equal(c.n, 1);
    assert_string_equal(c.r[0].expr, "r:xpath(\"//input[@name='k']/@value\")");
    correl_free(&c);
    har_free(&h);
}

/* Names: a stem taken gets _2, _3...; a name given outright in between is
 * skipped, as the scan from _2 always did. */
static void test_names(void **state)
{
    static const char *const keys[] = {"t", "t", "t_3", "t", "t"};
    static const char *const want[] = {"t", "t_2", "t_3", "t_4", "t_5"};
    rec r = {json_array(), 0};
    correl c;
    har h;

    (void)state;
    for (int i = 0; i < 5; i++) {
        char resp[64], form[64];
        snprintf(resp, sizeof(resp), "{\"%s\": \"tk%04dx\"}", keys[i], i);
        snprintf(form, sizeof(form), "v=tk%04dx", i);
        rec_add(&r, "http://h/a", "application/json", resp, NULL, NULL);
        rec_add(&r, "http://h/b", "text/html", "", NULL, form);
    }
    rec_find(&r, &h, &c);
    assert_int_equal(c.n, 5);
    for (int i = 0; i < 5; i++) {
        assert_string_equal(c.r[i].var, want[i]);
        assert_int_equal(c.r[i].src, (size_t)(2 * i));
    }
    correl_free(&c);
    har_free(&h);
}

/* Thousands of responses, each handing out a token the next request sends
 * and echoing the first one: each token's source is its own response. */
static void test_many_sources(void **state)
{
    enum { ROUNDS = 3000 };
    rec r = {json_array(), 0};
    correl c;
    har h;

    (void)state;
    for (int i = 0; i < ROUNDS; i++) {
        char resp[128], form[64];
        snprintf(resp, sizeof(resp), "{\"tok\": \"tk%05dq\", \"first\": \"tk00000q\"}", i);
        snprintf(form, sizeof(form), "tok=tk%05dq&first=tk00000q", i);
        rec_add(&r, "http://h/a", "application/json", resp, NULL, NULL);
        rec_add(&r, "http://h/b", "text/html", "", NULL, form);
    }
    rec_find(&r, &h, &c);
    assert_int_equal(c.n, ROUNDS);
    for (int i = 0; i < ROUNDS; i++) {
        char v[16];
        snprintf(v, sizeof(v), "tk%05dq", i);
        assert_string_equal(c.r[i].value, v);
        assert_int_equal(c.r[i].src, (size_t)(2 * i));
        assert_ptr_equal(correl_lookup(&c, v, 2 * (size_t)i + 1), &c.r[i]);
    }
    assert_string_equal(c.r[ROUNDS - 1].var, "tok_3000");
    correl_free(&c);
    har_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hidden_input),  cmocka_unit_test(test_json_ids),
        cmocka_unit_test(test_location),      cmocka_unit_test(test_not_correlated),
        cmocka_unit_test(test_latest_source), cmocka_unit_test(test_names),
        cmocka_unit_test(test_many_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
