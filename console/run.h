/* run — `quern run SCRIPT.lua [options]`: plays a test and reports it. */
#ifndef QUERN_RUN_H
#define QUERN_RUN_H

#include <stdio.h>

/** Exit statuses of quern run (documented in the README and `quern help run`). */
enum run_exit {
    RUN_EXIT_OK = 0,     /**< the run completed (or was stopped by the user) */
    RUN_EXIT_FAILED = 1, /**< a threshold failed, a regression, or a degraded run */
    RUN_EXIT_USAGE = 2,  /**< a usage error or a script error: nothing was sent */
    RUN_EXIT_START = 3,  /**< the run could not start or was aborted */
};

/** Runs the command; argv[0] is "run". Returns the exit status. */
int run_main(int argc, char **argv);
/** Properties of a run: the file (given, or quern.properties beside the
 *  script when present), then the -p overrides, which win. NULL with err. */
struct props *run_load_props(const char *script, const char *file, const struct props *overrides,
                             char *err, size_t errlen);
/** Prints the command's help. */
void run_usage(FILE *out);

#endif
