#include "record/correl.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/mem.h"
#include "record/luaout.h"

#define VALUE_MAX 4096 /* longer values are not correlated */
#define NAME_MAX_LEN 48
/* An extracting expression: its quoted text (an XPath, a Location pattern:
 * VALUE_MAX + 64 bytes at most) at 4 bytes a byte ("\ddd") and the call
 * around it. One longer is not written: the value stays as recorded. */
#define EXPR_MAX (4 * (VALUE_MAX + 64) + 64)

/* A list of strings (the values one entry sends). */
typedef struct vlist {
    char **v; /* owned: n strings, each owned */
    size_t n, cap;
} vlist;

static void vlist_add(void *arg, const char *name, const char *value)
{
    vlist *l = arg;

    (void)name;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
    }
    l->v[l->n++] = xstrdup(value);
}

/* Percent-decodes n bytes of s ('+' too when plus) into out (NUL-ended, cut to len). */
static void pct_decode(const char *s, size_t n, int plus, char *out, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; i < n && o + 1 < len; i++) {
        if (s[i] == '%' && i + 2 < n + 0 && isxdigit((unsigned char)s[i + 1]) &&
            isxdigit((unsigned char)s[i + 2])) {
            char hex[3] = {s[i + 1], s[i + 2], 0};
            out[o++] = (char)strtol(hex, NULL, 16);
            i += 2;
        } else
            out[o++] = plus && s[i] == '+' ? ' ' : s[i];
    }
    out[o] = '\0';
}

/* Calls fn for each name=value of a query or form text of n bytes. */
static void pairs_each(const char *s, size_t n, void (*fn)(void *, const char *, const char *),
                       void *arg)
{
    char name[VALUE_MAX], value[VALUE_MAX];
    const char *end = s + n;

    while (s < end) {
        const char *amp = memchr(s, '&', (size_t)(end - s));
        const char *stop = amp != NULL ? amp : end;
        const char *eq = memchr(s, '=', (size_t)(stop - s));
        if (eq != NULL) {
            pct_decode(s, (size_t)(eq - s), 1, name, sizeof(name));
            pct_decode(eq + 1, (size_t)(stop - eq - 1), 1, value, sizeof(value));
            fn(arg, name, value);
        }
        s = stop + 1;
    }
}

/* Calls fn for each string or integer leaf of j. */
static void json_leaves(json_t *j, const char *key, void (*fn)(void *, const char *, const char *),
                        void *arg)
{
    const char *k;
    json_t *v;
    size_t i;
    char num[32];

    if (json_is_object(j)) {
        json_object_foreach(j, k, v) json_leaves(v, k, fn, arg);
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v) json_leaves(v, key, fn, arg);
    } else if (json_is_string(j)) {
        fn(arg, key, json_string_value(j));
    } else if (json_is_integer(j)) {
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(j));
        fn(arg, key, num);
    }
}

void correl_sent(const har_entry *e, void (*fn)(void *arg, const char *name, const char *value),
                 void *arg)
{
    const char *p = strstr(e->url, "://"), *path, *q, *hash;
    char seg[VALUE_MAX];

    /* the URL: path segments, query values */
    p = p != NULL ? p + 3 : e->url;
    path = strchr(p, '/');
    if (path != NULL) {
        hash = strchr(path, '#');
        if (hash == NULL)
            hash = path + strlen(path);
        q = memchr(path, '?', (size_t)(hash - path));
        for (const char *s = path + 1; s < (q ? q : hash);) {
            const char *slash = memchr(s, '/', (size_t)((q ? q : hash) - s));
            const char *stop = slash != NULL ? slash : (q ? q : hash);
            pct_decode(s, (size_t)(stop - s), 0, seg, sizeof(seg));
            if (seg[0] != '\0')
                fn(arg, "", seg);
            s = stop + 1;
        }
        if (q != NULL)
            pairs_each(q + 1, (size_t)(hash - q - 1), fn, arg);
    }
    /* the body */
    if (e->req_text != NULL) {
        if (e->nparams > 0) {
            for (size_t i = 0; i < e->nparams; i++)
                fn(arg, e->params[i].name, e->params[i].value);
        } else if (strstr(e->req_mime, "x-www-form-urlencoded") != NULL) {
            pairs_each(e->req_text, strlen(e->req_text), fn, arg);
        } else if (strstr(e->req_mime, "json") != NULL) {
            json_t *j = json_loads(e->req_text, JSON_DECODE_ANY, NULL);
            if (j != NULL) {
                json_leaves(j, "", fn, arg);
                json_decref(j);
            }
        }
    }
    /* headers of the application's own (X-CSRF-Token, a bearer token) */
    for (size_t i = 0; i < e->nheaders; i++) {
        const char *v = e->headers[i].value;
        if (har_header_own(e->headers[i].name))
            continue;
        if (strncasecmp(v, "Bearer ", 7) == 0)
            v += 7;
        fn(arg, e->headers[i].name, v);
    }
}

/* Worth correlating: long enough not to be a word or a small number that
 * appears by chance; common literals never. */
static int distinctive(const char *v)
{
    size_t n = strlen(v), digits = 0;

    if (n > VALUE_MAX || strcmp(v, "true") == 0 || strcmp(v, "false") == 0 ||
        strcmp(v, "null") == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        digits += isdigit((unsigned char)v[i]) != 0;
    if (digits == n)
        return n >= 2; /* an id: 42, 1017 */
    return (n >= 4 && digits > 0) || n >= 12;
}

/* The value of attribute attr in the tag text [s, end), entity-decoded, in out. */
static int tag_attr(const char *s, const char *end, const char *attr, char *out, size_t len)
{
    size_t alen = strlen(attr);

    for (const char *p = s; p + alen < end; p++) {
        const char *v;
        char quote;
        size_t o = 0;
        if (strncasecmp(p, attr, alen) != 0 || !isspace((unsigned char)p[-1]))
            continue;
        v = p + alen;
        while (v < end && isspace((unsigned char)*v))
            v++;
        if (v >= end || *v != '=')
            continue;
        v++;
        while (v < end && isspace((unsigned char)*v))
            v++;
        quote = (*v == '"' || *v == '\'') ? *v++ : 0;
        while (v < end && o + 1 < len &&
               (quote ? *v != quote : !isspace((unsigned char)*v) && *v != '>')) {
            static const struct {
                const char *ent; /* borrowed: a literal */
                char c;
            } ents[] = {
                {"&amp;", '&'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&lt;", '<'}, {"&gt;", '>'}};
            size_t k;
            for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
                if (strncmp(v, ents[k].ent, strlen(ents[k].ent)) == 0)
                    break;
            if (k < sizeof(ents) / sizeof(ents[0])) {
                out[o++] = ents[k].c;
                v += strlen(ents[k].ent);
            } else
                out[o++] = *v++;
        }
        out[o] = '\0';
        return 1;
    }
    return 0;
}

/* In a Location header: v as a whole segment or query value. Sets the Lua
 * pattern that captures it and name (the segment before it, or the key). */
static int location_find(const char *loc, const char *v, char *pat, size_t plen, char *name,
                         size_t nlen)
{
    size_t vl = strlen(v), o = 0;
    const char *start = strstr(loc, "://");

    start = start != NULL ? strchr(start + 3, '/') : loc;
    if (start == NULL)
        return 0;
    for (const char *p = strstr(start, v); p != NULL; p = strstr(p + 1, v)) {
        char before = p > start ? p[-1] : '/';
        char after = p[vl];
        if (!strchr("/?&=", before) || !(after == '\0' || strchr("/?&#", after)))
            continue;
        for (const char *s = start; s < p && o + 3 < plen; s++) {
            if (strchr("^$()%.[]*+-?", *s))
                pat[o++] = '%';
            pat[o++] = *s;
        }
        snprintf(pat + o, plen - o, "([^/?&#]+)");
        /* the name: the key before '=', else the segment before this one + "_id" */
        {
            const char *stop = p - 1, *from = stop;
            while (from > start && !strchr(before == '=' ? "?&" : "/", from[-1]))
                from--;
            snprintf(name, nlen, "%.*s%s", (int)(stop - from), from, before == '=' ? "" : "_id");
        }
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ the index */

/* Where a response holds a value: one per value and response (the first
 * the extraction would find: a hidden input, then a meta, then a JSON
 * leaf), or a Location header holding a segment. */
typedef enum hold_how { HOLD_INPUT, HOLD_META, HOLD_JSON, HOLD_LOCATION } hold_how;

typedef struct hold {
    size_t entry; /* the response's entry */
    size_t prev;  /* the hold of the same key in an earlier entry, or SIZE_MAX */
    hold_how how;
    char *name; /* owned: the input's or meta's name, the JSON key ("" at the top); or NULL */
    char *path; /* owned: the Lua index chain of a JSON leaf, or NULL */
} hold;

/* Every response's values, read once. */
typedef struct holds {
    hold *h; /* owned, n holds */
    size_t n, cap;
    strtab values; /* a value to its latest hold (HOLD_INPUT, _META, _JSON) */
    strtab atoms;  /* a Location's segment (up to the next / ? & = #) to its latest hold */
} holds;

/* Adds that entry's response holds key, unless an earlier way already did. */
static void holds_add(holds *x, strtab *t, const char *key, size_t entry, hold_how how,
                      const char *name, const char *path)
{
    int added;
    size_t *slot = strtab_put(t, key, &added), prev = added ? SIZE_MAX : *slot;
    hold *o;

    if (prev != SIZE_MAX && x->h[prev].entry == entry)
        return;
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->h = xreallocarray(x->h, x->cap, sizeof(*x->h));
    }
    *slot = x->n;
    o = &x->h[x->n++];
    o->entry = entry;
    o->prev = prev;
    o->how = how;
    o->name = xstrdup(name);
    o->path = xstrdup(path);
}

/* An HTML page's <input name=N value=V> and <meta name=N content=V>, in
 * the page's order; a tag's text ends at its '>', where the next is sought. */
static void markup_index(holds *x, const char *html, size_t entry)
{
    static const struct {
        const char *tag, *key, *val; /* borrowed: literals */
    } tags[] = {{"<input", "name", "value"}, {"<meta", "name", "content"}};

    for (size_t t = 0; t < 2; t++) {
        for (const char *p = strcasestr(html, tags[t].tag), *end; p != NULL;
             p = strcasestr(end, tags[t].tag)) {
            char val[VALUE_MAX], name[NAME_MAX_LEN + 1];
            end = strchr(p, '>');
            if (end == NULL)
                break;
            if (tag_attr(p, end, tags[t].val, val, sizeof(val)) && distinctive(val) &&
                tag_attr(p, end, tags[t].key, name, sizeof(name)) &&
                luaout_plain(name, NAME_MAX_LEN))
                holds_add(x, &x->values, val, entry, t == 0 ? HOLD_INPUT : HOLD_META, name, NULL);
        }
    }
}

/* A JSON document's string and integer leaves under keys that may stand
 * in an index chain as they are; path holds the chain to j (["a"][1]),
 * key the innermost object key. */
static void json_index(holds *x, json_t *j, const char *key, char *path, size_t plen, size_t entry)
{
    size_t at = strlen(path), i;
    const char *k;
    json_t *v;
    char num[32];

    if (json_is_object(j)) {
        json_object_foreach(j, k, v)
        {
            if (!luaout_plain(k, NAME_MAX_LEN))
                continue;
            snprintf(path + at, plen - at, "[\"%s\"]", k);
            json_index(x, v, k, path, plen, entry);
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            snprintf(path + at, plen - at, "[%zu]", i + 1);
            json_index(x, v, key, path, plen, entry);
        }
    } else if (json_is_string(j) && distinctive(json_string_value(j))) {
        holds_add(x, &x->values, json_string_value(j), entry, HOLD_JSON, key, path);
    } else if (json_is_integer(j)) {
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(j));
        if (distinctive(num))
            holds_add(x, &x->values, num, entry, HOLD_JSON, key, path);
    }
    path[at] = '\0';
}

/* A Location's segments: each stretch that starts after / ? & = (or at the
 * path's start) up to the next / ? & = #. A value location_find finds
 * there begins with one of them. */
static void location_index(holds *x, const char *loc, size_t entry)
{
    const char *start = strstr(loc, "://");
    char atom[VALUE_MAX + 1];

    start = start != NULL ? strchr(start + 3, '/') : loc;
    for (const char *s = start; s != NULL && *s; s++) {
        size_t n = strcspn(s, "/?&=#");
        if ((s == start || strchr("/?&=", s[-1]) != NULL) && n < sizeof(atom)) {
            memcpy(atom, s, n);
            atom[n] = '\0';
            holds_add(x, &x->atoms, atom, entry, HOLD_LOCATION, NULL, NULL);
        }
    }
}

static void holds_free(holds *x)
{
    for (size_t i = 0; i < x->n; i++) {
        xfree(x->h[i].name);
        xfree(x->h[i].path);
    }
    xfree(x->h);
    strtab_free(&x->values);
    strtab_free(&x->atoms);
}

/* ------------------------------------------------------------ the rules */

/* 1 when name is a keyword or a name the script itself uses. */
static int name_reserved(const char *name)
{
    static const char *const taken[] = {
        "and",  "break",  "do",    "else",  "elseif", "end",  "false", "for",    "function",
        "goto", "if",     "in",    "local", "nil",    "not",  "or",    "repeat", "return",
        "then", "true",   "until", "while", "quern",  "http", "base",  "sc",     "r",
        "vu",   "string", "math",  "table", "os",     "io",   "print", "type",   "error"};

    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
        if (strcmp(name, taken[i]) == 0)
            return 1;
    return 0;
}

/* Makes name a Lua identifier not used yet by c nor by the script itself:
 * the stem, else stem_2, stem_3... (resumed where the stem's last one was
 * given: names are never freed, so the ones before are still taken). */
static void var_name(correl *c, const char *from, char *out, size_t len)
{
    char base[NAME_MAX_LEN];
    size_t o = 0, *last;

    for (const char *p = from; *p && o + 1 < sizeof(base); p++) {
        char ch = (char)tolower((unsigned char)*p);
        base[o++] = isalnum((unsigned char)ch) ? ch : '_';
    }
    base[o] = '\0';
    if (o == 0 || isdigit((unsigned char)base[0]) ||
        (base[0] == 's' && isdigit((unsigned char)base[1])))
        snprintf(base, sizeof(base), "value%s%.*s", o ? "_" : "", (int)(sizeof(base) - 8), from);
    luaout_name(base, base, sizeof(base));
    snprintf(out, len, "%s", base);
    if (name_reserved(out) || strtab_get(&c->vars, out) != NULL) {
        last = strtab_put(&c->bases, base, NULL);
        if (*last < 1)
            *last = 1;
        do
            snprintf(out, len, "%s_%zu", base, ++*last);
        while (name_reserved(out) || strtab_get(&c->vars, out) != NULL);
    }
    strtab_put(&c->vars, out, NULL);
}

/* The path of a URL, for the comments ("/login"). */
static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    p = p != NULL ? strchr(p + 3, '/') : url;
    return p != NULL ? p : "/";
}

/* Adds a rule; expr is written by fn(out, arg) (luaout makes what it
 * quotes inert). An expression past EXPR_MAX adds none. */
static void rule_add(correl *c, size_t src, const char *from, const char *value,
                     void (*fn)(dbuf *out, const void *arg), const void *arg, const char *why)
{
    char var[NAME_MAX_LEN + 24];
    correl_rule *r;
    dbuf expr;

    dbuf_init(&expr, EXPR_MAX);
    fn(&expr, arg);
    if (expr.refused) {
        dbuf_free(&expr);
        return;
    }
    var_name(c, from, var, sizeof(var));
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->r = xreallocarray(c->r, c->cap, sizeof(*c->r));
    }
    *strtab_put(&c->byvalue, value, NULL) = c->n;
    r = &c->r[c->n++];
    r->src = src;
    r->var = xstrdup(var);
    r->value = xstrdup(value);
    r->expr = dbuf_take(&expr, NULL);
    r->why = xstrdup(why);
}

static void expr_xpath(dbuf *out, const void *xp)
{
    dbuf_fmt(out, "r:xpath(");
    luaout_str(out, xp);
    dbuf_fmt(out, ")");
}

/* path: an index chain of luaout_plain keys and numbers */
static void expr_json(dbuf *out, const void *path)
{
    dbuf_fmt(out, "r:json()%s", (const char *)path);
}

static void expr_location(dbuf *out, const void *pat)
{
    dbuf_fmt(out, "r:header(\"location\"):match(");
    luaout_str(out, pat);
    dbuf_fmt(out, ")");
}

/* The rule of a hidden input, a meta or a JSON leaf. */
static void rule_of_hold(correl *c, const har_entry *e, const hold *o, const char *v)
{
    char xp[NAME_MAX_LEN + 64], why[NAME_MAX_LEN + 512];
    size_t pl = strlen(url_path(e->url));
    int cut = (int)(pl > 200 ? 200 : pl);

    if (o->how == HOLD_JSON) {
        err_set(why, sizeof(why), "\"%s\" in the JSON answer to %s %.*s", o->name, e->method, cut,
                url_path(e->url));
        rule_add(c, o->entry, o->name[0] ? o->name : "value", v, expr_json, o->path, why);
        return;
    }
    snprintf(xp, sizeof(xp),
             o->how == HOLD_INPUT ? "//input[@name='%s']/@value" : "//meta[@name='%s']/@content",
             o->name);
    err_set(why, sizeof(why), "the %s \"%s\" of the page %s %.*s",
            o->how == HOLD_INPUT ? "hidden input" : "meta", o->name, e->method, cut,
            url_path(e->url));
    rule_add(c, o->entry, o->name, v, expr_xpath, xp, why);
}

/* The rule of v, first sent by entry f: the latest response before f that
 * holds it (a hidden input, a meta or a JSON leaf before a Location header
 * of the same response). 1 when one was found. */
static int rule_find(correl *c, const har *h, const holds *x, const char *v, size_t f)
{
    const size_t *at = strtab_get(&x->values, v);
    const hold *best = NULL;
    char head[VALUE_MAX + 1];
    size_t hn = strcspn(v, "/?&=#");

    for (size_t i = at != NULL ? *at : SIZE_MAX; i != SIZE_MAX && best == NULL; i = x->h[i].prev)
        if (x->h[i].entry < f)
            best = &x->h[i];
    snprintf(head, sizeof(head), "%.*s", (int)hn, v);
    at = hn < sizeof(head) ? strtab_get(&x->atoms, head) : NULL;
    for (size_t i = at != NULL ? *at : SIZE_MAX; i != SIZE_MAX; i = x->h[i].prev) {
        const har_entry *e = &h->e[x->h[i].entry];
        char pat[VALUE_MAX + 64], name[NAME_MAX_LEN + 1] = "", why[NAME_MAX_LEN + 512];
        size_t pl = strlen(url_path(e->url));
        if (x->h[i].entry >= f)
            continue;
        if (best != NULL && x->h[i].entry <= best->entry)
            break;
        if (!location_find(e->location, v, pat, sizeof(pat), name, sizeof(name)))
            continue;
        err_set(why, sizeof(why), "the Location header of %s %.*s (%d)", e->method,
                (int)(pl > 200 ? 200 : pl), url_path(e->url), e->status);
        rule_add(c, x->h[i].entry, name[0] ? name : "value", v, expr_location, pat, why);
        return 1;
    }
    if (best == NULL)
        return 0;
    rule_of_hold(c, &h->e[best->entry], best, v);
    return 1;
}

void correl_find(const har *h, const unsigned char *keep, correl *c)
{
    holds x = {0};
    char path[VALUE_MAX + 64];
    strtab seen = {0};
    vlist sent = {0};

    memset(c, 0, sizeof(*c));
    /* once each: every kept response's values */
    for (size_t i = 0; i < h->n; i++) {
        const har_entry *e = &h->e[i];
        if (!keep[i])
            continue;
        if (e->resp_text != NULL && e->resp_mime != NULL && strstr(e->resp_mime, "html") != NULL)
            markup_index(&x, e->resp_text, i);
        if (e->resp_text != NULL &&
            ((e->resp_mime != NULL && strstr(e->resp_mime, "json") != NULL) ||
             e->resp_text[0] == '{' || e->resp_text[0] == '[')) {
            json_t *doc = json_loads(e->resp_text, 0, NULL);
            path[0] = '\0';
            if (doc != NULL)
                json_index(&x, doc, "", path, sizeof(path), i);
            json_decref(doc);
        }
        if (e->location != NULL)
            location_index(&x, e->location, i);
    }
    /* each value where a request first sends it; what a request sent before
     * any answer held it (what the tester typed, echoed back) stays literal */
    for (size_t j = 0; j < h->n; j++) {
        if (!keep[j])
            continue;
        sent.n = 0;
        correl_sent(&h->e[j], vlist_add, &sent);
        for (size_t k = 0; k < sent.n; k++) {
            int added;
            strtab_put(&seen, sent.v[k], &added);
            if (added && distinctive(sent.v[k]))
                rule_find(c, h, &x, sent.v[k], j);
        }
        for (size_t k = 0; k < sent.n; k++)
            xfree(sent.v[k]);
    }
    xfree(sent.v);
    strtab_free(&seen);
    holds_free(&x);
}

const correl_rule *correl_lookup(const correl *c, const char *value, size_t at)
{
    const size_t *i = strtab_get(&c->byvalue, value);

    return i != NULL && c->r[*i].src < at ? &c->r[*i] : NULL;
}

void correl_free(correl *c)
{
    for (size_t i = 0; i < c->n; i++) {
        xfree(c->r[i].var);
        xfree(c->r[i].value);
        xfree(c->r[i].expr);
        xfree(c->r[i].why);
    }
    xfree(c->r);
    strtab_free(&c->byvalue);
    strtab_free(&c->vars);
    strtab_free(&c->bases);
    memset(c, 0, sizeof(*c));
}
