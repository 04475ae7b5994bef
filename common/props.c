/* props — key = value properties; see props.h. */
#include "common/props.h"
#include "common/err.h"

#include "common/mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prop {
    char *key;   /* owned */
    char *value; /* owned */
};

struct props {
    struct prop *items; /* owned; len used, cap allocated */
    size_t len;
    size_t cap;
};

/* Trims whitespace around s[0..*n): returns the new start, shortens *n. */
static const char *trim(const char *s, size_t *n)
{
    while (*n > 0 && isspace((unsigned char)*s)) {
        s++;
        (*n)--;
    }
    while (*n > 0 && isspace((unsigned char)s[*n - 1]))
        (*n)--;
    return s;
}

static struct prop *find(const props *p, const char *key)
{
    for (size_t i = 0; i < p->len; i++)
        if (strcmp(p->items[i].key, key) == 0)
            return &p->items[i];
    return NULL;
}

props *props_new(void)
{
    return xcalloc(1, sizeof(props));
}

void props_free(props *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->len; i++) {
        xfree(p->items[i].key);
        xfree(p->items[i].value);
    }
    xfree(p->items);
    xfree(p);
}

/* Sets key[0..klen) to value[0..vlen). */
static void set_n(props *p, const char *key, size_t klen, const char *value, size_t vlen)
{
    for (size_t i = 0; i < p->len; i++) {
        struct prop *it = &p->items[i];
        if (strlen(it->key) == klen && memcmp(it->key, key, klen) == 0) {
            xfree(it->value);
            it->value = xstrndup(value, vlen);
            return;
        }
    }
    if (p->len == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->items = xreallocarray(p->items, p->cap, sizeof(*p->items));
    }
    p->items[p->len].key = xstrndup(key, klen);
    p->items[p->len].value = xstrndup(value, vlen);
    p->len++;
}

void props_set(props *p, const char *key, const char *value)
{
    set_n(p, key, strlen(key), value, strlen(value));
}

const char *props_get(const props *p, const char *key)
{
    const struct prop *it = find(p, key);
    return it ? it->value : NULL;
}

size_t props_count(const props *p)
{
    return p->len;
}

const char *props_key(const props *p, size_t i)
{
    return i < p->len ? p->items[i].key : NULL;
}

const char *props_value(const props *p, size_t i)
{
    return i < p->len ? p->items[i].value : NULL;
}

/* Parses one line (without its newline) into staged. Returns 0, or -1
 * with the reason (no location) in err. */
static int parse_line(props *staged, const char *line, size_t n, char *err, size_t errlen)
{
    const char *s = trim(line, &n);
    if (n == 0 || s[0] == '#' || s[0] == '!')
        return 0;

    size_t sep = 0;
    while (sep < n && s[sep] != '=' && s[sep] != ':')
        sep++;
    if (sep == n) {
        err_set(err, errlen, "expected key = value or key: value, got \"%.*s\"", (int)n, s);
        return -1;
    }
    size_t klen = sep;
    const char *key = trim(s, &klen);
    if (klen == 0) {
        err_set(err, errlen, "empty key in \"%.*s\"", (int)n, s);
        return -1;
    }
    size_t vlen = n - sep - 1;
    const char *value = trim(s + sep + 1, &vlen);
    set_n(staged, key, klen, value, vlen);
    return 0;
}

int props_load_file(props *p, const char *path, char *err, size_t errlen)
{
    char why[256];
    char *line = NULL;
    size_t linecap = 0;
    ssize_t n;
    unsigned long lineno = 0;
    int rc = -1;
    props *staged = props_new();

    FILE *f = fopen(path, "r");
    if (f == NULL) {
        err_set(err, errlen, "cannot open %s: %s", path, strerror(errno));
        goto out;
    }
    while ((n = getline(&line, &linecap, f)) >= 0) {
        lineno++;
        if (n > PROPS_LINE_MAX) {
            err_set(err, errlen, "%s:%lu: line longer than %d bytes", path, lineno, PROPS_LINE_MAX);
            goto out;
        }
        const char *text = line;
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (lineno == 1 && len >= 3 && memcmp(line, "\xef\xbb\xbf", 3) == 0) {
            text += 3; /* UTF-8 byte order mark */
            len -= 3;
        }
        if (memchr(text, '\0', len) != NULL) {
            err_set(err, errlen, "%s:%lu: NUL byte in line", path, lineno);
            goto out;
        }
        if (parse_line(staged, text, len, why, sizeof(why)) != 0) {
            err_set(err, errlen, "%s:%lu: %s", path, lineno, why);
            goto out;
        }
    }
    if (ferror(f)) {
        err_set(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < staged->len; i++)
        props_set(p, staged->items[i].key, staged->items[i].value);
    rc = 0;
out:
    if (f)
        fclose(f);
    free(line); /* allocated by getline */
    props_free(staged);
    return rc;
}

int props_set_arg(props *p, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL) {
        err_set(err, errlen, "bad property \"%s\": expected key=value", arg);
        return -1;
    }
    size_t klen = (size_t)(eq - arg);
    const char *key = trim(arg, &klen);
    if (klen == 0) {
        err_set(err, errlen, "bad property \"%s\": empty key", arg);
        return -1;
    }
    size_t vlen = strlen(eq + 1);
    const char *value = trim(eq + 1, &vlen);
    set_n(p, key, klen, value, vlen);
    return 0;
}
