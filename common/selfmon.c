/* selfmon — a process's CPU and loop lag; see selfmon.h. */
#include "common/selfmon.h"

#include <string.h>
#include <sys/resource.h>

#include "common/clock.h"

uint64_t selfmon_cpu_us(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
           (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}

uint32_t selfmon_permille(uint64_t cpu_us, int64_t wall_us)
{
    uint64_t p;

    if (wall_us <= 0)
        return 0;
    p = cpu_us / (uint64_t)wall_us * 1000u +
        (cpu_us % (uint64_t)wall_us) * 1000u / (uint64_t)wall_us;
    return p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
}

/* Arms the probe SELFMON_PROBE_US after now (the loop's clock brought up to
 * date first, so that the period is not counted from a stale time). */
static void arm(selfmon *m, int64_t now)
{
    ev_now_update(m->loop);
    m->due_us = now + SELFMON_PROBE_US;
    ev_timer_set(&m->probe, (double)SELFMON_PROBE_US / 1e6, 0.);
    ev_timer_start(m->loop, &m->probe);
}

static void on_probe(struct ev_loop *loop, ev_timer *w, int revents)
{
    selfmon *m = w->data;
    int64_t now = clock_mono_us();
    uint64_t late = now > m->due_us ? (uint64_t)(now - m->due_us) : 0;

    (void)loop;
    (void)revents;
    hist_record(m->lag, late);
    if (late > m->lag_max_us)
        m->lag_max_us = late > UINT32_MAX ? UINT32_MAX : (uint32_t)late;
    arm(m, now);
}

void selfmon_start(selfmon *m, struct ev_loop *loop)
{
    memset(m, 0, sizeof(*m));
    m->loop = loop;
    m->lag = hist_new();
    m->mark_us = clock_mono_us();
    m->cpu_mark_us = selfmon_cpu_us();
    ev_init(&m->probe, on_probe);
    m->probe.data = m;
    m->running = 1;
    arm(m, m->mark_us);
}

void selfmon_take(selfmon *m, selfmon_second *out)
{
    int64_t now = clock_mono_us();
    uint64_t cpu = selfmon_cpu_us();
    uint32_t max = m->lag_max_us;

    /* A probe overdue now is lateness too: a loop held for the whole
     * second fired none. */
    if (m->running && now > m->due_us && (uint64_t)(now - m->due_us) > max)
        max = now - m->due_us > UINT32_MAX ? UINT32_MAX : (uint32_t)(now - m->due_us);
    /* A short interval (the last one) says nothing of the CPU: stopping
     * alone would read as a busy one. */
    out->cpu_permille =
        now - m->mark_us < SELFMON_PROBE_US
            ? 0
            : selfmon_permille(cpu > m->cpu_mark_us ? cpu - m->cpu_mark_us : 0, now - m->mark_us);
    out->loop_lag_max_us = max;
    out->lag = m->lag;
    m->mark_us = now;
    m->cpu_mark_us = cpu;
}

void selfmon_next(selfmon *m)
{
    if (m->lag != NULL)
        hist_reset(m->lag);
    m->lag_max_us = 0;
}

void selfmon_stop(selfmon *m)
{
    if (m->running)
        ev_timer_stop(m->loop, &m->probe);
    hist_free(m->lag);
    memset(m, 0, sizeof(*m));
}
