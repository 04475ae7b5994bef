/* vu — one virtual user: a Lua coroutine, its HTTP handle, its cookies.
 *
 * A VU plays its scenario's phases: init once, run again and again (paced,
 * with think time between steps), finish once when it stops. It owns one
 * libcurl easy handle while a transfer runs (a batch, one a request of it:
 * batch.h); its connections live in the share of its group of VUs, keyed by
 * its id (vshare.h), so that, as with a browser, N VUs show N connections at
 * the server; its cookies live in the easy handle it holds, and as text
 * while it holds none (cookiejar.h).
 *
 * A step sample stays "pending" after its response arrives, so that checks
 * made by the script on that response (r:expect, r:contains) can still class
 * it; it is recorded when the VU next starts a step, sleeps, or ends a phase.
 *
 * Internal to worker/. */
#ifndef QUERN_VU_H
#define QUERN_VU_H

#include <curl/curl.h>
#include <ev.h>
#include <stdint.h>

#include "common/dbuf.h"
#include "worker/wire/reqopt.h"
#include "worker/wire/traceid.h"

/* A Lua thread, lua.h's type: the header is the Lua rooms' to include. */
struct lua_State;

struct engine;
struct step;

enum vu_phase { VU_WAITING, VU_INIT, VU_RUN, VU_PACE, VU_FINISH, VU_DONE };
enum vu_wait { VU_IDLE, VU_XFER, VU_SLEEP, VU_THINK, VU_PACING, VU_YIELD, VU_HALT, VU_SLOT };
/* More waits: a WebSocket's handshake and a WebSocket's message, each bound
 * by the VU's timer (websocket.h). */
enum { VU_WSOPEN = VU_SLOT + 1, VU_WSRECV };
/* And a server-sent events stream's headers and its next event (sse.h). */
enum { VU_SSEOPEN = VU_WSRECV + 1, VU_SSENEXT };
/* And a gRPC server stream's headers and its next message (gstream.h). */
enum { VU_GRPCOPEN = VU_SSENEXT + 1, VU_GRPCNEXT };
/* And a TCP connection's connect, a piece of its input, the rest of a send
 * (sock.h). */
enum { VU_SOCKOPEN = VU_GRPCNEXT + 1, VU_SOCKRECV, VU_SOCKSEND };
/* And a UDP socket's next datagram, and its socket writable again (dgram.h). */
enum { VU_UDPRECV = VU_SOCKSEND + 1, VU_UDPSEND };
enum sample_err { SAMPLE_OK, SAMPLE_TECH, SAMPLE_FUNC };

#define VU_MSG_MAX 160
#define XH_KEEP_MIN 64     /* idle transfer handles always kept */
#define XH_TRIM_STEP 256   /* idle transfer handles freed a second at most */
#define XH_RELEASE_MIN 256 /* handles freed before their memory is given back */

/** A step sample being measured or awaiting its checks. */
typedef struct sample {
    int step;           /**< step index, -1 when there is no pending sample */
    uint32_t seq;       /**< identifies it, so late checks are recognised */
    uint8_t err;        /**< enum sample_err */
    uint8_t status_err; /**< the technical error is only an unaccepted status */
    uint8_t in_block;   /**< inside step:time(fn): requests add to it */
    int32_t code;       /**< the technical error's code: HTTP status or CURLcode, 0 other
                             (common/errkinds.h) */
    int64_t start_us;   /**< monotonic start */
    int64_t lag_us;     /**< how long before start_us it was intended (the run's lag, first
                             sample of a run only): the response time counts it */
    int64_t elapsed_us; /**< service time, set when complete */
    uint64_t bytes_in, bytes_out, dns, connect, tls, ttfb, new_conns;
    uint64_t requests;               /**< HTTP requests sent (step_stats.requests) */
    char trace[TRACEID_HEX_LEN + 1]; /**< trace id of its erring request, else of its last
                                          one; "" when none was sent (worker/wire/traceid.h) */
    char msg[VU_MSG_MAX];            /**< error message when err != SAMPLE_OK */
} sample;

/** What one transfer measured, as its sample adds it up (vu_sample_add): an
 *  HTTP request's (xfer_result), or a stream's opening, to its answer's
 *  headers or the end of its handshake (sse.h, websocket.h, gstream.h). */
typedef struct xfer_figures {
    int64_t elapsed_us;                 /**< its service time, 0 not known yet */
    int64_t dns_us, connect_us, tls_us; /**< the connection's phases (vu_read_phases) */
    int64_t ttfb_us;                    /**< to the answer's first byte, 0 not measured */
    uint64_t bytes_in, bytes_out;       /**< received and sent, headers included */
    uint64_t new_conns;                 /**< connections it opened */
    uint64_t requests;                  /**< HTTP requests it sent (step_stats.requests) */
} xfer_figures;

/** What the last transfer gave; the response object is built from it. */
typedef struct xfer_result {
    int curl_rc;                        /**< CURLcode */
    int status;                         /**< HTTP status, 0 if none */
    int64_t start_us;                   /**< monotonic time the transfer was added */
    xfer_figures fig;                   /**< its time (libcurl's), bytes and connections; requests:
                                             xh_requests */
    char trace_id[TRACEID_HEX_LEN + 1]; /**< its traceparent's trace id, "" when none was
                                             sent (worker/wire/traceid.h) */
} xfer_result;

/** An easy handle and the buffers of one transfer. A VU holds one only
 *  while it has a request in flight or a response to read; an idle VU (in
 *  think time or pacing) holds none, so idle VUs cost little: their
 *  connections live in their group's share, their cookies as text. */
typedef struct xh {
    CURL *easy;                   /**< owned */
    CURLSH *share;                /**< borrowed: the group share last attached */
    struct vu *owner;             /**< borrowed: the VU attached, NULL in the pool */
    char *jar_base;               /**< owned: the owner's jar when attached (cookiejar.h) */
    uint32_t jar_gen;             /**< the owner's jar_gen when attached */
    int src;                      /**< source address index set, -1 none */
    uint8_t jar_full;             /**< its cookie engine may hold cookies */
    dbuf body, hdr;               /**< the response, up to VU_BODY_MAX and VU_HDR_MAX */
    size_t body_dropped;          /**< body bytes past VU_BODY_MAX, counted but not kept */
    char errbuf[CURL_ERROR_SIZE]; /**< libcurl's message for a failure */
    reqopt_mark ro;               /**< the request options easy has (reqopt.h) */
    uint32_t responses;           /**< final (not 1xx) status lines of this transfer */
    struct curl_slist *tp[2];     /**< owned, NULL until used: the headers of a traced request
                                       with none of its own, [0] plain, [1] compressed
                                       (xh_traceparent) */
    struct xh *next;              /**< borrowed: the next in the engine's pool */
} xh;

/** Takes a transfer handle from the engine's pool (or makes one). */
xh *xh_get(struct engine *e);
/** Gives it back (its big buffers are released; its owner's jar is saved,
 *  see vu_attach). */
void xh_put(struct engine *e, xh *x);
/** Empties a handle's response buffers and error message before a transfer. */
void xh_begin(xh *x);
/** The HTTP requests the handle's last transfer sent: one per final response
 *  (a redirect followed, digest's challenge and answer each count), and 1
 *  for a transfer that got none (refused, timed out: it was attempted). */
uint64_t xh_requests(const xh *x);
/** The header list of a traced request that has no header of its own
 *  (compressed: with Accept-Encoding): a fresh traceparent from g, then
 *  quern's User-Agent. Made once per handle; each call rewrites the
 *  traceparent line in place (its length never changes), so a traced
 *  request allocates nothing. Writes its trace id into id
 *  (TRACEID_HEX_LEN + 1 bytes). Valid until the handle's next call. */
struct curl_slist *xh_traceparent(xh *x, traceid_gen *g, int compressed, char *id);
/** Frees a handle and what it owns. */
void xh_free(xh *x);
/** Frees up to XH_TRIM_STEP idle handles beyond what the last second
 *  needed (at least XH_KEEP_MIN are kept), so that a burst of transfers
 *  (a stall of the host makes thousands of VUs due at once) does not hold
 *  its handles for good; once the pool is back to its size after at least
 *  XH_RELEASE_MIN were freed, collects the Lua state's garbage and gives the
 *  heap's free pages back to the system (malloc_trim): about half of a
 *  burst comes back (the rest, among live blocks, is what the next burst
 *  reuses); without that, each new peak of transfers at once raised the
 *  worker's RSS for the rest of the run (docs/benchmarks.md, "Soak").
 *  Called once a second. */
void xh_trim(struct engine *e);

typedef struct vu {
    struct engine *eng;   /**< borrowed */
    uint32_t gid;         /**< global VU index, 1-based */
    uint16_t scen;        /**< scenario index */
    uint8_t phase;        /**< enum vu_phase */
    uint8_t wait;         /**< enum vu_wait */
    uint8_t init_ok;      /**< init succeeded: finish runs at the end */
    uint8_t yielded;      /**< the current phase yielded at least once */
    uint8_t check_failed; /**< a failed check raised its error in this resume: the
                               registry keeps its value (vu_check_raise) */
    uint8_t abandon;      /**< stop requested while in flight: halt once it completed */
    uint8_t halting;      /**< the run stopped: the script checks the last response, then vu_halt */
    uint8_t started;      /**< left the ramp wait: counted as active */
    uint8_t jar_reset;    /**< empty the jar before the next use (cookies = "reset") */
    uint8_t xfer_timed;   /**< the transfer in flight belongs to the pending sample */
    uint8_t queued;       /**< its transfer waits in the engine's start queue */
    uint8_t leaving;      /**< a staged load's descent: finish after the current run */
    uint8_t counted_ready; /**< open model: came to the pool once (its init ended) */
    uint8_t prefill;       /**< made by engine_prefill: its first init not ended yet */
    uint8_t pool_idle;     /**< open model: idle in the pool, not in the system */
    uint8_t in_slotq;      /**< linked in the engine's queue for a handle (inflight.h) */
    uint8_t ran;           /**< began a run once (worker/wire/vustart.h counts the first) */
    uint8_t held;          /**< a pause holds its timer or its request (steer.h) */
    uint8_t dormant;       /**< beyond the VUs asked (steer_vus): waits, no run */
    uint32_t rank;         /**< its place among the VUs vus N counts: gid, or, once
                                vus N cut the stages, among those not left
                                (UINT32_MAX: left) */
    int64_t held_left_us;  /**< a held timer's time left */
    struct lua_State *co;  /**< borrowed: the VU's thread, anchored by co_ref */
    int co_ref;            /**< registry ref of co */
    int tbl_ref;           /**< registry ref of the vu table given to init/run/finish */
    xh *xh;                /**< borrowed from the pool while busy, else NULL */
    CURLSH *share;         /**< borrowed: the share of its group (vshare.h) */
    char *jar;             /**< owned: its cookies while it holds no handle, NULL: none
                                (cookiejar.h) */
    uint32_t jar_gen;      /**< counts the changes of jar */
    struct curl_slist *req_headers; /**< owned while a transfer runs */
    struct vu *start_next;          /**< borrowed: next in the engine's start queue */
    struct vu *slot_next;           /**< borrowed: next in the engine's queue for a handle */
    int64_t slot_since_us;          /**< monotonic: when it began to wait for a handle */
    ev_timer timer;                 /**< ramp start, sleep, think, pacing */
    uint32_t run;                   /**< current run, 1-based */
    uint32_t steps_in_run;          /**< step samples since think time last started over (see
                                         vu_phase_start): a step after one waits a think time */
    int cur_step;                   /**< last step used in this phase, -1 none */
    int64_t run_start_us;           /**< monotonic start of the current run */
    int64_t run_end_us;             /**< monotonic end of its previous run, 0 before the first */
    int64_t idle_from_us;           /**< open model: when it came to the pool (pool_idle) */
    int64_t run_due_us;             /**< monotonic intended start of the next run (its arrival's
                                         time, its pacing slot), 0 when it has none */
    int64_t run_lag_us;             /**< how late the current run started, until its first sample
                                         takes it (intend_take) */
    sample pend;                    /**< the pending sample */
    xfer_result x;                  /**< the last transfer */
    struct urlc_ent *url;           /**< borrowed: the URL cache's entry of the transfer, or NULL */
    struct pageres *page;           /**< owned: embedded resources and their cache (pageres.h), NULL
                                      until a request asks for resources */
    struct websocket *ws;           /**< owned: its WebSockets of this phase (websocket.h) */
    struct sse *sse;                /**< owned: its event streams of this phase (sse.h) */
    struct batch *batch;            /**< owned: its requests sent at once (batch.h), NULL until
                                         it first batches */
    struct errkind_example *ex;     /**< owned, NULL until its first error: the example of the
                                         pending sample's error when ex_seq is its seq */
    uint32_t ex_seq;                /**< the sample ex belongs to */
    struct gstream *gstream;        /**< owned: its gRPC server streams of this phase (gstream.h) */
    struct sock *sock;              /**< owned: its TCP connections of this phase (sock.h) */
    struct dgram *dgram;            /**< owned: its UDP sockets of this phase (dgram.h) */
} vu;

/** Sets the VU up (thread, vu table, easy handle); 0 ok. */
int vu_init(vu *v, struct engine *e, uint32_t gid, uint16_t sidx);
/** Gives the VU a new thread (the old one, if any, is left to the GC): after
 *  a thread was cut by the watch, which leaves its hooks off (an error raised
 *  from a hook that no pcall catches). */
void vu_new_thread(vu *v);
/** Releases what the VU owns. */
void vu_free(vu *v);
/** Schedules the VU's start after delay_us. */
void vu_schedule_start(vu *v, int64_t delay_us);
/** The engine is stopping: cancel waits, go to finish (or done). */
void vu_stop(vu *v);
/** Ends a halting VU's phase where its script asked for its next request,
 *  sleep or think time (lapi_halt): what it recorded so far is kept, that
 *  wait never starts, and the VU goes to finish (or done). */
void vu_halt(vu *v);
/** A staged load no longer wants this VU: one in a run (or its init)
 *  finishes it, then runs finish and is done; one waiting for its pacing
 *  goes to finish now; one not started yet is done. Nothing is cut. */
void vu_leave(vu *v);
/** Open model: an arrival gives the idle VU a run, at once. */
void vu_start_run(vu *v);
/** The grace is over: abandon whatever is in flight, go to done. */
void vu_kill(vu *v);
/** The VU's own transfer is done and read (worker/plugs/vureq.h), and what
 *  the response embeds is in (pageres.h): the VU's script goes on. */
void vu_xfer_resume(vu *v);
/** Attaches x to v: its group's share and its id (its connections), its
 *  cookies, its source address, CURLINFO_PRIVATE. xh_put saves the cookies
 *  back into v, merged with what another handle of v saved meanwhile. */
void vu_attach(vu *v, xh *x);
/** Records the pending sample, if any, into the engine's current interval
 *  (and the samples a batch keeps pending, batch.h). */
void vu_finalize(vu *v);
/** Records v->pend alone, if any (vu_finalize without the batch's). */
void vu_record(vu *v);
/** Fills x from h's finished transfer (url: its URL cache entry, or NULL)
 *  and adds it to p (NULL: untimed): bytes, timings, connections, and the
 *  sample's first error (a transport failure, a status of 400 or more). */
void vu_collect(vu *v, xh *h, struct urlc_ent *url, CURLcode rc, xfer_result *x, sample *p);
/** Adds f to sample p: its bytes, phases, connections and requests, and,
 *  unless p is a step:time block (which times itself), its time as p's.
 *  When f has no time yet (elapsed_us 0: a stream timed out before its
 *  answer) and since_us is not 0, p's time is the wait since since_us. */
void vu_sample_add(sample *p, const xfer_figures *f, int64_t since_us);
/** Reads the connection's phases of easy's transfer into f: DNS, connect
 *  and TLS, each its own part (libcurl gives them cumulated). */
void vu_read_phases(CURL *easy, xfer_figures *f);
/** A new easy handle for a stream of v (a transfer of its own, outside the
 *  pool of xh): v's as CURLINFO_PRIVATE, url, no signal, TCP_NODELAY,
 *  libcurl's message into errbuf (CURL_ERROR_SIZE bytes), no proxy when
 *  the environment names none, v's source address, and the connection
 *  options of the levels req, scen_ro and the run's (reqopt_apply). The
 *  caller sets what is its own (after: what overrides reqopt's) and frees
 *  it with curl_easy_cleanup; engine_watch_sockets is the caller's too (a
 *  WebSocket watches its socket itself). */
CURL *vu_stream_easy(vu *v, const char *url, const reqopt *req, const reqopt *scen_ro,
                     char *errbuf);
/** Starts a stream's transfer on easy (from vu_stream_easy, with the
 *  protocol's own options set): its request headers (borrowed: the
 *  stream's, kept until the handle goes), headers and body to hdr_cb and
 *  body_cb with ud, its sockets watched on the loop; its connection its own,
 *  closed with it (never reused), the transfer bound by timeout_ms (0:
 *  none); then on the multi. 0, or -1 when the multi refused it. */
int vu_stream_start(vu *v, CURL *easy, struct curl_slist *headers, curl_write_callback hdr_cb,
                    curl_write_callback body_cb, void *ud, long timeout_ms);
/** Starts a new pending sample for step (finalizing the previous one). */
void vu_sample_begin(vu *v, int sidx);
/** Empties the response buffers of a transfer about to be queued (its start
 *  time is noted when the engine starts it). */
void vu_xfer_begin(vu *v);
/** The VU's easy handle, taken from the pool if it holds none, attached
 *  to the VU (vu_attach). */
CURL *vu_easy(vu *v);
/** Gives the VU's handle back to the pool unless a transfer is in flight. */
void vu_release(vu *v);
/** Saves the cookies of the handle v holds (v->xh) into v->jar and keeps
 * the handle attached: the handles v attaches next start from them (a page's
 * resources get the cookies its answer set). Nothing when v holds none. */
void vu_save_jar(vu *v);
/** The VU whose coroutine is running on L (NULL on the main thread). */
vu *vu_current(struct lua_State *L);
/** Arms the VU's timer for us microseconds and marks what it waits for. */
void vu_wait_timer(vu *v, int64_t us, enum vu_wait what);
/** The current phase's function returned (ok = 1) or raised (ok = 0). */
void vu_phase_end(vu *v, int ok);
/** Sample p's error (the VU's pending one or a batch's) has code (HTTP
 *  status, CURLcode or 0) and this example (common/errkinds.h
 *  errkinds_example_set: url, body, trace may be NULL); made on the error
 *  path only. The VU keeps one example, for the sample that erred last. */
void vu_error_example(vu *v, sample *p, int32_t code, const char *url, int status, const char *body,
                      size_t len, const char *trace);
/** Counts a functional error against the VU's current step without a sample
 *  (a late check, or a script error outside any sample). */
void vu_count_error(vu *v, int sidx, int technical, const char *msg);
/** A failed check (r:expect, r:contains, a refused handshake or stream, a
 *  gRPC status not expected): the pending sample takes msg when mine (the
 *  check is on its answer), else an error is counted against step sidx (-1:
 *  the current step); then msg is raised at the script's line, kept (the
 *  registry, keyed by v) so that the end of the resume tells it from a later
 *  script error of the same resume (a check that pcall caught, then a bug).
 *  v may be NULL (the script loading). Does not return. */
int vu_check_fail(struct lua_State *L, vu *v, int sidx, int mine, int technical, const char *msg);
/** vu_check_fail with the pending sample named: s takes msg (NULL: an
 *  error counted against step sidx). */
int vu_check_fail_in(struct lua_State *L, vu *v, sample *s, int sidx, int technical,
                     const char *msg);
/** 1 when the error value at idx of L is the failed check's of this resume. */
int vu_check_is(vu *v, struct lua_State *L, int idx);
/** Forgets the failed check of the previous resume, if any: nothing to do
 *  when none failed. */
void vu_check_reset(vu *v, struct lua_State *L);
/** The step an error outside any sample counts against: the VU's current
 *  step, else its scenario's first; -1 when the scenario has none. */
int vu_current_step(const vu *v);
/** Counts a stream's bytes (a socket's: sock.h, dgram.h): against the
 *  sample of the step:time block v is in, else against step sidx (none
 *  when -1), in the current second. */
void vu_count_bytes(vu *v, int sidx, size_t in, size_t out);
/** The address v's connections leave from (--source-addr, the VUs taking
 *  them in turn), NULL when none is set. */
const char *vu_source_addr(const vu *v);

#endif
