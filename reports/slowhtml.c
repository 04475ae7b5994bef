#include "reports/slowhtml.h"

#include "reports/html.h"

/* The table of step's rows among r->slow[from..to). */
static void step_table(FILE *out, const query_run *r, size_t from, size_t to)
{
    const query_slow *q = &r->slow[from];
    char b[64];

    fputs("<h3><code>", out);
    if (q->step >= 0 && (uint64_t)q->step < r->nsteps)
        html_esc(out, r->steps[q->step].test_id);
    else
        fprintf(out, "step %lld", (long long)q->step);
    fputs("</code></h3>\n<table class=\"slowest\">\n<thead><tr><th class=\"n\">#</th>"
          "<th class=\"n\">Latency (ms)</th><th class=\"n\">Start</th><th class=\"n\">VU</th>"
          "<th>Trace id</th></tr></thead>\n<tbody>\n",
          out);
    for (size_t i = from; i < to; i++) {
        q = &r->slow[i];
        fprintf(out, "<tr><td class=\"n\">%lld</td><td class=\"n\">%s</td>", (long long)q->rank,
                html_ms((double)q->latency_us, b, sizeof(b)));
        fprintf(out, "<td class=\"n\">%.3f s</td><td class=\"n\">%lld</td><td><code>",
                (double)(q->start_us - r->started_us) / 1e6, (long long)q->vu);
        html_esc(out, q->trace_id != NULL ? q->trace_id : "-");
        fputs("</code></td></tr>\n", out);
    }
    fputs("</tbody>\n</table>\n", out);
}

void slowhtml_section(FILE *out, const query_run *r)
{
    size_t from = 0;

    fputs("<section id=\"slowest\">\n<h2>Slowest samples</h2>\n", out);
    if (r->nslow == 0) {
        fputs("<p class=\"same\">No slowest sample was kept (--slowest 0, or an older "
              "quern).</p>\n</section>\n",
              out);
        return;
    }
    for (size_t i = 1; i <= r->nslow; i++) {
        if (i < r->nslow && r->slow[i].step == r->slow[from].step)
            continue;
        step_table(out, r, from, i);
        from = i;
    }
    fputs("<p class=\"note\">The slowest samples of each step over the run, by response "
          "time; start is counted from the start of the run; the trace id is the one their "
          "request's traceparent header carried (--traceparent).</p>\n</section>\n",
          out);
}
