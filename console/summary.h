/* summary — the end-of-run table and the --summary-json file. */
#ifndef QUERN_SUMMARY_H
#define QUERN_SUMMARY_H

#include <stdio.h>

#include "console/agg.h"

/** What the summary needs to know about the steps and scenarios. */
typedef struct summary_info {
    const char *status; /**< "completed", "stopped", "aborted" */
    unsigned vus;
    const char *const *step_ids; /**< nsteps "SC-X-STEP-n" */
    const char *const *step_labels;
    const char *const *step_names; /**< "SC-X-STEP-n)label" */
    const char *const *scen_names; /**< nscens */
} summary_info;

/** Prints the per-step table (count, errors, TPS, mean, percentiles, max). */
void summary_print(FILE *out, const agg *a, const summary_info *si);
/** Writes the JSON summary to path; 0 ok, -1 with err. */
int summary_write_json(const char *path, const agg *a, const summary_info *si, char *err,
                       size_t errlen);

#endif
