#include "common/redact.h"

#include <string.h>
#include <strings.h>

/* Where a result goes: at most cap - 1 bytes are stored, len counts them
 * all. With quote set, a single quote is written as '\'' (inside a
 * single-quoted shell word). */
typedef struct sink {
    char *out; /**< borrowed: cap bytes (may be NULL when cap is 0) */
    size_t cap;
    size_t len;
    int quote;  /**< 1: escape single quotes */
    int masked; /**< set when a secret was replaced */
} sink;

static void raw(sink *s, char c)
{
    if (s->len + 1 < s->cap)
        s->out[s->len] = c;
    s->len++;
}

static void put(sink *s, char c)
{
    if (s->quote && c == '\'') {
        raw(s, '\'');
        raw(s, '\\');
        raw(s, '\'');
        raw(s, '\'');
        return;
    }
    raw(s, c);
}

static void put_n(sink *s, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(s, p[i]);
}

static void mask(sink *s)
{
    put_n(s, REDACT_MASK, strlen(REDACT_MASK));
    s->masked = 1;
}

static size_t finish(sink *s)
{
    if (s->cap > 0)
        s->out[s->len < s->cap ? s->len : s->cap - 1] = '\0';
    return s->len;
}

/* Characters that end a URL's authority. */
static int authority_end(char c)
{
    return c == '\0' || c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' ||
           c == '\r' || c == '"' || c == '\'' || c == '<' || c == '>';
}

static int scheme_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '-' || c == '.';
}

static int key_is_secret_n(const char *key, size_t n);

/* Characters that end a URL. */
static int url_end(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' ||
           c == '<' || c == '>';
}

/* Copies the path and query of a URL from p, the value of each query
 * parameter whose key names a secret (or is "p", InfluxDB 1.x's password)
 * masked. Returns where the URL ends. */
static const char *rest_to(sink *s, const char *p)
{
    int query = 0;

    while (!url_end(*p) && *p != '#') {
        const char *k, *eq;
        if (*p != (query ? '&' : '?')) {
            put(s, *p++);
            continue;
        }
        query = 1;
        put(s, *p++);
        k = p;
        for (eq = k; !url_end(*eq) && *eq != '#' && *eq != '&' && *eq != '='; eq++)
            ;
        if (*eq != '=' || eq[1] == '&' || url_end(eq[1]) || eq[1] == '#' ||
            !((eq - k == 1 && *k == 'p') || key_is_secret_n(k, (size_t)(eq - k))))
            continue;
        put_n(s, k, (size_t)(eq - k) + 1);
        mask(s);
        for (p = eq + 1; !url_end(*p) && *p != '#' && *p != '&'; p++)
            ;
    }
    return p;
}

static void url_to(sink *s, const char *in)
{
    const char *p = in;

    while (*p != '\0') {
        const char *a, *e, *at = NULL, *colon = NULL;
        if (!(p > in && scheme_char(p[-1]) && strncmp(p, "://", 3) == 0)) {
            put(s, *p++);
            continue;
        }
        put_n(s, p, 3);
        a = p + 3;
        for (e = a; !authority_end(*e); e++)
            if (*e == '@')
                at = e;
        for (const char *c = a; at != NULL && c < at; c++)
            if (*c == ':') {
                colon = c;
                break;
            }
        if (colon == NULL) {
            put_n(s, a, (size_t)(e - a));
        } else {
            put_n(s, a, (size_t)(colon - a) + 1);
            mask(s);
            put_n(s, at, (size_t)(e - at)); /* the '@' and the host as they are */
        }
        p = rest_to(s, e);
    }
}

size_t redact_url(const char *in, char *out, size_t outlen)
{
    sink s = {out, outlen, 0, 0, 0};

    url_to(&s, in != NULL ? in : "");
    return finish(&s);
}

/* redact_key_is_secret on the n first bytes of key. */
static int key_is_secret_n(const char *key, size_t n)
{
    static const char *const words[] = {"password", "passwd", "secret",    "token",
                                        "key",      "auth",   "credential"};

    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        size_t wl = strlen(words[w]);
        for (size_t i = 0; i + wl <= n; i++)
            if (strncasecmp(key + i, words[w], wl) == 0)
                return 1;
    }
    return 0;
}

int redact_key_is_secret(const char *key)
{
    return key != NULL && key_is_secret_n(key, strlen(key));
}

static void property_to(sink *s, const char *kv)
{
    const char *eq = strchr(kv, '=');

    if (eq == NULL) {
        url_to(s, kv);
        return;
    }
    put_n(s, kv, (size_t)(eq - kv) + 1);
    if (key_is_secret_n(kv, (size_t)(eq - kv)) && eq[1] != '\0')
        mask(s);
    else
        url_to(s, eq + 1);
}

size_t redact_property(const char *kv, char *out, size_t outlen)
{
    sink s = {out, outlen, 0, 0, 0};

    property_to(&s, kv != NULL ? kv : "");
    return finish(&s);
}

/* Characters a shell word may hold without quotes. */
static int shell_safe(const char *a)
{
    if (*a == '\0')
        return 0;
    for (; *a != '\0'; a++) {
        char c = *a;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("_@%+=:,./-", c) != NULL))
            return 0;
    }
    return 1;
}

/* An HTTP header "Name: value" (--out-header): the value masked when the
 * name names a secret (Authorization, X-Api-Key, ...). */
static void header_to(sink *s, const char *h)
{
    const char *colon = strchr(h, ':');

    if (colon == NULL || !key_is_secret_n(h, (size_t)(colon - h))) {
        url_to(s, h);
        return;
    }
    put_n(s, h, (size_t)(colon - h) + 1);
    put(s, ' ');
    mask(s);
}

/* One argument, redacted as a property value (prop 1), a header (2) or
 * for URLs. */
static void arg_to(sink *s, const char *a, int prop)
{
    if (prop == 2)
        header_to(s, a);
    else if (prop)
        property_to(s, a);
    else
        url_to(s, a);
}

size_t redact_argv(int argc, const char *const *argv, char *out, size_t outlen)
{
    sink s = {out, outlen, 0, 0, 0};
    int prop_next = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i] != NULL ? argv[i] : "";
        int prop = prop_next, quoted;
        sink probe = {NULL, 0, 0, 0, 0};

        prop_next = 0;
        if (i > 0)
            raw(&s, ' ');
        if (strncmp(a, "--property=", 11) == 0) {
            put_n(&s, a, 11);
            a += 11;
            prop = 1;
        } else if (strcmp(a, "-p") == 0 || strcmp(a, "--property") == 0) {
            prop_next = 1;
        } else if (strncmp(a, "--out-header=", 13) == 0) {
            put_n(&s, a, 13);
            a += 13;
            prop = 2;
        } else if (strcmp(a, "--out-header") == 0) {
            prop_next = 2;
        }
        /* A mask is "***", which a shell would expand: quote it too. */
        arg_to(&probe, a, prop);
        quoted = !shell_safe(a) || probe.masked;
        if (quoted) {
            raw(&s, '\'');
            s.quote = 1;
        }
        arg_to(&s, a, prop);
        if (quoted) {
            s.quote = 0;
            raw(&s, '\'');
        }
    }
    return finish(&s);
}
