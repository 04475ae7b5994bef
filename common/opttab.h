/* opttab — a command's options as one table: what getopt_long parses and
 * what the command's help prints are read from the same rows, so a flag and
 * its help cannot drift apart.
 *
 * What it is for: every command (`quern run`, `agent`, `runs`, `report`,
 * `compare`) declares its rows, prints its help with opttab_usage and parses
 * with getopt_long over opttab_longopts. A row is a flag (name set) or a
 * paragraph of the help (name NULL); a flag with no left column is parsed
 * but not shown (--help). A plain string option or a switch may name the
 * field it sets in the command's options struct (OPTTAB_STR, OPTTAB_SET):
 * opttab_plain then sets it, so its parser handles only what needs a check.
 *
 * Usage:
 *     static const opttab_row rows[] = {
 *         {NULL, 0, 0, NULL, "usage: quern x [options]\n\noptions:", OPTTAB_NONE},
 *         {"db", required_argument, 'd', "--db FILE", "results database", OPTTAB_NONE},
 *         {"quiet", no_argument, 'q', "-q, --quiet", "say less", OPTTAB_SET(x_opts, quiet)},
 *     };
 *     static const opttab tab = {rows, sizeof(rows) / sizeof(rows[0]), 15};
 *     struct option lo[sizeof(rows) / sizeof(rows[0]) + 1];
 *     opttab_longopts(&tab, lo);
 *     while ((c = getopt_long(argc, argv, ":q", lo, NULL)) != -1)
 *         if (!opttab_plain(&tab, c, optarg, &o)) switch (c) { ... } */
#ifndef QUERN_OPTTAB_H
#define QUERN_OPTTAB_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/** One row: a flag or a paragraph of the help. */
typedef struct opttab_row {
    const char *name; /**< long name without "--"; NULL: text is a paragraph */
    int has_arg;      /**< no_argument, required_argument or optional_argument */
    int val;          /**< what getopt_long returns for it: its short flag or a value > 255 */
    const char *left; /**< the help's left column ("--db FILE", "-p, --property K=V");
                           NULL: parsed but not shown */
    const char *text; /**< its help; each '\n' starts a line under the text's column */
    size_t str;       /**< a plain string option: offsetof its field + 1, else 0 */
    size_t set;       /**< a switch: offsetof its int field + 1, else 0 */
} opttab_row;

/** A row that opttab_plain does not set: its parser handles it. */
#define OPTTAB_NONE 0, 0
/** A plain string option that sets field (const char *) of type T. */
#define OPTTAB_STR(T, field) offsetof(T, field) + 1, 0
/** A switch that sets field (int) of type T to 1. */
#define OPTTAB_SET(T, field) 0, offsetof(T, field) + 1

/** A command's options. */
typedef struct opttab {
    const opttab_row *rows; /**< borrowed: n rows */
    size_t n;
    int col; /**< width of the help's left column, after its two-space indent */
} opttab;

/** Prints the help: paragraphs as they are, each shown flag as
 *  "  LEFT  TEXT" with LEFT padded to col and continuation lines under TEXT
 *  (a left column too wide for col gets its text on the next line). */
void opttab_usage(const opttab *t, FILE *out);

/** Fills lopts (room for t->n + 1 entries) with the flags' getopt_long
 *  entries, ended by a zero entry. Returns how many flags there are. */
size_t opttab_longopts(const opttab *t, struct option *lopts);

/** If val is a plain string option or a switch of t, sets its field in obj
 *  (to v, or to 1) and returns 1; else 0. */
int opttab_plain(const opttab *t, int val, const char *v, void *obj);

/** The long name of the flag whose getopt_long value is val ("--db"), in
 *  buf; "-c" for a short flag without a row. Returns buf. */
const char *opttab_name(const opttab *t, int val, char *buf, size_t len);

#endif
