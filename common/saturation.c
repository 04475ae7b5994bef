/* saturation — the rule that says a worker-second did not keep up; see
 * saturation.h. */
#include "common/saturation.h"

#include <stdio.h>
#include <string.h>

unsigned saturation_judge(const saturation_in *in)
{
    unsigned why = 0;

    if (in->cpu_permille >= SATURATION_CPU_PERMILLE && in->loop_lag_max_us >= SATURATION_LAG_US)
        why |= SATURATION_CPU;
    if (in->start_lag_p99_us >= SATURATION_START_US)
        why |= SATURATION_START;
    if (in->loop_lag_max_us >= SATURATION_STALL_US)
        why |= SATURATION_STALL;
    if (in->behind_us >= SATURATION_BEHIND_US)
        why |= SATURATION_BEHIND;
    return why;
}

int saturation_clear(unsigned why, uint32_t loop_lag_max_us, uint64_t start_lag_p99_us)
{
    if (why & (SATURATION_STALL | SATURATION_BEHIND))
        return 1;
    if ((why & SATURATION_CPU) && loop_lag_max_us >= 2 * SATURATION_LAG_US)
        return 1;
    return (why & SATURATION_START) && start_lag_p99_us >= 2 * SATURATION_START_US;
}

void saturation_why(unsigned why, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *word; /* borrowed: a literal */
    } words[] = {{SATURATION_CPU, "CPU and loop lag"},
                 {SATURATION_START, "start lag"},
                 {SATURATION_STALL, "loop stall"},
                 {SATURATION_BEHIND, "behind schedule"}};
    size_t off = 0;

    if (len == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!(why & words[i].bit))
            continue;
        int n = snprintf(buf + off, len - off, "%s%s", off > 0 ? ", " : "", words[i].word);
        if (n < 0 || (size_t)n >= len - off)
            return;
        off += (size_t)n;
    }
}
