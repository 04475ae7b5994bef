/* sqlone — one value of a query, for the store's unit tests (sqlone.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "tests/unit/sqlone.h"

int64_t sqlone_int(sqlite3 *sq, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v;

    assert_int_equal(sqlite3_prepare_v2(sq, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

void sqlone_text(sqlite3 *sq, const char *sql, char *buf, size_t len)
{
    sqlite3_stmt *st;

    assert_int_equal(sqlite3_prepare_v2(sq, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}
