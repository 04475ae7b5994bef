/* scan — the warnings of a script's check, read from its text; see scan.h. */
#include "console/scan.h"

#include <stdlib.h>
#include <string.h>

#include "common/mem.h"

/* The request methods whose last argument may be a table of options. */
static const char *const methods[] = {"get", "post", "put", "patch", "delete", "head"};

/** The script's text, as read and as code only. */
typedef struct text {
    char *src;  /**< owned: the file, NUL-terminated */
    char *code; /**< owned: src with comments and strings blanked (scan_mask) */
    size_t n;
} text;

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The level of a long bracket opening at s ("[[", "[==["), or -1. */
static int long_open(const char *s, const char *end)
{
    int lvl = 0;

    if (s >= end || *s != '[')
        return -1;
    s++;
    while (s < end && *s == '=') {
        lvl++;
        s++;
    }
    return s < end && *s == '[' ? lvl : -1;
}

/* Where the long bracket of level lvl opened before s closes: its "]==]",
 * or NULL when it does not. */
static const char *long_close(const char *s, const char *end, int lvl)
{
    for (; s < end; s++) {
        const char *q = s + 1;
        int k = 0;
        if (*s != ']')
            continue;
        while (q < end && *q == '=' && k < lvl) {
            q++;
            k++;
        }
        if (k == lvl && q < end && *q == ']')
            return s;
    }
    return NULL;
}

/* Blanks code[a..b) but its newlines. */
static void blank(char *code, const char *src, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        code[i] = src[i] == '\n' ? '\n' : ' ';
}

void scan_mask(const char *src, size_t n, char *code)
{
    const char *end = src + n;
    size_t i = 0;

    memcpy(code, src, n);
    while (i < n) {
        const char *p = src + i;
        int lvl;
        if (p[0] == '-' && i + 1 < n && p[1] == '-') {
            const char *q;
            lvl = long_open(p + 2, end);
            if (lvl >= 0) {
                q = long_close(p + 2 + lvl + 2, end, lvl);
                q = q != NULL ? q + lvl + 2 : end;
            } else {
                q = memchr(p, '\n', (size_t)(end - p));
                if (q == NULL)
                    q = end;
            }
            blank(code, src, i, (size_t)(q - src));
            i = (size_t)(q - src);
        } else if (*p == '"' || *p == '\'') {
            size_t j = i + 1;
            while (j < n && src[j] != *p && src[j] != '\n')
                j += src[j] == '\\' && j + 1 < n ? 2 : 1;
            if (j > n)
                j = n;
            blank(code, src, i + 1, j);
            i = j < n ? j + 1 : n;
        } else if ((lvl = long_open(p, end)) >= 0) {
            const char *q = long_close(p + lvl + 2, end, lvl);
            size_t stop = q != NULL ? (size_t)(q - src) : n; /* its closing bracket kept */
            blank(code, src, i + (size_t)lvl + 2, stop);
            i = q != NULL ? stop + (size_t)lvl + 2 : n;
        } else {
            i++;
        }
    }
}

static int text_read(const char *path, text *t)
{
    FILE *f = fopen(path, "rb");
    size_t got;

    memset(t, 0, sizeof(*t));
    if (f == NULL)
        return -1;
    t->src = xmalloc(SCAN_FILE_MAX + 1);
    got = fread(t->src, 1, SCAN_FILE_MAX + 1, f);
    fclose(f);
    if (got > SCAN_FILE_MAX) {
        xfree(t->src);
        t->src = NULL;
        return -1;
    }
    t->src[got] = '\0';
    t->n = got;
    t->code = xmalloc(got + 1);
    scan_mask(t->src, got, t->code);
    t->code[got] = '\0';
    return 0;
}

/* The line of offset off, 1-based. */
static long line_of(const text *t, size_t off)
{
    long line = 1;

    for (size_t i = 0; i < off && i < t->n; i++)
        line += t->src[i] == '\n';
    return line;
}

/* The offset where line (1-based) starts, or t->n. */
static size_t line_start(const text *t, long line)
{
    size_t i = 0;

    for (long l = 1; l < line && i < t->n; i++)
        l += t->src[i] == '\n';
    return i;
}

/* The line of "file:line" when file is script, else 0. */
static long where_line(const char *where, const char *script)
{
    const char *colon = strrchr(where, ':');
    size_t len = strlen(script);

    if (colon == NULL || (size_t)(colon - where) != len || strncmp(where, script, len) != 0)
        return 0;
    return strtol(colon + 1, NULL, 10);
}

/* How many times the variable name (len bytes) is named in the code: a
 * whole word, not a field (".name") nor a method (":name"). */
static unsigned count_var(const text *t, const char *name, size_t len)
{
    unsigned n = 0;

    for (const char *p = t->code; (p = strstr(p, name)) != NULL; p += len) {
        size_t off = (size_t)(p - t->code);
        char before = off > 0 ? t->code[off - 1] : ' ';
        if (is_ident(before) || is_ident(p[len]) || before == ':' ||
            (before == '.' && !(off > 1 && t->code[off - 2] == '.')))
            continue;
        n++;
    }
    return n;
}

/* The step declared on this line: 1 when it is kept in no variable, or in
 * one named nowhere else; 0 when it is used or cannot be told. */
static int step_unused(const text *t, long line)
{
    size_t a = line_start(t, line), b = a, s, e;
    const char *call;
    char name[128];

    while (b < t->n && t->code[b] != '\n')
        b++;
    {
        char *l = xstrndup(t->code + a, b - a);
        char *q = strstr(l, ":step(");
        size_t at = q != NULL ? (size_t)(q - l) : 0;
        int twice = q != NULL && strstr(q + 1, ":step(") != NULL;
        xfree(l);
        if (q == NULL || twice)
            return 0;
        call = t->code + a + at;
    }
    s = a;
    while (s < b && (t->code[s] == ' ' || t->code[s] == '\t'))
        s++;
    if (strncmp(t->code + s, "local ", 6) == 0)
        s += 6;
    while (s < b && (t->code[s] == ' ' || t->code[s] == '\t'))
        s++;
    e = s;
    while (e < b && is_ident(t->code[e]))
        e++;
    if (t->code + e == call) /* "sc:step(3, ...)" alone: kept nowhere */
        return 1;
    if (e == s || e - s >= sizeof(name))
        return 0;
    memcpy(name, t->code + s, e - s);
    name[e - s] = '\0';
    while (e < b && (t->code[e] == ' ' || t->code[e] == '\t'))
        e++;
    if (t->code[e] != '=' || t->code[e + 1] == '=')
        return 0;
    return count_var(t, name, strlen(name)) <= 1;
}

/* 1 when the column is named in the file: ".col", "col" or 'col'. */
static int column_named(const text *t, const char *col)
{
    size_t len = strlen(col);

    for (const char *p = t->code; (p = strstr(p, col)) != NULL; p += len) {
        size_t off = (size_t)(p - t->code);
        if (off > 0 && t->code[off - 1] == '.' && !is_ident(p[len]) &&
            !(off > 1 && t->code[off - 2] == '.'))
            return 1;
    }
    for (const char *p = t->src; (p = strstr(p, col)) != NULL; p += len) {
        size_t off = (size_t)(p - t->src);
        if (off > 0 && (t->src[off - 1] == '"' || t->src[off - 1] == '\'') &&
            p[len] == t->src[off - 1])
            return 1;
    }
    return 0;
}

/* The keys of the literal table opening at code[at] ('{'), at its own
 * level: each unknown one is warned about. */
static unsigned table_keys(const text *t, size_t at, const char *script, FILE *out)
{
    unsigned n = 0;
    int depth = 0;
    int item = 1; /* at the start of an item: a key may follow */

    for (size_t i = at; i < t->n; i++) {
        char c = t->code[i];
        if (c == '{' || c == '(' || c == '[') {
            depth++;
            item = depth == 1;
            continue;
        }
        if (c == '}' || c == ')' || c == ']') {
            if (--depth == 0)
                break;
            continue;
        }
        if (depth != 1)
            continue;
        if (c == ',' || c == ';') {
            item = 1;
        } else if (item && is_ident(c)) {
            size_t e = i, k;
            while (e < t->n && is_ident(t->code[e]))
                e++;
            k = e;
            while (k < t->n && (t->code[k] == ' ' || t->code[k] == '\t' || t->code[k] == '\n'))
                k++;
            if (k < t->n && t->code[k] == '=' && t->code[k + 1] != '=' && e - i < 64) {
                char key[64];
                memcpy(key, t->code + i, e - i);
                key[e - i] = '\0';
                if (!preflight_request_option(key)) {
                    fprintf(out,
                            "%s:%ld: warning: unknown request option \"%s\" (the request "
                            "fails when it is made)\n",
                            script, line_of(t, i), key);
                    n++;
                }
            }
            item = 0;
            i = e - 1;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            item = 0;
        }
    }
    return n;
}

/* Every literal option table given to a request method. */
static unsigned request_options(const text *t, const char *script, FILE *out)
{
    unsigned n = 0;

    for (size_t i = 1; i < t->n; i++) {
        size_t j, depth = 0;
        int arg = 1;
        if (t->code[i - 1] != ':' && t->code[i - 1] != '.')
            continue;
        if (i > 1 && is_ident(t->code[i - 2]) == 0 && t->code[i - 2] != ')' &&
            t->code[i - 2] != ']')
            continue;
        /* step:get(...), or http.get(...): another table's get is not a request */
        if (t->code[i - 1] == '.' && (i < 5 || strncmp(t->code + i - 5, "http", 4) != 0 ||
                                      (i > 5 && is_ident(t->code[i - 6]))))
            continue;
        for (j = 0; j < sizeof(methods) / sizeof(methods[0]); j++) {
            size_t len = strlen(methods[j]);
            if (strncmp(t->code + i, methods[j], len) == 0 && t->code[i + len] == '(')
                break;
        }
        if (j == sizeof(methods) / sizeof(methods[0]))
            continue;
        for (j = i + strlen(methods[j]); j < t->n; j++) {
            char c = t->code[j];
            if (c == '(' || c == '{' || c == '[') {
                if (depth == 1 && arg && c == '{')
                    n += table_keys(t, j, script, out);
                depth++;
                arg = depth == 1;
            } else if (c == ')' || c == '}' || c == ']') {
                if (--depth == 0)
                    break;
            } else if (depth == 1 && c == ',') {
                arg = 1;
            } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                arg = 0;
            }
        }
    }
    return n;
}

unsigned scan_script(const char *script, const preflight *pf, FILE *out)
{
    text t;
    unsigned n = 0;

    if (text_read(script, &t) != 0)
        return 0;
    for (size_t i = 0; i < pf->nsteps; i++) {
        long line = where_line(pf->steps[i].where, script);
        if (line > 0 && step_unused(&t, line)) {
            fprintf(out, "%s: warning: step %s (\"%s\") is declared and never used\n",
                    pf->steps[i].where, pf->steps[i].id, pf->steps[i].label);
            n++;
        }
    }
    n += request_options(&t, script, out);
    for (size_t i = 0; i < pf->info.ncsvs; i++) {
        const loadinfo_csv *c = &pf->info.csvs[i];
        if (where_line(c->where, script) == 0)
            continue;
        for (size_t k = 0; k < c->ncols; k++)
            if (!column_named(&t, c->cols[k])) {
                fprintf(out,
                        "%s: warning: column \"%s\" of %s is never read (no .%s nor [\"%s\"])\n",
                        c->where, c->cols[k], c->file, c->cols[k], c->cols[k]);
                n++;
            }
    }
    xfree(t.src);
    xfree(t.code);
    return n;
}
