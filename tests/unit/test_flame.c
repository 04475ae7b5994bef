/* Unit tests for reports/flame: the folded stacks merged into one tree,
 * each frame's width its share of the total, repeated stacks summed, names
 * escaped, the narrow frames summed into "[other]", the bound on the
 * rectangles written, the depth cap, the labels cut to fit, the
 * differential view's colours and titles, and empty input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "reports/flame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plot width of a 1000 px graph: 10 px of margin each side. */
#define PLOT 980.0

/* What flame_svg writes for st, as a string (free it). */
static char *svg(const flame_stack *st, size_t n, const flame_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    flame_svg(out, st, n, o);
    assert_int_equal(ferror(out), 0);
    fclose(out);
    return buf;
}

static char *diff_svg(const flame_stack *b, size_t nb, const flame_stack *a, size_t na)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    assert_non_null(out);
    flame_diff_svg(out, b, nb, a, na, NULL);
    fclose(out);
    return buf;
}

/* The rectangle whose title starts with title (the frame's name and ": "):
 * its x, y, width and fill's red, green and blue. 1 found, 0 not. */
typedef struct box {
    double x, y, w;
    int r, g, b;
} box;

static int find_box(const char *s, const char *title, box *bx)
{
    char key[256];
    const char *p, *f;

    snprintf(key, sizeof(key), "<title>%s", title);
    p = strstr(s, key);
    if (p == NULL)
        return 0;
    p = strstr(p, "</title><rect ");
    assert_non_null(p);
    assert_int_equal(
        sscanf(p, "</title><rect x=\"%lf\" y=\"%lf\" width=\"%lf\"", &bx->x, &bx->y, &bx->w), 3);
    f = strstr(p, "fill=\"rgb(");
    assert_non_null(f);
    assert_int_equal(sscanf(f, "fill=\"rgb(%d,%d,%d)", &bx->r, &bx->g, &bx->b), 3);
    return 1;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;

    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        n++;
    return n;
}

/* Widths in proportion to totals, children in name order side by side,
 * callers below their callees. */
static void test_widths(void **state)
{
    flame_stack st[] = {{"main;b", 60}, {"main;a;y", 10}, {"main;a;x", 30}};
    flame_opts o = {.title = "CPU"};
    char *s = svg(st, 3, &o);
    box all, m, a, b, x, y;

    (void)state;
    assert_non_null(strstr(s, "<figcaption>CPU</figcaption>"));
    assert_true(find_box(s, "all: 100.0 % (100 samples)", &all));
    assert_true(find_box(s, "main: 100.0 % (100 samples)", &m));
    assert_true(find_box(s, "a: 40.0 % (40 samples)", &a));
    assert_true(find_box(s, "b: 60.0 % (60 samples)", &b));
    assert_true(find_box(s, "x: 30.0 % (30 samples)", &x));
    assert_true(find_box(s, "y: 10.0 % (10 samples)", &y));
    assert_float_equal(all.w, PLOT, 0.01);
    assert_float_equal(m.w, PLOT, 0.01);
    assert_float_equal(a.w, 0.4 * PLOT, 0.01);
    assert_float_equal(b.w, 0.6 * PLOT, 0.01);
    assert_float_equal(x.w, 0.3 * PLOT, 0.01);
    assert_float_equal(y.w, 0.1 * PLOT, 0.01);
    /* alphabetical: a left of b, x left of y, each child from its parent's x */
    assert_float_equal(a.x, m.x, 0.01);
    assert_float_equal(b.x, a.x + a.w, 0.01);
    assert_float_equal(x.x, a.x, 0.01);
    assert_float_equal(y.x, x.x + x.w, 0.01);
    /* the root at the bottom */
    assert_true(all.y > m.y && m.y > a.y && a.y > x.y);
    assert_float_equal(a.y, b.y, 0.01);
    assert_int_equal(count(s, "<rect "), 6);
    free(s);

    /* microseconds shown as ms or s */
    flame_stack us[] = {{"run;seq_next", 3.4e6}, {"run;parse", 1.3e6}, {"run;gc", 12300}};
    o.unit = "us";
    s = svg(us, 3, &o);
    assert_true(find_box(s, "seq_next: 72.2 % (3.4 s)", &x));
    assert_true(find_box(s, "gc: 0.3 % (12.3 ms)", &x));
    free(s);
}

/* A stack listed twice is one frame of their sum. */
static void test_repeated_summed(void **state)
{
    flame_stack st[] = {{"m;f", 2}, {"m;g", 5}, {"m;f", 3}, {"m;f;h", 1}, {"m;f;h", 1}};
    char *s = svg(st, 5, NULL);
    box f, h;

    (void)state;
    assert_true(find_box(s, "f: 58.3 % (7 samples)", &f));
    assert_true(find_box(s, "h: 16.7 % (2 samples)", &h));
    assert_float_equal(f.w, 7.0 / 12 * PLOT, 0.01);
    assert_int_equal(count(s, "<title>f: "), 1);
    assert_int_equal(count(s, "<title>h: "), 1);
    assert_int_equal(count(s, "<title>m: "), 1);
    free(s);
}

/* Every name is escaped, in its title and in its label. */
static void test_escaped(void **state)
{
    flame_stack st[] = {{"main;a<b&c\"", 1}};
    flame_opts o = {.title = "<x>"};
    char *s = svg(st, 1, &o);

    (void)state;
    assert_non_null(strstr(s, "<title>a&lt;b&amp;c&quot;: 100.0 % (1 samples)</title>"));
    assert_non_null(strstr(s, ">a&lt;b&amp;c&quot;</text>"));
    assert_non_null(strstr(s, "<figcaption>&lt;x&gt;</figcaption>"));
    assert_null(strstr(s, "a<b"));
    assert_null(strstr(s, "<x>"));
    free(s);
}

/* Many distinct stacks, each wide enough at a tiny min_px (drawn whole,
 * 3 * N + 1 rectangles): at most FLAME_RECTS_MAX, close to it, the widest
 * kept and the narrowest summed. */
static void test_rects_capped(void **state)
{
    enum { N = 4000 };
    flame_stack *st = calloc(N, sizeof(*st));
    char(*names)[40] = calloc(N, sizeof(*names));
    flame_opts o = {.min_px = 0.001};
    char *s;
    size_t rects;

    (void)state;
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "r%04d;c%04d;l%04d", i, i, i);
        st[i].frames = names[i];
        st[i].value = i + 1;
    }
    s = svg(st, N, &o);
    rects = count(s, "<rect ");
    assert_true(rects <= FLAME_RECTS_MAX);
    assert_true(rects > FLAME_RECTS_MAX - 10);
    assert_int_equal(count(s, "<g>"), rects);
    assert_true(find_box(s, "l3999: ", &(box){0}));
    assert_false(find_box(s, "r0000: ", &(box){0}));
    assert_int_equal(count(s, "<title>[other]: "), 1);
    free(s);
    /* drawn whole below the cap */
    s = svg(st, FLAME_RECTS_MAX / 3 - 1, &o);
    assert_int_equal(count(s, "<rect "), 3 * (FLAME_RECTS_MAX / 3 - 1) + 1);
    free(s);
    free(st);
    free(names);
}

/* Frames narrower than min_px: summed into one grey "[other]" when the sum
 * is wide enough, left out otherwise, their value still in the caller. */
static void test_min_width(void **state)
{
    flame_stack st[12];
    char names[10][16];
    char *s;
    box big, other, m;

    (void)state;
    st[0] = (flame_stack){"m;big", 990};
    st[1] = (flame_stack){"m;big;z", 0.4};
    for (int i = 0; i < 10; i++) {
        snprintf(names[i], sizeof(names[i]), "m;t%d", i);
        st[i + 2] = (flame_stack){names[i], 1};
    }
    s = svg(st, 12, NULL);
    assert_true(find_box(s, "m: 100.0 %", &m));
    assert_true(find_box(s, "big: 99.0 %", &big));
    assert_true(find_box(s, "[other]: 1.0 % (10 samples)", &other));
    assert_float_equal(other.w, 10 * PLOT / 1000.4, 0.01);
    assert_float_equal(other.x, big.x + big.w, 0.01);
    assert_int_equal(other.r, 190);
    assert_int_equal(other.g, 190);
    assert_int_equal(other.b, 190);
    assert_null(strstr(s, "<title>t3: "));
    /* z alone is 0.4 px: no [other] above big, big as wide as its share */
    assert_null(strstr(s, "<title>z: "));
    assert_int_equal(count(s, "<title>[other]: "), 1);
    assert_float_equal(big.w, 990.4 * PLOT / 1000.4, 0.01);
    /* a larger min_px merges big's neighbours only */
    free(s);
    s = svg(st, 12, &(flame_opts){.min_px = 20});
    assert_int_equal(count(s, "<rect "), 3);
    assert_null(strstr(s, "<title>[other]: "));
    free(s);
}

/* Levels past max_depth folded into the last; labels cut with "..". */
static void test_depth_and_labels(void **state)
{
    flame_stack st[] = {{"a;b;c;d", 2}, {"a;b;e", 1}, {"a;veryveryverylongname", 1}};
    flame_opts o = {.max_depth = 2, .width_px = 200};
    char *s = svg(st, 3, &o);
    box b;

    (void)state;
    assert_true(find_box(s, "b: 75.0 % (3 samples); deeper frames folded in", &b));
    assert_null(strstr(s, "<title>c: "));
    assert_null(strstr(s, "<title>e: "));
    assert_int_equal(count(s, "<rect "), 4);
    /* 25 % of 180 px: 45 px, 5 characters, "ver.." */
    assert_non_null(strstr(s, ">ver..</text>"));
    assert_non_null(strstr(s, ">all</text>"));
    free(s);
}

/* The differential view: the after shape, grown red, shrunk blue, both shares. */
static void test_diff(void **state)
{
    flame_stack before[] = {{"m;find", 1}, {"m;scan", 7}, {"m;gone", 2}};
    flame_stack after[] = {{"m;find", 83}, {"m;scan", 17}, {"m;new", 0.0001}};
    char *s = diff_svg(before, 3, after, 3);
    box find, scan, m;

    (void)state;
    assert_true(find_box(s, "find: 83.0 % (was 10.0 %)</title>", &find));
    assert_true(find_box(s, "scan: 17.0 % (was 70.0 %)</title>", &scan));
    assert_true(find_box(s, "m: 100.0 % (was 100.0 %)</title>", &m));
    assert_null(strstr(s, "<title>gone: "));
    assert_float_equal(find.w, 0.83 * PLOT, 0.01);
    /* grown the most: full red; shrunk by 53 of 73 points: blue */
    assert_true(find.r > 250 && find.g < 80 && find.b < 80);
    assert_true(scan.b >= 245 && scan.r < 120 && scan.g < 120);
    assert_true(scan.r > find.g);
    /* unchanged: neither */
    assert_int_equal(m.r, m.b);
    free(s);

    /* a frame absent before was 0 % */
    flame_stack b2[] = {{"m;a", 1}};
    flame_stack a2[] = {{"m;a", 1}, {"m;b", 1}};
    s = diff_svg(b2, 1, a2, 2);
    assert_true(find_box(s, "b: 50.0 % (was 0.0 %)", &find));
    assert_true(find.r > find.b);
    free(s);

    /* nothing before: said, every frame new */
    s = diff_svg(NULL, 0, a2, 2);
    assert_non_null(strstr(s, "no samples"));
    assert_true(find_box(s, "a: 50.0 % (was 0.0 %)", &find));
    free(s);
}

/* No stack of a value > 0: "no samples", no SVG. */
static void test_empty(void **state)
{
    flame_stack zero[] = {{"a;b", 0}, {NULL, 5}, {"c", -1}};
    char *s = svg(NULL, 0, &(flame_opts){.title = "CPU"});

    (void)state;
    assert_non_null(strstr(s, "<figcaption>CPU</figcaption>"));
    assert_non_null(strstr(s, "<p class=\"empty\">no samples</p>"));
    assert_null(strstr(s, "<svg"));
    free(s);
    s = svg(zero, 3, NULL);
    assert_non_null(strstr(s, "no samples"));
    assert_null(strstr(s, "<svg"));
    free(s);
    s = diff_svg(zero, 3, NULL, 0);
    assert_non_null(strstr(s, "no samples"));
    assert_null(strstr(s, "<svg"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),    cmocka_unit_test(test_repeated_summed),
        cmocka_unit_test(test_escaped),   cmocka_unit_test(test_rects_capped),
        cmocka_unit_test(test_min_width), cmocka_unit_test(test_depth_and_labels),
        cmocka_unit_test(test_diff),      cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
