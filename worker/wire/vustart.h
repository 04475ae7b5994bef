/* vustart — the closed model's VUs: how many the schedule asked to start
 * by a moment, and how many began their first run.
 *
 * What it is for: a VU whose init never ends (a slow login, a blocked
 * script, a worker behind) sends none of its load, yet the VUs active at a
 * second's end do not show it. The console counts the VUs never started
 * as load not sent (console/delivery.h), from two counts each worker sends
 * every second: the VUs whose start time on the schedule (the ramp, the
 * stages) came in the interval, and those that began their first run in
 * it. The first is read off the schedule, not off the VUs' timers, so a
 * worker too busy to start them still counts them as asked.
 *
 * Usage (the engine): vustart_add(&s, start_us) for each VU the schedule
 * starts (not those that leave before they start), vustart_sorted(&s)
 * once; vustart_ran(&s) when a VU begins its first run; each interval's
 * end, vustart_take(&s, t_us, &planned, &started); vustart_stop(&s, t_us)
 * when the run stops (nothing is asked past it); vustart_free(&s).
 * Internal to worker/. */
#ifndef QUERN_VUSTART_H
#define QUERN_VUSTART_H

#include <stddef.h>
#include <stdint.h>

/** The schedule's VU starts and the first runs begun. */
typedef struct vustart {
    int64_t *at;      /**< owned: the start times, from the run's start, sorted by vustart_sorted */
    size_t n, cap;    /**< entries, room */
    size_t next;      /**< the first not counted as asked yet */
    int64_t stop_us;  /**< when the run stopped (from its start), -1 while it runs */
    uint32_t started; /**< first runs begun since the last vustart_take */
} vustart;

/** Initialises s empty. */
void vustart_init(vustart *s);
/** Releases what s owns; s is then empty. */
void vustart_free(vustart *s);
/** The schedule starts a VU at start_us from the run's start. */
void vustart_add(vustart *s, int64_t start_us);
/** Drops the starts after t_us not counted yet (the schedule was cut
 *  there: worker/engine/steer.h); those added later count as before. */
void vustart_cut(vustart *s, int64_t t_us);
/** Sorts the start times: once, after the last vustart_add. */
void vustart_sorted(vustart *s);
/** A VU of the closed model began its first run. */
void vustart_ran(vustart *s);
/** The run stops at t_us (from its start): starts after it are not asked.
 *  Only the first call counts. */
void vustart_stop(vustart *s, int64_t t_us);
/** An interval ends at t_us (from the run's start): *planned gets the VUs
 *  due to start since the last take up to t_us (or the stop, if earlier),
 *  *started the first runs begun since. */
void vustart_take(vustart *s, int64_t t_us, uint32_t *planned, uint32_t *started);

#endif
