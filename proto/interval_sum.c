#include "proto/interval_sum.h"

#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "proto/interval_tally.h"

void interval_sum_init(interval_sum *s, size_t nsteps, size_t nscens)
{
    memset(s, 0, sizeof(*s));
    s->nsteps = nsteps;
    s->nscens = nscens;
    s->steps = stats_array_new(nsteps);
    s->runs = xcalloc(nscens ? nscens : 1, sizeof(*s->runs));
    s->missed = xcalloc(nscens ? nscens : 1, sizeof(*s->missed));
    s->arrivals = xcalloc(nscens ? nscens : 1, sizeof(*s->arrivals));
    s->lag = xcalloc(nscens ? nscens : 1, sizeof(*s->lag));
    tally_init(&s->tally);
}

void interval_sum_free(interval_sum *s)
{
    for (size_t i = 0; i < s->nload; i++)
        interval_sum_load_clear(&s->load[i]);
    xfree(s->load);
    stats_array_free(s->steps, s->nsteps);
    xfree(s->runs);
    xfree(s->missed);
    xfree(s->arrivals);
    for (size_t i = 0; s->lag != NULL && i < s->nscens; i++)
        hist_free(s->lag[i]);
    xfree(s->lag);
    tally_free(&s->tally);
    memset(s, 0, sizeof(*s));
}

void interval_sum_reset(interval_sum *s)
{
    for (size_t i = 0; i < s->nsteps; i++)
        stats_reset(&s->steps[i]);
    memset(s->runs, 0, (s->nscens ? s->nscens : 1) * sizeof(*s->runs));
    memset(s->missed, 0, (s->nscens ? s->nscens : 1) * sizeof(*s->missed));
    memset(s->arrivals, 0, (s->nscens ? s->nscens : 1) * sizeof(*s->arrivals));
    for (size_t i = 0; i < s->nscens; i++)
        if (s->lag[i] != NULL)
            hist_reset(s->lag[i]);
    s->active_vus = 0;
    s->finished_vus = 0;
    s->vu_us = s->run_us = s->wait_us = 0;
    s->held = s->held_us = s->held_max_us = 0;
    s->vus_planned = s->vus_started = 0;
    s->paused_us = 0;
    s->pace_asked_us = s->pace_lost_us = 0;
    s->senders = 0;
    for (size_t i = 0; i < s->nload; i++)
        interval_sum_load_clear(&s->load[i]);
    s->nload = 0;
    tally_reset(&s->tally);
}

/* Adds a sender's service times into d->svc: its own histogram when it sent
 * one, else its response times, which are then the same. */
static int merge_service(step_stats *d, const Quern__StepInterval *si)
{
    const ProtobufCBinaryData *b =
        si->service_histogram.len > 0 ? &si->service_histogram : &si->histogram;

    return b->len > 0 ? hist_merge_encoded(d->svc, b->data, b->len) : 0;
}

/* Encodes h into a new buffer of *len bytes (buf is scratch of cap bytes);
 * NULL when it does not encode. */
static uint8_t *encode_copy(const hist *h, uint8_t *buf, size_t cap, size_t *len)
{
    uint8_t *out;

    *len = hist_encode(h, buf, cap);
    if (*len == 0)
        return NULL;
    out = xmalloc(*len);
    memcpy(out, buf, *len);
    return out;
}

void interval_sum_load_set_lag(interval_sum_load *l, const hist *h)
{
    size_t cap = hist_encoded_size_max();
    uint8_t *buf;

    xfree(l->lag);
    l->lag = NULL;
    l->lag_len = 0;
    if (h == NULL || hist_count(h) == 0)
        return;
    buf = xmalloc(cap);
    l->lag = encode_copy(h, buf, cap, &l->lag_len);
    if (l->lag == NULL)
        l->lag_len = 0;
    xfree(buf);
}

void interval_sum_load_clear(interval_sum_load *l)
{
    xfree(l->lag);
    l->lag = NULL;
    l->lag_len = 0;
}

/* Copies name into dst as printable ASCII ('?' for any other byte), cut to
 * fit: it comes from the network and ends up on a terminal. */
static void copy_name(char *dst, const char *name)
{
    size_t n = 0;

    for (; name != NULL && name[n] != '\0' && n + 1 < INTERVAL_SUM_LOAD_NAME; n++)
        dst[n] = name[n] > 0x20 && name[n] < 0x7f ? name[n] : '?';
    dst[n] = '\0';
}

/* Appends m's injector entries to s (the histograms copied as they are: the
 * console decodes them, checking every field). */
static void add_loads(interval_sum *s, const Quern__Interval *m)
{
    for (size_t i = 0; i < m->n_injector && s->nload < INTERVAL_SUM_LOAD_MAX; i++) {
        const Quern__InjectorLoad *in = m->injector[i];
        interval_sum_load *l;

        if (s->nload == s->capload) {
            s->capload = s->capload ? s->capload * 2 : 4;
            s->load = xreallocarray(s->load, s->capload, sizeof(*s->load));
        }
        l = &s->load[s->nload++];
        memset(l, 0, sizeof(*l));
        copy_name(l->agent, in->agent);
        l->worker = in->worker;
        l->cpu_permille = in->cpu_permille;
        l->loop_lag_max_us = in->loop_lag_max_us;
        l->start_lag_p99_us = in->start_lag_p99_us;
        l->why = in->why;
        l->saturated = in->saturated ? 1 : 0;
        if (in->loop_lag_histogram.len > 0 &&
            in->loop_lag_histogram.len <= hist_encoded_size_max()) {
            l->lag = xmalloc(in->loop_lag_histogram.len);
            memcpy(l->lag, in->loop_lag_histogram.data, in->loop_lag_histogram.len);
            l->lag_len = in->loop_lag_histogram.len;
        }
    }
}

/* t when it is a trace id (32 lowercase hex digits), else "": a sender's
 * string is shown and stored as is, on a terminal too. */
static const char *checked_id(const char *t)
{
    return t != NULL && strspn(t, "0123456789abcdef") == 32 && t[32] == '\0' ? t : "";
}

/* Offers the step's slowest samples of m to d's heap (SLOWEST_MAX kept: the
 * console trims to its --slowest at the end). */
static void add_slowest(step_stats *d, const Quern__StepInterval *si)
{
    for (size_t i = 0; i < si->n_slowest; i++) {
        const Quern__SlowSample *q = si->slowest[i];
        slowest_entry x;
        x.latency_us = q->latency_us;
        x.start_us = q->start_us;
        x.vu = q->vu;
        snprintf(x.trace, sizeof(x.trace), "%s", checked_id(q->trace_id));
        stats_offer_slow(d, SLOWEST_MAX, &x);
    }
}

/* The step's errors by kind of m into d, by key; what a sender wrote is
 * folded and cleaned again (folding a folded message changes nothing). */
static void add_kinds(step_stats *d, const Quern__StepInterval *si)
{
    for (size_t i = 0; i < si->n_error_kinds; i++) {
        const Quern__ErrorKind *q = si->error_kinds[i];
        errkind k;
        if (q->count == 0)
            continue;
        k.technical = q->technical ? 1 : 0;
        k.code = q->code;
        errkinds_fold(q->message != NULL ? q->message : "", q->code, k.msg, sizeof(k.msg));
        k.count = q->count;
        k.first_ms = q->first_ms;
        k.last_ms = q->last_ms > q->first_ms ? q->last_ms : q->first_ms;
        errkinds_example_set(&k.ex, q->url, (int)q->status, q->body,
                             q->body != NULL ? strlen(q->body) : 0, checked_id(q->trace_id));
        if (d->kinds == NULL)
            d->kinds = errkinds_new();
        errkinds_add(d->kinds, &k);
    }
}

static Quern__ErrorKind *kind_msg(const errkind *k)
{
    Quern__ErrorKind *q = xmalloc(sizeof(*q));

    quern__error_kind__init(q);
    q->technical = k->technical;
    q->code = k->code;
    q->message = xstrdup(k->msg);
    q->count = k->count;
    q->first_ms = k->first_ms;
    q->last_ms = k->last_ms;
    q->url = xstrdup(k->ex.url);
    q->status = (uint32_t)(k->ex.status > 0 ? k->ex.status : 0);
    q->body = xstrdup(k->ex.body);
    q->trace_id = xstrdup(k->ex.trace);
    return q;
}

/* The step's errors by kind as messages (n set); NULL when none. */
static Quern__ErrorKind **kind_msgs(const errkinds *t, size_t *n)
{
    const errkind *rows[ERRKIND_ROWS];
    Quern__ErrorKind **out;

    *n = errkinds_sorted(t, rows);
    if (*n == 0)
        return NULL;
    out = xcalloc(*n, sizeof(*out));
    for (size_t i = 0; i < *n; i++)
        out[i] = kind_msg(rows[i]);
    return out;
}

static void kind_msgs_free(Quern__ErrorKind **q, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        xfree(q[i]->message);
        xfree(q[i]->url);
        xfree(q[i]->body);
        xfree(q[i]->trace_id);
        xfree(q[i]);
    }
    xfree(q);
}

/* The step's slowest samples as messages (n_slowest set); NULL when none. */
static Quern__SlowSample **slow_msgs(const slowest *h, size_t *n)
{
    Quern__SlowSample **out;

    *n = 0;
    if (h == NULL || h->n == 0)
        return NULL;
    out = xcalloc(h->n, sizeof(*out));
    for (size_t i = 0; i < h->n; i++) {
        Quern__SlowSample *q = xmalloc(sizeof(*q));
        quern__slow_sample__init(q);
        q->latency_us = h->e[i].latency_us;
        q->start_us = h->e[i].start_us;
        q->vu = h->e[i].vu;
        q->trace_id = xstrdup(h->e[i].trace);
        out[i] = q;
    }
    *n = h->n;
    return out;
}

int interval_sum_add_msg(interval_sum *s, const Quern__Interval *m, const char *const *scen_names,
                         char *err, size_t errlen)
{
    for (size_t i = 0; i < m->n_steps; i++) {
        const Quern__StepInterval *si = m->steps[i];
        step_stats *d;

        if (si->step >= s->nsteps) {
            err_set(err, errlen, "interval names step %u, only %zu declared", si->step, s->nsteps);
            return -1;
        }
        d = &s->steps[si->step];
        if (si->service_histogram.len > 0)
            stats_service_on(d); /* copies the sum so far, before this sender's */
        if (si->histogram.len > 0 &&
            hist_merge_encoded(d->hist, si->histogram.data, si->histogram.len) != 0) {
            err_set(err, errlen, "malformed histogram for step %u", si->step);
            return -1;
        }
        if (d->svc_on && merge_service(d, si) != 0) {
            err_set(err, errlen, "malformed service histogram for step %u", si->step);
            return -1;
        }
        d->count += si->count;
        d->err_tech += si->errors_technical;
        d->err_func += si->errors_functional;
        d->bytes_in += si->bytes_in;
        d->bytes_out += si->bytes_out;
        d->sum_dns += si->sum_dns_us;
        d->sum_connect += si->sum_connect_us;
        d->sum_tls += si->sum_tls_us;
        d->sum_ttfb += si->sum_ttfb_us;
        d->new_conns += si->new_connections;
        d->requests += si->requests;
        d->ws_sent += si->ws_messages_sent;
        d->ws_recv += si->ws_messages_received;
        d->ws_bytes_sent += si->ws_bytes_sent;
        d->ws_bytes_recv += si->ws_bytes_received;
        if (si->sample_technical != NULL && si->sample_technical[0] != '\0')
            stats_note_error_trace(d, 1, si->sample_technical,
                                   checked_id(si->sample_technical_trace));
        if (si->sample_functional != NULL && si->sample_functional[0] != '\0')
            stats_note_error_trace(d, 0, si->sample_functional,
                                   checked_id(si->sample_functional_trace));
        add_slowest(d, si);
        add_kinds(d, si);
    }
    for (size_t i = 0; i < m->n_scenarios; i++) {
        const Quern__ScenarioCount *sc = m->scenarios[i];
        for (size_t j = 0; j < s->nscens && sc->name != NULL; j++) {
            if (strcmp(scen_names[j], sc->name) == 0) {
                s->runs[j] += sc->runs;
                s->missed[j] += sc->missed_pacing;
                s->arrivals[j].scheduled += sc->arrivals_scheduled;
                s->arrivals[j].started += sc->arrivals_started;
                s->arrivals[j].late += sc->arrivals_late;
                s->arrivals[j].init_waits += sc->arrivals_init_waits;
                s->arrivals[j].inits += sc->arrivals_inits;
                s->arrivals[j].dropped += sc->arrivals_dropped;
                if (sc->start_lag_histogram.len == 0)
                    break;
                if (s->lag[j] == NULL)
                    s->lag[j] = hist_new();
                if (hist_merge_encoded(s->lag[j], sc->start_lag_histogram.data,
                                       sc->start_lag_histogram.len) != 0) {
                    err_set(err, errlen, "malformed start lags for scenario %s", sc->name);
                    return -1;
                }
                break;
            }
        }
    }
    s->active_vus += m->active_vus;
    s->vu_us += m->vu_us;
    s->run_us += m->run_us;
    s->wait_us += m->wait_us;
    s->held += m->held_back;
    s->held_us += m->held_back_us;
    if (m->held_back_max_us > s->held_max_us)
        s->held_max_us = m->held_back_max_us;
    s->finished_vus += m->finished_vus;
    s->vus_planned += m->vus_planned;
    s->vus_started += m->vus_started;
    s->pace_asked_us += m->pacing_asked_us;
    s->pace_lost_us += m->pacing_lost_us;
    if (interval_tally_add_msg(&s->tally, m, err, errlen) != 0)
        return -1;
    if (m->paused_us > s->paused_us)
        s->paused_us = m->paused_us;
    add_loads(s, m);
    s->senders++;
    return 0;
}

Quern__Interval *interval_sum_msg_new(uint64_t run_id, uint64_t second, const step_stats *steps,
                                      size_t nsteps, const uint64_t *runs, const uint64_t *missed,
                                      const char *const *scen_names, size_t nscens,
                                      uint32_t active_vus, uint32_t finished_vus, int last)
{
    Quern__Interval *m = xmalloc(sizeof(*m));
    size_t cap = hist_encoded_size_max(), n = 0;
    uint8_t *buf = NULL;

    quern__interval__init(m);
    m->run_id = run_id;
    m->second = second;
    m->active_vus = active_vus;
    m->finished_vus = finished_vus;
    m->last = last ? 1 : 0;
    m->steps = xcalloc(nsteps ? nsteps : 1, sizeof(*m->steps));
    for (size_t i = 0; i < nsteps; i++) {
        const step_stats *st = &steps[i];
        Quern__StepInterval *si;
        size_t len;

        /* messages, and a socket's bytes (a heartbeat's, a reply read late),
         * come in seconds without a sample of their step */
        if (st->count == 0 && hist_count(st->hist) == 0 && st->err_tech == 0 && st->err_func == 0 &&
            st->ws_sent == 0 && st->ws_recv == 0 && st->bytes_in == 0 && st->bytes_out == 0)
            continue;
        if (buf == NULL)
            buf = xmalloc(cap);
        si = xmalloc(sizeof(*si));
        quern__step_interval__init(si);
        si->step = (uint32_t)i;
        si->count = st->count;
        si->errors_technical = st->err_tech;
        si->errors_functional = st->err_func;
        si->bytes_in = st->bytes_in;
        si->bytes_out = st->bytes_out;
        si->sum_dns_us = st->sum_dns;
        si->sum_connect_us = st->sum_connect;
        si->sum_tls_us = st->sum_tls;
        si->sum_ttfb_us = st->sum_ttfb;
        si->new_connections = st->new_conns;
        si->requests = st->requests;
        si->ws_messages_sent = st->ws_sent;
        si->ws_messages_received = st->ws_recv;
        si->ws_bytes_sent = st->ws_bytes_sent;
        si->ws_bytes_received = st->ws_bytes_recv;
        si->sum_latency_us = hist_sum(st->hist);
        si->max_latency_us = hist_max(st->hist);
        si->histogram.data = encode_copy(st->hist, buf, cap, &len);
        si->histogram.len = si->histogram.data != NULL ? len : 0;
        if (st->svc_on) {
            /* Kept apart only once a sample was late, whose response time
             * is then above its service time: they differ. */
            si->service_histogram.data = encode_copy(st->svc, buf, cap, &len);
            si->service_histogram.len = si->service_histogram.data != NULL ? len : 0;
        }
        si->sample_technical = xstrdup(st->sample_tech);
        si->sample_functional = xstrdup(st->sample_func);
        si->sample_technical_trace = xstrdup(st->trace_tech);
        si->sample_functional_trace = xstrdup(st->trace_func);
        si->slowest = slow_msgs(st->slow, &si->n_slowest);
        si->error_kinds = kind_msgs(st->kinds, &si->n_error_kinds);
        m->steps[n++] = si;
    }
    m->n_steps = n;
    m->scenarios = xcalloc(nscens ? nscens : 1, sizeof(*m->scenarios));
    for (size_t i = 0; i < nscens; i++) {
        Quern__ScenarioCount *sc = xmalloc(sizeof(*sc));
        quern__scenario_count__init(sc);
        sc->name = xstrdup(scen_names[i]);
        sc->runs = runs[i];
        sc->missed_pacing = missed[i];
        m->scenarios[i] = sc;
    }
    m->n_scenarios = nscens;
    xfree(buf);
    return m;
}

void interval_sum_msg_set_arrivals(Quern__Interval *m, const rate_counts *arr)
{
    for (size_t i = 0; arr != NULL && i < m->n_scenarios; i++) {
        m->scenarios[i]->arrivals_scheduled = arr[i].scheduled;
        m->scenarios[i]->arrivals_started = arr[i].started;
        m->scenarios[i]->arrivals_late = arr[i].late;
        m->scenarios[i]->arrivals_init_waits = arr[i].init_waits;
        m->scenarios[i]->arrivals_inits = arr[i].inits;
        m->scenarios[i]->arrivals_dropped = arr[i].dropped;
    }
}

void interval_sum_msg_set_lag(Quern__Interval *m, hist *const *lag)
{
    size_t cap = hist_encoded_size_max(), len;
    uint8_t *buf = NULL;

    for (size_t i = 0; lag != NULL && i < m->n_scenarios; i++) {
        if (lag[i] == NULL || hist_count(lag[i]) == 0)
            continue;
        if (buf == NULL)
            buf = xmalloc(cap);
        m->scenarios[i]->start_lag_histogram.data = encode_copy(lag[i], buf, cap, &len);
        m->scenarios[i]->start_lag_histogram.len =
            m->scenarios[i]->start_lag_histogram.data != NULL ? len : 0;
    }
    xfree(buf);
}

void interval_sum_msg_free(Quern__Interval *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_steps; i++) {
        xfree(m->steps[i]->histogram.data);
        xfree(m->steps[i]->service_histogram.data);
        xfree(m->steps[i]->sample_technical);
        xfree(m->steps[i]->sample_functional);
        xfree(m->steps[i]->sample_technical_trace);
        xfree(m->steps[i]->sample_functional_trace);
        for (size_t j = 0; j < m->steps[i]->n_slowest; j++) {
            xfree(m->steps[i]->slowest[j]->trace_id);
            xfree(m->steps[i]->slowest[j]);
        }
        xfree(m->steps[i]->slowest);
        kind_msgs_free(m->steps[i]->error_kinds, m->steps[i]->n_error_kinds);
        xfree(m->steps[i]);
    }
    xfree(m->steps);
    for (size_t i = 0; i < m->n_scenarios; i++) {
        xfree(m->scenarios[i]->name);
        xfree(m->scenarios[i]->start_lag_histogram.data);
        xfree(m->scenarios[i]);
    }
    xfree(m->scenarios);
    for (size_t i = 0; i < m->n_injector; i++) {
        xfree(m->injector[i]->agent);
        xfree(m->injector[i]->loop_lag_histogram.data);
        xfree(m->injector[i]);
    }
    xfree(m->injector);
    interval_tally_msg_clear(m);
    xfree(m);
}

void interval_sum_msg_set_injector(Quern__Interval *m, const interval_sum_load *load, size_t n,
                                   const char *agent)
{
    if (n == 0)
        return;
    m->injector = xcalloc(n, sizeof(*m->injector));
    for (size_t i = 0; i < n; i++) {
        Quern__InjectorLoad *o = xmalloc(sizeof(*o));
        quern__injector_load__init(o);
        o->agent = xstrdup(agent != NULL ? agent : load[i].agent);
        o->worker = load[i].worker;
        o->cpu_permille = load[i].cpu_permille;
        o->loop_lag_max_us = load[i].loop_lag_max_us;
        o->start_lag_p99_us = load[i].start_lag_p99_us;
        o->why = load[i].why;
        o->saturated = load[i].saturated ? 1 : 0;
        if (load[i].lag_len > 0) {
            o->loop_lag_histogram.data = xmalloc(load[i].lag_len);
            memcpy(o->loop_lag_histogram.data, load[i].lag, load[i].lag_len);
            o->loop_lag_histogram.len = load[i].lag_len;
        }
        m->injector[i] = o;
    }
    m->n_injector = n;
}

void interval_sum_msg_set_little(Quern__Interval *m, uint64_t vu_us, uint64_t run_us,
                                 uint64_t wait_us)
{
    m->vu_us = vu_us;
    m->run_us = run_us;
    m->wait_us = wait_us;
}

void interval_sum_msg_set_held(Quern__Interval *m, uint64_t held, uint64_t held_us, uint64_t max_us)
{
    m->held_back = held;
    m->held_back_us = held_us;
    m->held_back_max_us = max_us;
}

void interval_sum_msg_set_paused(Quern__Interval *m, uint64_t paused_us)
{
    m->paused_us = paused_us;
}

void interval_sum_msg_set_delivery(Quern__Interval *m, uint32_t vus_planned, uint32_t vus_started,
                                   uint64_t pace_asked_us, uint64_t pace_lost_us)
{
    m->vus_planned = vus_planned;
    m->vus_started = vus_started;
    m->pacing_asked_us = pace_asked_us;
    m->pacing_lost_us = pace_lost_us;
}
