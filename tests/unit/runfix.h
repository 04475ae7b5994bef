/* runfix — the run the unit tests of the reports write into a results
 * database and read back: two steps over three seconds, step 0 ("Login") 2
 * samples a second (1 ms and 3 ms), step 1 ("Home") one technical error in
 * second 1, 4/3/1/1 arrivals each second. Its checks are cmocka's, so a
 * failed write fails the calling test. Link tests/unit/runfix.c. */
#ifndef QUERN_TESTS_RUNFIX_H
#define QUERN_TESTS_RUNFIX_H

#include <stdint.h>

#include "reports/db.h"

/* Writes the run into d with the script at path script (its SHA-256 is
 * recorded), named name, its step 1 labelled home_label (a test of escaping
 * gives both markup); ends it with its totals when end is 1, else leaves it
 * partial. Returns the run's id. */
int64_t runfix_write(db *d, const char *script, const char *name, const char *home_label, int end);

#endif
