/* preview — `quern check SCRIPT [run options]`: the check before the load.
 *
 * What it is for: the script is loaded exactly as `quern run` loads it
 * before a run (run_load, console/run.h: the properties, the script as
 * every worker will load it, its thresholds, its load shape against the
 * flags given, its warnings, console/scan.h), and nothing else happens: no
 * agent, no worker, no request, no file written. What the run would do is
 * printed: the scenarios and their steps with their test ids, the load over
 * time (console/tplot.h), the thresholds, the properties the script asked
 * for with their values (secrets masked, common/redact.h) and those that
 * have none. Exit 0 when the run could start (warnings do not change it),
 * 2 with "file:line: what" (or the flag at fault) when it could not.
 *
 * Usage: preview_main(argc - 1, argv + 1) from main (argv[0] is "check"). */
#ifndef QUERN_PREVIEW_H
#define QUERN_PREVIEW_H

#include <stdio.h>

/** Runs the command; argv[0] is "check". Returns the exit status. */
int preview_main(int argc, char **argv);
/** Prints the command's help (`quern help check`). */
void preview_usage(FILE *out);

#endif
