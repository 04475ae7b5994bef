/* clock — the two clocks quern uses.
 *
 * Latencies come from the monotonic clock (never jumps); timestamps written to
 * results and logs come from the wall clock. Both in microseconds. */
#ifndef QUERN_CLOCK_H
#define QUERN_CLOCK_H

#include <stdint.h>
#include <time.h>

/** Monotonic time in microseconds (CLOCK_MONOTONIC, vDSO: no system call). */
static inline int64_t clock_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/** Wall-clock time in microseconds since the Unix epoch. */
static inline int64_t clock_wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
