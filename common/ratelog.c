#include "common/ratelog.h"

#include <stddef.h>

int ratelog_ok(ratelog *rl, int64_t now_us, int64_t period_us, unsigned burst, unsigned *suppressed)
{
    if (rl->window_us == 0 || now_us - rl->window_us >= period_us) {
        rl->window_us = now_us != 0 ? now_us : 1;
        rl->lines = 0;
    }
    if (rl->lines >= burst) {
        if (rl->suppressed < UINT32_MAX)
            rl->suppressed++;
        return 0;
    }
    rl->lines++;
    if (suppressed != NULL)
        *suppressed = rl->suppressed;
    rl->suppressed = 0;
    return 1;
}
