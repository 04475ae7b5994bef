/* scaffold — `quern new NAME [--url URL]`: a first scenario to start from.
 *
 * What it is for: writes NAME.lua (NAME as given when it already ends in
 * .lua), a commented scenario with a login, a step, thresholds, pacing and
 * think time, that passes `quern check` and plays against the demo target
 * (quern-target) as written: its base_url property defaults to URL
 * (SCAFFOLD_URL_DEFAULT, the demo target's usual address). An existing file
 * is never overwritten.
 *
 * Usage: scaffold_main(argc - 1, argv + 1) from main (argv[0] is "new"). */
#ifndef QUERN_SCAFFOLD_H
#define QUERN_SCAFFOLD_H

#include <stdio.h>

/** The base URL a new scenario has by default: the demo target's. */
#define SCAFFOLD_URL_DEFAULT "http://127.0.0.1:8080"

/** Runs the command; argv[0] is "new". Returns 0, or 2 after one line on
 *  stderr (a bad argument, an existing file, a write that failed). */
int scaffold_main(int argc, char **argv);
/** Prints the command's help (`quern help new`). */
void scaffold_usage(FILE *out);

#endif
