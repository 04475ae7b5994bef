#include "console/verdict.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "console/runcmd.h"

size_t verdict_defaults(const thresh *const *ts, size_t nt, int allow_errors, size_t nsteps,
                        const char *exprs[2])
{
    int about_errors = 0;
    size_t n = 0;

    for (size_t i = 0; i < nt; i++)
        about_errors |= ts[i]->metric == THRESH_ERRORS || ts[i]->metric == THRESH_ERR_TECH ||
                        ts[i]->metric == THRESH_ERR_FUNC;
    if (!about_errors && !allow_errors)
        exprs[n++] = "errors<=0%";
    if (nsteps > 0)
        exprs[n++] = "count>=1";
    return n;
}

static const char *text_or(const char *s, const char *dflt)
{
    return s != NULL && s[0] != '\0' ? s : dflt;
}

int verdict_saturated(uint64_t saturated_s, uint64_t clear_s, uint64_t measured_s)
{
    return (saturated_s >= VERDICT_SATURATED_MIN_S || clear_s > 0) &&
           (double)saturated_s > VERDICT_SATURATED_MAX * (double)measured_s;
}

/* The saturated share, 0..1. */
static double share_of(const verdict_in *in)
{
    return in->measured_s > 0 ? (double)in->saturated_s / (double)in->measured_s : 0.;
}

void verdict_decide(const verdict_in *in, verdict *out)
{
    size_t failed = 0, first = 0;
    int saturated = verdict_saturated(in->saturated_s, in->clear_s, in->measured_s);
    char on[64] = "", sat[VERDICT_WHY_MAX / 2] = "", evidence[VERDICT_WHY_MAX / 2] = "";

    memset(out, 0, sizeof(*out));
    /* what the verdict rests on: how many samples over how many seconds */
    if (in->measured_s > 0)
        snprintf(on, sizeof(on), " (on %llu samples over %llu s)", (unsigned long long)in->samples,
                 (unsigned long long)in->measured_s);
    for (size_t i = 0; i < in->nt; i++)
        if (!in->rs[i].passed && failed++ == 0)
            first = i;
    if (saturated)
        snprintf(sat, sizeof(sat),
                 "; and the injector saturated in %.0f %% of the measured seconds (%llu of %llu "
                 "s: %s): the failure may be quern's own",
                 100.0 * share_of(in), (unsigned long long)in->saturated_s,
                 (unsigned long long)in->measured_s, text_or(in->why_saturated, "no figure"));
    if (failed > 0 && in->why_blame != NULL && in->why_blame[0] != '\0')
        snprintf(evidence, sizeof(evidence), "; %s", in->why_blame);
    out->rc = RUN_EXIT_FAILED;
    if (in->aborted) {
        out->rc = RUN_EXIT_START;
        err_set(out->why, sizeof(out->why), "aborted");
    } else if (in->threshold_stop) {
        err_set(out->why, sizeof(out->why), "stopped by --abort-on-fail: a threshold failed");
    } else if (in->stopped && !in->stopped_ok) {
        err_set(out->why, sizeof(out->why),
                "stopped: %s, before the run's planned end: its figures are partial (%llu "
                "samples, shown above)%s; --stopped-ok judges such a run on what it did",
                text_or(in->why_stopped, "a signal stopped the load"),
                (unsigned long long)in->samples,
                failed > 0 ? "; a threshold failed too, listed above" : "");
    } else if (failed > 0 && in->blame_injector && !in->allow_saturation) {
        out->inconclusive = 1;
        err_set(out->why, sizeof(out->why),
                "inconclusive: threshold %s failed on quern's own delay, not the server's: %s%s; "
                "give it more workers (--workers) or agents (--allow-saturation judges it as "
                "failed)",
                in->ts[first]->expr, in->rs[first].desc, evidence);
    } else if (failed > 0) {
        const char *src = in->sources != NULL ? in->sources[first] : NULL;
        int dflt = src != NULL && strcmp(src, VERDICT_DEFAULT) == 0;
        const char *rule = !dflt ? ""
                           : in->ts[first]->metric == THRESH_COUNT
                               ? " (default rule: a run with no sample is not a pass)"
                               : " (default rule: with no threshold about errors, any error "
                                 "fails the run; --allow-errors or an errors<N% threshold "
                                 "tolerates them)";
        out->allowed = in->blame_injector;
        err_set(out->why, sizeof(out->why), "failed: threshold %s: %s%s%s%s%s%s%s",
                in->ts[first]->expr, in->rs[first].desc, on, evidence, rule,
                failed > 1 ? " (and more thresholds failed, listed above)" : "", sat,
                in->blame_injector ? "; quern's own delay made it fail, judged as usual by "
                                     "--allow-saturation"
                                   : "");
    } else if (in->degraded && !(in->allow_loss && in->loss_only)) {
        err_set(out->why, sizeof(out->why), "failed: the run is degraded: %s%s",
                in->why_degraded != NULL && in->why_degraded[0] ? in->why_degraded
                                                                : "an agent or a worker was lost",
                in->loss_only ? " (--allow-agent-loss tolerates it)" : "");
    } else if (in->samples == 0 && in->runs == 0) {
        err_set(out->why, sizeof(out->why),
                "failed: nothing completed (no step sample, no run): a run with no sample is "
                "not a pass");
    } else if (saturated && !in->allow_saturation) {
        out->inconclusive = 1;
        err_set(out->why, sizeof(out->why),
                "inconclusive: the injector saturated in %.0f %% of the measured seconds (%llu "
                "of %llu s: %s): its figures are quern's own limit, not the server's; give it "
                "more workers (--workers), more agents or fewer VUs per worker "
                "(--allow-saturation makes this a warning)",
                100.0 * share_of(in), (unsigned long long)in->saturated_s,
                (unsigned long long)in->measured_s, text_or(in->why_saturated, "no figure"));
    } else if (in->undelivered_share > VERDICT_UNDELIVERED_MAX) {
        out->inconclusive = 1;
        err_set(out->why, sizeof(out->why),
                "inconclusive: %.0f %% of the load asked was not sent (%s): the server was not "
                "tested at the load asked",
                100.0 * in->undelivered_share, text_or(in->why_undelivered, "no detail"));
    } else {
        out->passed = 1;
        out->rc = RUN_EXIT_OK;
        out->allowed = saturated;
        err_set(out->why, sizeof(out->why), "passed: %s%s%s%s",
                in->nt > 0 ? "every threshold passed" : "no threshold to check", on,
                in->degraded ? " (degraded run tolerated by --allow-agent-loss)" : "",
                saturated ? " (the injector saturated, tolerated by --allow-saturation)" : "");
    }
}
