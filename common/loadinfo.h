/* loadinfo — what a script's load read and opened: the properties it asked
 * for and the CSV feeders it made, for `quern check` (console/check.h).
 *
 * What it is for: the worker's engine records each quern.property call and
 * each quern.csv feeder while the script loads; the console's check of the
 * script (agent/preflight.h) takes the record over and prints it, and warns
 * about the CSV columns the script never names. It is a plain list of
 * copies: nothing in it points into a Lua state.
 *
 * Usage:
 *     loadinfo li = {0};
 *     loadinfo_add_prop(&li, "password", "s.lua:3", NULL, 0);   // the first call wins
 *     loadinfo_add_csv(&li, "users.csv", "s.lua:5", cols, 2);
 *     ... li.props[i].name, li.csvs[j].cols[k] ...
 *     loadinfo_free(&li); */
#ifndef QUERN_LOADINFO_H
#define QUERN_LOADINFO_H

#include <stddef.h>

/** Most properties and most feeders recorded (later ones are not). */
#define LOADINFO_MAX 256

/** One property the script asked for. */
typedef struct loadinfo_prop {
    char *name;   /**< owned */
    char *where;  /**< owned: "file:line" of its first quern.property call */
    char *dflt;   /**< owned: its default as text, NULL: none */
    int optional; /**< asked for with { optional = true }: may have no value */
} loadinfo_prop;

/** One CSV feeder the script made. */
typedef struct loadinfo_csv {
    char *file;  /**< owned: the path as the script gave it */
    char *where; /**< owned: "file:line" of its quern.csv call */
    char **cols; /**< owned array of owned names: its header's columns (none: no header) */
    size_t ncols;
} loadinfo_csv;

/** The record of one load. */
typedef struct loadinfo {
    loadinfo_prop *props; /**< owned: nprops, in the order first asked */
    size_t nprops;
    loadinfo_csv *csvs; /**< owned: ncsvs, in the order made */
    size_t ncsvs;
} loadinfo;

/** Records property name asked for at where (all copied; dflt may be
 *  NULL); a name already recorded is kept as first asked, except that a
 *  later call giving a default or optional makes it so. */
void loadinfo_add_prop(loadinfo *li, const char *name, const char *where, const char *dflt,
                       int optional);
/** Records a feeder of file made at where with ncols column names (all
 *  copied). */
void loadinfo_add_csv(loadinfo *li, const char *file, const char *where, const char *const *cols,
                      size_t ncols);
/** Frees what li owns and empties it; fine on an empty one. */
void loadinfo_free(loadinfo *li);

#endif
