/* runcmd — `quern run` and `quern check` as the rest of quern calls them:
 * their entry points (console/run.c) and the exit statuses of a run.
 *
 * What it is for: main.c runs the commands and verdict.c names the
 * statuses without seeing the run's state: struct run is for the files
 * console/run.h names.
 *
 * Usage (from main, argv[0] the command's name):
 *     rc = run_main(argc - 1, argv + 1);    // quern run
 *     rc = run_check(argc - 1, argv + 1);   // quern check */
#ifndef QUERN_RUNCMD_H
#define QUERN_RUNCMD_H

/** Exit statuses of quern run (documented in docs/running.md and `quern help run`). */
enum run_exit {
    RUN_EXIT_OK = 0,     /**< the run completed (or was stopped by the user) */
    RUN_EXIT_FAILED = 1, /**< a threshold failed, a regression, or a degraded run */
    RUN_EXIT_USAGE = 2,  /**< a usage error or a script error: nothing was sent */
    RUN_EXIT_START = 3,  /**< the run could not start or was aborted */
};

/** Runs `quern run`; argv[0] is "run". Returns the exit status. */
int run_main(int argc, char **argv);

/** Runs `quern check`; argv[0] is "check": the script loaded as run_main
 *  loads it before it starts anything (run_load, console/run.h), nothing
 *  sent, and what the run would do printed (console/preview.h).
 *  RUN_EXIT_OK, or RUN_EXIT_USAGE after the reason on stderr. */
int run_check(int argc, char **argv);

#endif
