/* opts — the options of `quern run`: their table, their parsing and their
 * help, in one place so that a flag and its help cannot drift apart.
 *
 * What it is for: run.c turns argv into a run_opts with opts_parse (on
 * getopt_long: --flag VALUE, --flag=VALUE, short flags, the script anywhere
 * among them), then reads the properties with opts_load_props. Every error
 * is one line on stderr naming the flag ("quern run: --vus: ..."), and the
 * run stops before it starts anything. `quern help run` prints opts_usage.
 *
 * Usage:
 *     run_opts o;
 *     props *over = props_new();
 *     opts_init(&o, argc, argv);
 *     if (opts_parse(&o, argc, argv, over) != 0)
 *         return RUN_EXIT_USAGE;
 *     props *p = opts_load_props(o.script, o.props_file, over, err, sizeof(err));
 *     ...
 *     opts_free(&o); */
#ifndef QUERN_OPTS_H
#define QUERN_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/capacity.h"
#include "common/rate.h"
#include "common/stages.h"
#include "console/monitor_expo.h"

/** --profile targets a run may have. */
#define OPTS_PROFILE_MAX 8
#include "console/thresh.h"
#include "store/dbopts.h"

struct props;

/** Default listen address of the console. */
#define OPTS_LISTEN_DEFAULT "127.0.0.1:6372"
/** Most agents one run may wait for (half the console's connections). */
#define OPTS_AGENTS_MAX 1024
/** Default --metrics-linger: the endpoint outlives the run by 5 s. */
#define OPTS_METRICS_LINGER_US 5000000

/** Bits of run_opts.given. */
#define OPTS_GIVEN_VUS 1u
#define OPTS_GIVEN_RAMP 2u
#define OPTS_GIVEN_DURATION 4u
#define OPTS_GIVEN_RUNS 8u
#define OPTS_GIVEN_RATE_STAGES 16u
#define OPTS_GIVEN_SETTLE 32u
#define OPTS_GIVEN_MAX_VUS 64u

/** The environment variable that, set to 1, makes --allow-saturation the
 *  default. */
#define OPTS_ALLOW_SATURATION_ENV "QUERN_ALLOW_SATURATION"
/** Default --max-vus: the open model's pool, every agent together. */
#define OPTS_MAX_VUS_DEFAULT 1000u
/** Largest --max-vus. */
#define OPTS_MAX_VUS_MAX 1000000u
/** Default --max-lag: an arrival that waited 10 s for a VU is dropped. */
#define OPTS_MAX_LAG_US 10000000

/** What `quern run` was asked to do. */
typedef struct run_opts {
    const char *script;                  /**< borrowed from argv */
    unsigned vus, runs, workers, agents; /**< with --stages, vus is the largest target */
    int64_t duration_us, ramp_us, grace_us, wait_us; /**< --stages: duration_us is their length */
    stage *stages;                                   /**< owned: --stages, NULL without */
    size_t nstages;                                  /**< entries in stages */
    unsigned vu_ids;         /**< global VU indexes handed out: vus, or the ids the stages use,
                                  then staged_ids */
    unsigned staged_ids;     /**< the last ones: the ids of the scenarios' own stages */
    rate_stage *rate_stages; /**< owned: the open model (--rate, --rate-stages), NULL without */
    size_t nrate_stages;     /**< entries in rate_stages */
    unsigned max_vus;        /**< --max-vus: the open model's pool (vus: those created first) */
    unsigned max_in_flight; /**< --max-in-flight: requests in flight at once at most, 0: no bound */
    uint64_t worker_memory; /**< --worker-memory: bytes a worker's Lua state may hold, 0: the
                                 agent's default (common/memsize.h) */
    unsigned closed_vus;    /**< a mixed run: the closed scenarios' VUs (ids 1..closed_vus,
                                 the pool's after them), else 0 */
    int64_t max_lag_us;     /**< --max-lag: an arrival waiting longer is dropped */
    capacity_plan *cap;     /**< owned: --capacity (played as stages or rate_stages), or NULL */
    int64_t cap_settle_us;  /**< --capacity-settle: each step's first time not judged */
    unsigned given;         /**< OPTS_GIVEN_ bits: the load flags given, for their conflicts */
    const char *props_file, *summary_json, *listen, *token_file, *port_file; /**< borrowed */
    const char *metrics, *metrics_port_file; /**< borrowed: --metrics, --metrics-port-file */
    int64_t metrics_linger_us;               /**< --metrics-linger (--web's too) */
    const char *web, *web_port_file;         /**< borrowed: --web, --web-port-file */
    const char *control, *control_port_file; /**< borrowed: --control, --control-port-file */
    const char **out; /**< owned array of strings borrowed from argv: --out KIND=TARGET */
    size_t nout;
    const char **out_header; /**< owned array of strings borrowed from argv: --out-header */
    size_t nout_header;
    const char *out_token_file; /**< borrowed: --out-token-file */
    int quiet, allow_loss;
    int allow_saturation; /**< --allow-saturation: a saturated injector warns */
    int stopped_ok;       /**< --stopped-ok: a run stopped early is judged as one that ended */
    int allow_errors;     /**< --allow-errors: no default "errors<=0%" threshold */
    int embedded;         /**< no --agents nor --listen: a local agent of our own */
    thresh **th;          /**< owned array of owned thresholds (--threshold, then the script's) */
    size_t nth;
    int abort_on_fail; /**< stop the run once a threshold can no longer pass */
    const char *junit; /**< borrowed: --junit FILE */
    char **src;        /**< owned: --source-addrs, owned strings */
    size_t nsrc;
    char **resolve; /**< owned: --resolve entries, owned strings */
    size_t nresolve;
    const char *jtl;         /**< borrowed: --jtl FILE */
    const char *grinder_dir; /**< borrowed: --grinder-logs DIR */
    db_opts db;              /**< --db, --name, --tag */
    unsigned trace;          /**< --trace: 0 off, 1 VU 1 only, 2 every VU */
    int traceparent;         /**< --traceparent: W3C traceparent on every request */
    unsigned slowest;        /**< --slowest: slowest samples kept per step (default 10), 0 none */
    const char **monitor;    /**< owned array of strings borrowed from argv: --monitor URLs */
    size_t nmonitor;
    const char *
        *profile; /**< owned array of strings borrowed from argv: --profile TARGET[@AGENT] */
    size_t nprofile;
    unsigned profile_freq;   /**< --profile-freq, 0: the agent's default */
    unsigned profile_stacks; /**< --profile-stacks: 0 auto, 1 dwarf, 2 fp */
    monitor_expo_sel *msel;  /**< owned: the --monitor-metric selectors, read */
    const char **msel_text;  /**< owned array of strings borrowed from argv: them as given */
    size_t nmsel;
    int argc;    /**< the arguments, for the database */
    char **argv; /**< borrowed: argc entries, the command's argv */
} run_opts;

/** Sets the defaults (1 VU, 5 s grace, 60 s wait, 5 s metrics linger) and keeps argc/argv. */
void opts_init(run_opts *o, int argc, char **argv);
/** Parses argv (argv[0] is "run") into o, and -p K=V into overrides.
 *  Resolves what the flags imply (no --agents nor --listen: a local agent;
 *  neither --duration nor --runs: one run; --stages: their length and VU
 *  ids) and warns about a ramp-up that outlasts the run. 0 ok; -1 after one
 *  line on stderr. */
int opts_parse(run_opts *o, int argc, char **argv, struct props *overrides);
/** What the script's scenarios with stages of their own add, once it is
 *  loaded (agent/preflight.h): their ids after the run's (none of the run's
 *  when no scenario is left to play them; --vus, --ramp-up or --stages then
 *  is an error naming script), and a run that lasts their longest list if
 *  that is longer. 0, or -1 with one line in err. */
int opts_scen_stages(run_opts *o, int has_shared, uint64_t staged_ids, uint64_t staged_max,
                     int64_t stages_us, char *err, size_t errlen);
/** A scenario's own rate (its rate or rate_stages option, found by loading
 *  the script: agent/preflight.h; st borrowed, n 0 when none; constant: a
 *  rate = "R", whose length is --duration): the run plays it as --rate or
 *  --rate-stages would; closed: other scenarios play --vus beside it (a
 *  mixed run: its ids are 1..--vus, the pool's after them). script_err is
 *  why the script cannot ("" when it can). 0, or -1 with one line in err
 *  (a flag that conflicts, or script_err). */
int opts_scen_rate(run_opts *o, const rate_stage *st, size_t n, int constant, int closed,
                   const char *script_err, char *err, size_t errlen);
/** Frees what o owns (not the strings it borrows from argv). */
void opts_free(run_opts *o);
/** Prints the command's help (`quern help run`). */
void opts_usage(FILE *out);

/** Properties of a run: the file (given, or quern.properties beside the
 *  script when present), then the overrides, which win. NULL with err. */
struct props *opts_load_props(const char *script, const char *file, const struct props *overrides,
                              char *err, size_t errlen);

/** Most entries opts_own_files gives. */
#define OPTS_OWN_FILES_MAX 8

/** The files this run writes (--summary-json, --jtl, --junit, --grinder-logs's
 *  folder, the port files, --db: the bundle leaves out its -wal and -shm
 *  too) into out (OPTS_OWN_FILES_MAX entries, borrowed from o); returns how
 *  many. They are never shipped to agents (proto/bundle.h). */
size_t opts_own_files(const run_opts *o, const char **out);

#endif
