/* cli — what the commands share on their command line (`quern run`, `runs`,
 * `report`, `compare`).
 *
 * What it is for: each command keeps its own getopt_long table next to its
 * help text (console/opts.c, reports/runs.c, report.c, compare.c); they
 * report a usage error the same way: one line on stderr, "quern CMD: what
 * (see quern help CMD)", exit status 2. The result commands parse in order
 * with optstring "-:..." (a leading '-' returns the run arguments as 1 in
 * their place, ':' reports a missing value as ':').
 *
 * Usage:
 *     opterr = 0; optind = 0;   // 0: glibc starts afresh, whatever parsed before
 *     while ((c = getopt_long(argc, argv, "-:ho:", opts, NULL)) != -1) ...
 *         case ':': return cli_usage_err("report", "%s needs a value", cli_flag(argv, optind,
 * NULL));
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
