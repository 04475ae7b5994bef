/* flame — flame graphs of folded stacks as inline SVG; see flame.h. */
#include "reports/flame.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/mem.h"
#include "common/utf8.h"
#include "reports/html.h"

#define FLAME_LEVEL_H 16     /* px a level takes */
#define FLAME_BOX_H 15       /* px of a frame's rectangle: 1 px between levels */
#define FLAME_PAD 10         /* px left and right of the frames */
#define FLAME_PAD_V 4        /* px above and below them */
#define FLAME_FONT_PX 12     /* the labels' size, in a monospace font */
#define FLAME_CHAR_PX 7.3    /* a character of it, a little more than 0.6 em */
#define FLAME_LABEL_MAX 200  /* most characters of a label */
#define FLAME_DIFF_FULL 0.01 /* the least change of share drawn at full strength: 1 point */
#define FLAME_FIT_STEPS 10   /* halvings of the search for the least min_px that fits */
#define FLAME_NONE SIZE_MAX  /* no node */
#define FLAME_OTHER_FILL "rgb(190,190,190)"

/* A frame of the merged tree. */
typedef struct flame_node {
    size_t name;    /* offset of its name (NUL-terminated) in the tree's names */
    size_t len;     /* bytes of its name */
    double total;   /* value of the stacks through it */
    double was;     /* the differential view: the before tree's total on the same path */
    size_t child;   /* first child (in name order), FLAME_NONE */
    size_t last;    /* last child, FLAME_NONE */
    size_t next;    /* next sibling, FLAME_NONE */
    unsigned depth; /* 0: "all" */
    int folded;     /* 1: deeper frames were folded into it (max_depth) */
} flame_node;

typedef struct flame_tree {
    flame_node *nodes; /**< owned: n nodes, nodes[0] "all", children after their parent */
    size_t n;
    size_t cap;
    char *names; /**< owned: the nodes' names, each NUL-terminated, nlen bytes used */
    size_t nlen;
    size_t ncap;
} flame_tree;

/* One pass over the tree: counting (out NULL) or writing. */
typedef struct flame_draw {
    FILE *out;           /**< borrowed: NULL while counting */
    const flame_tree *t; /**< borrowed: the tree drawn */
    const char *unit;    /**< borrowed: flame_opts.unit */
    double scale;        /* px per unit of value */
    double min;          /* px: narrower frames are summed into FLAME_OTHER */
    unsigned depth;      /* the deepest level drawn (counted in the first pass) */
    size_t rects;        /* rectangles counted */
    int diff;            /* 1: the differential view */
    double before;       /* the differential view: the before tree's total, 0 if empty */
    double full;         /* the differential view: the change of share at full strength */
} flame_draw;

/* The order of the stacks: byte order with ';' and the end below any other
 * byte, so that the stacks sharing frames are together and each node's
 * children come in the byte order of their names. */
static int sort_key(unsigned char c)
{
    return c == '\0' ? 0 : c == ';' ? 1 : c + 2;
}

static int stack_cmp(const void *a, const void *b)
{
    const unsigned char *x = (const unsigned char *)(*(const flame_stack *const *)a)->frames;
    const unsigned char *y = (const unsigned char *)(*(const flame_stack *const *)b)->frames;

    while (*x != '\0' && *x == *y) {
        x++;
        y++;
    }
    return sort_key(*x) - sort_key(*y);
}

static size_t add_name(flame_tree *t, const char *s, size_t len)
{
    size_t at = t->nlen;

    if (t->ncap - t->nlen < len + 1) {
        size_t cap = t->ncap > 0 ? t->ncap : 4096;
        while (cap - t->nlen < len + 1)
            cap *= 2;
        t->names = xrealloc(t->names, cap);
        t->ncap = cap;
    }
    memcpy(t->names + at, s, len);
    t->names[at + len] = '\0';
    t->nlen += len + 1;
    return at;
}

/* A new last child of parent (FLAME_NONE: the root), its index. */
static size_t add_node(flame_tree *t, size_t parent, const char *s, size_t len, unsigned depth)
{
    size_t i = t->n;
    flame_node *nd;

    if (t->n == t->cap) {
        t->cap = t->cap > 0 ? 2 * t->cap : 256;
        t->nodes = xreallocarray(t->nodes, t->cap, sizeof(*t->nodes));
    }
    nd = &t->nodes[i];
    memset(nd, 0, sizeof(*nd));
    nd->name = add_name(t, s, len);
    nd->len = len;
    nd->child = nd->last = nd->next = FLAME_NONE;
    nd->depth = depth;
    t->n++;
    if (parent != FLAME_NONE) {
        flame_node *p = &t->nodes[parent];
        if (p->child == FLAME_NONE)
            p->child = i;
        else
            t->nodes[p->last].next = i;
        p->last = i;
    }
    return i;
}

static int same_name(const flame_tree *t, size_t i, const char *s, size_t len)
{
    return t->nodes[i].len == len && memcmp(t->names + t->nodes[i].name, s, len) == 0;
}

/* The tree of the stacks st, cut at max_depth levels above "all": sorted,
 * each stack shares the path of the one before as far as their frames agree. */
static void tree_of(flame_tree *t, const flame_stack *st, size_t n, unsigned max_depth)
{
    const flame_stack **ord = xcalloc(n > 0 ? n : 1, sizeof(*ord));
    size_t *path = xcalloc((size_t)max_depth + 1, sizeof(*path));
    size_t m = 0, plen = 1;

    memset(t, 0, sizeof(*t));
    path[0] = add_node(t, FLAME_NONE, "all", 3, 0);
    for (size_t i = 0; i < n; i++)
        if (st[i].frames != NULL && st[i].value > 0 && isfinite(st[i].value))
            ord[m++] = &st[i];
    qsort(ord, m, sizeof(*ord), stack_cmp);
    for (size_t k = 0; k < m; k++) {
        const char *s = ord[k]->frames;
        double v = ord[k]->value;
        unsigned d = 0;

        t->nodes[0].total += v;
        while (*s != '\0') {
            const char *e = strchr(s, ';');
            size_t len = e != NULL ? (size_t)(e - s) : strlen(s);

            if (d == max_depth) {
                t->nodes[path[d]].folded = 1;
                break;
            }
            d++;
            if (d >= plen || !same_name(t, path[d], s, len)) {
                path[d] = add_node(t, path[d - 1], s, len, d);
                plen = d + 1;
            }
            t->nodes[path[d]].total += v;
            if (e == NULL)
                break;
            s = e + 1;
        }
        plen = d + 1;
    }
    xfree(path);
    xfree(ord);
}

static void tree_free(flame_tree *t)
{
    xfree(t->nodes);
    xfree(t->names);
    memset(t, 0, sizeof(*t));
}

static int name_cmp(const flame_tree *a, size_t i, const flame_tree *b, size_t j)
{
    const flame_node *x = &a->nodes[i], *y = &b->nodes[j];
    int c = memcmp(a->names + x->name, b->names + y->name, x->len < y->len ? x->len : y->len);

    return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* Sets the was of a's node i and of its descendants from b's node j on the
 * same path: both children lists are in name order, walked side by side. */
static void match(flame_tree *a, size_t i, const flame_tree *b, size_t j)
{
    size_t ca = a->nodes[i].child, cb = b->nodes[j].child;

    a->nodes[i].was = b->nodes[j].total;
    while (ca != FLAME_NONE && cb != FLAME_NONE) {
        int c = name_cmp(a, ca, b, cb);
        if (c < 0) {
            ca = a->nodes[ca].next;
        } else if (c > 0) {
            cb = b->nodes[cb].next;
        } else {
            match(a, ca, b, cb);
            ca = a->nodes[ca].next;
            cb = b->nodes[cb].next;
        }
    }
}

/* A value in its unit: "3.4 s", "12.3 ms", "1 234 samples". */
static void put_value(FILE *out, const char *unit, double v)
{
    char b[48];

    if (unit != NULL && strcmp(unit, "us") == 0) {
        if (v < 1e6)
            fprintf(out, "%s ms", html_ms(v, b, sizeof(b)));
        else
            fprintf(out, "%.1f s", v / 1e6);
        return;
    }
    if (v == floor(v) && v < 1e18)
        html_count((uint64_t)v, b, sizeof(b));
    else
        html_num(v, b, sizeof(b));
    fprintf(out, "%s ", b);
    html_esc(out, unit != NULL ? unit : "samples");
}

/* Gregg's "hot" palette, the hue picked by a hash of the name (FNV-1a):
 * the same frame has the same colour on every graph. */
static void warm(const char *name, char *buf, size_t len)
{
    uint32_t h = 2166136261u;

    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++)
        h = (h ^ *p) * 16777619u;
    snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 51, (h >> 8) % 231, (h >> 20) % 56);
}

/* Grown (delta > 0) red, shrunk blue, by how much against full; grey at 0. */
static void diff_color(double delta, double full, char *buf, size_t len)
{
    double k = fmin(1, fabs(delta) / full);
    int hi = (int)lround(235 + 20 * k), lo = (int)lround(235 - 175 * k);

    if (delta >= 0)
        snprintf(buf, len, "rgb(%d,%d,%d)", hi, lo, lo);
    else
        snprintf(buf, len, "rgb(%d,%d,%d)", lo, lo, hi);
}

/* The name inside a frame w px wide, cut with ".." to the characters that fit. */
static void label(FILE *out, double x, double y, double w, const char *name)
{
    char buf[FLAME_LABEL_MAX * 4 + 3];
    double room = (w - 6) / FLAME_CHAR_PX;
    size_t fit, chars = 0, cut = 0;

    if (!(room >= 3))
        return;
    fit = room > FLAME_LABEL_MAX ? FLAME_LABEL_MAX : (size_t)room;
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + FLAME_BOX_H - 4);
    for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; p++)
        chars += (*p & 0xc0) != 0x80;
    if (chars <= fit) {
        html_esc(out, name);
    } else {
        for (chars = 0; name[cut] != '\0' && cut < sizeof(buf) - 3; cut++)
            if (((unsigned char)name[cut] & 0xc0) != 0x80 && chars++ == fit - 2)
                break;
        cut = utf8_cut(name, strlen(name), cut);
        memcpy(buf, name, cut);
        memcpy(buf + cut, "..", 3);
        html_esc(out, buf);
    }
    fputs("</text>", out);
}

/* One rectangle, its title and its label; counted, written when writing. */
static void rect(flame_draw *dw, unsigned depth, double x, double w, const char *name, double v,
                 double was, int folded)
{
    const flame_tree *t = dw->t;
    double all = t->nodes[0].total, y;
    char fill[32];

    dw->rects++;
    if (depth > dw->depth)
        dw->depth = depth;
    if (dw->out == NULL)
        return;
    y = FLAME_PAD_V + (double)(dw->depth - depth) * FLAME_LEVEL_H;
    fputs("<g><title>", dw->out);
    html_esc(dw->out, name);
    if (dw->diff) {
        double now = v / all, then = dw->before > 0 ? was / dw->before : 0;
        fprintf(dw->out, ": %.1f %% (was %.1f %%)", 100 * now, 100 * then);
        diff_color(now - then, dw->full, fill, sizeof(fill));
    } else {
        fprintf(dw->out, ": %.1f %% (", 100 * v / all);
        put_value(dw->out, dw->unit, v);
        fputs(folded ? "); deeper frames folded in" : ")", dw->out);
        warm(name, fill, sizeof(fill));
    }
    if (strcmp(name, FLAME_OTHER) == 0)
        snprintf(fill, sizeof(fill), "%s", FLAME_OTHER_FILL);
    fprintf(dw->out,
            "</title><rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>", x, y,
            w, FLAME_BOX_H, fill);
    label(dw->out, x, y, w, name);
    fputs("</g>\n", dw->out);
}

/* Node i at x and the children wide enough above it, packed left in name
 * order; those too narrow summed into one FLAME_OTHER after them, drawn if
 * it is wide enough itself. */
static void visit(flame_draw *dw, size_t i, double x)
{
    const flame_tree *t = dw->t;
    const flame_node *nd = &t->nodes[i];
    double cx = x, other = 0, other_was = 0;

    rect(dw, nd->depth, x, nd->total * dw->scale, t->names + nd->name, nd->total, nd->was,
         nd->folded);
    for (size_t c = nd->child; c != FLAME_NONE; c = t->nodes[c].next) {
        double w = t->nodes[c].total * dw->scale;
        if (w >= dw->min) {
            visit(dw, c, cx);
            cx += w;
        } else {
            other += t->nodes[c].total;
            other_was += t->nodes[c].was;
        }
    }
    if (other > 0 && other * dw->scale >= dw->min)
        rect(dw, nd->depth + 1, cx, other * dw->scale, FLAME_OTHER, other, other_was, 0);
}

/* The rectangles drawn at dw's min, the deepest level they reach set. */
static size_t count(flame_draw *dw)
{
    dw->rects = 0;
    dw->depth = 0;
    visit(dw, 0, FLAME_PAD);
    return dw->rects;
}

/* The figure of tree t; diff: the differential view, t's was set, before
 * the before tree's total. */
static void draw(FILE *out, const flame_tree *t, const flame_opts *o, int diff, double before)
{
    unsigned width = o->width_px == 0 ? FLAME_WIDTH_DEFAULT : o->width_px;
    double all = t->nodes[0].total;
    flame_draw dw;

    if (width < FLAME_WIDTH_MIN)
        width = FLAME_WIDTH_MIN;
    if (width > FLAME_WIDTH_MAX)
        width = FLAME_WIDTH_MAX;
    fputs("<figure class=\"flame\">\n", out);
    if (o->title != NULL) {
        fputs("<figcaption>", out);
        html_esc(out, o->title);
        fputs("</figcaption>\n", out);
    }
    if (!(all > 0)) {
        fputs("<p class=\"empty\">no samples</p>\n</figure>\n", out);
        return;
    }
    if (diff && !(before > 0))
        fputs("<p class=\"note\">The before profile has no samples: every frame is new.</p>\n",
              out);
    memset(&dw, 0, sizeof(dw));
    dw.t = t;
    dw.unit = o->unit;
    dw.scale = (width - 2.0 * FLAME_PAD) / all;
    dw.min = o->min_px > 0 ? o->min_px : FLAME_MIN_PX;
    dw.diff = diff;
    dw.before = before;
    dw.full = FLAME_DIFF_FULL;
    for (size_t i = 0; diff && i < t->n; i++) {
        const flame_node *nd = &t->nodes[i];
        dw.full = fmax(dw.full, fabs(nd->total / all - (before > 0 ? nd->was / before : 0)));
    }
    /* each level holds at most width / min rectangles, so doubling min
     * ends; then the least min that fits, within 1/1024 of it, is sought
     * between the last two */
    if (count(&dw) > FLAME_RECTS_MAX) {
        double lo = dw.min, hi = 2 * dw.min;
        dw.min = hi;
        while (count(&dw) > FLAME_RECTS_MAX) {
            lo = hi;
            hi *= 2;
            dw.min = hi;
        }
        for (int k = 0; k < FLAME_FIT_STEPS; k++) {
            dw.min = (lo + hi) / 2;
            if (count(&dw) > FLAME_RECTS_MAX)
                lo = dw.min;
            else
                hi = dw.min;
        }
        dw.min = hi;
        count(&dw);
    }
    fprintf(out,
            "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %u %u\" "
            "style=\"width:100%%;height:auto;display:block\" font-family=\"monospace\" "
            "font-size=\"%d\" role=\"img\" aria-label=\"",
            width, 2 * FLAME_PAD_V + (dw.depth + 1) * FLAME_LEVEL_H, FLAME_FONT_PX);
    html_esc(out, o->title != NULL ? o->title : "flame graph");
    fputs("\">\n", out);
    dw.out = out;
    visit(&dw, 0, FLAME_PAD);
    fputs("</svg>\n</figure>\n", out);
}

static unsigned depth_of(const flame_opts *o)
{
    if (o->max_depth == 0)
        return FLAME_DEPTH_DEFAULT;
    return o->max_depth > FLAME_DEPTH_MAX ? FLAME_DEPTH_MAX : o->max_depth;
}

void flame_svg(FILE *out, const flame_stack *st, size_t n, const flame_opts *o)
{
    static const flame_opts none;
    flame_tree t;

    if (o == NULL)
        o = &none;
    tree_of(&t, st, n, depth_of(o));
    draw(out, &t, o, 0, 0);
    tree_free(&t);
}

void flame_diff_svg(FILE *out, const flame_stack *before, size_t nb, const flame_stack *after,
                    size_t na, const flame_opts *o)
{
    static const flame_opts none;
    flame_tree a, b;

    if (o == NULL)
        o = &none;
    tree_of(&b, before, nb, depth_of(o));
    tree_of(&a, after, na, depth_of(o));
    match(&a, 0, &b, 0);
    draw(out, &a, o, 1, b.nodes[0].total);
    tree_free(&a);
    tree_free(&b);
}
