#include "record/replay.h"

#include <ctype.h>
#include <fnmatch.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/dbuf.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/redact.h"
#include "common/termsafe.h"
#include "record/correl.h"
#include "record/luaout.h"

#define ORIGINS_MAX 64   /* third-party origins listed in the header */
#define THINK_MIN_MS 100 /* shorter gaps are the browser's, not the tester's */
#define LOCALS_MAX                                                                                 \
    100 /* Lua allows 200 locals a function: past this many steps or values, a table */
#define JSON_DEPTH_MAX 64 /* a deeper body is sent as its text: Lua nests 200 levels at most */
#define CONCAT_RUN 16     /* operands of one a .. b .. c: Lua has 255 registers a function */

/* What the writer needs at hand. */
typedef struct replay_ctx {
    const har *h;         /* borrowed: the recording */
    const replay_opts *o; /* borrowed: the conversion's options */
    const correl *c;      /* borrowed: the correlation rules */
    dbuf *out;            /* borrowed: where the text goes, run()'s body or the script */
    char origin[512];     /* the recorded origin: "http://127.0.0.1:8080" */
    char secrets[8][64];  /* names of the recorded secrets given as properties */
    size_t nsecrets;
    int step_table;      /* steps as s[n] rather than locals sN */
    int var_table;       /* correlated values as v.NAME rather than locals */
    size_t *rules_at;    /* owned: rule indexes grouped by source entry, in rule order */
    size_t *rules_first; /* owned, h->n + 1: entry i's rules are rules_at[first[i]..first[i+1]) */
} replay_ctx;

/* A string or a byte into out; a refusal is kept in out->refused, which
 * the script's writer checks once a request is written. */
static void put_s(dbuf *out, const char *s)
{
    dbuf_put(out, s, strlen(s));
}

static void put_c(dbuf *out, char c)
{
    dbuf_put(out, &c, 1);
}

/* A step: entries first..last of h, those marked in its member list. */
typedef struct replay_step {
    size_t *e; /* owned, n entry indexes: the page first, then redirects, resources */
    size_t n;
    size_t page; /* the entry whose title labels it (the last document) */
    int nstatic; /* resources the page loaded (replayed or not) */
} replay_step;

/* A value sent by entry at under key (a field's or header's name, or
 * NULL): its correlated local; a property when the key names a secret (a
 * recorded password is not copied into the script), named by the key's
 * letters, digits and '_' (others as '_', at most 63), since the header
 * tells to give it with -p NAME=...; else the literal. */
static void sent_value(replay_ctx *x, const char *key, const char *v, size_t at)
{
    const correl_rule *r = correl_lookup(x->c, v, at);
    char prop[sizeof(x->secrets[0])];
    size_t i;

    if (r != NULL) {
        dbuf_fmt(x->out, "%s%s", x->var_table ? "v." : "", r->var);
        return;
    }
    if (key == NULL || !redact_key_is_secret(key)) {
        luaout_str(x->out, v);
        return;
    }
    luaout_name(key, prop, sizeof(prop));
    for (i = 0; i < x->nsecrets && strcmp(x->secrets[i], prop) != 0; i++)
        ;
    if (i == x->nsecrets && i < sizeof(x->secrets) / sizeof(x->secrets[0]))
        snprintf(x->secrets[x->nsecrets++], sizeof(x->secrets[0]), "%s", prop);
    if (i < x->nsecrets) { /* read once when the script loads: a run without it stops there */
        dbuf_fmt(x->out, "secret_%s", prop);
        return;
    }
    put_s(x->out, "quern.property(");
    luaout_str(x->out, prop);
    put_c(x->out, ')');
}

/* The origin of url ("scheme://host:port") in out. */
static void origin_of(const char *url, char *out, size_t len)
{
    const char *p = strstr(url, "://");
    const char *end = p != NULL ? strpbrk(p + 3, "/?#") : NULL;
    size_t n = end != NULL ? (size_t)(end - url) : strlen(url);

    snprintf(out, len, "%.*s", (int)n, url);
}

/* The operand that stands for the origin. */
static const char base_var[] = "base";

/* One operand of a URL's concatenation: a local's name, or text of the URL. */
typedef struct url_part {
    const char *var; /* borrowed: base_var, a rule's local; NULL for text */
    const char *s;   /* borrowed: the text, n bytes */
    size_t n;
} url_part;

/* Writes parts p[0..n) joined by "..": as they are up to CONCAT_RUN of
 * them, else in parenthesised runs of CONCAT_RUN (a long chain needs as
 * many registers and parser levels as operands). */
static void concat_lua(replay_ctx *x, const url_part *p, size_t n)
{
    size_t per = 1;

    if (n <= CONCAT_RUN) {
        for (size_t i = 0; i < n; i++) {
            put_s(x->out, i ? " .. " : "");
            if (p[i].var != NULL) {
                dbuf_fmt(x->out, "%s%s", p[i].var != base_var && x->var_table ? "v." : "",
                         p[i].var);
            } else {
                put_c(x->out, '"');
                luaout_str_n(x->out, p[i].s, p[i].n);
                put_c(x->out, '"');
            }
        }
        return;
    }
    while (per * CONCAT_RUN < n)
        per *= CONCAT_RUN;
    for (size_t i = 0; i < n; i += per) {
        put_s(x->out, i ? " .. (" : "(");
        concat_lua(x, p + i, n - i < per ? n - i : per);
        put_c(x->out, ')');
    }
}

/* The URL of entry at as a Lua expression: base .. "/path", correlated
 * segments and query values as their locals. */
static void url_expr(replay_ctx *x, size_t at)
{
    const char *url = x->h->e[at].url, *s;
    size_t olen = strlen(x->origin), n = 0, cap = 8;
    url_part *p = xmalloc(cap * sizeof(*p));
    char tok[4096];

    if (strncmp(url, x->origin, olen) == 0 && (url[olen] == '\0' || strchr("/?#", url[olen]))) {
        p[n++] = (url_part){base_var, NULL, 0};
        s = url + olen;
    } else
        s = url;
    while (*s) {
        size_t len = strcspn(s, "/?&=#");
        const correl_rule *r = NULL;
        if (len > 0 && len < sizeof(tok)) {
            memcpy(tok, s, len);
            tok[len] = '\0';
            r = correl_lookup(x->c, tok, at);
        }
        /* a delimiter after it: one more operand at most */
        if (n + 2 >= cap) {
            cap *= 2;
            p = xreallocarray(p, cap, sizeof(*p));
        }
        if (r != NULL)
            p[n++] = (url_part){r->var, NULL, 0};
        else if (n > 0 && p[n - 1].var == NULL)
            p[n - 1].n += len;
        else
            p[n++] = (url_part){NULL, s, len};
        s += len;
        if (*s) {
            if (n > 0 && p[n - 1].var == NULL)
                p[n - 1].n++;
            else
                p[n++] = (url_part){NULL, s, 1};
            s++;
        }
    }
    if (n == 0)
        put_s(x->out, "\"\"");
    else
        concat_lua(x, p, n);
    xfree(p);
}

/* A JSON value as a Lua one, correlated leaves as their locals. */
static void json_lua(replay_ctx *x, const char *key, json_t *j, size_t at)
{
    const char *k;
    json_t *v;
    size_t i, n = 0;
    char num[64];

    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put_s(x->out, "{ ");
        json_object_foreach(j, k, v)
        {
            put_s(x->out, n++ ? ", " : "");
            luaout_key(x->out, k);
            json_lua(x, k, v, at);
        }
        put_s(x->out, n ? " }" : "}");
        break;
    case JSON_ARRAY:
        if (json_array_size(j) == 0) {
            put_s(x->out, "quern.json.array{}"); /* a plain {} would be sent as an object */
            break;
        }
        put_s(x->out, "{ ");
        json_array_foreach(j, i, v)
        {
            put_s(x->out, i ? ", " : "");
            json_lua(x, key, v, at);
        }
        put_s(x->out, " }");
        break;
    case JSON_STRING:
        sent_value(x, key, json_string_value(j), at);
        break;
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(j));
        if (correl_lookup(x->c, num, at) != NULL)
            sent_value(x, key, num, at);
        else
            put_s(x->out, num);
        break;
    case JSON_REAL:
        dbuf_fmt(x->out, "%.17g", json_real_value(j));
        break;
    case JSON_TRUE:
        put_s(x->out, "true");
        break;
    case JSON_FALSE:
        put_s(x->out, "false");
        break;
    default:
        put_s(x->out, "quern.json.null"); /* nil would drop the key */
    }
}

/* How deep j nests (a leaf is 0), counted up to JSON_DEPTH_MAX + 1. */
static int json_depth(json_t *j, int at)
{
    const char *k;
    json_t *v;
    size_t i;
    int most = at;

    if (at > JSON_DEPTH_MAX)
        return at;
    if (json_is_object(j)) {
        json_object_foreach(j, k, v)
        {
            int d = json_depth(v, at + 1);
            most = d > most ? d : most;
        }
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v)
        {
            int d = json_depth(v, at + 1);
            most = d > most ? d : most;
        }
    }
    return most;
}

/* Appends a name=value to a growing list (form fields parsed from a body). */
static void kv_push(void *arg, const char *name, const char *value)
{
    struct {
        har_kv *kv; /* owned: n fields */
        size_t n;
    } *l = arg;
    l->kv = xreallocarray(l->kv, (l->n + 1), sizeof(*l->kv));
    l->kv[l->n].name = xstrdup(name);
    l->kv[l->n].value = xstrdup(value);
    l->n++;
}

/* form = { a = "1", b = { "x", "y" } }: repeated names as a list, recorded order. */
static void form_lua(replay_ctx *x, const har_entry *e, size_t at)
{
    struct {
        har_kv *kv; /* owned: n fields */
        size_t n;
    } parsed = {NULL, 0};
    const har_kv *kv = e->params;
    size_t n = e->nparams;

    if (n == 0) {
        /* Chromium's HAR has the text only: read it the way correl_sent does */
        har_entry tmp = {0};
        tmp.url = "";
        tmp.req_mime = e->req_mime;
        tmp.req_text = e->req_text;
        correl_sent(&tmp, kv_push, &parsed);
        kv = parsed.kv;
        n = parsed.n;
    }
    put_s(x->out, "form = { ");
    for (size_t i = 0, w = 0; i < n; i++) {
        size_t same = 0, seen = 0;
        for (size_t k = 0; k < n; k++)
            same += strcmp(kv[k].name, kv[i].name) == 0;
        for (size_t k = 0; k < i; k++)
            seen += strcmp(kv[k].name, kv[i].name) == 0;
        if (seen)
            continue;
        put_s(x->out, w++ ? ", " : "");
        luaout_key(x->out, kv[i].name);
        if (same > 1) {
            put_s(x->out, "{ ");
            for (size_t k = i, m = 0; k < n; k++)
                if (strcmp(kv[k].name, kv[i].name) == 0) {
                    put_s(x->out, m++ ? ", " : "");
                    sent_value(x, kv[k].name, kv[k].value, at);
                }
            put_s(x->out, " }");
        } else
            sent_value(x, kv[i].name, kv[i].value, at);
    }
    put_s(x->out, " }");
    for (size_t i = 0; i < parsed.n; i++) {
        xfree(parsed.kv[i].name);
        xfree(parsed.kv[i].value);
    }
    xfree(parsed.kv);
}

/* The request's options table, or nothing when it has none. */
static void options_lua(replay_ctx *x, size_t at, int resources, const char *indent)
{
    const har_entry *e = &x->h->e[at];
    int nh = 0, raw = 0;
    json_t *j = NULL;

    if (e->req_text != NULL && strstr(e->req_mime, "json") != NULL)
        j = json_loads(e->req_text, JSON_DECODE_ANY, NULL);
    if (j != NULL && json_depth(j, 0) > JSON_DEPTH_MAX) {
        json_decref(j); /* sent as recorded, body = "..." */
        j = NULL;
    }
    raw = e->req_text != NULL && j == NULL && strstr(e->req_mime, "x-www-form-urlencoded") == NULL;
    for (size_t i = 0; i < e->nheaders; i++)
        nh += !har_header_own(e->headers[i].name);
    nh += raw && e->req_mime[0] != '\0';
    if (nh == 0 && e->req_text == NULL) {
        if (resources)
            put_s(x->out, ", { resources = true }");
        return;
    }
    /* one option a line: a tester edits them */
    put_s(x->out, ", {\n");
    if (nh > 0) {
        int w = 0;
        dbuf_fmt(x->out, "%s  headers = { ", indent);
        for (size_t i = 0; i < e->nheaders; i++) {
            if (har_header_own(e->headers[i].name))
                continue;
            put_s(x->out, w++ ? ", " : "");
            luaout_key(x->out, e->headers[i].name);
            sent_value(x, e->headers[i].name, e->headers[i].value, at);
        }
        if (raw && e->req_mime[0] != '\0') {
            put_s(x->out, w++ ? ", " : "");
            put_s(x->out, "[\"Content-Type\"] = ");
            luaout_str(x->out, e->req_mime);
        }
        put_s(x->out, " },\n");
    }
    if (e->req_text != NULL) {
        dbuf_fmt(x->out, "%s  ", indent);
        if (j != NULL) {
            put_s(x->out, "json = ");
            json_lua(x, NULL, j, at);
        } else if (!raw)
            form_lua(x, e, at);
        else {
            put_s(x->out, "body = ");
            luaout_str(x->out, e->req_text);
        }
        put_s(x->out, ",\n");
    }
    if (resources)
        dbuf_fmt(x->out, "%s  resources = true,\n", indent);
    dbuf_fmt(x->out, "%s}", indent);
    json_decref(j);
}

/* The method call: ":get(" or ".request(\"OPTIONS\", ". */
static void call_lua(dbuf *out, const char *who, int dot, const char *method)
{
    static const char *const plain[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};

    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
        if (strcmp(method, plain[i]) == 0) {
            dbuf_fmt(out, "%s%c", who, dot ? '.' : ':');
            for (const char *p = method; *p; p++)
                put_c(out, (char)tolower((unsigned char)*p));
            put_c(out, '(');
            return;
        }
    dbuf_fmt(out, "%s%crequest(", who, dot ? '.' : ':');
    luaout_str(out, method);
    put_s(out, ", ");
}

/* The check of a recorded status. */
static void expect_lua(dbuf *out, int status)
{
    if (status == 304) /* a browser's cache revalidation: a VU has no cache */
        put_s(out, ":expect({ 200, 304 })");
    else if (status > 0)
        dbuf_fmt(out, ":expect(%d)", status);
}

/* One request of a step: `r = WHO:get(URL, OPTS):expect(S)` and the
 * correlation rules whose source it is; `r = ` only before such rules, the
 * only code that reads it (luacheck warns of a value never read). */
static void request_lua(replay_ctx *x, const char *indent, const char *who, int dot, size_t at,
                        int assign, int resources)
{
    const har_entry *e = &x->h->e[at];

    assign = assign && x->rules_first[at] < x->rules_first[at + 1];

    if (har_header(e->headers, e->nheaders, "authorization") != NULL) {
        put_s(x->out, indent);
        luaout_comment(x->out, "-- ", "%s",
                       "recorded with an Authorization header, not copied: add auth = { ... }");
    }
    dbuf_fmt(x->out, "%s%s", indent, assign ? "r = " : "");
    call_lua(x->out, who, dot, e->method);
    url_expr(x, at);
    options_lua(x, at, resources, indent);
    put_c(x->out, ')');
    expect_lua(x->out, e->status);
    put_c(x->out, '\n');
    for (size_t i = x->rules_first[at]; i < x->rules_first[at + 1]; i++) {
        const correl_rule *r = &x->c->r[x->rules_at[i]];
        put_s(x->out, indent);
        luaout_comment(x->out, "-- ", "%s: %s", r->var, r->why);
        dbuf_fmt(x->out, "%s%s%s = %s\n", indent, x->var_table ? "v." : "", r->var, r->expr);
    }
}

/* The path of a URL without its query ("/login"). */
static void path_of(const char *url, char *out, size_t len)
{
    const char *p = strstr(url, "://");
    p = p != NULL ? strchr(p + 3, '/') : url;
    if (p == NULL)
        p = "/";
    snprintf(out, len, "%.*s", (int)strcspn(p, "?#"), p);
}

/* The text of the page's <title>, spaces squeezed, in out; 0 when none. */
static int title_of(const char *html, char *out, size_t len)
{
    const char *p = html != NULL ? strcasestr(html, "<title") : NULL, *end = NULL;
    size_t o = 0;

    if (p != NULL)
        p = strchr(p, '>');
    if (p != NULL)
        end = strcasestr(p, "</title");
    if (end == NULL)
        return 0;
    for (p++; p < end && o + 1 < len; p++) {
        char ch = isspace((unsigned char)*p) ? ' ' : *p;
        if (ch == ' ' && (o == 0 || out[o - 1] == ' '))
            continue;
        out[o++] = ch;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    return o > 0;
}

/* A step's label: the page's title (its HTML's, else the recording's), else
 * its path; "METHOD /path" for a call. */
static void label_of(const har_entry *e, char *out, size_t len)
{
    char path[1024];

    path_of(e->url, path, sizeof(path));
    if (e->kind == HAR_DOCUMENT && e->resp_mime != NULL && strstr(e->resp_mime, "html") != NULL &&
        title_of(e->resp_text, out, len < 128 ? len : 128)) {
    } else if (e->kind == HAR_DOCUMENT && e->title != NULL && strncmp(e->title, "http", 4) != 0)
        snprintf(out, len, "%s", e->title);
    else if (e->kind == HAR_DOCUMENT)
        snprintf(out, len, "%s", path);
    else
        snprintf(out, len, "%s %s", e->method, path);
    /* a label is shown in tables and reports: no control character */
    for (char *p = out; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

/* 1 when url matches one of n globs. */
static int globs_match(const char *const *g, size_t n, const char *url)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(g[i], url, 0) == 0)
            return 1;
    return 0;
}

/* 1 when entry b is where the redirect of entry a led. */
static int redirect_to(replay_ctx *x, const har_entry *a, const har_entry *b)
{
    char full[4096];

    if (a->status < 300 || a->status > 399 || a->location == NULL)
        return 0;
    if (strcmp(a->location, b->url) == 0)
        return 1;
    if (a->location[0] == '/' && a->location[1] != '/') {
        char org[512];
        origin_of(a->url, org, sizeof(org));
        snprintf(full, sizeof(full), "%s%s", org, a->location);
        return strcmp(full, b->url) == 0;
    }
    (void)x;
    return 0;
}

/* Left-out origins and their counts. */
typedef struct replay_origins {
    char *name[ORIGINS_MAX]; /* owned: n origins */
    int count[ORIGINS_MAX];
    size_t n;
    int more; /* requests of origins past ORIGINS_MAX */
} replay_origins;

static void origins_add(replay_origins *o, const char *url)
{
    char org[512];

    origin_of(url, org, sizeof(org));
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->name[i], org) == 0) {
            o->count[i]++;
            return;
        }
    if (o->n == ORIGINS_MAX) {
        o->more++;
        return;
    }
    o->name[o->n] = xstrdup(org);
    o->count[o->n++] = 1;
}

/* Writes run()'s steps to x->out. Returns 0, or -1 when they do not fit
 * in it, with *full the entry whose request was refused (or its step's
 * first) and *step its step: written no further. */
static int body_lua(replay_ctx *x, replay_step *st, size_t ns, size_t *step, size_t *full)
{
    dbuf *out = x->out;
    double prev_end = 0;

    for (size_t s = 0; s < ns; s++) {
        const replay_step *p = &st[s];
        const har_entry *first = &x->h->e[p->e[0]];
        char who[32];
        double gap = prev_end > 0 ? first->start_ms - prev_end : 0;
        int res = x->o->resources == REPLAY_RES_AUTO && p->nstatic > 0;

        put_c(out, '\n');
        if (gap >= THINK_MIN_MS && isfinite(gap))
            dbuf_fmt(out, "  quern.sleep(\"%.0fms\") -- think time as recorded\n", gap);
        snprintf(who, sizeof(who), x->step_table ? "s[%zu]" : "s%zu", s + 1);
        *step = s;
        *full = p->e[0];
        if (p->n == 1) {
            request_lua(x, "  ", who, 0, p->e[0], 1, res);
        } else {
            size_t nstatic = 0;
            for (size_t k = 0; k < p->n; k++)
                nstatic += x->h->e[p->e[k]].kind == HAR_STATIC;
            int redirs = p->n > nstatic + 1;
            dbuf_fmt(out, "  %s:time(function() -- the page%s%s%s as one sample\n", who,
                     redirs && nstatic ? ", its redirects"
                     : redirs          ? " and its redirects"
                                       : "",
                     nstatic ? " and its resources" : "", "");
            for (size_t k = 0; k < p->n && !out->refused; k++) {
                const har_entry *e = &x->h->e[p->e[k]];
                *full = p->e[k];
                request_lua(x, "    ", "http", 1, p->e[k], e->kind != HAR_STATIC,
                            res && p->e[k] == p->page);
            }
            put_s(out, "  end)\n");
        }
        if (out->refused)
            return -1;
        for (size_t k = 0; k < p->n; k++) {
            const har_entry *e = &x->h->e[p->e[k]];
            if (e->start_ms + e->time_ms > prev_end)
                prev_end = e->start_ms + e->time_ms;
        }
    }
    return 0;
}

/* What did not fit in out: the request (entry at, step s), named by its
 * method and URL (secrets masked, made safe to print) for --exclude. */
static void too_long(const replay_ctx *x, const dbuf *out, size_t s, size_t at, char *err,
                     size_t errlen)
{
    const har_entry *e = &x->h->e[at];
    char url[ERR_MAX / 2], safe[ERR_MAX / 2], method[32];

    redact_url(e->url, url, sizeof(url));
    err_set(err, errlen,
            "the script would be longer than %zu bytes at step %zu, %s %s (a request body of %zu "
            "bytes): leave it out with --exclude",
            out->max, s + 1, termsafe(e->method, method, sizeof(method)),
            termsafe(url, safe, sizeof(safe)), e->req_text != NULL ? strlen(e->req_text) : 0);
}

/* Writes the whole script: run()'s body first, into memory, since the
 * header says which secrets it left to properties. Returns 0, or -1 with
 * err set when it does not fit in x->out (left incomplete). */
static int script_lua(replay_ctx *x, replay_step *st, size_t ns, const replay_origins *third,
                      int excluded, int others, char *err, size_t errlen)
{
    dbuf *out = x->out, run;
    size_t nreq = 0, step = 0, full = 0;
    int uses_http = 0, rc = -1;

    dbuf_init(&run, out->max); /* the body alone must fit the script */
    x->out = &run;
    if (body_lua(x, st, ns, &step, &full) != 0) {
        x->out = out;
        too_long(x, out, step, full, err, errlen);
        goto done;
    }
    x->out = out;
    for (size_t s = 0; s < ns; s++) {
        nreq += st[s].n;
        uses_http |= st[s].n > 1;
    }
    /* every comment through luaout_comment: names, titles, the file's name
     * and origins come from the recording or the command line */
    luaout_comment(out, "-- ", "%s: recorded%s%s%s%s%s%s%s,", x->o->name,
                   x->h->creator != NULL ? " by " : "", x->h->creator ? x->h->creator : "",
                   x->h->browser != NULL ? " (" : "", x->h->browser ? x->h->browser : "",
                   x->h->browser != NULL ? ")" : "", x->h->started != NULL ? " on " : "",
                   x->h->started ? x->h->started : "");
    luaout_comment(out, "-- ",
                   "converted by quern har2lua from %s: %zu step%s, %zu request%s, %zu "
                   "correlated value%s.",
                   x->o->source, ns, ns == 1 ? "" : "s", nreq, nreq == 1 ? "" : "s", x->c->n,
                   x->c->n == 1 ? "" : "s");
    luaout_comment(out, "-- ", "Run it elsewhere with -p %s=http://host:port.", x->o->prop);
    if (third->n > 0) {
        luaout_comment(out, "-- ", "%s", "Left out, of other origins (--include GLOB keeps them):");
        for (size_t i = 0; i < third->n; i++)
            luaout_comment(out, "--   ", "%s (%d request%s)", third->name[i], third->count[i],
                           third->count[i] == 1 ? "" : "s");
        if (third->more)
            luaout_comment(out, "--   ", "and %d more", third->more);
    }
    if (excluded)
        luaout_comment(out, "-- ", "Left out by --exclude: %d request%s.", excluded,
                       excluded == 1 ? "" : "s");
    if (others)
        luaout_comment(out, "-- ",
                       "Not replayed: %d request%s neither a page, a call nor a resource "
                       "(websockets, pings, failed ones).",
                       others, others == 1 ? "" : "s");
    if (x->nsecrets > 0) {
        char line[sizeof(x->secrets) + 8 * 8] = "";
        size_t o = 0;
        for (size_t i = 0; i < x->nsecrets; i++)
            o += (size_t)snprintf(line + o, sizeof(line) - o, " -p %s=...", x->secrets[i]);
        luaout_comment(out, "-- ", "Recorded secrets are not copied: give them as properties:%s",
                       line);
    }
    put_s(out, "local quern = require \"quern\"\n");
    if (uses_http)
        put_s(out, "local http = require \"quern.http\"\n");
    dbuf_fmt(out, "\nlocal base = quern.property(");
    luaout_str(out, x->o->prop);
    put_s(out, ", ");
    luaout_str(out, x->origin);
    put_s(out, ")\n");
    for (size_t i = 0; i < x->nsecrets; i++) {
        dbuf_fmt(out, "local secret_%s = quern.property(", x->secrets[i]);
        luaout_str(out, x->secrets[i]);
        put_s(out, ") -- no default: give it with -p\n");
    }
    put_s(out, "\nlocal sc = quern.scenario(");
    luaout_str(out, x->o->name);
    put_s(out, ")\n\n");
    if (x->step_table)
        put_s(out, "local s = {} -- s[n] is step n\n");
    for (size_t s = 0; s < ns; s++) {
        char label[1024], path[1024];
        const har_entry *e = &x->h->e[st[s].e[0]];
        label_of(&x->h->e[st[s].page], label, sizeof(label));
        path_of(e->url, path, sizeof(path));
        dbuf_fmt(out, x->step_table ? "s[%zu] = sc:step(%zu, " : "local s%zu = sc:step(%zu, ",
                 s + 1, s + 1);
        luaout_str(out, label);
        put_c(out, ')');
        luaout_comment(out, " -- ", "%s %s", e->method, path);
    }
    put_s(out, "\nfunction sc.run(vu)\n");
    if (x->c->n > 0)
        put_s(out, "  local r\n");
    if (x->var_table) {
        put_s(out, "  local v = {} -- values the server handed out, set where they appear\n");
    } else if (x->c->n > 0) {
        put_s(out, "  local ");
        for (size_t i = 0; i < x->c->n; i++)
            dbuf_fmt(out, "%s%s", i ? ", " : "", x->c->r[i].var);
        put_s(out, " -- values the server handed out, set where they appear\n");
    }
    dbuf_put(out, run.p, run.len);
    put_s(out, "end\n");
    if (out->refused) {
        err_set(err, errlen,
                "the script would be longer than %zu bytes: its header and %zu steps together",
                out->max, ns);
        goto done;
    }
    rc = 0;
done:
    dbuf_free(&run);
    return rc;
}

int replay_write(const har *h, const replay_opts *o, dbuf *out, char *err, size_t errlen)
{
    correl c;
    replay_ctx x = {0};
    unsigned char *keep;
    replay_step *st;
    size_t *idx;
    size_t ns = 0, first = SIZE_MAX;
    replay_origins third = {0};
    int excluded = 0, others = 0, rc;

    x.h = h;
    x.o = o;
    x.out = out;
    for (size_t i = 0; i < h->n && first == SIZE_MAX; i++)
        if (h->e[i].kind == HAR_DOCUMENT)
            first = i;
    if (h->n > 0)
        origin_of(h->e[first == SIZE_MAX ? 0 : first].url, x.origin, sizeof(x.origin));
    else
        snprintf(x.origin, sizeof(x.origin), "http://127.0.0.1:8080");
    /* what is replayed */
    keep = xcalloc(h->n + 1, 1);
    for (size_t i = 0; i < h->n; i++) {
        const har_entry *e = &h->e[i];
        char org[512];
        origin_of(e->url, org, sizeof(org));
        if (globs_match(o->exclude, o->nexclude, e->url)) {
            excluded++;
            continue;
        }
        if (e->kind == HAR_OTHER || e->status == 0 || strncmp(e->url, "http", 4) != 0) {
            others++;
            continue;
        }
        if (strcmp(org, x.origin) != 0 && !globs_match(o->include, o->ninclude, e->url)) {
            origins_add(&third, e->url);
            continue;
        }
        keep[i] = e->kind != HAR_STATIC || o->resources == REPLAY_RES_LIST ? 1 : 2;
    }
    /* the steps: a page and what follows it */
    st = xcalloc(h->n + 1, sizeof(*st));
    /* each entry is in one step at most, and steps follow the entries:
     * one array of indexes, each step a slice of it */
    idx = xcalloc(h->n + 1, sizeof(*idx));
    for (size_t i = 0; i < h->n; i++) {
        const har_entry *e = &h->e[i];
        replay_step *cur = ns > 0 ? &st[ns - 1] : NULL;
        if (!keep[i])
            continue;
        if (e->kind == HAR_STATIC) {
            if (cur == NULL)
                continue;
            cur->nstatic++;
            if (keep[i] == 1)
                cur->e[cur->n++] = i;
            continue;
        }
        if (cur == NULL || !redirect_to(&x, &h->e[cur->e[cur->n - 1]], e)) {
            size_t used = cur != NULL ? (size_t)(cur->e - idx) + cur->n : 0;
            cur = &st[ns++];
            cur->e = idx + used;
        }
        cur->e[cur->n++] = i;
        cur->page = i;
    }
    /* correlation sees what is replayed; static files send nothing of interest */
    for (size_t i = 0; i < h->n; i++)
        keep[i] = keep[i] == 1;
    correl_find(h, keep, &c);
    x.c = &c;
    x.step_table = ns > LOCALS_MAX;
    x.var_table = c.n > LOCALS_MAX;
    /* each request's rules at hand, in the rules' order: a counting sort by source */
    x.rules_first = xcalloc(h->n + 2, sizeof(*x.rules_first));
    x.rules_at = xcalloc(c.n + 1, sizeof(*x.rules_at));
    for (size_t i = 0; i < c.n; i++)
        x.rules_first[c.r[i].src + 2]++;
    for (size_t i = 2; i < h->n + 2; i++)
        x.rules_first[i] += x.rules_first[i - 1];
    for (size_t i = 0; i < c.n; i++)
        x.rules_at[x.rules_first[c.r[i].src + 1]++] = i;
    rc = script_lua(&x, st, ns, &third, excluded, others, err, errlen);
    xfree(x.rules_first);
    xfree(x.rules_at);
    for (size_t i = 0; i < third.n; i++)
        xfree(third.name[i]);
    xfree(st);
    xfree(idx);
    correl_free(&c);
    xfree(keep);
    return rc;
}
