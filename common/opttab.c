/* opttab — a command's options as one table; see opttab.h. */
#include "common/opttab.h"

#include <string.h>

#include "common/cli.h"
#include "common/err.h"
#include "common/mem.h"

void opttab_usage(const opttab *t, FILE *out)
{
    for (size_t i = 0; i < t->n; i++) {
        const opttab_row *r = &t->rows[i];
        const char *s = r->text;

        if (r->name == NULL) {
            fprintf(out, "%s\n", s);
            continue;
        }
        if (r->left == NULL)
            continue;
        if ((int)strlen(r->left) >= t->col)
            fprintf(out, "  %s\n  %-*s", r->left, t->col - 1, "");
        else
            fprintf(out, "  %-*s", t->col - 1, r->left);
        for (;;) {
            const char *nl = strchr(s, '\n');
            int n = nl != NULL ? (int)(nl - s) : (int)strlen(s);
            fprintf(out, " %.*s\n", n, s);
            if (nl == NULL)
                break;
            s = nl + 1;
            fprintf(out, "  %-*s", t->col - 1, "");
        }
    }
}

size_t opttab_longopts(const opttab *t, struct option *lopts)
{
    size_t n = 0;

    for (size_t i = 0; i < t->n; i++) {
        if (t->rows[i].name == NULL)
            continue;
        lopts[n].name = t->rows[i].name;
        lopts[n].has_arg = t->rows[i].has_arg;
        lopts[n].flag = NULL;
        lopts[n++].val = t->rows[i].val;
    }
    memset(&lopts[n], 0, sizeof(lopts[n]));
    return n;
}

int opttab_plain(const opttab *t, int val, const char *v, void *obj)
{
    for (size_t i = 0; i < t->n; i++) {
        const opttab_row *r = &t->rows[i];
        if (r->name == NULL || r->val != val)
            continue;
        if (r->str != 0) {
            *(const char **)((char *)obj + r->str - 1) = v;
            return 1;
        }
        if (r->set != 0) {
            *(int *)((char *)obj + r->set - 1) = 1;
            return 1;
        }
        return 0;
    }
    return 0;
}

const char *opttab_name(const opttab *t, int val, char *buf, size_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].name != NULL && t->rows[i].val == val) {
            snprintf(buf, len, "--%s", t->rows[i].name);
            return buf;
        }
    snprintf(buf, len, "-%c", val > 0 && val < 128 ? val : '?');
    return buf;
}

/* The format of an unknown flag's message, one %s for the flag. */
static const char *unknown_fmt(const opttab *t)
{
    return t->unknown != NULL ? t->unknown : "unknown option %s";
}

/* "--quiet" of "--quiet=1": a long flag as typed, without its value. */
static const char *typed_long(const char *a, char *buf, size_t len)
{
    const char *eq = strchr(a, '=');

    snprintf(buf, len, "%.*s", eq != NULL ? (int)(eq - a) : (int)strlen(a), a);
    return buf;
}

/* The message of what getopt_long refused ('?' or ':'), in err. */
static void refused(const opttab *t, int c, char **argv, char *err, size_t errlen)
{
    const char *unknown = unknown_fmt(t);
    /* the bad flag is the argument before optind, short or long */
    const char *a = argv[optind - 1];
    char flag[64];

    if (!t->named) {
        if (c == ':')
            err_set(err, errlen, "%s needs a value", a);
        else
            err_set(err, errlen, unknown, a);
    } else if (c == ':') {
        err_set(err, errlen, "%s needs a value", opttab_name(t, optopt, flag, sizeof(flag)));
    } else if (strncmp(a, "--", 2) != 0) {
        snprintf(flag, sizeof(flag), "-%c", optopt);
        err_set(err, errlen, unknown, flag);
    } else if (optopt != 0) {
        /* a known long flag given a value it does not take */
        err_set(err, errlen, "%s takes no value", typed_long(a, flag, sizeof(flag)));
    } else {
        err_set(err, errlen, unknown, typed_long(a, flag, sizeof(flag)));
    }
}

/* getopt's optstring: the mode, ':' (a missing value returns ':', not
 * '?'), then the short flags. */
static void optstring(const opttab *t, char *s, size_t len)
{
    size_t n = 0;

    s[n++] = t->args == OPTTAB_ARGS_INLINE ? '-' : t->args == OPTTAB_ARGS_NONE ? '+' : ':';
    if (s[0] != ':')
        s[n++] = ':';
    if (t->shorts != NULL) {
        snprintf(s + n, len - n, "%s", t->shorts);
        return;
    }
    for (size_t i = 0; i < t->n && n + 3 <= len; i++) {
        if (t->rows[i].name == NULL || t->rows[i].val <= 0 || t->rows[i].val >= 128)
            continue;
        s[n++] = (char)t->rows[i].val;
        if (t->rows[i].has_arg == required_argument)
            s[n++] = ':';
    }
    s[n] = '\0';
}

int opttab_parse(const opttab *t, int argc, char **argv, opttab_fn fn, void *ctx, char *err,
                 size_t errlen)
{
    /* room for every row's short flag and ':', the mode and the end */
    size_t slen = 2 * t->n + 4 + (t->shorts != NULL ? strlen(t->shorts) : 0);
    struct option *lopts = xcalloc(t->n + 1, sizeof(*lopts));
    char *shorts = xmalloc(slen), flag[64];
    int c, rc = -1;

    err_set(err, errlen, "%s", "");
    opttab_longopts(t, lopts);
    optstring(t, shorts, slen);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then starts afresh (a caller may have parsed before) */
    while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
        const char *name = NULL;
        int hrc;

        if (c == '?' || c == ':') {
            refused(t, c, argv, err, errlen);
            goto out;
        }
        if (c != OPTTAB_ARG) {
            name =
                t->named ? opttab_name(t, c, flag, sizeof(flag)) : cli_flag(argv, optind, optarg);
            if (t->refuse_empty && optarg != NULL && optarg[0] == '\0') {
                err_set(err, errlen, "%s needs a value", name);
                goto out;
            }
        }
        hrc = fn(ctx, c, name, optarg, err, errlen);
        if (hrc != 0) {
            rc = hrc > 0 ? OPTTAB_DONE : -1;
            goto out;
        }
    }
    if (t->args == OPTTAB_ARGS_INLINE && !t->dashdash_ok && optind > 1 &&
        strcmp(argv[optind - 1], "--") == 0) {
        err_set(err, errlen, unknown_fmt(t), "--");
        goto out;
    }
    if (t->args == OPTTAB_ARGS_NONE && optind < argc) {
        err_set(err, errlen, unknown_fmt(t), argv[optind]);
        goto out;
    }
    if (t->args == OPTTAB_ARGS_AFTER) {
        for (int i = optind; i < argc; i++) {
            int hrc = fn(ctx, OPTTAB_ARG, NULL, argv[i], err, errlen);
            if (hrc != 0) {
                rc = hrc > 0 ? OPTTAB_DONE : -1;
                goto out;
            }
        }
    }
    rc = 0;
out:
    xfree(shorts);
    xfree(lopts);
    return rc;
}
