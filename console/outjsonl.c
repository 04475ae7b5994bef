/* outjsonl — the pushes as JSON lines; see outjsonl.h. */
#include "console/outjsonl.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/hist.h"
#include "common/mem.h"
#include "console/sumtally.h"

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

/* The step's errors by kind (common/errkinds.h): class, code, message,
 * count; the examples are the summary's and the database's. */
static json_t *kinds_json(const errkinds *t)
{
    const errkind *rows[ERRKIND_ROWS];
    size_t n = errkinds_sorted(t, rows);
    json_t *a = json_array();

    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_pack("{sssIsssI}", "class", errkinds_class(rows[i]), "code",
                                           (json_int_t)rows[i]->code, "message", rows[i]->msg,
                                           "count", (json_int_t)rows[i]->count));
    return a;
}

static json_t *step_json(const out_input *in, size_t i)
{
    const step_stats *s = &in->steps[i];
    const hist *h = s->hist;
    json_t *o = json_object();

    json_object_set_new(o, "step", json_string(in->names[i]));
    json_object_set_new(o, "scenario", json_string(in->scens[i]));
    json_object_set_new(o, "count", json_integer((json_int_t)s->count));
    json_object_set_new(o, "errors", json_integer((json_int_t)(s->err_tech + s->err_func)));
    json_object_set_new(o, "err_technical", json_integer((json_int_t)s->err_tech));
    json_object_set_new(o, "err_functional", json_integer((json_int_t)s->err_func));
    json_object_set_new(o, "bytes_received", json_integer((json_int_t)s->bytes_in));
    json_object_set_new(o, "bytes_sent", json_integer((json_int_t)s->bytes_out));
    json_object_set_new(o, "mean_ms", json_real(hist_mean(h) / 1000.0));
    json_object_set_new(o, "p50_ms", json_real(ms(hist_percentile(h, 50))));
    json_object_set_new(o, "p90_ms", json_real(ms(hist_percentile(h, 90))));
    json_object_set_new(o, "p95_ms", json_real(ms(hist_percentile(h, 95))));
    json_object_set_new(o, "p99_ms", json_real(ms(hist_percentile(h, 99))));
    json_object_set_new(o, "max_ms", json_real(ms(hist_max(h))));
    if (errkinds_total(s->kinds) > 0)
        json_object_set_new(o, "error_kinds", kinds_json(s->kinds));
    return o;
}

char *outjsonl_render(const out_input *in, size_t *len)
{
    json_t *o = json_object(), *steps = json_array();
    char *line, *out;
    size_t n;

    json_object_set_new(o, "run", json_string(in->run));
    json_object_set_new(o, "run_id", json_integer((json_int_t)in->run_id));
    if (in->final) {
        json_object_set_new(o, "end", json_true());
        json_object_set_new(o, "seconds", json_integer((json_int_t)in->second));
    } else {
        json_object_set_new(o, "second", json_integer((json_int_t)in->second));
        json_object_set_new(o, "late", json_boolean(in->late));
    }
    json_object_set_new(o, "vus", json_integer((json_int_t)in->vus));
    if (in->has_arrivals)
        json_object_set_new(o, "arrivals",
                            json_pack("{sIsIsIsI}", "scheduled", (json_int_t)in->arrivals.scheduled,
                                      "started", (json_int_t)in->arrivals.started, "late",
                                      (json_int_t)in->arrivals.late, "dropped",
                                      (json_int_t)in->arrivals.dropped));
    for (size_t i = 0; i < in->nsteps; i++)
        json_array_append_new(steps, step_json(in, i));
    json_object_set_new(o, "steps", steps);
    if (in->tally != NULL && in->tally->nchecks + in->tally->nmetrics > 0) {
        json_t *c = json_array(), *m = json_array();
        for (size_t i = 0; i < in->tally->nchecks; i++)
            json_array_append_new(c, sumtally_check_json(&in->tally->checks[i]));
        for (size_t i = 0; i < in->tally->nmetrics; i++)
            json_array_append_new(m, sumtally_metric_json(&in->tally->metrics[i], in->seconds));
        json_object_set_new(o, "checks", c);
        json_object_set_new(o, "metrics", m);
    }
    if (in->tags != NULL && props_count(in->tags) > 0) {
        json_t *t = json_object();
        for (size_t i = 0; i < props_count(in->tags); i++)
            json_object_set_new(t, props_key(in->tags, i), json_string(props_value(in->tags, i)));
        json_object_set_new(o, "tags", t);
    }
    line = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (line == NULL) /* only when out of memory */
        xoom("json_dumps");
    n = strlen(line);
    out = xmalloc(n + 2);
    memcpy(out, line, n);
    out[n] = '\n';
    out[n + 1] = '\0';
    free(line); /* jansson's: malloc'd */
    *len = n + 1;
    return out;
}
