#include "reports/tallyhtml.h"

#include <string.h>

#include "reports/html.h"

static void checks_table(FILE *out, const dbtally *t)
{
    uint64_t p = 0, f = 0;

    fputs("<h3>Checks</h3>\n<table class=\"checks\">\n<thead><tr><th>Check</th>"
          "<th class=\"n\">Passes</th><th class=\"n\">Fails</th><th class=\"n\">Rate</th></tr>"
          "</thead>\n<tbody>\n",
          out);
    for (size_t i = 0; i < t->nchecks; i++) {
        const tally_check *c = &t->checks[i];
        uint64_t n = c->passes + c->fails;
        fputs("<tr><td>", out);
        html_esc(out, c->name);
        fprintf(out,
                "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%.2f %%</td></tr>\n",
                (unsigned long long)c->passes, (unsigned long long)c->fails,
                n ? 100.0 * (double)c->passes / (double)n : 100.0);
        p += c->passes;
        f += c->fails;
    }
    fprintf(out,
            "<tr><td><b>All checks</b></td><td class=\"n\">%llu</td><td class=\"n\">%llu"
            "</td><td class=\"n\">%.2f %%</td></tr>\n</tbody>\n</table>\n",
            (unsigned long long)p, (unsigned long long)f,
            p + f ? 100.0 * (double)p / (double)(p + f) : 100.0);
}

static void metric_row(FILE *out, const dbtally_metric *m)
{
    fputs("<tr><td><code>", out);
    html_esc(out, m->name);
    fputs("</code></td><td>", out);
    html_esc(out, m->kind);
    fputs("</td><td>", out);
    if (strcmp(m->kind, "counter") == 0)
        fprintf(out, "total %g, %.2f/s", m->total, m->rate);
    else if (strcmp(m->kind, "gauge") == 0 && m->has_value)
        fprintf(out, "value %g, min %g, max %g", m->value, m->min, m->max);
    else if (strcmp(m->kind, "trend") == 0)
        fprintf(out, "count %llu, mean %.3f, min %g, p50 %g, p90 %g, p95 %g, p99 %g, max %g",
                (unsigned long long)m->count, m->mean, m->min, m->p50, m->p90, m->p95, m->p99,
                m->max);
    else
        fputs("never set", out);
    fputs("</td></tr>\n", out);
}

void tallyhtml_section(FILE *out, const query_run *r)
{
    const dbtally *t = &r->tally;

    if (t->nchecks == 0 && t->nmetrics == 0)
        return;
    fputs("<section id=\"checks\">\n<h2>Checks and metrics</h2>\n", out);
    if (t->nchecks > 0)
        checks_table(out, t);
    if (t->nmetrics > 0) {
        fputs("<h3>Custom metrics</h3>\n<table class=\"metrics\">\n<thead><tr><th>Metric</th>"
              "<th>Kind</th><th>Figures (in the script's unit)</th></tr></thead>\n<tbody>\n",
              out);
        for (size_t i = 0; i < t->nmetrics; i++)
            metric_row(out, &t->metrics[i]);
        fputs("</tbody>\n</table>\n", out);
    }
    fputs("<p class=\"note\">Soft checks (quern.check, r:check) count passes and failures "
          "without ending a run; custom metrics are the script's own (quern.metric).</p>\n"
          "</section>\n",
          out);
}
