/* ratelog — at most a few log lines per period about one kind of event.
 *
 * What it is for: events an outsider can cause at will (refused peers,
 * failed handshakes, a console that keeps refusing us) must still be said,
 * but not a thousand times a minute. Keep one ratelog per kind of event:
 *
 *     static ratelog rl;
 *     unsigned more;
 *     if (ratelog_ok(&rl, clock_mono_us(), 10000000, 5, &more))
 *         log_msg(LOG_WARN, "refused peer %s: ... (%u not shown)", addr, more);
 *
 * Zero-initialised is ready to use; not thread-safe. */
#ifndef QUERN_RATELOG_H
#define QUERN_RATELOG_H

#include <stdint.h>

/** One kind of event: the current window and what was held back. */
typedef struct ratelog {
    int64_t window_us;   /**< monotonic start of the current window (0: none yet) */
    unsigned lines;      /**< lines let through in the window */
    unsigned suppressed; /**< events not logged since the last line */
} ratelog;

/** Counts one event at monotonic time now_us. Returns 1 if it may be logged
 *  (at most burst lines within any window of period_us; *suppressed, if
 *  given, is then the number of events held back since the previous line),
 *  else 0. */
int ratelog_ok(ratelog *rl, int64_t now_us, int64_t period_us, unsigned burst,
               unsigned *suppressed);

#endif
