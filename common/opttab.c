/* opttab — a command's options as one table; see opttab.h. */
#include "common/opttab.h"

#include <string.h>

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
