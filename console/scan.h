/* scan — the warnings of a script's check: what its load cannot tell, read
 * from the script's text.
 *
 * What it is for: `quern check` and `quern run` load the script first
 * (agent/preflight.h); a load that passes may still hold mistakes that
 * would only show in the results. These are read from the main script's
 * text (comments and strings set aside), approximately, and printed as
 * warnings, "file:line: warning: ...": the run goes on.
 *   - a step declared and never used: declared as `local NAME = sc:step(...)`
 *     (or `NAME = ...`) with NAME named nowhere else in the file, or not
 *     kept at all (`sc:step(3, "x")` alone);
 *   - an unknown key in a literal option table of an HTTP request,
 *     `step:get(url, { KEY = ... })`, `http.post(...)` (the module bound to
 *     `http`) and the other methods: a request checks its options only
 *     when it is made;
 *   - a column of a CSV feeder with a header that the file never names, as
 *     `.col`, `["col"]` or `'col'` (a row walked with pairs() or read with
 *     a computed key reads columns this cannot see).
 * Steps and feeders declared in other files (modules) are not read.
 *
 * Usage:
 *     unsigned n = scan_script(o.script, &pf, stderr);   // after preflight_load */
#ifndef QUERN_SCAN_H
#define QUERN_SCAN_H

#include <stdio.h>

#include "agent/preflight.h"

/** Largest script file read for its warnings; a larger one gets none. */
#define SCAN_FILE_MAX (4u << 20)

/** Prints the warnings about script (the path its load was given: pf's
 *  "file:line" name it so) onto out; returns how many. */
unsigned scan_script(const char *script, const preflight *pf, FILE *out);

/** Copies the n bytes of Lua source src into code (n bytes too) with the
 *  comments and the contents of strings turned into spaces (newlines and
 *  quotes kept), so that what is left is only code at the same offsets. */
void scan_mask(const char *src, size_t n, char *code);

#endif
