/* run_row — the values of a runs row that take computing: times as text, the
 * script's hash, the properties and the command line with secrets redacted.
 *
 * What it is for: db_run_begin and db_run_end (store/db.h) store these
 * beside the raw numbers. What must never reach the file (a property whose
 * key names a secret, a password in a URL: common/redact.h) is masked here,
 * so that every writer of a runs row stores the same thing.
 *
 * Usage:
 *     char at[40], hex[65];
 *     run_row_iso_utc(started_us, at, sizeof(at));          // "2024-05-01T12:00:00.123Z"
 *     if (run_row_hash_file(script, hex, err, sizeof(err)) != 0) ... err
 *     char *json = run_row_props_json(props, 1);            // free()
 *     char *cmd = run_row_command_line(argc, argv);         // xfree(); NULL: none
 */
#ifndef QUERN_RUN_ROW_H
#define QUERN_RUN_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "common/props.h"

/** Formats us (epoch microseconds) as ISO 8601 UTC with milliseconds
 *  ("2024-05-01T12:00:00.123Z") into buf. */
void run_row_iso_utc(int64_t us, char *buf, size_t len);

/** Lowercase hex SHA-256 of the file at path into hex[65] (at most 64 MiB
 *  of it). 0, or -1 with err set (cannot read, too big). */
int run_row_hash_file(const char *path, char hex[65], char *err, size_t errlen);

/** The pairs of p (NULL: none) as a compact JSON object, owned by the
 *  caller (free(), as jansson allocates it). redacted: secret-looking
 *  values and URL passwords are replaced by "***". */
char *run_row_props_json(const props *p, int redacted);

/** "quern " and argv[0..argc), shell-quoted and redacted, owned by the
 *  caller (xfree), at most 64 KiB; NULL when argc is 0. */
char *run_row_command_line(int argc, const char *const *argv);

#endif
