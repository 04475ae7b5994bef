/* schema — store/schema.sql, compiled into the binary.
 *
 * What it is for: the results database's schema has one source, the file
 * store/schema.sql (its comments document every table). The Makefile turns
 * it into build/gen/store/schema_sql.c, which defines schema_sql; nothing
 * keeps a second copy by hand. The file is a header comment followed by the
 * migrations in order: the block that starts with the line
 * "-- @migration N" takes a database from version N-1 to version N
 * (store/db.h: db_open runs them).
 *
 * Usage:
 *     char *sql = schema_migration(n);   // 1 <= n <= schema_migrations()
 *     sqlite3_exec(sq, sql, ...);
 *     xfree(sql);
 */
#ifndef QUERN_SCHEMA_H
#define QUERN_SCHEMA_H

#include <stddef.h>

/** The bytes of store/schema.sql, NUL-terminated (generated). */
extern const char schema_sql[];
/** strlen(schema_sql): the size of store/schema.sql (generated). */
extern const size_t schema_sql_len;

/** The number of "-- @migration N" blocks in schema_sql. */
unsigned schema_migrations(void);

/** The text of migration n (1-based), from its "-- @migration n" line up
 *  to the next migration's line or the end of the file, NUL-terminated.
 *  Owned by the caller (xfree). NULL when there is no migration n. */
char *schema_migration(unsigned n);

#endif
