/* runfix — the run the unit tests of the results store and the reports
 * write into a results database and read back: two steps of scenario S,
 * "Login" and "Home". runfix_begin only begins it; runfix_write also gives it
 * three seconds: step 0 2 samples a second (1 ms and 3 ms), step 1 one
 * technical error in second 1, 4/3/1/1 arrivals each second. Their checks
 * are cmocka's, so a failed write fails the calling test. Link
 * tests/unit/runfix.c. */
#ifndef QUERN_TESTS_RUNFIX_H
#define QUERN_TESTS_RUNFIX_H

#include <stdint.h>

#include "common/props.h"
#include "store/db.h"

/* Begins the run in d ("plan", 3 VUs, started at 1700000000.123456 s) with
 * the script at path script, tagged with tags (may be NULL); returns its id. */
int64_t runfix_begin(db *d, const char *script, const props *tags);

/* Writes the run into d with the script at path script (its SHA-256 is
 * recorded), named name, its step 1 labelled home_label (a test of escaping
 * gives both markup); ends it with its totals when end is 1, else leaves it
 * partial. Returns the run's id. */
int64_t runfix_write(db *d, const char *script, const char *name, const char *home_label, int end);

#endif
