/* Unit tests for record/replay: the parts of a recording's scenario decided
 * before any Lua is written (the origin and path of a URL, a step's label from
 * its page's <title>, the recording's title or its path, a redirect followed,
 * a JSON body's depth), then a small recording built in C and written: the
 * base URL a property, a third-party origin left out and listed, each
 * request expecting its recorded status. tests/unit/test_har2lua.c covers
 * whole HAR files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/replay.c"

static void test_origin_path(void **state)
{
    char o[64], p[64];

    origin_of("https://shop.test:8443/cart/add?id=3#top", o, sizeof(o));
    assert_string_equal(o, "https://shop.test:8443");
    origin_of("http://shop.test?x=1", o, sizeof(o));
    assert_string_equal(o, "http://shop.test");
    origin_of("http://shop.test", o, sizeof(o));
    assert_string_equal(o, "http://shop.test");
    path_of("https://shop.test:8443/cart/add?id=3#top", p, sizeof(p));
    assert_string_equal(p, "/cart/add");
    path_of("http://shop.test", p, sizeof(p));
    assert_string_equal(p, "/");
}

static void test_title(void **state)
{
    char t[64];

    assert_true(title_of("<html><head><TITLE lang=en>\n  My   Shop\t</title>", t, sizeof(t)));
    assert_string_equal(t, "My Shop");
    assert_false(title_of("<html><title>   </title>", t, sizeof(t)));
    assert_false(title_of("<html><title>never closed", t, sizeof(t)));
    assert_false(title_of(NULL, t, sizeof(t)));
    /* cut to the buffer, never past it */
    assert_true(title_of("<title>abcdefghij</title>", t, 5));
    assert_string_equal(t, "abcd");
}

static void test_label(void **state)
{
    char l[128];
    har_entry page = {.method = "GET",
                      .url = "https://shop.test/home?x=1",
                      .resp_mime = "text/html; charset=utf-8",
                      .resp_text = "<title>Welcome\r\n</title>",
                      .title = "Shop: home",
                      .kind = HAR_DOCUMENT};
    har_entry call = {.method = "POST", .url = "https://shop.test/api/cart?x=1", .kind = HAR_XHR};

    label_of(&page, l, sizeof(l));
    assert_string_equal(l, "Welcome"); /* the page's own title first */
    page.resp_text = "<p>no title</p>";
    label_of(&page, l, sizeof(l));
    assert_string_equal(l, "Shop: home");  /* then the recording's */
    page.title = "https://shop.test/home"; /* a title that is only the URL: not a label */
    label_of(&page, l, sizeof(l));
    assert_string_equal(l, "/home");
    page.title = "tab\x01name\x7f";
    label_of(&page, l, sizeof(l));
    assert_string_equal(l, "tab?name?"); /* no control character in a report */
    label_of(&call, l, sizeof(l));
    assert_string_equal(l, "POST /api/cart");
}

static void test_redirect(void **state)
{
    har_entry a = {.url = "https://shop.test/login", .status = 302, .location = "/home"};
    har_entry b = {.url = "https://shop.test/home"};
    har_entry c = {.url = "https://other.test/home"};

    assert_true(redirect_to(NULL, &a, &b)); /* a relative Location, on a's origin */
    assert_false(redirect_to(NULL, &a, &c));
    a.location = "https://other.test/home";
    assert_true(redirect_to(NULL, &a, &c));
    a.status = 200; /* not a redirect, whatever its Location */
    assert_false(redirect_to(NULL, &a, &c));
    a.status = 302;
    a.location = "//other.test/home"; /* scheme-relative: not taken as a path */
    assert_false(redirect_to(NULL, &a, &c));
}

static void test_json_depth(void **state)
{
    json_t *flat = json_loads("{\"a\": 1, \"b\": \"x\"}", 0, NULL);
    json_t *deep = json_loads("{\"a\": [1, {\"b\": [[2]]}]}", 0, NULL);
    char text[4 * JSON_DEPTH_MAX + 16];
    json_t *deeper;
    size_t n = 0;

    assert_int_equal(json_depth(flat, 0), 1);
    assert_int_equal(json_depth(deep, 0), 5);
    /* past the bound the walk stops: such a body is sent as its text */
    for (int i = 0; i < JSON_DEPTH_MAX + 10; i++)
        text[n++] = '[';
    for (int i = 0; i < JSON_DEPTH_MAX + 10; i++)
        text[n++] = ']';
    text[n] = '\0';
    deeper = json_loads(text, 0, NULL);
    assert_non_null(deeper);
    assert_true(json_depth(deeper, 0) > JSON_DEPTH_MAX);
    json_decref(flat);
    json_decref(deep);
    json_decref(deeper);
}

/* replay_write's text for h (xfree it). */
static char *written(const har *h, const replay_opts *o)
{
    char err[ERR_MAX];
    dbuf out;

    dbuf_init(&out, REPLAY_SCRIPT_MAX);
    assert_int_equal(replay_write(h, o, &out, err, sizeof(err)), 0);
    return dbuf_take(&out, NULL);
}

static void test_write(void **state)
{
    har_entry e[3] = {
        {.method = "GET",
         .url = "https://shop.test/home",
         .status = 200,
         .resp_mime = "text/html",
         .resp_text = "<title>Home</title>",
         .kind = HAR_DOCUMENT,
         .start_ms = 1000},
        {.method = "GET",
         .url = "https://cdn.other.test/lib.js",
         .status = 200,
         .kind = HAR_XHR,
         .start_ms = 1100},
        {.method = "GET",
         .url = "https://shop.test/api/items?page=2",
         .status = 201,
         .kind = HAR_XHR,
         .start_ms = 3100},
    };
    har h = {.e = e, .n = 3};
    replay_opts o = {.source = "shop.har", .name = "SHOP", .prop = "base_url"};
    char *s = written(&h, &o);

    assert_non_null(strstr(s, "quern.property(\"base_url\", \"https://shop.test\")"));
    assert_non_null(strstr(s, "s1:get(base .. \"/home\"):expect(200)"));
    assert_non_null(strstr(s, "quern.sleep(\"2100ms\")")); /* the gap between the steps */
    assert_non_null(strstr(s, "quern.scenario(\"SHOP\")"));
    assert_non_null(strstr(s, "shop.har"));
    assert_non_null(strstr(s, "\"Home\""));               /* the page's label */
    assert_non_null(strstr(s, "\"GET /api/items\""));     /* the call's */
    assert_non_null(strstr(s, ":expect(201)"));           /* its recorded status */
    assert_non_null(strstr(s, "https://cdn.other.test")); /* listed as left out */
    assert_null(strstr(s, "lib.js\")"));                  /* but not requested */
    assert_null(strstr(s, "\"https://shop.test/home\"")); /* the origin is the property */
    xfree(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origin_path), cmocka_unit_test(test_title),
        cmocka_unit_test(test_label),       cmocka_unit_test(test_redirect),
        cmocka_unit_test(test_json_depth),  cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
