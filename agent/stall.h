/* stall — whether a worker that has not ended by its time is held or busy.
 *
 * What it is for: a worker still there past its due time (the run's planned
 * end, or the stop, plus the grace, plus STALL_DUE_AFTER_US) is killed only on
 * evidence that it makes no progress. The evidence is its link: a worker's
 * loop sends an Interval every second while it turns, during its stop as
 * during its run, so a worker that sent nothing for STALL_SILENCE_US is held
 * (a C call or a blocking system call), and one that keeps sending is busy
 * ending its VUs and is waited for, up to STALL_CEILING_US past its due time,
 * so that a run always ends.
 *
 *     int64_t silent;
 *     switch (stall_judge(now, due, w->last_rx_us, &silent)) {
 *     case STALL_WAIT: break;                          // not yet, or still sending
 *     case STALL_HELD: kill it: "held, no progress for silent"; break;
 *     case STALL_BUSY: kill it: "busy, still sending at the ceiling"; break;
 *     }
 *
 * Pure: no clock, no process; the caller reads the link first (peer_drain)
 * so that frames the agent has not read yet count as the progress they are. */
#ifndef QUERN_STALL_H
#define QUERN_STALL_H

#include <stdint.h>

/** How long past the planned end (or the stop) and the grace a worker may
 *  end on its own before it is judged. */
#define STALL_DUE_AFTER_US 5000000
/** A worker due and silent this long (no frame) is held. */
#define STALL_SILENCE_US 5000000
/** A worker due and still sending is killed this long past its due time. */
#define STALL_CEILING_US 60000000

/** What to do with a worker still there. */
enum stall_verdict {
    STALL_WAIT, /**< not due, or due and still sending: leave it */
    STALL_HELD, /**< due and silent for STALL_SILENCE_US: kill it, it is held */
    STALL_BUSY  /**< still sending at STALL_CEILING_US past due: kill it, busy */
};

/** Judges a worker at now_us that was due to have ended by due_us (0: no
 *  due time yet) and last sent a frame at last_rx_us. *silent_us (may be
 *  NULL) gets how long it has been silent. */
enum stall_verdict stall_judge(int64_t now_us, int64_t due_us, int64_t last_rx_us,
                               int64_t *silent_us);

#endif
