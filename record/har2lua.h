/* har2lua — the `quern har2lua FILE.har [-o SCRIPT.lua] ...` command: a
 * browser's recording turned into a scenario that replays it.
 *
 * What it is for: a tester records a journey in the browser (devtools,
 * Playwright) and gets a quern script in the house style: one step per page
 * (a document navigation with its redirects and, per --resources, its
 * static files; or an XHR/fetch call), labels from page titles or paths,
 * the recorded origin as a property, think times as recorded, bodies as
 * form = {...} or json = ..., the application's own headers only, each
 * step expecting its recorded status, and the values the server handed out
 * (record/correl.h) extracted from their response instead of replayed
 * stale. This file is the command (its options, the file read, the script
 * written whole or not at all); record/replay.h writes the script.
 * har2lua_convert is what the unit tests call on hand-made recordings.
 *
 * Usage (console/main.c):
 *     return har2lua_main(argc - 1, argv + 1);   // argv[0] "har2lua"
 */
#ifndef QUERN_HAR2LUA_H
#define QUERN_HAR2LUA_H

#include <stddef.h>
#include <stdio.h>

#include "common/dbuf.h"
#include "record/replay.h"

/** Appends the script for the HAR text (len bytes) to out, bounded by its
 *  maximum (the command's is REPLAY_SCRIPT_MAX). Returns 0; -1 with
 *  "LINE:COLUMN: what" in err when the text is not a HAR; -2 with "the
 *  script would be longer than N bytes at step S, METHOD URL ..." when it
 *  does not fit (out then holds part of it). */
int har2lua_convert(const char *text, size_t len, const replay_opts *o, dbuf *out, char *err,
                    size_t errlen);

/** Runs the command; argv[0] is "har2lua". Returns 0, 2 on a usage error or
 *  an input that is not a HAR, 3 when the output cannot be written. */
int har2lua_main(int argc, char **argv);

/** Prints the command's help. */
void har2lua_usage(FILE *out);

#endif
