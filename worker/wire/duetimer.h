/* duetimer — a wake-up at an absolute monotonic time, to the microsecond.
 *
 * libev's epoll backend waits in whole milliseconds, rounded up, so an
 * ev_timer fires up to a millisecond after its time by construction. A
 * timerfd (CLOCK_MONOTONIC, TFD_TIMER_ABSTIME) watched by an ev_io wakes
 * the loop when the kernel's timer expires instead: bench/timerlag.c
 * measures both. One shot: duetimer_arm sets the next time, replacing the
 * previous; the callback runs once when it is reached (at once when it
 * has passed already). The callback is expected to re-arm if it wants
 * more. The time is common/clock.h's clock_mono_us. */
#ifndef QUERN_DUETIMER_H
#define QUERN_DUETIMER_H

#include <ev.h>
#include <stdint.h>

struct duetimer;

/** Called on the loop when the armed time is reached. */
typedef void (*duetimer_cb)(struct ev_loop *loop, struct duetimer *d);

/** A timerfd and its watcher. */
typedef struct duetimer {
    ev_io io;       /**< watches fd; its data is d itself */
    int fd;         /**< the timerfd, owned; -1 when none */
    duetimer_cb cb; /**< called when the time is reached */
    void *data;     /**< borrowed: the owner's */
} duetimer;

/** Marks d as holding nothing (fd -1): safe to duetimer_free. */
void duetimer_clear(duetimer *d);
/** Creates the timerfd (non-blocking, close-on-exec); 0, or -1 with errno. */
int duetimer_init(duetimer *d, duetimer_cb cb, void *data);
/** Starts watching on loop, the next time at_us (clock_mono_us); 0, or -1
 *  with errno (timerfd_settime). */
int duetimer_arm(duetimer *d, struct ev_loop *loop, int64_t at_us);
/** No more wake-ups: stops the watcher (the timer may still expire, unread). */
void duetimer_stop(duetimer *d, struct ev_loop *loop);
/** Closes the timerfd (the watcher must be stopped); d is then as cleared. */
void duetimer_free(duetimer *d);

#endif
