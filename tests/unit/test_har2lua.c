/* Unit tests for record/har2lua.c: hand-made recordings (a form POST with
 * its token, JSON bodies, a redirect chain, resources, third-party origins)
 * converted and checked against the expected scripts beside them in
 * tests/unit/data/har/ (QUERN_UPDATE_EXPECTED=1 rewrites those). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/mem.h"
#include "record/har.h"
#include "record/har2lua.h"

#define DATA "tests/unit/data/har/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len != NULL)
        *len = (size_t)n;
    return buf;
}

/* Converts the HAR text with o into at most max bytes; returns the script
 * (xfree it) or NULL with err and *rc har2lua_convert's. */
static char *convert_max(const char *text, size_t len, const replay_opts *o, size_t max, int *rc,
                         char *err, size_t elen)
{
    dbuf b;

    dbuf_init(&b, max);
    *rc = har2lua_convert(text, len, o, &b, err, elen);
    if (*rc != 0) {
        dbuf_free(&b);
        return NULL;
    }
    return dbuf_take(&b, NULL);
}

/* Converts the HAR text with o, as the command does; the script (xfree it)
 * or NULL with err. */
static char *convert(const char *text, size_t len, const replay_opts *o, char *err, size_t elen)
{
    int rc;

    return convert_max(text, len, o, REPLAY_SCRIPT_MAX, &rc, err, elen);
}

static void expect_script(const char *file, const char *want, replay_opts *o)
{
    char path[256], err[ERR_MAX];
    size_t len;
    char *text, *got, *exp;

    snprintf(path, sizeof(path), DATA "%s", file);
    text = slurp(path, &len);
    o->source = file;
    if (o->prop == NULL)
        o->prop = "base_url";
    got = convert(text, len, o, err, sizeof(err));
    assert_non_null(got);
    snprintf(path, sizeof(path), DATA "%s", want);
    if (getenv("QUERN_UPDATE_EXPECTED") != NULL) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    exp = slurp(path, NULL);
    assert_string_equal(got, exp);
    free(exp);
    xfree(got);
    free(text);
}

/* The default: resources = true on the page, other origins left out and
 * listed, the form token, a meta token sent as a header, JSON ids used in
 * a later URL, the password and Authorization header not copied. */
static void test_shop_auto(void **state)
{
    replay_opts o = {.name = "SHOP"};

    (void)state;
    expect_script("shop.har", "shop.lua", &o);
}

/* --resources list, an origin kept by --include, a file left out by
 * --exclude, another property name. */
static void test_shop_list(void **state)
{
    replay_opts o = {.name = "SHOP-LIST",
                     .prop = "shop_url",
                     .resources = REPLAY_RES_LIST,
                     .include = {"https://cdn.example.net/*"},
                     .ninclude = 1,
                     .exclude = {"*.woff2"},
                     .nexclude = 1};

    (void)state;
    expect_script("shop.har", "shop_list.lua", &o);
}

/* Firefox's HAR (no _resourceType: Sec-Fetch-Dest, else the MIME type; form
 * params listed): a redirect chain
 * whose Location gives the id later URLs use, a repeated form field, a
 * JSON array body, a raw body with its Content-Type, a 304 resource. */
static void test_orders_redirects(void **state)
{
    replay_opts o = {.name = "ORDERS", .resources = REPLAY_RES_LIST};

    (void)state;
    expect_script("orders.har", "orders.lua", &o);
}

/* resources none: no resource request, no resources = true. */
static void test_resources_none(void **state)
{
    replay_opts o = {
        .name = "N", .prop = "base_url", .source = "orders.har", .resources = REPLAY_RES_NONE};
    char err[ERR_MAX];
    size_t len;
    char *text = slurp(DATA "orders.har", &len), *got;

    (void)state;
    got = convert(text, len, &o, err, sizeof(err));
    assert_non_null(got);
    assert_null(strstr(got, "order.css"));
    assert_null(strstr(got, "resources = true"));
    assert_non_null(strstr(got, "the page and its redirects as one sample"));
    xfree(got);
    free(text);
}

/* Not JSON, and JSON that is no HAR: one message with the place. */
static void test_bad_input(void **state)
{
    replay_opts o = {.name = "X", .prop = "base_url", .source = "x.har"};
    char err[ERR_MAX];
    static const char notjson[] = "{\"log\": {\n  \"entries\": [,]\n}}";
    static const char nothar[] = "[1, 2]";
    static const char nourl[] = "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\"}}]}}";

    (void)state;
    assert_null(convert(notjson, strlen(notjson), &o, err, sizeof(err)));
    assert_string_equal(err, "2:15: not JSON: unexpected token near ','");
    assert_null(convert(nothar, strlen(nothar), &o, err, sizeof(err)));
    assert_string_equal(err, "1:1: not a HAR file: no \"log\" object with an \"entries\" list");
    assert_null(convert(nourl, strlen(nourl), &o, err, sizeof(err)));
    assert_string_equal(err, "1:1: not a HAR file: entry 1 has no request method or url");
}

/* A script that would pass its maximum is refused whole, naming the
 * request at fault (its URL's secrets masked) so that --exclude leaves it
 * out; the header counts too. */
static void test_too_long(void **state)
{
    replay_opts o = {.name = "BIG", .prop = "base_url", .source = "big.har"};
    static const char empty[] = "{\"log\": {\"entries\": []}}";
    char text[8192], body[5001], err[ERR_MAX], *got;
    int n, rc;

    (void)state;
    memset(body, 'a', sizeof(body) - 1);
    body[sizeof(body) - 1] = '\0';
    n = snprintf(text, sizeof(text),
                 "{\"log\": {\"entries\": [{\"_resourceType\": \"document\", \"request\": "
                 "{\"method\": \"GET\", \"url\": \"http://h/\"}, \"response\": {\"status\": "
                 "200}}, {\"_resourceType\": \"fetch\", \"request\": {\"method\": \"POST\", "
                 "\"url\": \"http://h/upload?token=s3cr3t\", \"postData\": {\"mimeType\": "
                 "\"text/plain\", \"text\": \"%s\"}}, \"response\": {\"status\": 201}}]}}",
                 body);
    assert_true(n > 0 && (size_t)n < sizeof(text));
    got = convert_max(text, (size_t)n, &o, 4000, &rc, err, sizeof(err));
    assert_null(got);
    assert_int_equal(rc, -2);
    assert_string_equal(err, "the script would be longer than 4000 bytes at step 2, POST "
                             "http://h/upload?token=*** (a request body of 5000 bytes): leave it "
                             "out with --exclude");
    /* left out, it fits */
    o.exclude[0] = "*/upload*";
    o.nexclude = 1;
    got = convert_max(text, (size_t)n, &o, 4000, &rc, err, sizeof(err));
    assert_int_equal(rc, 0);
    assert_non_null(strstr(got, "Left out by --exclude: 1 request."));
    assert_null(strstr(got, "aaaa"));
    xfree(got);
    /* no step at all, but the header alone passes the maximum */
    got = convert_max(empty, strlen(empty), &o, 100, &rc, err, sizeof(err));
    assert_null(got);
    assert_int_equal(rc, -2);
    assert_string_equal(err, "the script would be longer than 100 bytes: its header and 0 steps "
                             "together");
}

/* What a page, a URL or a title holds cannot add a line of code to the
 * script: names that would are not correlated, control characters in
 * comments are replaced. */
static void test_hostile(void **state)
{
    replay_opts o = {.name = "H", .prop = "base_url", .source = "h.har"};
    static const char text[] =
        "{\"log\": {\"creator\": {\"name\": \"x\\nos.exit(1)\", \"version\": \"1\"},"
        " \"pages\": [{\"id\": \"p\", \"title\": \"t\\nos.exit(2)\"}], \"entries\": ["
        "{\"pageref\": \"p\", \"_resourceType\": \"document\", \"request\": {\"method\": \"GET\","
        " \"url\": \"http://h/a\\nos.exit(3)\"}, \"response\": {\"status\": 200, \"content\": "
        "{\"mimeType\": \"text/html\", \"text\": \"<input name='q\\nos.exit(4)' value='tok3n9999'>"
        "<input name=\\\"k'\\\" value='tok3n8888'>\"}}},"
        "{\"_resourceType\": \"fetch\", \"request\": {\"method\": \"POST\", \"url\": "
        "\"http://h/b\","
        " \"postData\": {\"mimeType\": \"application/json\", \"text\": "
        "\"{\\\"a\\\": \\\"tok3n9999\\\", \\\"b\\\": \\\"tok3n8888\\\"}\"}},"
        " \"response\": {\"status\": 200}}]}}";
    char err[ERR_MAX], *got, *line;

    (void)state;
    got = convert(text, strlen(text), &o, err, sizeof(err));
    assert_non_null(got);
    assert_non_null(strstr(got, "0 correlated values"));
    for (line = got; line != NULL && *line;
         line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        assert_false(strncmp(line, "os.exit", 7) == 0);
    assert_non_null(strstr(got, "\"tok3n9999\""));
    xfree(got);
}

/* Secret-like field names (form, JSON, header) and the file's name that
 * hold a line end followed by Lua: the header's comments stay comments,
 * the property names are letters, digits and '_'. */
static void test_hostile_names(void **state)
{
    replay_opts o = {.name = "H", .prop = "base_url", .source = "j\nos.exit(9)--.har"};
    static const char text[] =
        "{\"log\": {\"entries\": [{\"_resourceType\": \"document\", \"request\": {\"method\": "
        "\"POST\", \"url\": \"http://h/a\", \"headers\": [{\"name\": \"X-Api-Key\\ros.exit(7)\", "
        "\"value\": \"k\"}], \"postData\": {\"mimeType\": \"application/x-www-form-urlencoded\", "
        "\"params\": [{\"name\": \"password\\nos.exit(5)--\", \"value\": \"hunter2\"}]}}, "
        "\"response\": {\"status\": 200}}, {\"_resourceType\": \"fetch\", \"request\": "
        "{\"method\": \"POST\", \"url\": \"http://h/b\", \"postData\": {\"mimeType\": "
        "\"application/json\", \"text\": \"{\\\"token\\\\ros.exit(6)\\\": \\\"s\\\"}\"}}, "
        "\"response\": {\"status\": 200}}]}}";
    char err[ERR_MAX], *got;

    (void)state;
    got = convert(text, strlen(text), &o, err, sizeof(err));
    assert_non_null(got);
    assert_null(strchr(got, '\r'));
    assert_null(strstr(got, "\nos."));
    assert_non_null(strstr(got, "\n-- converted by quern har2lua from j?os.exit(9)--.har: "));
    assert_non_null(strstr(got, "give them as properties: -p X_Api_Key_os_exit_7_=... -p "
                                "password_os_exit_5___=... -p token_os_exit_6_=...\n"));
    assert_non_null(strstr(got, "[\"password\\nos.exit(5)--\"] = secret_password_os_exit_5___"));
    /* read when the script loads, so that a run without it stops there */
    assert_non_null(strstr(got, "\nlocal secret_password_os_exit_5___ = "
                                "quern.property(\"password_os_exit_5___\")"));
    assert_null(strstr(got, "hunter2"));
    xfree(got);
}

/* Past 100 steps or 100 values (Lua allows 200 locals a function), steps
 * and values go in tables: 120 form pages, each posting its own token. */
static void test_many(void **state)
{
    replay_opts o = {.name = "MANY", .prop = "base_url", .source = "m.har"};
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap), err[ERR_MAX], *got;

    (void)state;
    n += (size_t)snprintf(text + n, cap - n, "{\"log\": {\"entries\": [");
    for (int i = 1; i <= 120; i++)
        n += (size_t)snprintf(
            text + n, cap - n,
            "%s{\"_resourceType\": \"document\", \"startedDateTime\": "
            "\"2026-01-01T00:%02d:%02d.000Z\", \"request\": {\"method\": \"GET\", \"url\": "
            "\"http://h/f\"}, \"response\": {\"status\": 200, \"content\": {\"mimeType\": "
            "\"text/html\", \"text\": \"<input name=t value=tk%04d>\"}}},"
            "{\"_resourceType\": \"document\", \"startedDateTime\": "
            "\"2026-01-01T00:%02d:%02d.010Z\", \"request\": {\"method\": \"POST\", \"url\": "
            "\"http://h/f\", \"postData\": {\"mimeType\": \"application/x-www-form-urlencoded\", "
            "\"text\": \"t=tk%04d\"}}, \"response\": {\"status\": 200}}",
            i > 1 ? "," : "", i / 60, i % 60, i, i / 60, i % 60, i);
    n += (size_t)snprintf(text + n, cap - n, "]}}");
    got = convert(text, n, &o, err, sizeof(err));
    assert_non_null(got);
    assert_non_null(strstr(got, "240 steps, 240 requests, 120 correlated values"));
    assert_non_null(strstr(got, "\nlocal s = {} -- s[n] is step n\ns[1] = sc:step(1, \"/f\")"));
    assert_non_null(strstr(got, "\n  local v = {} -- values the server handed out"));
    assert_non_null(strstr(got, "\n  v.t_120 = r:xpath(\"//input[@name='t']/@value\")\n"));
    /* the last post is the source of no value: r is not assigned */
    assert_non_null(strstr(got, "\n  s[240]:post(base .. \"/f\", {\n    form = { t = v.t_120 },"));
    assert_non_null(strstr(got, "\n  r = s[239]:get(base .. \"/f\"):expect(200)\n"));
    assert_null(strstr(got, "local s1 "));
    xfree(got);
    free(text);
}

/* An empty recording is still a script that loads. */
static void test_empty(void **state)
{
    replay_opts o = {.name = "EMPTY", .prop = "base_url", .source = "e.har"};
    static const char empty[] = "{\"log\": {\"version\": \"1.2\", \"entries\": []}}";
    char err[ERR_MAX], *got;

    (void)state;
    got = convert(empty, strlen(empty), &o, err, sizeof(err));
    assert_non_null(got);
    assert_non_null(strstr(got, "0 steps, 0 requests"));
    assert_non_null(strstr(got, "function sc.run(vu)\nend\n")); /* no r, never read */
    xfree(got);
}

/* A recorded trace context is the browser's (one id a request): not copied,
 * so that a replay with --traceparent sends fresh ids. */
static void test_header_own(void **state)
{
    (void)state;
    assert_true(har_header_own("traceparent"));
    assert_true(har_header_own("TraceState"));
    assert_true(har_header_own("sec-fetch-dest"));
    assert_false(har_header_own("X-Api-Key"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shop_auto),        cmocka_unit_test(test_shop_list),
        cmocka_unit_test(test_orders_redirects), cmocka_unit_test(test_resources_none),
        cmocka_unit_test(test_bad_input),        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_hostile),          cmocka_unit_test(test_many),
        cmocka_unit_test(test_hostile_names),    cmocka_unit_test(test_header_own),
        cmocka_unit_test(test_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
