#include "record/correl.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/mem.h"

#include "common/mem.h"

#define VALUE_MAX 4096 /* longer values are not correlated */
#define NAME_MAX_LEN 48

/* A list of strings (the values one entry sends). */
typedef struct vlist {
    char **v;
    size_t n, cap;
} vlist;

static void vlist_add(void *arg, const char *name, const char *value)
{
    vlist *l = arg;

    (void)name;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
    }
    l->v[l->n++] = xstrdup(value);
}

static int vlist_has(const vlist *l, const char *v)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], v) == 0)
            return 1;
    return 0;
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

/* A name that may stand in an XPath, a Lua string and a comment as it is. */
static int name_ok(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n >= NAME_MAX_LEN)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.:-[]", *p))
            return 0;
    return 1;
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
                const char *ent;
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

/* In an HTML page: an <input name=N value=V> or <meta name=N content=V>
 * whose value is v. Sets name and the XPath. */
static int markup_find(const char *html, const char *v, char *name, size_t nlen, char *xp,
                       size_t xlen)
{
    static const struct {
        const char *tag, *key, *val;
    } tags[] = {{"<input", "name", "value"}, {"<meta", "name", "content"}};

    for (size_t t = 0; t < 2; t++) {
        for (const char *p = strcasestr(html, tags[t].tag); p != NULL;
             p = strcasestr(p + 1, tags[t].tag)) {
            const char *end = strchr(p, '>');
            char val[VALUE_MAX];
            if (end == NULL)
                break;
            if (tag_attr(p, end, tags[t].val, val, sizeof(val)) && strcmp(val, v) == 0 &&
                tag_attr(p, end, tags[t].key, name, nlen) && name_ok(name)) {
                snprintf(xp, xlen, "//%s[@%s='%s']/@%s", tags[t].tag + 1, tags[t].key, name,
                         tags[t].val);
                return 1;
            }
        }
    }
    return 0;
}

/* In a JSON document: the first leaf equal to v; path gets its Lua index
 * chain (["a"][1]["id"]), name its key. */
static int json_find(json_t *j, const char *v, char *path, size_t plen, char *name, size_t nlen)
{
    size_t at = strlen(path), i;
    const char *k;
    json_t *x;
    char num[32];

    if (json_is_object(j)) {
        json_object_foreach(j, k, x)
        {
            if (!name_ok(k))
                continue;
            snprintf(path + at, plen - at, "[\"%s\"]", k);
            if (json_find(x, v, path, plen, name, nlen)) {
                if (name[0] == '\0')
                    snprintf(name, nlen, "%s", k);
                return 1;
            }
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, x)
        {
            snprintf(path + at, plen - at, "[%zu]", i + 1);
            if (json_find(x, v, path, plen, name, nlen))
                return 1;
        }
    } else if (json_is_string(j) && strcmp(json_string_value(j), v) == 0) {
        return 1;
    } else if (json_is_integer(j)) {
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(j));
        if (strcmp(num, v) == 0)
            return 1;
    }
    path[at] = '\0';
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
            if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20)
                return 0; /* the pattern goes in a Lua string as it is */
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

/* Makes name a Lua identifier not used yet by c nor by the script itself. */
static void var_name(const correl *c, const char *from, char *out, size_t len)
{
    static const char *const taken[] = {
        "and",  "break",  "do",    "else",  "elseif", "end",  "false", "for",    "function",
        "goto", "if",     "in",    "local", "nil",    "not",  "or",    "repeat", "return",
        "then", "true",   "until", "while", "quern",  "http", "base",  "sc",     "r",
        "vu",   "string", "math",  "table", "os",     "io",   "print", "type",   "error"};
    char base[NAME_MAX_LEN];
    size_t o = 0;
    int n = 1, clash;

    for (const char *p = from; *p && o + 1 < sizeof(base); p++) {
        char ch = (char)tolower((unsigned char)*p);
        base[o++] = isalnum((unsigned char)ch) ? ch : '_';
    }
    base[o] = '\0';
    if (o == 0 || isdigit((unsigned char)base[0]) ||
        (base[0] == 's' && isdigit((unsigned char)base[1])))
        snprintf(base, sizeof(base), "value%s%.*s", o ? "_" : "", (int)(sizeof(base) - 8), from);
    for (char *p = base; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    snprintf(out, len, "%s", base);
    do {
        clash = 0;
        for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]) && !clash; i++)
            clash = strcmp(out, taken[i]) == 0;
        for (size_t i = 0; i < c->n && !clash; i++)
            clash = strcmp(out, c->r[i].var) == 0;
        if (clash)
            snprintf(out, len, "%s_%d", base, ++n);
    } while (clash);
}

/* The path of a URL, for the comments ("/login"). */
static const char *url_path(const char *url)
{
    const char *p = strstr(url, "://");
    p = p != NULL ? strchr(p + 3, '/') : url;
    return p != NULL ? p : "/";
}

static void rule_add(correl *c, size_t src, const char *from, const char *value, const char *expr,
                     const char *why)
{
    char var[NAME_MAX_LEN + 8];
    correl_rule *r;

    var_name(c, from, var, sizeof(var));
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->r = xrealloc(c->r, c->cap * sizeof(*c->r));
    }
    r = &c->r[c->n++];
    r->src = src;
    r->var = xstrdup(var);
    r->value = xstrdup(value);
    r->expr = xstrdup(expr);
    r->why = xstrdup(why);
}

/* Looks for v in the response of entry i; adds its rule. */
static int source_try(correl *c, const har_entry *e, json_t *doc, size_t i, const char *v)
{
    char name[NAME_MAX_LEN + 1] = "", how[VALUE_MAX + 64] = "", expr[VALUE_MAX + 128],
                             why[NAME_MAX_LEN + 512];
    size_t pl = strlen(url_path(e->url));

    if (e->resp_text != NULL && e->resp_mime != NULL && strstr(e->resp_mime, "html") != NULL &&
        markup_find(e->resp_text, v, name, sizeof(name), how, sizeof(how))) {
        snprintf(expr, sizeof(expr), "r:xpath(\"%s\")", how);
        snprintf(why, sizeof(why), "the %s \"%s\" of the page %s %.*s",
                 strncmp(how, "//input", 7) == 0 ? "hidden input" : "meta", name, e->method,
                 (int)(pl > 200 ? 200 : pl), url_path(e->url));
    } else if (doc != NULL && json_find(doc, v, how, sizeof(how), name, sizeof(name))) {
        snprintf(expr, sizeof(expr), "r:json()%s", how);
        snprintf(why, sizeof(why), "\"%s\" in the JSON answer to %s %.*s", name, e->method,
                 (int)(pl > 200 ? 200 : pl), url_path(e->url));
    } else if (e->location != NULL &&
               location_find(e->location, v, how, sizeof(how), name, sizeof(name))) {
        snprintf(expr, sizeof(expr), "r:header(\"location\"):match(\"%s\")", how);
        snprintf(why, sizeof(why), "the Location header of %s %.*s (%d)", e->method,
                 (int)(pl > 200 ? 200 : pl), url_path(e->url), e->status);
    } else
        return 0;
    rule_add(c, i, name[0] ? name : "value", v, expr, why);
    return 1;
}

void correl_find(const har *h, const unsigned char *keep, correl *c)
{
    vlist *sent = xcalloc(h->n + 1, sizeof(*sent));
    json_t **docs = xcalloc(h->n + 1, sizeof(*docs));

    memset(c, 0, sizeof(*c));
    /* once each: what every entry sends, every JSON answer parsed */
    for (size_t i = 0; i < h->n; i++) {
        const har_entry *e = &h->e[i];
        if (!keep[i])
            continue;
        correl_sent(e, vlist_add, &sent[i]);
        if (e->resp_text != NULL &&
            ((e->resp_mime != NULL && strstr(e->resp_mime, "json") != NULL) ||
             e->resp_text[0] == '{' || e->resp_text[0] == '['))
            docs[i] = json_loads(e->resp_text, 0, NULL);
    }
    for (size_t j = 0; j < h->n; j++) {
        for (size_t k = 0; k < sent[j].n; k++) {
            const char *v = sent[j].v[k];
            if (!distinctive(v) || correl_lookup(c, v, j) != NULL)
                continue;
            /* the latest response before j that has it, unless the recording
             * sent it itself before that answer (what the tester typed) */
            for (size_t i = j; i-- > 0;) {
                int typed = 0;
                if (!keep[i])
                    continue;
                for (size_t t = 0; t <= i && !typed; t++)
                    typed = vlist_has(&sent[t], v);
                if (typed)
                    break;
                if (source_try(c, &h->e[i], docs[i], i, v))
                    break;
            }
        }
    }
    for (size_t i = 0; i < h->n; i++) {
        for (size_t k = 0; k < sent[i].n; k++)
            free(sent[i].v[k]);
        free(sent[i].v);
        json_decref(docs[i]);
    }
    free(sent);
    free(docs);
}

const correl_rule *correl_lookup(const correl *c, const char *value, size_t at)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].src < at && strcmp(c->r[i].value, value) == 0)
            return &c->r[i];
    return NULL;
}

void correl_free(correl *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->r[i].var);
        free(c->r[i].value);
        free(c->r[i].expr);
        free(c->r[i].why);
    }
    free(c->r);
    memset(c, 0, sizeof(*c));
}
