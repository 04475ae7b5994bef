/* errsummary — a run's errors by kind in the summary; see errsummary.h. */
#include "console/errsummary.h"

#include <jansson.h>

#include "common/termsafe.h"

/* The time of ms after the run's start, "+12.3s" ("-0.2s" before it: a
 * setup's error), or the epoch ms. */
static const char *when(int64_t ms, int64_t started_us, char *buf, size_t len)
{
    double s = (double)(ms * 1000 - started_us) / 1e6;

    if (s > -0.05 && s < 0.05)
        s = 0; /* never "-0.0s" */
    if (started_us > 0)
        snprintf(buf, len, "%+.1fs", s);
    else
        snprintf(buf, len, "%lld", (long long)ms);
    return buf;
}

static void print_row(FILE *out, const errkind *k, int64_t started_us)
{
    char msg[TERMSAFE_MAX], url[TERMSAFE_MAX], f[32], l[32];

    fprintf(out, "  %9llu  %-10s %5d  %s  (%s..%s)", (unsigned long long)k->count,
            errkinds_class(k), (int)k->code, termsafe(k->msg, msg, sizeof(msg)),
            when(k->first_ms, started_us, f, sizeof(f)),
            when(k->last_ms, started_us, l, sizeof(l)));
    if (k->ex.url[0])
        fprintf(out, " e.g. %s", termsafe(k->ex.url, url, sizeof(url)));
    if (k->ex.trace[0])
        fprintf(out, " (trace %s)", k->ex.trace);
    fprintf(out, "\n");
}

void errsummary_print(FILE *out, const step_stats *steps, const char *const *step_ids,
                      size_t nsteps, int64_t started_us)
{
    int header = 0;

    for (size_t i = 0; i < nsteps; i++) {
        const errkind *rows[ERRKIND_ROWS];
        size_t n = errkinds_sorted(steps[i].kinds, rows),
               shown = n < ERRSUMMARY_TOP ? n : ERRSUMMARY_TOP;
        uint64_t rest = 0;
        char nm[TERMSAFE_MAX];

        if (n == 0)
            continue;
        if (!header)
            fprintf(out, "\nErrors by kind (count, class, code, message, first..last):\n");
        header = 1;
        fprintf(out, "%s:\n", termsafe(step_ids[i], nm, sizeof(nm)));
        for (size_t j = 0; j < shown; j++)
            print_row(out, rows[j], started_us);
        for (size_t j = shown; j < n; j++)
            rest += rows[j]->count;
        if (n > shown)
            fprintf(out, "  and %zu more (%llu errors)\n", n - shown, (unsigned long long)rest);
    }
}

static json_t *example_json(const errkind_example *ex)
{
    json_t *o = json_object();

    json_object_set_new(o, "url", json_string(ex->url));
    json_object_set_new(o, "status", json_integer(ex->status));
    json_object_set_new(o, "body", json_string(ex->body));
    json_object_set_new(o, "trace_id", json_string(ex->trace));
    return o;
}

json_t *errsummary_json(const errkinds *t)
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = errkinds_sorted(t, rows);
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++) {
        const errkind *k = rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "class", json_string(errkinds_class(k)));
        json_object_set_new(o, "code", json_integer(k->code));
        json_object_set_new(o, "message", json_string(k->msg));
        json_object_set_new(o, "count", json_integer((json_int_t)k->count));
        json_object_set_new(o, "first", json_integer(k->first_ms));
        json_object_set_new(o, "last", json_integer(k->last_ms));
        json_object_set_new(o, "example", example_json(&k->ex));
        json_array_append_new(a, o);
    }
    return a;
}
