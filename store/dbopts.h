/* dbopts — where the results go: the --db, --name and --tag options.
 *
 * What it is for: `quern run` records into a results database (--db FILE,
 * or $QUERN_DB, or ./quern-results.db; --db none records nothing), under a
 * run name (--name, default the script's base name) with tags (--tag
 * KEY=VALUE, repeatable); `quern runs`, `report` and `compare` read the same
 * --db. A db_opts is a plain struct the caller fills: either directly, or
 * one flag at a time with db_opts_set from its own option parser, which
 * checks the value the way every command does.
 *
 * Usage:
 *     db_opts o = {0};
 *     if (db_opts_set(&o, "--tag", "env=ci", err, sizeof(err)) != 0) ... err
 *     const char *path = db_opts_path(&o);   // NULL: --db none
 *     db_opts_name(&o, script, name, sizeof(name));
 *     db_opts_free(&o);
 */
#ifndef QUERN_DBOPTS_H
#define QUERN_DBOPTS_H

#include <stddef.h>

#include "common/props.h"

/** Default database path (relative to the current directory). */
#define DB_PATH_DEFAULT "./quern-results.db"

/** Environment variable that, when set, replaces DB_PATH_DEFAULT. */
#define DB_PATH_ENV "QUERN_DB"

/** The results options of `quern run`. Zero-initialise; db_opts_free. */
typedef struct db_opts {
    const char *path; /**< borrowed: --db (NULL: default; "none": no database) */
    const char *name; /**< borrowed: --name */
    props *tags;      /**< owned: --tag pairs, NULL when none */
} db_opts;

/** 1 if flag ("--db", "--name", "--tag") is one of the results options,
 *  each of which takes a value. */
int db_opts_flag(const char *flag);
/** Sets the option flag ("--db", "--name" or "--tag", as typed) to val:
 *  the parser of those three flags. An empty --db or --name is refused, a
 *  --tag must be KEY=VALUE. 0, or -1 with err set (the message names the
 *  fault, not the flag: the caller prefixes it). */
int db_opts_set(db_opts *o, const char *flag, const char *val, char *err, size_t errlen);
/** Releases what o owns. */
void db_opts_free(db_opts *o);
/** The database path to use: --db, else $QUERN_DB, else DB_PATH_DEFAULT;
 *  NULL when the results are not to be recorded (--db none). */
const char *db_opts_path(const db_opts *o);
/** Writes the run name into buf: --name, else the script's base name
 *  without its .lua extension. */
const char *db_opts_name(const db_opts *o, const char *script, char *buf, size_t len);

/** Help lines for the results options (for `quern help run`). */
#define DB_OPTS_USAGE                                                                              \
    "  --db FILE            results database (default ./quern-results.db, or $QUERN_DB);\n"        \
    "                       --db none records nothing\n"                                           \
    "  --name NAME          run name in the database (default: the script's base name)\n"          \
    "  --tag KEY=VALUE      tag the run (repeatable)\n"

#endif
