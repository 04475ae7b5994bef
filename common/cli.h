/* cli — what the commands share on their command line (`quern run`, `runs`,
 * `report`, `compare`, `har2lua`).
 *
 * What it is for: each command keeps its options in a table next to its
 * help text (common/opttab.h) and parses them with opttab_parse; they
 * report a usage error the same way: one line on stderr, "quern CMD: what
 * (see quern help CMD)", exit status 2. cli_flag names a flag as typed, for
 * opttab_parse's messages.
 *
 * Usage:
 *     if (opttab_parse(&tab, argc, argv, x_opt, &o, err, sizeof(err)) < 0)
 *         return cli_usage_err("report", "%s", err);
 */
#ifndef QUERN_CLI_H
#define QUERN_CLI_H

/** Prints "quern CMD: " then fmt with arg, then " (see quern help CMD)" and
 *  a newline on stderr. Returns 2 (a usage error's exit status). */
int cli_usage_err(const char *cmd, const char *fmt, const char *arg);

/** The option as typed on the command line, for a message about the one
 *  getopt_long just returned: optind is getopt's, value its optarg (NULL for
 *  an option without a value, a missing value or an unknown option). When
 *  the value was attached ("--db=", "-ofile"), that whole argument. */
const char *cli_flag(char *const *argv, int optind, const char *value);

#endif
