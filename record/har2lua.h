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
 * stale. The conversion is har2lua_convert, which the unit tests call on
 * hand-made recordings.
 *
 * Usage (console/main.c):
 *     return har2lua_main(argc - 1, argv + 1);   // argv[0] "har2lua"
 */
#ifndef QUERN_HAR2LUA_H
#define QUERN_HAR2LUA_H

#include <stddef.h>
#include <stdio.h>

/** How a page's static resources are replayed. */
typedef enum har2lua_res {
    HAR2LUA_RES_AUTO, /**< resources = true on the page's request (the engine fetches them) */
    HAR2LUA_RES_LIST, /**< each recorded resource requested, the page timed as one block */
    HAR2LUA_RES_NONE, /**< not replayed */
} har2lua_res;

/** The most --include or --exclude patterns. */
#define HAR2LUA_PATTERNS 16

/** What to convert and how. */
typedef struct har2lua_opts {
    const char *source;                    /**< borrowed: the file's name, for the header */
    const char *name;                      /**< borrowed: the scenario's name */
    const char *prop;                      /**< borrowed: the base URL's property ("base_url") */
    har2lua_res resources;                 /**< static resources */
    const char *include[HAR2LUA_PATTERNS]; /**< borrowed: URL globs kept though third-party */
    size_t ninclude;                       /**< number of include patterns */
    const char *exclude[HAR2LUA_PATTERNS]; /**< borrowed: URL globs left out */
    size_t nexclude;                       /**< number of exclude patterns */
} har2lua_opts;

/** Writes the script for the HAR text (len bytes) to out. Returns 0, or -1
 *  with "LINE:COLUMN: what" in err when the text is not a HAR. */
int har2lua_convert(const char *text, size_t len, const har2lua_opts *o, FILE *out, char *err,
                    size_t errlen);

/** Runs the command; argv[0] is "har2lua". Returns 0, 2 on a usage error or
 *  an input that is not a HAR, 3 when the output cannot be written. */
int har2lua_main(int argc, char **argv);

/** Prints the command's help. */
void har2lua_usage(FILE *out);

#endif
