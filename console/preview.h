/* preview — what `quern check SCRIPT [run options]` prints: what a run
 * would do, once its script is loaded.
 *
 * What it is for: run_check (console/runcmd.h) loads the script exactly as
 * `quern run` loads it before a run (run_load, console/run.h: the
 * properties, the script as every worker will load it, its thresholds,
 * its load shape against the flags given, its warnings, console/scan.h),
 * and nothing else happens: no agent, no worker, no request, no file
 * written. It hands this file what it loaded, as preview_input, and what
 * the run would do is printed: the scenarios and their steps with their
 * test ids, the load over time (console/tplot.h), the thresholds, the
 * properties the script asked for with their values (secrets masked,
 * common/redact.h) and those that have none. Exit 0 when the run could
 * start (warnings do not change it), 2 with "file:line: what" (or the flag
 * at fault) when it could not (preview_refused).
 *
 * Usage:
 *     preview_input in = {&r->o, r->pf, ...};   // run_check's, once loaded
 *     preview_print(&in);
 *     preview_refused(err, is_script);          // or: why it could not load */
#ifndef QUERN_PREVIEW_H
#define QUERN_PREVIEW_H

#include <stdio.h>

#include "common/props.h"
#include "common/tally.h"
#include "console/opts.h"

struct preflight;

/** What a script's check loaded, borrowed from the run for one call. */
typedef struct preview_input {
    const run_opts *o;          /**< borrowed: the options, the script's thresholds and the
                                     defaults added to o->th */
    const struct preflight *pf; /**< borrowed: the script's load (agent/preflight.h) */
    const char *const *th_src;  /**< borrowed: per o->th, NULL (--threshold) or "file:line" */
    const tally *decl;          /**< borrowed: the custom metrics the script declares */
    const props *p;             /**< borrowed: the properties given */
    unsigned nwarnings;         /**< warnings the check printed on stderr */
} preview_input;

/** Prints on stdout what the run of in would do. */
void preview_print(const preview_input *in);
/** Says on stderr why the check failed: err from run_load, is_script 1
 *  when it is the script's ("file:line: ..."). */
void preview_refused(const char *err, int is_script);
/** Prints the command's help (`quern help check`). */
void preview_usage(FILE *out);

#endif
