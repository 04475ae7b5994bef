/* selfload — the console's own load each second; see selfload.h. */
#include "console/selfload.h"

#include <stdio.h>
#include <string.h>

#include "common/saturation.h"
#include "proto/interval_sum.h"

unsigned selfload_add(injtot *tot, uint64_t second, const selfmon_second *m)
{
    saturation_in in = {.cpu_permille = m->cpu_permille, .loop_lag_max_us = m->loop_lag_max_us};
    interval_sum_load l;

    memset(&l, 0, sizeof(l));
    snprintf(l.agent, sizeof(l.agent), "%s", SELFLOAD_AGENT);
    l.cpu_permille = m->cpu_permille;
    l.loop_lag_max_us = m->loop_lag_max_us;
    l.why = saturation_judge(&in);
    l.saturated = l.why != 0;
    interval_sum_load_set_lag(&l, m->lag);
    injtot_add(tot, second, &l, 1, 0);
    interval_sum_load_clear(&l);
    return l.why;
}

static void on_second(struct ev_loop *loop, ev_timer *w, int revents)
{
    selfload *s = w->data;
    selfmon_second m;

    (void)loop;
    (void)revents;
    selfmon_take(&s->mon, &m);
    selfload_add(s->tot, s->next++, &m);
    selfmon_next(&s->mon);
}

void selfload_start(selfload *s, struct ev_loop *loop, injtot *tot)
{
    memset(s, 0, sizeof(*s));
    s->tot = tot;
    s->next = 1;
    selfmon_start(&s->mon, loop);
    ev_timer_init(&s->second, on_second, 1., 1.);
    s->second.data = s;
    ev_timer_start(loop, &s->second);
    s->running = 1;
}

void selfload_stop(selfload *s)
{
    if (s->running)
        ev_timer_stop(s->mon.loop, &s->second);
    selfmon_stop(&s->mon);
    memset(s, 0, sizeof(*s));
}
