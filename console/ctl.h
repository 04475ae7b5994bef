/* ctl — `quern ctl --console HOST:PORT [--token-file F] COMMAND`: steers a
 * running `quern run --control HOST:PORT` (console/serve/ctlsrv.h).
 *
 * What it is for: a small HTTP client, one POST per command, the token of
 * --token-file sent as "Authorization: Bearer TOKEN". The commands: pause,
 * resume, vus N (the closed model), rate R (the open model, "200/s"),
 * stop. Exit 0 when the console took the command; 2 for a usage error
 * (the flag or the argument named), a console that cannot be reached
 * (--console named) or a token refused (401: --token-file named); 1 when
 * the console refused it now (409: not under way, paused already, the
 * other model), with its reason.
 *
 * Usage (console/main.c): return ctl_main(argc - 1, argv + 1); */
#ifndef QUERN_CTL_H
#define QUERN_CTL_H

#include <stdio.h>

/** Runs the command; argv[0] is "ctl". Returns the exit status. */
int ctl_main(int argc, char **argv);
/** Writes the command's help to out. */
void ctl_usage(FILE *out);

#endif
