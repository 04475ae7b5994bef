/* sectext — a section of the HTML report (reports/NAME_section) written for
 * a run into memory, as the unit tests of the sections read it, and how often
 * a piece of markup stands in it. Link tests/unit/sectext.c. */
#ifndef QUERN_TESTS_SECTEXT_H
#define QUERN_TESTS_SECTEXT_H

#include <stddef.h>
#include <stdio.h>

#include "store/query.h"

/* What write writes for r, as a string (xfree it); a stream that cannot be
 * opened fails the calling test. */
char *sectext_of(void (*write)(FILE *out, const query_run *r), const query_run *r);

/* How many times what stands in s, overlapping ones counted. */
size_t sectext_count(const char *s, const char *what);

#endif
