/* steering — --control's commands carried out on the run's loop; see steering.h. */
#include "console/steering.h"

#include "common/clock.h"
#include "common/log.h"
#include "common/rate.h"
#include "console/agents.h"
#include "console/rundb.h"

static void send_steer(const steering_run *v, unsigned seq, int kind, uint32_t vus, double rate,
                       int64_t at_us)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Steer st = QUERN__STEER__INIT;

    st.run_id = v->run_id;
    st.seq = seq;
    st.kind = (Quern__Steer__Kind)kind;
    st.vus = vus;
    st.rate = rate;
    st.at_us = at_us;
    env.body_case = QUERN__ENVELOPE__BODY_STEER;
    env.steer = &st;
    agents_send_all(v->r, &env);
}

/* The pause under way, if any, ends at now (a resume, or the load's end:
 * the workers resume to stop). */
static void close_pause(const steering_run *v, int64_t now)
{
    steering *s = v->s;

    if (s->pause_from_us == 0)
        return;
    s->paused_us += now - s->pause_from_us;
    rundb_steer_end(v->r, s->pause_seq, now - v->go_us);
    log_msg(LOG_INFO, "resumed after %.1f s paused", (double)(now - s->pause_from_us) / 1e6);
    s->pause_from_us = 0;
}

enum steering_next steering_carry(const steering_run *v, const ctlsrv_cmd *c)
{
    steering *s = v->s;
    int64_t now = clock_mono_us(), at = now - v->go_us;
    unsigned seq;
    char rb[64];

    if (!v->under_way)
        return STEERING_GO_ON;
    /* past the planned end (the workers stop on their own) or the stop,
     * the load is over: taken by the HTTP thread, done by nobody */
    if (c->kind != CTLSRV_STOP && c->kind != QUERN__STEER__KIND__RESUME &&
        (v->stopping || (v->planned_us > 0 && at - steering_paused_us(s, now) >= v->planned_us))) {
        log_msg(LOG_WARN, "quern ctl: the load is over: nothing steered");
        return STEERING_GO_ON;
    }
    seq = ++s->seq;
    switch (c->kind) {
    case QUERN__STEER__KIND__PAUSE:
        send_steer(v, seq, c->kind, 0, 0, 0);
        s->pause_from_us = now;
        s->pause_seq = seq;
        rundb_steer(v->r, seq, at, "pause", 0, 0);
        log_msg(LOG_INFO, "paused at %.1f s (quern ctl resume goes on)", (double)at / 1e6);
        break;
    case QUERN__STEER__KIND__RESUME:
        send_steer(v, seq, c->kind, 0, 0, 0);
        close_pause(v, now);
        s->seq--; /* a resume ends its pause's row: no row of its own */
        break;
    case QUERN__STEER__KIND__VUS:
        /* with stages, they are cut at this moment of the load clock */
        send_steer(v, seq, c->kind, c->vus, 0, at - steering_paused_us(s, now));
        rundb_steer(v->r, seq, at, "vus", c->vus, 1);
        s->vus_asked = c->vus;
        log_msg(LOG_INFO, "VUs: %u from %.1f s on (quern ctl)", c->vus, (double)at / 1e6);
        break;
    case QUERN__STEER__KIND__RATE:
        /* from now on the load clock, which the pauses left behind */
        send_steer(v, seq, c->kind, 0, c->rate, at - steering_paused_us(s, now));
        rundb_steer(v->r, seq, at, "rate", c->rate, 1);
        log_msg(LOG_INFO, "rate: %s from %.1f s on (quern ctl)",
                rate_format(c->rate, rb, sizeof(rb)), (double)at / 1e6);
        break;
    default:
        close_pause(v, now); /* the workers resume to stop */
        rundb_steer(v->r, seq, at, "stop", 0, 0);
        log_msg(LOG_INFO,
                "quern ctl stop: stopping the agents (VUs finish their request in flight)");
        return STEERING_STOP;
    }
    return STEERING_GO_ON;
}

void steering_running(const steering_run *v, int on)
{
    if (v->ctl == NULL)
        return;
    ctlsrv_running(v->ctl, on);
    if (!on)
        close_pause(v, clock_mono_us()); /* a stop resumes the workers */
}

int64_t steering_paused_us(const steering *s, int64_t now)
{
    return s->paused_us + (s->pause_from_us > 0 ? now - s->pause_from_us : 0);
}

uint32_t steering_vus_asked(const steering *s, uint32_t planned)
{
    return s->vus_asked > 0 ? s->vus_asked : planned;
}

int steering_is_paused(const steering *s)
{
    return s->pause_from_us > 0;
}
