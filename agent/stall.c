/* stall — whether a worker past its due time is held or busy (agent/stall.h). */
#include "agent/stall.h"

#include <stddef.h>

enum stall_verdict stall_judge(int64_t now_us, int64_t due_us, int64_t last_rx_us,
                               int64_t *silent_us)
{
    int64_t silent = now_us > last_rx_us ? now_us - last_rx_us : 0;

    if (silent_us != NULL)
        *silent_us = silent;
    if (due_us == 0 || now_us < due_us)
        return STALL_WAIT;
    if (silent >= STALL_SILENCE_US)
        return STALL_HELD;
    if (now_us - due_us >= STALL_CEILING_US)
        return STALL_BUSY;
    return STALL_WAIT;
}
