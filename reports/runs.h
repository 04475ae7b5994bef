/* runs — `quern runs [--db F] [--name N] [--limit K]`: the runs of a
 * results database, newest first, one line each (id, name, start,
 * duration, VUs, status, TPS, p95, error %, verdict). Reads only the
 * database; marks the runs it finds abandoned there (store/abandon.h). */
#ifndef QUERN_RUNS_H
#define QUERN_RUNS_H

#include <stdio.h>

/** Runs the command; argv[0] is "runs". Returns 0, 2 on a usage error, 3
 *  when the database cannot be read. */
int runs_main(int argc, char **argv);
/** Prints the command's help. */
void runs_usage(FILE *out);

#endif
