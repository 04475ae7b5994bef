/* report — the `quern report [RUN] [--db F] [-o FILE]` command.
 *
 * What it is for: writes one self-contained HTML file for a run of the
 * results database (the latest by default): the run is read through
 * store/query.h and rendered by reports/report_html.h. The options and their
 * help text sit together in report.c.
 *
 * Usage (console/main.c):
 *     return report_main(argc - 1, argv + 1);   // argv[0] "report"
 */
#ifndef QUERN_REPORT_H
#define QUERN_REPORT_H

#include <stdio.h>

/** Runs the command; argv[0] is "report". Returns 0, 2 on a usage error
 *  (unknown run included), 3 when the database or the output cannot be
 *  read or written. */
int report_main(int argc, char **argv);
/** Prints the command's help. */
void report_usage(FILE *out);

#endif
