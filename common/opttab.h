/* opttab — a command's options as one table: what getopt_long parses and
 * what the command's help prints are read from the same rows, so a flag and
 * its help cannot drift apart.
 *
 * What it is for: every command (`quern run`, `agent`, `runs`, `report`,
 * `compare`, `har2lua`) declares its rows, prints its help with opttab_usage
 * and parses with opttab_parse, the one getopt_long loop: it refuses unknown
 * flags, missing values and what the command does not take, in the words of
 * the table, and hands each flag and argument to the command's handler. A
 * row is a flag (name set) or a paragraph of the help (name NULL); a flag
 * with no left column is parsed but not shown (--help). A plain string option
 * or a switch may name the field it sets in the command's options struct
 * (OPTTAB_STR, OPTTAB_SET): opttab_plain then sets it, so its handler checks
 * only what needs a check.
 *
 * Usage:
 *     static const opttab_row rows[] = {
 *         {NULL, 0, 0, NULL, "usage: quern x [options]\n\noptions:", OPTTAB_NONE},
 *         {"db", required_argument, 'd', "--db FILE", "results database", OPTTAB_NONE},
 *         {"quiet", no_argument, 'q', "-q, --quiet", "say less", OPTTAB_SET(x_opts, quiet)},
 *     };
 *     static const opttab tab = {rows, sizeof(rows) / sizeof(rows[0]), 15, .shorts = "q"};
 *     static int x_opt(void *ctx, int val, const char *flag, const char *v, char *err,
 *                      size_t errlen)
 *     {   if (opttab_plain(&tab, val, v, ctx)) return 0; ... }
 *     rc = opttab_parse(&tab, argc, argv, x_opt, &o, err, sizeof(err));
 *     if (rc != 0) return rc > 0 ? 0 : cli_usage_err("x", "%s", err); */
#ifndef QUERN_OPTTAB_H
#define QUERN_OPTTAB_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/** One row: a flag or a paragraph of the help. */
typedef struct opttab_row {
    const char *name; /**< borrowed: long name without "--"; NULL: text is a paragraph */
    int has_arg;      /**< no_argument, required_argument or optional_argument */
    int val;          /**< what getopt_long returns for it: its short flag or a value > 255 */
    const char *left; /**< borrowed: the help's left column ("--db FILE", "-p, --property K=V");
                           NULL: parsed but not shown */
    const char *text; /**< borrowed: its help; each '\n' starts a line under the text's column */
    size_t str;       /**< a plain string option: offsetof its field + 1, else 0 */
    size_t set;       /**< a switch: offsetof its int field + 1, else 0 */
} opttab_row;

/** A row that opttab_plain does not set: its parser handles it. */
#define OPTTAB_NONE 0, 0
/** A plain string option that sets field (const char *) of type T. */
#define OPTTAB_STR(T, field) offsetof(T, field) + 1, 0
/** A switch that sets field (int) of type T to 1. */
#define OPTTAB_SET(T, field) 0, offsetof(T, field) + 1

/** Where opttab_parse puts the arguments that are not options. */
enum opttab_args {
    OPTTAB_ARGS_INLINE, /**< to the handler in their place, in order; a "--" is refused */
    OPTTAB_ARGS_AFTER,  /**< to the handler after every flag, in order; "--" ends the flags */
    OPTTAB_ARGS_NONE,   /**< refused: the first ends the flags and is named unknown */
};

/** What opttab_parse passes as val for an argument that is not an option. */
#define OPTTAB_ARG 1
/** What a handler returns to stop the parse with success (--help printed). */
#define OPTTAB_DONE 1

/** A command's options. The fields after col say how its command line
 *  reads; zero is the result commands' way (report, compare). A table names
 *  at least one of them (.args = OPTTAB_ARGS_INLINE): -Wextra wants every
 *  field of an initializer without names. */
typedef struct opttab {
    const opttab_row *rows; /**< borrowed: n rows */
    size_t n;
    int col;             /**< width of the help's left column, after its two-space indent */
    const char *shorts;  /**< borrowed: getopt's short flags ("ho:"); NULL: every row
                              whose val is a character, with ':' when it takes a value */
    int args;            /**< enum opttab_args */
    int named;           /**< 1: a flag is named by its row ("--vus" for -u, "--quiet" for
                              --quiet=1); 0: as typed */
    int refuse_empty;    /**< 1: an empty value ("--db=", -o '') is "FLAG needs a value" */
    int dashdash_ok;     /**< OPTTAB_ARGS_INLINE: 1 a "--" ends the flags, the arguments
                              after it unread; 0 it is refused */
    const char *unknown; /**< borrowed: the message of an unknown flag, one %s for it;
                              NULL: "unknown option %s" */
} opttab;

/** A command's handler of one flag, val its row's val, v its value (NULL for
 *  a switch), flag its name for a message (as the table names flags); or,
 *  with val OPTTAB_ARG, of an argument v that is not an option (flag NULL).
 *  Returns 0 to go on, OPTTAB_DONE to stop with success, -1 to stop on an
 *  error, its reason in err (errlen bytes), or err left empty when the
 *  handler said it itself. */
typedef int (*opttab_fn)(void *ctx, int val, const char *flag, const char *v, char *err,
                         size_t errlen);

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

/** Parses argv[1..argc-1] (argv[0], the command, is skipped) with
 *  getopt_long over t's flags, from the start whatever parsed before, and
 *  calls fn(ctx, ...) for each flag and argument. getopt_long may reorder
 *  argv (OPTTAB_ARGS_AFTER): a caller that keeps argv as given passes a copy.
 *  Returns 0 when all was read, OPTTAB_DONE when fn stopped with success, -1
 *  on a usage error: err says why in one line without the command ("unknown
 *  option --x", "--vus needs a value", "--quiet takes no value"), or what fn
 *  left there. */
int opttab_parse(const opttab *t, int argc, char **argv, opttab_fn fn, void *ctx, char *err,
                 size_t errlen);

#endif
