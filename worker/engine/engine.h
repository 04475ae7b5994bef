/* engine — the load engine of one worker process.
 *
 * One libev loop drives one libcurl multi handle (multi_socket_action with
 * socket and timer callbacks) and every virtual user (VU) of the worker. Each
 * VU is a Lua coroutine; an HTTP call yields it, and the loop resumes it when
 * the transfer completes. Nothing blocks the loop: DNS is libcurl's threaded
 * resolver, sleeps and think times are libev timers, and a VU whose Lua code
 * runs 1 s without yielding is cut (lwatch.h).
 *
 * Use: engine_new() loads the script and creates the VUs (a broken script
 * fails here, before any request); engine_run() plays the schedule and calls
 * the sink once per second with that second's statistics; engine_free().
 *
 * The struct is visible to the other files of worker/ (vu, the Lua bindings),
 * not to the rest of quern. */
#ifndef QUERN_ENGINE_H
#define QUERN_ENGINE_H

#include <curl/curl.h>
#include <ev.h>
#include <stddef.h>
#include <stdint.h>

#include "common/loadinfo.h"
#include "common/props.h"
#include "common/rate.h"
#include "common/stages.h"
#include "common/stats.h"
#include "common/tally.h"
#include "worker/wire/scen.h"

struct vu;
struct sockw;
struct reqopt;
struct trace;
struct traceid_gen;
struct websocket;
struct urlc;
struct lcheck_state;

/** Runs and missed pacings of one scenario over one interval. */
typedef struct scen_counts {
    uint64_t runs;          /**< runs (iterations) completed */
    uint64_t missed_pacing; /**< runs that started late because the previous overran */
} scen_counts;

/** One interval's statistics, as handed to the sink. All borrowed. */
typedef struct engine_interval {
    uint64_t second;         /**< interval number since the run's start, 0-based */
    int64_t start_wall_us;   /**< wall-clock start of the interval */
    int64_t length_us;       /**< its length (the last one may be short) */
    uint32_t active_vus;     /**< VUs started and not finished at its end */
    uint64_t vu_us;          /**< VUs started and not finished, integrated over it (VU-us) */
    uint64_t run_us;         /**< durations of the runs that ended in it, summed */
    uint64_t wait_us;        /**< pauses between a VU's runs that ended in it, summed */
    uint64_t held;           /**< requests held back for a handle (worker/engine/inflight.h) */
    uint64_t held_us;        /**< their waits, summed */
    uint64_t held_max_us;    /**< the longest of them */
    uint32_t vus_planned;    /**< closed-model VUs due to start in it by the schedule */
    uint32_t vus_started;    /**< closed-model VUs that began their first run in it */
    uint64_t pace_asked_us;  /**< the pacing slots of the runs paced in it, summed */
    uint64_t pace_lost_us;   /**< how late those runs started past their slot, summed */
    uint64_t paused_us;      /**< how long the load was paused in it (worker/engine/steer.h) */
    const step_stats *steps; /**< borrowed: nsteps entries, by step index */
    size_t nsteps;
    const scen_counts *scens;    /**< borrowed: nscens entries, by scenario index */
    const rate_counts *arrivals; /**< borrowed: nscens entries, the open model's arrivals */
    hist *const *start_lag;      /**< borrowed: nscens entries (NULL ones for scenarios
                                      without arrivals), or NULL: the start lags of the
                                      runs begun */
    size_t nscens;
    uint32_t cpu_permille;     /**< the worker's CPU over the interval, 1000 = one core */
    uint32_t loop_lag_max_us;  /**< its event loop's worst lateness (common/selfmon.h) */
    const hist *loop_lag;      /**< borrowed: the loop's lateness samples, or NULL */
    uint64_t start_lag_p99_us; /**< the open model's start lags, p99 over every scenario */
    unsigned saturated;        /**< common/saturation.h SATURATION_* bits; 0: kept up */
    const tally *tally; /**< borrowed: the script's checks and custom metrics of the interval */
} engine_interval;

/** Receives each interval; called on the loop, must not block. */
typedef void (*engine_sink_fn)(void *ud, const engine_interval *iv);

/** What an engine plays: the load, or each scenario's setup or teardown
 *  once (worker/engine/lifecycle.h). */
enum engine_life { ENGINE_LIFE_LOAD, ENGINE_LIFE_SETUP, ENGINE_LIFE_TEARDOWN };

/** What to play. */
typedef struct engine_cfg {
    const char *script;         /**< borrowed: path of the main scenario file */
    const char *script_display; /**< borrowed: the path messages show for it (NULL: script);
                                     files beside it are shown beside it too */
    const props *props;         /**< borrowed: properties visible to scripts (may be NULL) */
    uint32_t vus_total;         /**< VUs of the whole run (weights and ramp use it) */
    uint32_t vu_first;          /**< first global VU index (1-based) this engine plays */
    uint32_t vu_stride;         /**< step between this engine's global indices (1 = contiguous) */
    uint32_t vu_count;          /**< how many VUs this engine plays */
    int64_t duration_us;        /**< stop after this long (0 = no limit: runs must be set) */
    int64_t ramp_us;            /**< VU i starts at (i-1) * ramp / vus_total */
    const stage *stages;        /**< copied: a staged load (common/stages.h), replacing ramp_us:
                                     VU i starts and leaves (after its current run) when the
                                     list says; vus_total is then stages_ids; NULL: none */
    size_t nstages;
    uint32_t staged_vus;           /**< the last staged_vus of vus_total indexes are the ids of the
                                        scenarios with stages of their own (scen_layout); the
                                        script must use as many, unless the engine plays no VU
                                        (the console's check of the script) */
    uint32_t runs;                 /**< runs per VU (0 = until the duration ends) */
    const rate_stage *rate_stages; /**< copied: the open model (common/rate.h): arrivals
                                        start runs, VUs are created as they need them up to
                                        vu_count; NULL: the closed model */
    size_t nrate_stages;
    uint32_t arrival_stripes;        /**< workers of the whole run: this one plays the arrivals
                                          k with k mod stripes == (vu_first - 1) mod stripes */
    uint32_t closed_vus;             /**< a mixed run: VUs with a global index up to this
                                          play the scenarios without a rate; 0: none */
    uint32_t open_vus;               /**< open model: VUs with a global index up to this are
                                          created before the first arrival */
    int64_t max_lag_us;              /**< open model: an arrival waiting this long is dropped */
    int64_t grace_us;                /**< how long in-flight work may finish after the stop */
    engine_sink_fn sink;             /**< called each second and once at the end */
    void *sink_ud;                   /**< borrowed: passed to sink */
    int handle_signals;              /**< 1: SIGINT/SIGTERM stop the run (the second aborts) */
    const char *const *source_addrs; /**< copied: local addresses VU i binds to, by
                                          ((i-1) mod n); none: the system's choice */
    size_t nsource_addrs;
    struct reqlog *reqlog;      /**< borrowed: per-request logs (JTL, Grinder), NULL for none */
    unsigned trace;             /**< --trace: 0 off, 1 VU 1, 2 every VU (worker/plugs/trace.h) */
    const char *const *resolve; /**< copied: --resolve "host:port:address" entries for
                                     every request (worker/wire/reqopt.h) */
    size_t nresolve;
    uint32_t max_in_flight; /**< requests the whole run's VUs may have in flight at once
                                 (--max-in-flight), this engine's share of them its bound
                                 (worker/engine/inflight.h); 0: no bound */
    uint64_t mem_limit;     /**< bytes the Lua state may hold while a script runs
                                 (--worker-memory, worker/lua/lalloc.h); 0: no bound */
    int traceparent;        /**< --traceparent: every request carries a fresh W3C traceparent
                                 (worker/wire/traceid.h); a scenario may ask for it alone */
    uint32_t slowest;       /**< --slowest: samples kept per step among the run's slowest
                                 (common/slowest.h), 0 none */
    enum engine_life life;  /**< the load, or the scenarios' setup or teardown */
    const char *setup_data; /**< borrowed: what setup returned, as JSON (worker/lua/setupdata.h),
                                 each VU's vu.setup and teardown's argument; NULL: none */
    size_t setup_len;       /**< its bytes */
    uint32_t active_vus;    /**< the closed model without stages: VUs of a global index up
                                 to this start, the others wait dormant until steered
                                 (worker/engine/steer.h); 0: all, and no steering of the VUs */
    int (*ctl)(void *ud);   /**< called on the loop when ctl_fd is readable during the run
                                 (sink_ud passed); -1: watch it no more; NULL: none */
    int ctl_fd;             /**< the descriptor ctl watches */
} engine_cfg;

/** Why the engine stopped. */
enum engine_status { ENGINE_COMPLETED, ENGINE_STOPPED, ENGINE_ABORTED };

/** Free list entry for socket watchers (see engine.c). */
typedef struct engine engine;

/** Loads the script and creates the VUs; NULL with "file:line: message" (or
 *  another single-line reason) in err. No request is sent before engine_run. */
engine *engine_new(const engine_cfg *cfg, char *err, size_t errlen);
/** The scenarios, steps and thresholds (scen_set.thresholds) the script
 *  declared; valid until engine_free. */
const scen_set *engine_scens(const engine *e);
/** The script's checks and custom metrics: after the load, the metrics it
 *  declares (names and kinds). Borrowed. */
const tally *engine_tally(const engine *e);
/** The i-th file the script's load made for the bundle (a descriptor set
 *  compiled from a .proto by grpc.load, worker/lua/lgrpc.h): 1 with its path
 *  (relative to the script's folder) and bytes, valid until engine_free;
 *  0 past the last. */
int engine_made_file(engine *e, size_t i, const char **path, const void **data, size_t *len);
/** Moves what the script's load asked for (its quern.property calls and
 *  quern.csv feeders, common/loadinfo.h) into out, which the caller then
 *  owns; e keeps an empty record. */
void engine_take_loadinfo(engine *e, loadinfo *out);
/** Plays the run to its end; returns how it ended. */
enum engine_status engine_run(engine *e);
/** The open model's --vus (engine_cfg.open_vus): makes this worker's share
 *  of them and runs their init now, before the start, so that no arrival
 *  waits for them; returns when every one's first init has ended (well or
 *  not) or after max_us, with the number still in their init (they go on
 *  in the run). Their requests count in the run's first interval. Nothing
 *  to do (0) without an arrival rate or --vus. Call it between engine_new
 *  and engine_run (before the start barrier: every worker's pool is ready
 *  when the load begins). */
uint32_t engine_prefill(engine *e, int64_t max_us);
/** Asks the run to stop (VUs finish their request in flight within the grace);
 *  safe from a sink or a Lua call. */
void engine_stop(engine *e, enum engine_status why);
/** Releases everything; NULL is fine. */
void engine_free(engine *e);

/* --- the engine's door ------------------------------------------------
 *
 * What worker/'s protocols (worker/plugs/plug.h) and Lua bindings use of the
 * engine, as functions: the loop and the multi handle, the run's
 * configuration, the current interval's statistics, the VU table, and the
 * run-wide request settings made once. Only the engine's own files
 * (tests/lint/rooms.sh names them) see struct engine's fields. */

/** The engine's event loop, which drives every VU and transfer. */
struct ev_loop *engine_loop(const engine *e);
/** The one libcurl multi handle every transfer runs on. */
CURLM *engine_multi(const engine *e);
/** 1 when no proxy variable is in the environment: no handle crosses a proxy. */
int engine_no_env_proxy(const engine *e);
/** The scenarios, for the script's load to declare them (lquern.c); the
 *  rest reads them through engine_scens. */
scen_set *engine_declared(engine *e);
/** The run's configuration (copied at engine_new). */
const engine_cfg *engine_config(const engine *e);
/** The current interval's statistics of step i (0 <= i < nsteps): where a
 *  protocol records what is neither a sample nor a VU's (its messages). */
step_stats *engine_step_stats(engine *e, int i);
/** VUs created so far, the VU of slot i (i < engine_nvus), and the slot
 *  of v. */
uint32_t engine_nvus(const engine *e);
struct vu *engine_vu(engine *e, uint32_t i);
uint32_t engine_vu_slot(const engine *e, const struct vu *v);
/** The run's request options (--resolve), NULL when none. */
const struct reqopt *engine_run_reqopt(const engine *e);
/** --trace's state, NULL when off. */
struct trace *engine_trace(const engine *e);
/** The CA bundle a request without `ca` uses, NULL for libcurl's own. */
const char *engine_env_ca(const engine *e);
/** The traceparent ids' generator, seeded once. */
struct traceid_gen *engine_traceid(engine *e);
/** The User-Agent header alone (compressed 0), or with Accept-Encoding
 *  (1): for a request with no header of its own. */
struct curl_slist *engine_user_agent(const engine *e, int compressed);
/** Each distinct URL parsed once (worker/wire/urlc.h), for the run. */
struct urlc *engine_urls(engine *e);
/** The next sample sequence number, from 1 (0 is none). */
uint32_t engine_next_seq(engine *e);
/** 1 once the script has loaded: no more declarations. */
int engine_loaded(const engine *e);
/** The script's checks and metrics of the current interval. */
tally *engine_script_tally(engine *e);
/** What the script's load asked for (properties, feeders: quern check). */
loadinfo *engine_loadinfo(engine *e);
/** worker/lua/lcheck.c's state in this engine. */
struct lcheck_state *engine_checks(engine *e);
/** The WebSockets whose VU's phase ended, finishing their close
 *  (worker/plugs/websocket.h): the list's head. */
struct websocket **engine_ws_closing(engine *e);
/** The current interval's number, from 0, and the run's start, monotonic
 *  and wall clock (microseconds). */
uint64_t engine_second(const engine *e);
int64_t engine_t0_us(const engine *e);
int64_t engine_t0_wall_us(const engine *e);
/** VUs started and not done now. */
uint32_t engine_active_vus(const engine *e);
/** Queues the VU's transfer (v->xh->easy, options set): it starts with the
 *  others queued in this loop iteration, just before the loop waits. */
void engine_start_xfer(engine *e, struct vu *v);
/** Lets the engine see the sockets easy opens and closes (set once). */
void engine_watch_sockets(engine *e, CURL *easy);
/** The delay to give an ev_timer started now so that it expires us
 *  microseconds from this moment, not from the loop's cached time (which it
 *  updates). */
double engine_after(engine *e, int64_t us);
/** Uniform random integer in [lo, hi]. */
int64_t engine_rand_range(engine *e, int64_t lo, int64_t hi);
/** Logs a script error with its traceback, a bounded number of times. */
void engine_log_script_error(engine *e, struct vu *v, const char *msg);

#endif
