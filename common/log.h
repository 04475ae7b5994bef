/* log — one-line messages on stderr, prefixed with the process role.
 *
 * Call log_init("agent") once per process; log_msg never blocks for long
 * (stderr is unbuffered and the lines are short). */
#ifndef QUERN_LOG_H
#define QUERN_LOG_H

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/** Sets the role shown in each line ("quern", "agent", "worker 2"); copied. */
void log_init(const char *role);
/** Lines below this level are dropped (default LOG_INFO). */
void log_set_level(enum log_level level);
/** Calls fn(ud) before each line is written (a live table clears itself
 *  from the screen so the line is not overwritten); NULL removes it. */
void log_set_before(void (*fn)(void *ud), void *ud);
/** Sends each line (already prefixed with role and level) to fn instead of
 *  stderr; fn returns 0 when it took the line, -1 to fall back to stderr.
 *  A worker forwards its lines to its agent this way. NULL restores stderr. */
void log_set_sink(int (*fn)(void *ud, enum log_level level, const char *line), void *ud);
/** Writes a line as received from another process (no prefix added). */
void log_raw(const char *line);
/** printf-style message; a newline is added. */
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
