/* Unit tests for worker/embed: what a page embeds (HTML and CSS), URLs
 * resolved against the page's base, and the include/exclude filters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "worker/wire/embed.h"

static int has(const embed_list *l, const char *url, int css)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].url, url) == 0)
            return css < 0 || l->v[i].css == css;
    return 0;
}

static void test_html_elements(void **state)
{
    static const char page[] =
        "<!doctype html><html><head>"
        "<link rel=\"stylesheet\" href=\"/css/site.css\">"
        "<link rel=\"alternate stylesheet\" href=\"/css/alt.css\">"
        "<link rel=\"shortcut icon\" href=\"favicon.ico\">"
        "<link rel=\"preconnect\" href=\"https://other.example/\">"
        "<script src=\"js/app.js\"></script><script>var x = 'url(no.png)';</script>"
        "<style>@import url(\"print.css\"); body { background: url('img/bg.png') }</style>"
        "</head><body>"
        "<img src=\"img/a.png\">"
        "<img src=\"img/b.png\" srcset=\"img/b-2x.png 2x, img/b-1x.png 1x\">"
        "<img srcset=\"img/w-800.png 800w, img/w-400.png 400w\">"
        "<iframe src=\"/frame.html\"></iframe>"
        "<div style=\"background-image:url(img/div.png)\"></div>"
        "<img src=\"data:image/png;base64,AAAA\"><a href=\"/not-loaded\">x</a>"
        "<img src=\"img/a.png#frag\">"
        "</body></html>";
    embed_list l;

    embed_list_init(&l);
    embed_html(&l, page, sizeof(page) - 1, "http://h.test/dir/page.html");
    assert_true(has(&l, "http://h.test/css/site.css", 1));
    assert_false(has(&l, "http://h.test/css/alt.css", -1));
    assert_true(has(&l, "http://h.test/dir/favicon.ico", 0));
    assert_false(has(&l, "https://other.example/", -1));
    assert_true(has(&l, "http://h.test/dir/js/app.js", 0));
    assert_false(has(&l, "http://h.test/dir/no.png", -1));
    assert_true(has(&l, "http://h.test/dir/print.css", 1));
    assert_true(has(&l, "http://h.test/dir/img/bg.png", 0));
    assert_true(has(&l, "http://h.test/dir/img/a.png", 0));
    assert_true(has(&l, "http://h.test/dir/img/b-1x.png", 0));
    assert_false(has(&l, "http://h.test/dir/img/b.png", -1));
    assert_false(has(&l, "http://h.test/dir/img/b-2x.png", -1));
    assert_true(has(&l, "http://h.test/dir/img/w-400.png", 0));
    assert_false(has(&l, "http://h.test/dir/img/w-800.png", -1));
    assert_true(has(&l, "http://h.test/frame.html", 0));
    assert_true(has(&l, "http://h.test/dir/img/div.png", 0));
    assert_false(has(&l, "http://h.test/not-loaded", -1));
    assert_int_equal(l.n, 10); /* data: skipped, a.png#frag is a.png */
    embed_list_clear(&l);
    assert_int_equal(l.n, 0);
}

static void test_html_base(void **state)
{
    static const char page[] = "<html><head><base href=\"https://cdn.test/v2/\"></head>"
                               "<body><img src=\"x.png\"><script src=\"/abs.js\"></script>"
                               "<img src=\"//proto.test/rel.png\"></body></html>";
    embed_list l;

    embed_list_init(&l);
    assert_int_equal(embed_html(&l, page, sizeof(page) - 1, "http://h.test/p"), 3);
    assert_string_equal(l.v[0].url, "https://cdn.test/v2/x.png");
    assert_string_equal(l.v[1].url, "https://cdn.test/abs.js");
    assert_string_equal(l.v[2].url, "https://proto.test/rel.png");
    embed_list_clear(&l);
}

static void test_html_broken(void **state)
{
    static const char page[] = "<html><body><img src=x.png><p><img src='y.png' <script src=";
    embed_list l;

    embed_list_init(&l);
    embed_html(&l, page, sizeof(page) - 1, "http://h.test/");
    assert_true(has(&l, "http://h.test/x.png", 0));
    assert_int_equal(embed_html(&l, "", 0, "http://h.test/"), 0);
    embed_list_clear(&l);
}

static void test_css(void **state)
{
    static const char css[] = "/* url(commented.png) */\n"
                              "@import 'base.css';\n@import url(theme.css) screen;\n"
                              "a { content: \"url(str.png)\"; background: url( ../img/x.png ) }\n"
                              "b { background: URL(\"y.png\") } c { filter: url(#svg) }\n"
                              "d { src: url(data:font/woff2;base64,AA) } e { x: url(x.png) }";
    embed_list l;

    embed_list_init(&l);
    assert_int_equal(embed_css(&l, css, sizeof(css) - 1, "http://h.test/css/s.css", 0), 5);
    assert_true(has(&l, "http://h.test/css/base.css", 0));
    assert_true(has(&l, "http://h.test/css/theme.css", 0));
    assert_true(has(&l, "http://h.test/img/x.png", 0));
    assert_true(has(&l, "http://h.test/css/y.png", 0));
    assert_true(has(&l, "http://h.test/css/x.png", 0));
    assert_false(has(&l, "http://h.test/css/commented.png", -1));
    assert_false(has(&l, "http://h.test/css/str.png", -1));
    /* an @import inside <style> is a stylesheet to scan */
    assert_int_equal(embed_css(&l, "@import \"more.css\";", 19, "http://h.test/", 1), 1);
    assert_true(has(&l, "http://h.test/more.css", 1));
    embed_list_clear(&l);
}

static void test_bounds(void **state)
{
    char ref[EMBED_URL_MAX + 8];
    embed_list l;

    embed_list_init(&l);
    memset(ref, 'a', sizeof(ref) - 1);
    ref[sizeof(ref) - 1] = '\0';
    assert_int_equal(embed_add(&l, "http://h.test/", ref, strlen(ref), 0), 0);
    assert_int_equal(embed_add(&l, "http://h.test/", "ftp://x/y", 9, 0), 0);
    assert_int_equal(embed_add(&l, "http://h.test/", "javascript:void(0)", 18, 0), 0);
    for (unsigned i = 0; i < EMBED_MAX + 5; i++) {
        char r[32];
        snprintf(r, sizeof(r), "r%u.png", i);
        embed_add(&l, "http://h.test/", r, strlen(r), 0);
    }
    assert_int_equal(l.n, EMBED_MAX);
    assert_int_equal(l.dropped, 5);
    embed_list_clear(&l);
}

static void test_filter(void **state)
{
    embed_filter f;
    char origin[256], small[10];

    memset(&f, 0, sizeof(f));
    assert_int_equal(embed_origin("http://H.test/page", origin, sizeof(origin)), 0);
    assert_string_equal(origin, "http://h.test:80");
    assert_int_equal(embed_origin("https://h.test/page", small, sizeof(small)), -1);
    assert_int_equal(embed_origin("not a url", small, sizeof(small)), -1);
    assert_true(embed_keep(NULL, origin, "http://h.test:80/a.css"));
    assert_false(embed_keep(NULL, origin, "https://h.test/a.css"));
    assert_false(embed_keep(NULL, origin, "http://cdn.test/a.css"));
    embed_filter_add(&f, 1, "*.ico");
    assert_false(embed_keep(&f, origin, "http://h.test/favicon.ico"));
    assert_true(embed_keep(&f, origin, "http://h.test/a.css"));
    embed_filter_add(&f, 0, "http://cdn.test/*");
    assert_true(embed_keep(&f, origin, "http://cdn.test/lib/a.js"));
    assert_false(embed_keep(&f, origin, "http://h.test/a.css")); /* include replaces the origin */
    embed_filter_add(&f, 0, "http://h.test/*");
    assert_true(embed_keep(&f, origin, "http://h.test/a.css"));
    assert_false(embed_keep(&f, origin, "http://cdn.test/x.ico"));
    embed_filter_clear(&f);
    assert_int_equal(f.ninclude + f.nexclude, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_elements), cmocka_unit_test(test_html_base),
        cmocka_unit_test(test_html_broken),   cmocka_unit_test(test_css),
        cmocka_unit_test(test_bounds),        cmocka_unit_test(test_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
