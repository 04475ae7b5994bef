/* engine_int — the engine's state, shared by the files of worker/.
 * The rest of quern sees only engine.h. */
#ifndef QUERN_ENGINE_INT_H
#define QUERN_ENGINE_INT_H

#include <curl/curl.h>
#include <ev.h>
#include <lua.h>

#include "worker/engine/arrive.h"
#include "worker/lua/lalloc.h"
#include "worker/lua/lcheck.h"
#include "worker/engine/engine.h"
#include "worker/lua/lwatch.h"
#include "worker/wire/traceid.h"
#include "common/selfmon.h"
#include "worker/wire/urlc.h"
#include "worker/wire/vshare.h"
#include "worker/engine/vu.h"
#include "worker/wire/vustart.h"

/** When a VU of a staged load leaves: engine.leave is sorted by at_us. */
typedef struct engine_leave {
    int64_t at_us; /**< from the run's start */
    uint32_t vu;   /**< index in engine.vus */
} engine_leave;

/** A libev watcher for one socket libcurl asked us to watch. */
typedef struct sockw {
    ev_io io;
    int want;           /**< EV_READ|EV_WRITE libcurl asks for; 0: parked */
    int armed;          /**< the events io is set to */
    int conn;           /**< a connection's socket (opened through open_cb) */
    struct sockw *next; /**< borrowed: the next in the engine's free list */
} sockw;

struct engine {
    engine_cfg cfg;          /**< copy; pointers borrowed from the caller */
    struct ev_loop *loop;    /**< owned */
    CURLM *multi;            /**< owned */
    lua_State *L;            /**< owned: main state; VUs are its threads */
    lwatch watch;            /**< bounds the Lua work of the load and of each resume */
    lalloc mem;              /**< L's allocator: its memory and cfg.mem_limit (lalloc.h) */
    scen_set scens;          /**< declared by the script */
    vu *vus;                 /**< owned array of cfg.vu_count slots */
    uint32_t nvus;           /**< VUs created in vus (all in the closed model; the open
                                  model creates them as arrivals need them) */
    arrive *arr;             /**< owned: the open model, one per weighted scenario (narr);
                                  NULL in the closed one */
    size_t narr;             /**< entries of arr */
    rate_counts *acount;     /**< owned: current interval's arrivals, one per scenario */
    hist **alag;             /**< owned: current interval's start lags, one per scenario (NULL
                                  for those without arrivals); NULL in the closed model */
    step_stats *cur;         /**< owned: current interval, one per step */
    slowest **slow;          /**< owned: the run's slowest samples so far, one heap per step
                                  (cfg.slowest kept); NULL when cfg.slowest is 0 */
    traceid_gen tid;         /**< traceparent ids (worker/wire/traceid.h), seeded once */
    scen_counts *scount;     /**< owned: current interval, one per scenario */
    ev_timer curl_timer;     /**< libcurl's timeout */
    ev_prepare starter;      /**< starts the queued transfers before the loop waits */
    ev_timer kick;           /**< keeps the loop from waiting while some are still queued */
    struct vu *startq;       /**< borrowed: VUs whose transfer waits to start, in order */
    struct vu **startq_tail; /**< borrowed: where the next one is linked */
    ev_timer tick;           /**< one-second intervals */
    ev_timer end_timer;      /**< duration, then grace */
    ev_timer stop_timer;     /**< the stop's next batch of VUs (engine.c, stop_some) */
    uint32_t stop_next;      /**< the next VU the stop tells to end */
    ev_signal sig_int, sig_term;
    sockw *free_socks;      /**< owned free list */
    sockw **fdw;            /**< owned: the watcher of each descriptor, by number */
    int nfdw;               /**< entries in fdw */
    int no_env_proxy;       /**< no proxy variable in the environment */
    urlc *urls;             /**< owned: parsed URLs, outlive every transfer */
    struct trace *trace;    /**< owned: --trace, NULL when off */
    struct curl_slist *ua;  /**< owned: the User-Agent header alone, for requests with no other */
    struct reqopt *run_ro;  /**< owned: the run's request options (--resolve), NULL: none */
    char *env_ca;           /**< owned: the CA bundle when no `ca` is given (reqopt_env_ca) */
    xh *free_xh;            /**< owned: idle transfer handles */
    vshare_set vshares;     /**< the shares that hold the VUs' connections */
    uint32_t nfree_xh;      /**< handles in free_xh */
    uint32_t xh_out;        /**< handles lent to VUs now */
    uint32_t xh_peak;       /**< most lent at once since the last xh_trim */
    uint32_t xh_freed;      /**< handles freed since memory was last given back */
    uint32_t max_xfers;     /**< handles the VUs may hold at once (inflight.h), 0: no bound */
    struct vu *slotq;       /**< borrowed: VUs waiting for a handle, in order (inflight.h) */
    struct vu **slotq_tail; /**< borrowed: where the next one is linked */
    uint64_t held;          /**< this interval's requests held back for a handle */
    uint64_t held_us;       /**< their waits, summed */
    uint64_t held_max_us;   /**< the longest of them */
    char **src;             /**< owned copy of cfg.source_addrs (cfg points at it) */
    stage *stages;          /**< owned copy of cfg.stages (cfg points at it) */
    engine_leave *leave;    /**< owned: the VUs that leave before the end, by time */
    size_t nleave;          /**< entries in leave */
    size_t leave_next;      /**< the next one to leave */
    ev_timer leave_timer;   /**< fires at leave[leave_next].at_us */
    selfmon mon;            /**< the worker's own CPU and loop lag, while engine_run runs */
    int64_t t0_us;          /**< monotonic start of the run */
    int64_t load_t0_us;     /**< the load clock's start: t0_us moved on by every pause
                                 (worker/engine/steer.h); the schedule's times count from it */
    int paused;             /**< steer_pause: the load is held */
    int64_t paused_at_us;   /**< monotonic: when the pause began */
    uint64_t iv_paused_us;  /**< this interval's time paused, of pauses ended in it */
    int64_t end_left_us;    /**< the planned end's time left at the pause, -1 none */
    int steer_vus;          /**< the closed model's VUs may be steered (steer_vus) */
    uint32_t vus_target;    /**< then, VUs of a rank (vu.rank) up to this are active */
    int stages_cut;         /**< a vus N ended the stages' own starts and leaves */
    uint32_t ndormant;      /**< VUs dormant, beyond vus_target */
    ev_io ctl_io;           /**< cfg.ctl_fd, while engine_run runs */
    int64_t t0_wall_us;
    int64_t iv_start_us;    /**< monotonic start of the current interval */
    uint64_t second;        /**< current interval number */
    uint32_t active;        /**< VUs started and not done: change it through engine_active */
    uint32_t pool_idle;     /**< of active, the open model's VUs idle in the pool */
    int64_t active_mark_us; /**< when vu_us was last brought up to date */
    uint64_t vu_us;         /**< this interval's integral of active - pool_idle, VU-us */
    uint64_t run_us;        /**< this interval's ended runs' durations, summed */
    uint64_t wait_us;       /**< this interval's ended pauses between runs, summed */
    uint64_t pace_asked_us; /**< this interval's pacing slots of the runs paced, summed */
    uint64_t pace_lost_us;  /**< how late those runs started past their slot, summed */
    vustart vstart;         /**< the closed model's VUs asked to start, and first runs */
    uint32_t done;          /**< VUs done */
    uint32_t seq;           /**< sample sequence numbers */
    uint32_t errors_logged; /**< script errors logged, to bound the log */
    int loaded;             /**< the script has loaded: no more declarations */
    int stopping;           /**< 1 once engine_stop was called */
    int prefilling;         /**< engine_prefill runs: the pool's first inits, before Ready */
    uint32_t prefill_left;  /**< then, VUs made whose first init has not ended */
    uint32_t nclosed;       /**< of nvus, the closed model's VUs made by engine_new (the first
                                 slots); the open model's pool comes after them */
    int killing;            /**< 1 once the grace expired */
    enum engine_status status;
    uint64_t rng;                 /**< xorshift state for pacing and think ranges */
    char script_dir[4096];        /**< folder of the script here */
    char display_dir[4096];       /**< the same folder as the tester named it, "" if the same */
    struct curl_slist *ua_ae;     /**< owned: Accept-Encoding and User-Agent, for compressed
                                       requests with no other */
    struct websocket *ws_closing; /**< owned: WebSockets whose VU's phase ended, finishing
                                       their close (websocket.h) */
    int setup_ref;  /**< registry ref of the decoded setup data (lifecycle.h), 0: none */
    int life_ref;   /**< setup mode: registry ref of what each setup returned, 0: none */
    char *life_err; /**< owned: the first error of a setup or teardown, NULL: none */
    /** the script's soft checks and custom metrics (common/tally.h, worker/lua/lcheck.h,
     *  worker/lua/lmetric.h): metrics declared at load, check names as first used; its
     *  counts emptied each interval */
    tally tally;
    lcheck_state checks; /**< worker/lua/lcheck.c's own */
    loadinfo info; /**< the properties and feeders the script's load asked for (quern check) */
};

/** Brings vu_us (Little's N, integrated) up to now, then adds delta (+1 a VU
 *  starts, -1 one is done; 0 only integrates) to active. */
void engine_active(struct engine *e, int delta, int64_t now);
/** Brings vu_us up to now, then adds delta to pool_idle: +1 an open-model
 *  VU comes to the pool idle, -1 it leaves it (a run, or its end). An idle
 *  VU of the pool is not in the system (Little's N): it waits for an
 *  arrival, not for the server. */
void engine_pool_idle(struct engine *e, int delta, int64_t now);
/** Ends the run (its planned way) when every VU not dormant is done. */
void engine_check_dormant(struct engine *e);
/** Called when a VU reaches VU_DONE. */
void engine_vu_done(struct engine *e);
/** Called when the first init of a VU made by engine_prefill ended (well or
 *  not): the prefill ends with the last. */
void engine_prefill_done(struct engine *e);

#endif
