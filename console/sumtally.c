#include "console/sumtally.h"

#include <jansson.h>
#include <string.h>

#include "common/termsafe.h"

double sumtally_pass_pct(uint64_t passes, uint64_t fails)
{
    return passes + fails > 0 ? 100.0 * (double)passes / (double)(passes + fails) : 100.0;
}

static double elapsed_s(const agg *a)
{
    return (double)a->elapsed_us / 1e6;
}

static void print_checks(FILE *out, const agg *a, int width)
{
    uint64_t p, f;
    char nm[TERMSAFE_MAX];

    fprintf(out, "\n%-*s %9s %9s %8s\n", width, "Check", "Passes", "Fails", "Rate");
    for (size_t i = 0; i < a->tally.nchecks; i++) {
        const tally_check *c = &a->tally.checks[i];
        fprintf(out, "%-*s %9llu %9llu %6.2f %%\n", width, termsafe(c->name, nm, sizeof(nm)),
                (unsigned long long)c->passes, (unsigned long long)c->fails,
                sumtally_pass_pct(c->passes, c->fails));
    }
    tally_checks_all(&a->tally, &p, &f);
    fprintf(out, "%-*s %9llu %9llu %6.2f %%\n", width, "All checks", (unsigned long long)p,
            (unsigned long long)f, sumtally_pass_pct(p, f));
}

static void print_metric(FILE *out, const agg *a, const tally_metric *m, int width)
{
    double el = elapsed_s(a);

    fprintf(out, "%-*s %-8s ", width, m->name, tally_kind_name(m->kind));
    switch (m->kind) {
    case TALLY_COUNTER:
        fprintf(out, "total %g, %.2f/s\n", m->sum, el > 0 ? m->sum / el : 0.0);
        break;
    case TALLY_GAUGE:
        if (m->has_value)
            fprintf(out, "value %g, min %g, max %g\n", m->value, m->min, m->max);
        else
            fprintf(out, "never set\n");
        break;
    case TALLY_TREND:
        fprintf(out, "count %llu, mean %.3f, p50 %g, p95 %g, p99 %g, max %g\n",
                (unsigned long long)hist_count(m->h), tally_trend_stat(m, "mean", 0),
                tally_trend_stat(m, NULL, 50), tally_trend_stat(m, NULL, 95),
                tally_trend_stat(m, NULL, 99), tally_trend_stat(m, "max", 0));
        break;
    }
}

void sumtally_print(FILE *out, const agg *a)
{
    int width = 12;

    for (size_t i = 0; i < a->tally.nchecks; i++)
        if ((int)strlen(a->tally.checks[i].name) > width)
            width = (int)strlen(a->tally.checks[i].name);
    for (size_t i = 0; i < a->tally.nmetrics; i++)
        if ((int)strlen(a->tally.metrics[i].name) > width)
            width = (int)strlen(a->tally.metrics[i].name);
    if (width > 60)
        width = 60;
    if (a->tally.nchecks > 0)
        print_checks(out, a, width);
    if (a->tally.nmetrics == 0)
        return;
    fprintf(out, "\n%-*s %-8s %s\n", width, "Metric", "Kind", "Figures");
    for (size_t i = 0; i < a->tally.nmetrics; i++)
        print_metric(out, a, &a->tally.metrics[i], width);
}

json_t *sumtally_metric_json(const tally_metric *m, double el)
{
    json_t *o = json_object();

    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "kind", json_string(tally_kind_name(m->kind)));
    switch (m->kind) {
    case TALLY_COUNTER:
        json_object_set_new(o, "total", json_real(m->sum));
        json_object_set_new(o, "rate", json_real(el > 0 ? m->sum / el : 0.0));
        break;
    case TALLY_GAUGE:
        json_object_set_new(o, "value", m->has_value ? json_real(m->value) : json_null());
        json_object_set_new(o, "min", m->has_value ? json_real(m->min) : json_null());
        json_object_set_new(o, "max", m->has_value ? json_real(m->max) : json_null());
        break;
    case TALLY_TREND:
        json_object_set_new(o, "count", json_integer((json_int_t)hist_count(m->h)));
        json_object_set_new(o, "mean", json_real(tally_trend_stat(m, "mean", 0)));
        json_object_set_new(o, "min", json_real(tally_trend_stat(m, "min", 0)));
        json_object_set_new(o, "p50", json_real(tally_trend_stat(m, NULL, 50)));
        json_object_set_new(o, "p90", json_real(tally_trend_stat(m, NULL, 90)));
        json_object_set_new(o, "p95", json_real(tally_trend_stat(m, NULL, 95)));
        json_object_set_new(o, "p99", json_real(tally_trend_stat(m, NULL, 99)));
        json_object_set_new(o, "max", json_real(tally_trend_stat(m, "max", 0)));
        break;
    }
    return o;
}

json_t *sumtally_check_json(const tally_check *c)
{
    json_t *o = json_object();

    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "passes", json_integer((json_int_t)c->passes));
    json_object_set_new(o, "fails", json_integer((json_int_t)c->fails));
    json_object_set_new(o, "pass_pct", json_real(sumtally_pass_pct(c->passes, c->fails)));
    return o;
}

void sumtally_json(json_t *root, const agg *a)
{
    json_t *checks = json_array(), *metrics = json_array();

    for (size_t i = 0; i < a->tally.nchecks; i++)
        json_array_append_new(checks, sumtally_check_json(&a->tally.checks[i]));
    for (size_t i = 0; i < a->tally.nmetrics; i++)
        json_array_append_new(metrics, sumtally_metric_json(&a->tally.metrics[i], elapsed_s(a)));
    json_object_set_new(root, "checks", checks);
    json_object_set_new(root, "metrics", metrics);
}
