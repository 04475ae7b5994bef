#include "worker/engine/vu.h"

#include <lauxlib.h>
#include <malloc.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/errkinds.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/version.h"
#include "worker/engine/engine_int.h"
#include "worker/wire/intend.h"
#include "worker/lua/lapi.h"
#include "worker/engine/lcoro.h"
#include "worker/engine/lifecycle.h"
#include "worker/plugs/plug.h"
#include "worker/plugs/reqlog.h"
#include "worker/engine/inflight.h"
#include "worker/engine/steer.h"
#include "worker/wire/cookiejar.h"

/* Bodies and headers above these are counted but not kept. */
#define VU_BODY_MAX (16u << 20)
#define VU_HDR_MAX (64u << 10)
/* A buffer grown past this is released after use, so one big response does
 * not pin memory in an idle VU. */
#define VU_BUF_KEEP (64u << 10)

static void vu_phase_start(vu *v, enum vu_phase ph);

vu *vu_current(lua_State *L)
{
    return *(vu **)lua_getextraspace(L);
}

/* Appends what fits below b's maximum; returns the bytes dropped. */
static size_t buf_append(dbuf *b, const char *p, size_t n)
{
    size_t keep = n < b->max - b->len ? n : b->max - b->len;

    dbuf_put(b, p, keep); /* fits: cannot fail */
    return n - keep;
}

static void buf_clear(dbuf *b)
{
    if (b->cap > VU_BUF_KEEP)
        dbuf_free(b);
    else
        dbuf_reset(b);
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    xh *x = ud;
    x->body_dropped += buf_append(&x->body, p, size * n);
    return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    xh *x = ud;
    /* A new status line (after a redirect or a 100-continue) starts over. */
    if (size * n > 5 && memcmp(p, "HTTP/", 5) == 0) {
        const char *sp = memchr(p, ' ', size * n);
        dbuf_reset(&x->hdr);
        if (sp == NULL || sp + 1 >= p + size * n || sp[1] != '1')
            x->responses++; /* a 1xx is not an answer to a request of its own */
    }
    buf_append(&x->hdr, p, size * n); /* what passes VU_HDR_MAX is dropped */
    return size * n;
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents);
static void xh_defaults(struct engine *e, xh *x);

xh *xh_get(struct engine *e)
{
    xh *x = e->free_xh;

    if (++e->xh_out > e->xh_peak)
        e->xh_peak = e->xh_out;
    if (x != NULL) {
        e->free_xh = x->next;
        e->nfree_xh--;
        x->next = NULL;
        return x;
    }
    x = xcalloc(1, sizeof(*x));
    dbuf_init(&x->body, VU_BODY_MAX);
    dbuf_init(&x->hdr, VU_HDR_MAX);
    x->src = -1;
    x->easy = curl_easy_init();
    if (x->easy == NULL)
        xoom("curl_easy_init");
    xh_defaults(e, x);
    return x;
}

/* What every handle of the engine has, the pool's and the streams'. */
static void easy_defaults(struct engine *e, CURL *easy, char *errbuf)
{
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    if (e->no_env_proxy) {
        /* Spares libcurl five getenv() calls per request. */
        curl_easy_setopt(easy, CURLOPT_PROXY, "");
        curl_easy_setopt(easy, CURLOPT_NOPROXY, "");
    }
}

/* What every transfer shares is set once per handle. */
static void xh_defaults(struct engine *e, xh *x)
{
    easy_defaults(e, x->easy, x->errbuf);
    curl_easy_setopt(x->easy, CURLOPT_COOKIEFILE, ""); /* cookie engine on: the VU's jar */
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
    engine_watch_sockets(e, x->easy);
}

/* v's source address (--source-addr: the VUs take them in turn), an index
 * of the engine's, -1 none. */
static int source_of(const vu *v)
{
    const engine *e = v->eng;

    return e->cfg.nsource_addrs > 0 ? (int)((v->gid - 1) % e->cfg.nsource_addrs) : -1;
}

/* easy's connections leave from the engine's source address src. */
static void set_source(CURL *easy, const engine *e, int src)
{
    char ifc[80];

    snprintf(ifc, sizeof(ifc), "host!%s", e->cfg.source_addrs[src]);
    curl_easy_setopt(easy, CURLOPT_INTERFACE, ifc); /* copied by libcurl */
}

/* Saves the cookies of x into its owner (see vu_attach); x keeps them. */
static void jar_save(xh *x)
{
    vu *v = x->owner;
    char *mine = cookiejar_take(x->easy);

    x->jar_full = mine != NULL;
    if (x->jar_gen == v->jar_gen) {
        if ((mine == NULL) != (v->jar == NULL) || (mine != NULL && strcmp(mine, v->jar) != 0)) {
            xfree(v->jar);
            v->jar = mine;
            mine = NULL;
            v->jar_gen++;
        }
    } else {
        /* Another handle of v saved since x started from jar_base. */
        char *merged = cookiejar_merge(v->jar, x->jar_base, mine);
        xfree(v->jar);
        v->jar = merged;
        v->jar_gen++;
    }
    xfree(mine);
    xfree(x->jar_base);
    x->jar_base = NULL;
}

static void vu_detach(xh *x)
{
    jar_save(x);
    x->owner = NULL;
}

void vu_save_jar(vu *v)
{
    xh *x = v->xh;

    if (x == NULL || x->owner != v)
        return;
    jar_save(x);
    /* x goes on from the jar it just saved, as if attached now */
    x->jar_base = xstrdup(v->jar);
    x->jar_gen = v->jar_gen;
}

void xh_put(struct engine *e, xh *x)
{
    if (x->owner != NULL)
        vu_detach(x);
    buf_clear(&x->body);
    buf_clear(&x->hdr);
    x->body_dropped = 0;
    x->next = e->free_xh;
    e->free_xh = x;
    e->nfree_xh++;
    e->xh_out--;
    if (e->slotq != NULL)
        inflight_given_back(e);
}

void xh_trim(struct engine *e)
{
    uint32_t keep = e->xh_peak > XH_KEEP_MIN ? e->xh_peak : XH_KEEP_MIN;

    /* A bounded number at a time: freeing thousands at once stalls the loop
     * for milliseconds, which would show in the latencies of the requests
     * it delays (256 took 1.5-3 ms on a loaded 2-CPU machine). */
    for (uint32_t n = 0; n < XH_TRIM_STEP && e->nfree_xh > 0 && e->xh_out + e->nfree_xh > keep;
         n++) {
        xh *x = e->free_xh;
        e->free_xh = x->next;
        e->nfree_xh--;
        xh_free(x);
        e->xh_freed++;
    }
    e->xh_peak = e->xh_out;
    if (e->xh_freed >= XH_RELEASE_MIN && e->xh_out + e->nfree_xh <= keep) {
        /* Once a burst: the handles' memory lies between live blocks, and
         * Lua's garbage of the burst pins many of its pages; collected, the
         * pages free of any block go back (3-11 ms there, once a burst). */
        lua_gc(e->L, LUA_GCCOLLECT, 0);
        malloc_trim(0);
        e->xh_freed = 0;
    }
}

/* Appends line to *l, aborting when out of memory. */
static void tp_append(struct curl_slist **l, const char *line)
{
    struct curl_slist *n = curl_slist_append(*l, line);
    if (n == NULL)
        xoom("curl_slist_append");
    *l = n;
}

struct curl_slist *xh_traceparent(xh *x, traceid_gen *g, int compressed, char *id)
{
    struct curl_slist **l = &x->tp[compressed ? 1 : 0];

    if (*l == NULL) {
        char line[TRACEID_LINE_LEN + 1];
        traceid_line(g, line, id); /* the first node: rewritten below */
        tp_append(l, line);
        if (compressed)
            tp_append(l, reqopt_accept_encoding());
        tp_append(l, "User-Agent: " QUERN_USER_AGENT);
    }
    traceid_line(g, (*l)->data, id);
    return *l;
}

void xh_free(xh *x)
{
    if (x == NULL)
        return;
    curl_slist_free_all(x->tp[0]);
    curl_slist_free_all(x->tp[1]);
    curl_easy_cleanup(x->easy); /* detaches it from the group share */
    xfree(x->jar_base);
    dbuf_free(&x->body);
    dbuf_free(&x->hdr);
    xfree(x);
}

void vu_attach(vu *v, xh *x)
{
    int src;

    if (x->owner == v)
        return;
    if (x->ro.digest) {
        /* libcurl keeps the digest nonce and its count in the easy handle,
         * and only curl_easy_reset clears them: another VU (of the same
         * share or not) must not answer with them. Handles that never did
         * digest pass between VUs untouched. */
        curl_easy_reset(x->easy);
        memset(&x->ro, 0, sizeof(x->ro));
        xh_defaults(v->eng, x);
        x->share = NULL; /* the reset detached it */
        x->src = -1;
    }
    if (x->share != v->share) {
        curl_easy_setopt(x->easy, CURLOPT_SHARE, v->share);
        x->share = v->share;
    }
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, v);
    /* In the connection's cache key: the VU reuses only its own. */
    curl_easy_setopt(x->easy, CURLOPT_ADDRESS_SCOPE, (long)v->gid);
    src = source_of(v);
    if (src >= 0 && src != x->src) {
        set_source(x->easy, v->eng, src);
        x->src = src;
    }
    /* The VU's cookies into the handle's engine, unless both are empty. */
    if (x->jar_full || v->jar != NULL)
        cookiejar_put(x->easy, v->jar);
    x->jar_full = v->jar != NULL;
    x->jar_base = xstrdup(v->jar);
    x->jar_gen = v->jar_gen;
    x->owner = v;
}

CURL *vu_stream_easy(vu *v, const char *url, const reqopt *req, const reqopt *scen_ro, char *errbuf)
{
    engine *e = v->eng;
    CURL *easy = curl_easy_init();
    int src = source_of(v);
    reqopt_mark mark;

    if (easy == NULL)
        xoom("curl_easy_init");
    easy_defaults(e, easy, errbuf);
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, v);
    if (src >= 0)
        set_source(easy, e, src);
    memset(&mark, 0, sizeof(mark)); /* a new handle: every option is set */
    reqopt_apply(easy, &mark, req, scen_ro, e->run_ro, strncasecmp(url, "https:", 6) == 0,
                 e->env_ca);
    return easy;
}

int vu_stream_start(vu *v, CURL *easy, struct curl_slist *headers, curl_write_callback hdr_cb,
                    curl_write_callback body_cb, void *ud, long timeout_ms)
{
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, hdr_cb);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, ud);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, body_cb);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, ud);
    engine_watch_sockets(v->eng, easy);
    curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, 1L);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    return curl_multi_add_handle(v->eng->multi, easy) == CURLM_OK ? 0 : -1;
}

CURL *vu_easy(vu *v)
{
    xh *x = v->xh;

    if (x == NULL)
        x = v->xh = xh_get(v->eng);
    vu_attach(v, x);
    if (v->jar_reset) {
        curl_easy_setopt(x->easy, CURLOPT_COOKIELIST, "ALL");
        v->jar_reset = 0;
    }
    return x->easy;
}

void vu_release(vu *v)
{
    if (v->xh != NULL && v->wait != VU_XFER) {
        xh_put(v->eng, v->xh);
        v->xh = NULL;
    }
}

void xh_begin(xh *x)
{
    buf_clear(&x->body);
    buf_clear(&x->hdr);
    x->body_dropped = 0;
    x->errbuf[0] = '\0';
    x->responses = 0;
}

uint64_t xh_requests(const xh *x)
{
    return x->responses > 0 ? x->responses : 1;
}

void vu_xfer_begin(vu *v)
{
    xh_begin(v->xh);
}

void vu_new_thread(vu *v)
{
    lua_State *L = v->eng->L;

    if (v->co != NULL)
        luaL_unref(L, LUA_REGISTRYINDEX, v->co_ref); /* the GC takes it */
    v->co = lua_newthread(L);
    v->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    *(vu **)lua_getextraspace(v->co) = v;
}

int vu_init(vu *v, struct engine *e, uint32_t gid, uint16_t sidx)
{
    lua_State *L = e->L;

    memset(v, 0, sizeof(*v));
    v->eng = e;
    v->gid = gid;
    v->scen = sidx;
    v->phase = VU_WAITING;
    v->cur_step = -1;
    v->pend.step = -1;
    vu_new_thread(v);
    v->tbl_ref = lcoro_new_vu_table(L, v);
    ev_init(&v->timer, on_timer);
    v->timer.data = v;

    /* The VU's own connections, as a browser's: they live in its group's
     * share, which whatever easy handle it borrows attaches. */
    v->share = vshare_get(&e->vshares, (uint32_t)(v - e->vus));
    if (v->share == NULL)
        return -1;
    return 0;
}

void vu_free(vu *v)
{
    /* The easy handles attached to the share go first (engine_free). */
    plugs_vu_free(v);
    xfree(v->ex);
    xfree(v->jar);
    curl_slist_free_all(v->req_headers);
    memset(v, 0, sizeof(*v));
}

void vu_wait_timer(vu *v, int64_t us, enum vu_wait what)
{
    vu_release(v); /* an idle VU holds no easy handle */
    v->wait = (uint8_t)what;
    if (steer_hold_timer(v, us))
        return; /* paused: started at the resume */
    ev_timer_set(&v->timer, engine_after(v->eng, us), 0.);
    ev_timer_start(v->eng->loop, &v->timer);
}

void vu_schedule_start(vu *v, int64_t delay_us)
{
    v->phase = VU_WAITING;
    vu_wait_timer(v, delay_us, VU_SLEEP);
}

int vu_check_fail(lua_State *L, vu *v, int sidx, int mine, int technical, const char *msg)
{
    return vu_check_fail_in(L, v, v != NULL && mine ? &v->pend : NULL, sidx, technical, msg);
}

int vu_check_fail_in(lua_State *L, vu *v, sample *s, int sidx, int technical, const char *msg)
{
    if (v != NULL && s != NULL) {
        if (s->err == SAMPLE_OK) {
            s->err = technical ? SAMPLE_TECH : SAMPLE_FUNC;
            err_set(s->msg, sizeof(s->msg), "%s", msg);
        }
    } else if (v != NULL) {
        vu_count_error(v, sidx >= 0 ? sidx : vu_current_step(v), technical, msg);
    }
    luaL_where(L, 1);
    lua_pushstring(L, msg);
    lua_concat(L, 2);
    if (v != NULL) {
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &v->check_failed);
        v->check_failed = 1;
    }
    return lua_error(L);
}

int vu_check_is(vu *v, lua_State *L, int idx)
{
    int is;

    if (!v->check_failed)
        return 0;
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &v->check_failed);
    is = lua_rawequal(L, -1, idx);
    lua_pop(L, 1);
    return is;
}

void vu_check_reset(vu *v, lua_State *L)
{
    if (!v->check_failed)
        return;
    lua_pushnil(L);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &v->check_failed);
    v->check_failed = 0;
}

int vu_current_step(const vu *v)
{
    const scen *sc = v->eng->scens.scens[v->scen];

    if (v->cur_step >= 0)
        return v->cur_step;
    return sc->first_step != NULL ? sc->first_step->index : -1;
}

void vu_count_bytes(vu *v, int sidx, size_t in, size_t out)
{
    step_stats *s;

    if (v->pend.in_block && v->pend.step >= 0) {
        v->pend.bytes_in += in;
        v->pend.bytes_out += out;
        return;
    }
    if (sidx < 0 || (size_t)sidx >= v->eng->scens.nsteps)
        return;
    s = engine_step_stats(v->eng, sidx);
    s->bytes_in += in;
    s->bytes_out += out;
}

const char *vu_source_addr(const vu *v)
{
    int src = source_of(v);

    return src >= 0 ? v->eng->cfg.source_addrs[src] : NULL;
}

void vu_count_error(vu *v, int sidx, int technical, const char *msg)
{
    step_stats *s;

    if (sidx < 0)
        return;
    s = &v->eng->cur[sidx];
    if (technical)
        s->err_tech++;
    else
        s->err_func++;
    stats_note_error_trace(s, technical, msg, v->pend.step == sidx ? v->pend.trace : NULL);
    stats_note_kind(s, technical, 0, msg, clock_wall_us() / 1000, NULL);
}

void vu_error_example(vu *v, sample *p, int32_t code, const char *url, int status, const char *body,
                      size_t len, const char *trace_id)
{
    if (v->ex == NULL)
        v->ex = xmalloc(sizeof(*v->ex));
    errkinds_example_set(v->ex, url, status, body, len, trace_id);
    v->ex_seq = p->seq;
    p->code = code;
}

/* The pending sample's error by kind, at the time its request ended. */
static void note_kind(vu *v, step_stats *s, const sample *p)
{
    engine *e = v->eng;
    int technical = p->err == SAMPLE_TECH;
    int64_t end_us =
        e->t0_wall_us + (p->start_us + (p->elapsed_us > 0 ? p->elapsed_us : 0) - e->t0_us);
    const errkind_example *ex = v->ex != NULL && v->ex_seq == p->seq ? v->ex : NULL;
    errkind_example mine;

    if (ex == NULL) {
        errkinds_example_set(&mine, NULL, 0, NULL, 0, p->trace);
        ex = &mine;
    }
    stats_note_kind(s, technical, technical ? p->code : 0, p->msg, end_us / 1000, ex);
}

/* Offers the sample to the run's slowest of its step; one that enters goes
 * into the interval's too, which sends it up (common/slowest.h). */
static void offer_slow(vu *v, step_stats *s, const sample *p, uint64_t us)
{
    engine *e = v->eng;
    slowest *h = e->slow[p->step];
    slowest_entry x;

    if (!slowest_would_keep(h, us))
        return;
    x.latency_us = us;
    /* from its intended start, as its latency (and the JTL's timeStamp) */
    x.start_us = e->t0_wall_us + (p->start_us - (p->lag_us > 0 ? p->lag_us : 0) - e->t0_us);
    x.vu = v->gid;
    memcpy(x.trace, p->trace, sizeof(x.trace));
    if (slowest_offer(h, &x))
        stats_offer_slow(s, h->cap, &x);
}

void vu_finalize(vu *v)
{
    plugs_vu_finalize(v); /* a batch's own samples, if it kept any */
    vu_record(v);
}

void vu_record(vu *v)
{
    sample *p = &v->pend;
    step_stats *s;
    uint64_t resp_us;

    if (p->step < 0)
        return;
    if (p->in_block) /* a time block still open: it ends with _time_end */
        return;
    s = &v->eng->cur[p->step];
    s->count++;
    resp_us = intend_response(p->elapsed_us, p->lag_us);
    stats_record(s, resp_us, p->elapsed_us > 0 ? (uint64_t)p->elapsed_us : 0);
    if (v->eng->slow != NULL)
        offer_slow(v, s, p, resp_us);
    s->bytes_in += p->bytes_in;
    s->bytes_out += p->bytes_out;
    s->sum_dns += p->dns;
    s->sum_connect += p->connect;
    s->sum_tls += p->tls;
    s->sum_ttfb += p->ttfb;
    s->new_conns += p->new_conns;
    s->requests += p->requests;
    if (p->err == SAMPLE_TECH) {
        s->err_tech++;
        stats_note_error_trace(s, 1, p->msg, p->trace);
        note_kind(v, s, p);
    } else if (p->err == SAMPLE_FUNC) {
        s->err_func++;
        stats_note_error_trace(s, 0, p->msg, p->trace);
        note_kind(v, s, p);
    }
    if (v->eng->cfg.reqlog != NULL)
        reqlog_sample(v->eng->cfg.reqlog, v);
    p->step = -1;
}

void vu_sample_begin(vu *v, int sidx)
{
    sample *p = &v->pend;

    vu_finalize(v);
    memset(p, 0, offsetof(sample, msg));
    p->msg[0] = '\0';
    p->step = sidx;
    p->seq = ++v->eng->seq;
    p->start_us = clock_mono_us();
    p->lag_us = intend_take(&v->run_lag_us);
    v->cur_step = sidx;
    v->steps_in_run++;
}

/* The erring transfer h as sample p's example. */
static void xfer_example(vu *v, xh *h, const xfer_result *x, sample *p, int32_t code)
{
    char *url = NULL;

    curl_easy_getinfo(h->easy, CURLINFO_EFFECTIVE_URL, &url);
    vu_error_example(v, p, code, url, x->status, h->body.p, h->body.len, x->trace_id);
}

void vu_sample_add(sample *p, const xfer_figures *f, int64_t since_us)
{
    p->bytes_in += f->bytes_in;
    p->bytes_out += f->bytes_out;
    p->dns += (uint64_t)f->dns_us;
    p->connect += (uint64_t)f->connect_us;
    p->tls += (uint64_t)f->tls_us;
    p->ttfb += (uint64_t)f->ttfb_us;
    p->new_conns += f->new_conns;
    p->requests += f->requests;
    if (p->in_block) /* a step:time block times itself */
        return;
    p->elapsed_us = f->elapsed_us > 0 || since_us == 0 ? f->elapsed_us : clock_mono_us() - since_us;
}

void vu_read_phases(CURL *easy, xfer_figures *f)
{
    curl_off_t t_dns = 0, t_conn = 0, t_tls = 0;

    curl_easy_getinfo(easy, CURLINFO_NAMELOOKUP_TIME_T, &t_dns);
    curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &t_conn);
    curl_easy_getinfo(easy, CURLINFO_APPCONNECT_TIME_T, &t_tls);
    f->dns_us = t_dns;
    f->connect_us = t_conn > t_dns ? t_conn - t_dns : 0;
    f->tls_us = t_tls > t_conn ? t_tls - t_conn : 0;
}

void vu_collect(vu *v, xh *h, struct urlc_ent *url, CURLcode rc, xfer_result *x, sample *p)
{
    curl_off_t t_start = 0, t_total = 0, dl = 0, ul = 0;
    long status = 0, hsize = 0, rsize = 0, nconn = 0;

    curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h->easy, CURLINFO_STARTTRANSFER_TIME_T, &t_start);
    curl_easy_getinfo(h->easy, CURLINFO_TOTAL_TIME_T, &t_total);
    curl_easy_getinfo(h->easy, CURLINFO_SIZE_DOWNLOAD_T, &dl);
    curl_easy_getinfo(h->easy, CURLINFO_SIZE_UPLOAD_T, &ul);
    curl_easy_getinfo(h->easy, CURLINFO_HEADER_SIZE, &hsize);
    curl_easy_getinfo(h->easy, CURLINFO_REQUEST_SIZE, &rsize);
    curl_easy_getinfo(h->easy, CURLINFO_NUM_CONNECTS, &nconn);

    x->curl_rc = (int)rc;
    x->status = (int)status;
    /* libcurl's clock, from the moment this transfer started: the others
     * started in the same burst before it are not its time. */
    x->fig.elapsed_us = t_total > 0 ? t_total : clock_mono_us() - x->start_us;
    vu_read_phases(h->easy, &x->fig);
    x->fig.ttfb_us = t_start;
    x->fig.bytes_in = (uint64_t)dl + (uint64_t)hsize;
    x->fig.bytes_out = (uint64_t)ul + (uint64_t)rsize;
    x->fig.new_conns = (uint64_t)nconn;
    x->fig.requests = xh_requests(h);
    if (url != NULL && rc == CURLE_OK)
        urlc_seen(url, (uint64_t)dl + (uint64_t)hsize);
    if (v->eng->cfg.reqlog != NULL)
        reqlog_xfer(v->eng->cfg.reqlog, v, h, url, x, p);

    if (p == NULL)
        return; /* an untimed request */

    vu_sample_add(p, &x->fig, 0); /* 0: its time has a fallback of its own, above */
    if (p->err != SAMPLE_OK)
        return; /* the first error of a sample is the one kept */
    memcpy(p->trace, x->trace_id, sizeof(p->trace));
    if (rc != CURLE_OK) {
        const char *m = h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc);
        long oserr = 0;
        p->err = SAMPLE_TECH;
        /* the system's cause ("Connection refused") when libcurl's text
         * lacks it ("Couldn't connect to server") */
        curl_easy_getinfo(h->easy, CURLINFO_OS_ERRNO, &oserr);
        if (oserr > 0 && strstr(m, strerror((int)oserr)) == NULL)
            err_set(p->msg, sizeof(p->msg), "%s (%s)", m, strerror((int)oserr));
        else
            err_set(p->msg, sizeof(p->msg), "%s", m);
        xfer_example(v, h, x, p, (int32_t)rc);
    } else if (status >= 400) {
        p->err = SAMPLE_TECH;
        p->status_err = 1;
        err_set(p->msg, sizeof(p->msg), "HTTP status %ld", status);
        xfer_example(v, h, x, p, (int32_t)status);
    }
}

void vu_xfer_resume(vu *v)
{
    curl_slist_free_all(v->req_headers);
    v->req_headers = NULL;
    v->wait = VU_IDLE;
    if (v->eng->cfg.life != ENGINE_LIFE_LOAD && lifecycle_xfer_failed(v))
        return; /* a setup's or teardown's failed request ends it */
    if (v->abandon) {
        /* The run was stopped while this request flew: the script still
         * checks its response (an expected 404 is no error, a failed check
         * is one), then halts at its next wait (vu_halt). */
        v->abandon = 0;
        v->halting = 1;
    }
    lcoro_resume(v, 0);
}

void vu_halt(vu *v)
{
    v->halting = 0;
    v->wait = VU_IDLE;
    vu_finalize(v);
    vu_release(v);
    lua_closethread_compat(v->co);
    vu_phase_start(v,
                   v->init_ok && v->phase != VU_FINISH && !v->eng->killing ? VU_FINISH : VU_DONE);
}

/* --- phases ------------------------------------------------------------ */

static void vu_next_run(vu *v)
{
    scen *sc = v->eng->scens.scens[v->scen];
    int64_t now = clock_mono_us();
    int64_t pacing, next;

    if (v->eng->stopping || v->leaving || (v->eng->cfg.runs && v->run >= v->eng->cfg.runs)) {
        vu_phase_start(v, VU_FINISH);
        return;
    }
    if (steer_out(v))
        return; /* beyond the VUs asked now: waits to be asked again */
    if (arrive_of(v->eng, v->scen) != NULL) {
        /* The open model: the next run is an arrival's. */
        v->phase = VU_PACE;
        v->wait = VU_IDLE;
        v->pool_idle = 1;
        v->idle_from_us = now;
        engine_pool_idle(v->eng, 1, now);
        arrive_vu_free(v->eng, v);
        return;
    }
    if (v->run == 0 || sc->pacing_max_us == 0) {
        vu_phase_start(v, VU_RUN);
        return;
    }
    pacing = engine_rand_range(v->eng, sc->pacing_min_us, sc->pacing_max_us);
    next = v->run_start_us + pacing;
    v->run_due_us = next; /* its slot: a late start counts from there */
    /* The slot asked, and the time it was missed by: the share of the
     * pacing's runs not sent (console/delivery.h). */
    v->eng->pace_asked_us += (uint64_t)pacing;
    if (next <= now) {
        v->eng->pace_lost_us += (uint64_t)(now - next);
        v->eng->scount[v->scen].missed_pacing++;
        vu_phase_start(v, VU_RUN);
        return;
    }
    v->phase = VU_PACE;
    vu_wait_timer(v, next - now, VU_PACING);
}

/* The current phase's function returned (ok) or raised (!ok). */
void vu_phase_end(vu *v, int ok)
{
    int yielded = v->yielded;

    plugs_vu_end(v);
    vu_finalize(v);
    vu_release(v);
    v->yielded = 0;
    switch (v->phase) {
    case VU_INIT:
        if (v->prefill) {
            v->prefill = 0;
            engine_prefill_done(v->eng);
        }
        if (v->eng->cfg.life != ENGINE_LIFE_LOAD) {
            vu_phase_start(v, VU_DONE); /* setup or teardown: once, never retried */
            break;
        }
        if (ok) {
            v->init_ok = 1;
            vu_next_run(v);
        } else if (v->eng->stopping || v->leaving ||
                   (v->eng->cfg.runs && ++v->run >= v->eng->cfg.runs)) {
            /* A failed init uses up one of the VU's runs, so --runs ends. */
            vu_phase_start(v, VU_DONE);
        } else {
            /* Retry init a second later, or at the pacing: a VU that could
             * not log in has nothing to run. */
            scen *sc = v->eng->scens.scens[v->scen];
            v->phase = VU_WAITING;
            vu_wait_timer(v, sc->pacing_max_us ? sc->pacing_max_us : 1000000, VU_SLEEP);
        }
        break;
    case VU_RUN:
        v->eng->scount[v->scen].runs++;
        v->run_end_us = clock_mono_us();
        v->eng->run_us += (uint64_t)(v->run_end_us - v->run_start_us);
        if (yielded || v->eng->stopping) {
            vu_next_run(v);
        } else {
            /* A run that never yielded would loop without letting the event
             * loop breathe: go through a zero timer. */
            v->phase = VU_PACE;
            vu_wait_timer(v, 0, VU_YIELD);
        }
        break;
    case VU_FINISH:
        vu_phase_start(v, VU_DONE);
        break;
    default:
        break;
    }
}

/* An open-model VU idle in the pool leaves it: back in the system. */
static void vu_pool_leave(vu *v, int64_t now)
{
    if (!v->pool_idle)
        return;
    v->pool_idle = 0;
    engine_pool_idle(v->eng, -1, now);
}

static void vu_phase_start(vu *v, enum vu_phase ph)
{
    scen *sc = v->eng->scens.scens[v->scen];
    const char *fn = ph == VU_INIT
                         ? (v->eng->cfg.life != ENGINE_LIFE_LOAD ? lifecycle_fn(v->eng) : "init")
                     : ph == VU_RUN ? "run"
                                    : "finish";

    plugs_vu_end(v);  /* a phase cut short (stop, halt, kill) closes them too */
    if (v->dormant) { /* stopped, or asked again (steer.h) */
        v->dormant = 0;
        v->eng->ndormant--;
    }
    if (ph == VU_DONE) {
        if (v->phase != VU_DONE) {
            v->phase = VU_DONE;
            ev_timer_stop(v->eng->loop, &v->timer);
            vu_release(v);
            vu_pool_leave(v, clock_mono_us());
            if (v->started)
                engine_active(v->eng, -1, clock_mono_us());
            engine_vu_done(v->eng);
        }
        return;
    }
    if (!v->started) {
        v->started = 1;
        engine_active(v->eng, 1, clock_mono_us());
    }
    v->phase = (uint8_t)ph;
    v->halting = 0;
    v->cur_step = -1;
    /* Think time goes between steps: those of a phase; without pacing, from
     * a run's last step to the next run's first (pacing governs that gap
     * when set); from the last run's steps to finish's first. Not from init
     * to the first run. */
    if (ph == VU_INIT || (ph == VU_RUN && (v->run == 0 || sc->pacing_max_us > 0)))
        v->steps_in_run = 0;
    if (ph == VU_RUN) {
        if (!v->ran && arrive_of(v->eng, v->scen) == NULL)
            vustart_ran(&v->eng->vstart);
        v->ran = 1;
        v->run++;
        v->run_start_us = clock_mono_us();
        /* the pause since its previous run: Little's Z, but not the time
         * idle in the open model's pool (it was not in the system) */
        if (v->run_end_us > 0)
            v->eng->wait_us +=
                (uint64_t)((v->pool_idle ? v->idle_from_us : v->run_start_us) - v->run_end_us);
        vu_pool_leave(v, v->run_start_us);
        v->run_lag_us = intend_lag(v->run_due_us, v->run_start_us);
        v->run_due_us = 0;
        if (sc->cookies_reset)
            v->jar_reset = 1; /* done when the jar is next used */
    }
    if (!lcoro_push_phase(v, fn)) {
        /* No such function (init and finish are optional). */
        vu_phase_end(v, 1);
        return;
    }
    lcoro_resume(v, 1);
}

static void on_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    vu *v = w->data;
    enum vu_wait what = v->wait;

    v->wait = VU_IDLE;
    switch (v->phase) {
    case VU_WAITING:
        if (v->eng->stopping || v->leaving)
            vu_phase_start(v, VU_DONE);
        else
            vu_phase_start(v, VU_INIT);
        break;
    case VU_PACE:
        if (what == VU_PACING && !v->eng->stopping)
            vu_phase_start(v, VU_RUN);
        else
            vu_next_run(v);
        break;
    default:
        lcoro_resume(v, 0); /* a sleep or a think time inside a phase */
        break;
    }
}

void vu_stop(vu *v)
{
    switch (v->phase) {
    case VU_WAITING:
    case VU_PACE:
        /* Unconditionally: a timer that expired in this loop iteration is
         * no longer active but its callback is still pending; stopping it
         * clears that too. */
        ev_timer_stop(v->eng->loop, &v->timer);
        v->wait = VU_IDLE;
        vu_phase_start(v, v->init_ok ? VU_FINISH : VU_DONE);
        break;
    case VU_INIT:
    case VU_RUN:
        if (v->wait == VU_XFER) {
            v->abandon = 1; /* finish the request in flight, then stop */
        } else if (v->wait != VU_IDLE) {
            ev_timer_stop(v->eng->loop, &v->timer);
            if (v->wait == VU_SLOT)
                v->pend.step = -1; /* its request never left: not a sample */
            v->wait = VU_IDLE;
            vu_finalize(v);
            lua_closethread_compat(v->co);
            vu_phase_start(v, v->phase == VU_RUN ? VU_FINISH : VU_DONE);
        }
        break;
    default:
        break; /* finish goes on within the grace; done is done */
    }
}

void vu_start_run(vu *v)
{
    vu_phase_start(v, VU_RUN);
}

void vu_leave(vu *v)
{
    v->leaving = 1;
    switch (v->phase) {
    case VU_WAITING:
    case VU_PACE:
        /* Not in a run: a pending expiry is cleared too (see vu_stop). */
        ev_timer_stop(v->eng->loop, &v->timer);
        v->wait = VU_IDLE;
        vu_phase_start(v, v->init_ok ? VU_FINISH : VU_DONE);
        break;
    default:
        break; /* init or a run goes on to its end (vu_next_run); finish too */
    }
}

void vu_kill(vu *v)
{
    if (v->phase == VU_DONE)
        return;
    ev_timer_stop(v->eng->loop, &v->timer); /* clears a pending expiry too */
    if (v->wait == VU_XFER) {
        /* Not completed: not a sample. */
        v->queued = 0; /* if not started yet, it never will be */
        if (v->xh != NULL)
            curl_multi_remove_handle(v->eng->multi, v->xh->easy);
        plugs_vu_abort(v); /* a page's resources, a batch's requests */
        curl_slist_free_all(v->req_headers);
        v->req_headers = NULL;
        v->pend.step = -1;
    }
    if (v->wait == VU_SLOT)
        v->pend.step = -1; /* its request never left: not a sample */
    v->wait = VU_IDLE;
    vu_finalize(v);
    vu_release(v);
    lua_closethread_compat(v->co);
    vu_phase_start(v, VU_DONE);
}
