/* expo — a bounded reader of Prometheus' text exposition format; see monitor_expo.h. */
#include "console/monitor_expo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"

/* One line being read: a copy of it, cut into the sample's strings in place. */
typedef struct monitor_expo_line {
    char buf[MONITOR_EXPO_LINE_MAX + 1];
    monitor_expo_label labels[MONITOR_EXPO_LABELS_MAX];
    size_t nlabels;
} monitor_expo_line;

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static char *skip_blank(char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* Reads a quoted label value at p (on its opening quote), unescaping it in
 * place; returns the character after the closing quote, NULL if malformed. */
static char *read_quoted(char *p, const char **why)
{
    char *out = p + 1, *in = p + 1, *start = out;

    for (;;) {
        char c = *in++;
        if (c == '\0') {
            *why = "a label value without its closing quote";
            return NULL;
        }
        if (c == '"')
            break;
        if (c == '\\') {
            char e = *in++;
            if (e == 'n')
                c = '\n';
            else if (e == '\\' || e == '"')
                c = e;
            else {
                *why = "an unknown escape in a label value";
                return NULL;
            }
        }
        *out++ = c;
    }
    /* The value now starts at p: move it back one byte, over the quote. */
    memmove(p, start, (size_t)(out - start));
    p[out - start] = '\0';
    return in;
}

/* Reads the labels after the '{' at p; returns the character after '}'. */
static char *read_labels(monitor_expo_line *ln, char *p, const char **why)
{
    p = skip_blank(p + 1);
    while (*p != '}') {
        char *name = p, *value;
        if (!is_name_start(*p)) {
            *why = "a label name expected";
            return NULL;
        }
        while (is_name_char(*p))
            p++;
        {
            char *end = p;
            p = skip_blank(p);
            if (*p != '=') {
                *why = "'=' expected after a label name";
                return NULL;
            }
            *end = '\0';
        }
        p = skip_blank(p + 1);
        if (*p != '"') {
            *why = "a quoted label value expected";
            return NULL;
        }
        value = p;
        p = read_quoted(p, why);
        if (p == NULL)
            return NULL;
        if (ln->nlabels == MONITOR_EXPO_LABELS_MAX) {
            *why = "more than MONITOR_EXPO_LABELS_MAX (32) labels in one series";
            return NULL;
        }
        ln->labels[ln->nlabels++] = (monitor_expo_label){name, value};
        p = skip_blank(p);
        if (*p == ',')
            p = skip_blank(p + 1);
        else if (*p != '}') {
            *why = "',' or '}' expected after a label";
            return NULL;
        }
    }
    return p + 1;
}

/* Reads a float as the format writes it (NaN, +Inf, -Inf, or a number). */
static int read_value(const char *tok, double *v)
{
    char *end;

    if (strcmp(tok, "NaN") == 0) {
        *v = NAN;
        return 0;
    }
    if (strcmp(tok, "+Inf") == 0 || strcmp(tok, "Inf") == 0) {
        *v = INFINITY;
        return 0;
    }
    if (strcmp(tok, "-Inf") == 0) {
        *v = -INFINITY;
        return 0;
    }
    /* Only digits, signs, a dot and an exponent: strtod would also take hex
     * and "infinity", which the format does not have. */
    if (tok[0] == '\0' || strspn(tok, "0123456789+-.eE") != strlen(tok))
        return -1;
    *v = strtod(tok, &end);
    return *end == '\0' ? 0 : -1;
}

/* Parses the sample in ln->buf; 0 with *s set, -1 with why. */
static int parse_sample(monitor_expo_line *ln, monitor_expo_sample *s, const char **why)
{
    char *p = ln->buf, *name = p, *val, *ts;

    ln->nlabels = 0;
    if (!is_name_start(*p)) {
        *why = "a metric name expected";
        return -1;
    }
    while (is_name_char(*p))
        p++;
    if (*p == '{') {
        char *after;
        *p = '\0'; /* ends the name; read_labels starts after the brace */
        after = read_labels(ln, p, why);
        if (after == NULL)
            return -1;
        p = after;
    } else if (*p == ' ' || *p == '\t') {
        *p++ = '\0';
    } else if (*p == '\0') {
        *why = "a value expected after the metric name";
        return -1;
    } else {
        *why = "a space or '{' expected after the metric name";
        return -1;
    }
    p = skip_blank(p);
    val = p;
    while (*p != '\0' && *p != ' ' && *p != '\t')
        p++;
    if (*p != '\0')
        *p++ = '\0';
    p = skip_blank(p);
    ts = p;
    while (*p != '\0' && *p != ' ' && *p != '\t')
        p++;
    if (*p != '\0')
        *p++ = '\0';
    if (*skip_blank(p) != '\0') {
        *why = "text after the timestamp";
        return -1;
    }
    if (read_value(val, &s->value) != 0) {
        *why = "a number expected as the value";
        return -1;
    }
    if (*ts != '\0' && strspn(ts, "0123456789-") != strlen(ts)) {
        *why = "the timestamp is not an integer";
        return -1;
    }
    s->name = name;
    s->labels = ln->labels;
    s->nlabels = ln->nlabels;
    return 0;
}

int monitor_expo_parse(const char *text, size_t len, monitor_expo_fn fn, void *ud, char *err,
                       size_t errlen)
{
    monitor_expo_line *ln = xmalloc(sizeof(*ln));
    size_t pos = 0, lineno = 0, nseries = 0;
    int rc = -1;

    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
        const char *why = NULL;
        monitor_expo_sample s;
        char *p;

        lineno++;
        if (n > MONITOR_EXPO_LINE_MAX) {
            err_set(err, errlen, "line %zu: longer than %d bytes", lineno, MONITOR_EXPO_LINE_MAX);
            goto out;
        }
        if (memchr(text + pos, '\0', n) != NULL) {
            err_set(err, errlen, "line %zu: a NUL byte", lineno);
            goto out;
        }
        memcpy(ln->buf, text + pos, n);
        pos += n + (nl != NULL ? 1 : 0);
        if (n > 0 && ln->buf[n - 1] == '\r')
            n--;
        ln->buf[n] = '\0';
        p = skip_blank(ln->buf);
        if (*p == '\0' || *p == '#')
            continue;
        if (p != ln->buf)
            memmove(ln->buf, p, strlen(p) + 1);
        if (parse_sample(ln, &s, &why) != 0) {
            err_set(err, errlen, "line %zu: %s", lineno, why);
            goto out;
        }
        if (++nseries > MONITOR_EXPO_SERIES_MAX) {
            err_set(err, errlen, "line %zu: more than %d series", lineno, MONITOR_EXPO_SERIES_MAX);
            goto out;
        }
        fn(ud, &s);
    }
    rc = 0;
out:
    xfree(ln);
    return rc;
}

const char *monitor_expo_label_get(const monitor_expo_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return NULL;
}

/* Keeps the first selector's sample for monitor_expo_sel_parse. */
typedef struct monitor_expo_selread {
    monitor_expo_sel *sel; /* borrowed: the caller's, filled */
    int seen;
    const char *why; /* borrowed (static): why the selector is refused, NULL: it is not */
} monitor_expo_selread;

static void sel_sample(void *ud, const monitor_expo_sample *s)
{
    monitor_expo_selread *sr = ud;

    if (sr->seen++)
        return;
    if (strlen(s->name) >= MONITOR_EXPO_SEL_TEXT) {
        sr->why = "the name is too long";
        return;
    }
    if (s->nlabels > MONITOR_EXPO_SEL_LABELS) {
        sr->why = "more than 8 labels";
        return;
    }
    memcpy(sr->sel->name, s->name, strlen(s->name) + 1);
    for (size_t i = 0; i < s->nlabels; i++) {
        if (strlen(s->labels[i].name) >= MONITOR_EXPO_SEL_TEXT ||
            strlen(s->labels[i].value) >= MONITOR_EXPO_SEL_TEXT) {
            sr->why = "a label name or value is too long";
            return;
        }
        memcpy(sr->sel->lname[i], s->labels[i].name, strlen(s->labels[i].name) + 1);
        memcpy(sr->sel->lvalue[i], s->labels[i].value, strlen(s->labels[i].value) + 1);
    }
    sr->sel->nlabels = s->nlabels;
}

int monitor_expo_sel_parse(const char *text, monitor_expo_sel *sel, char *err, size_t errlen)
{
    /* A selector is a sample without its value: read it as one, with 0. */
    char line[MONITOR_EXPO_LINE_MAX], perr[ERR_MAX];
    size_t n = strlen(text);
    monitor_expo_selread sr = {sel, 0, NULL};

    memset(sel, 0, sizeof(*sel));
    if (n == 0 || n + 3 > sizeof(line) || strchr(text, '\n') != NULL ||
        strpbrk(text, " \t") != NULL) {
        err_set(err, errlen, "'%s': expected NAME or NAME{label=\"value\",...}", text);
        return -1;
    }
    memcpy(line, text, n);
    memcpy(line + n, " 0", 3);
    if (monitor_expo_parse(line, n + 2, sel_sample, &sr, perr, sizeof(perr)) != 0) {
        const char *why = strstr(perr, ": ");
        err_set(err, errlen, "'%s': %s", text, why != NULL ? why + 2 : perr);
        return -1;
    }
    if (sr.seen != 1) {
        err_set(err, errlen, "'%s': not a metric name", text);
        return -1;
    }
    if (sr.why != NULL) {
        err_set(err, errlen, "'%s': %s", text, sr.why);
        return -1;
    }
    return 0;
}

int monitor_expo_sel_match(const monitor_expo_sel *sel, const monitor_expo_sample *s)
{
    if (strcmp(sel->name, s->name) != 0)
        return 0;
    for (size_t i = 0; i < sel->nlabels; i++) {
        const char *v = monitor_expo_label_get(s, sel->lname[i]);
        if (v == NULL || strcmp(v, sel->lvalue[i]) != 0)
            return 0;
    }
    return 1;
}
