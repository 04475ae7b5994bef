/* sqlone — one value read back by the unit tests of the results store: the
 * first column of the first row of a query. A query that does not prepare
 * or gives no row fails the calling test. Link tests/unit/sqlone.c. */
#ifndef QUERN_TESTS_SQLONE_H
#define QUERN_TESTS_SQLONE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The value of sql on sq, as an integer. */
int64_t sqlone_int(sqlite3 *sq, const char *sql);

/* The value of sql on sq, as text copied into buf (len bytes, cut to fit). */
void sqlone_text(sqlite3 *sq, const char *sql, char *buf, size_t len);

#endif
