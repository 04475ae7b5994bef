#include "console/run.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/dur.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/props.h"
#include "console/agg.h"
#include "console/dist.h"
#include "console/summary.h"
#include "reports/db.h"
#include "worker/engine.h"

void run_usage(FILE *out)
{
    fputs("usage: quern run SCRIPT.lua [options]\n"
          "\n"
          "Plays the scenarios of SCRIPT.lua with virtual users and reports per-step\n"
          "statistics: a line per second while it runs, a table at the end.\n"
          "\n"
          "options:\n"
          "  --vus N              virtual users (default 1)\n"
          "  --duration D         stop after D (e.g. 30s, 5m, 1m30s)\n"
          "  --runs R             stop each VU after R runs (default 1 when no --duration)\n"
          "  --ramp-up D          start VU i at (i-1) * D / N (default 0: all at once)\n"
          "  --grace D            time VUs get to finish their request at the end (default 5s)\n"
          "  -p, --property K=V   set a property (overrides the properties file)\n"
          "  --properties FILE    properties file (default: quern.properties beside the\n"
          "                       script, when present)\n"
          "  --summary-json FILE  write the summary as JSON\n"
          "  -q, --quiet          no line per second\n" DB_OPTS_USAGE "\n"
          "Durations: 250ms, 2s, 1m30s, 1h, or a number of seconds.\n"
          "\n"
          "exit status:\n"
          "  0  the run completed (or was stopped with Ctrl-C)\n"
          "  1  a threshold failed, a regression, or a degraded run\n"
          "  2  usage or script error (no request was sent)\n"
          "  3  the run could not start or was aborted\n\n",
          out);
    dist_usage(out);
}

typedef struct run_opts {
    const char *script;
    unsigned vus;
    int64_t duration_us, ramp_us, grace_us;
    unsigned runs;
    const char *props_file;
    const char *summary_json;
    int quiet;
    db_opts db; /**< --db, --name, --tag */
} run_opts;

typedef struct run_ctx {
    agg agg;
    const scen_set *scens;
    int quiet;
    uint64_t *runs, *missed; /**< owned: scratch for one interval */
    db *db;                  /**< owned: results database, NULL when not recording */
    int64_t db_run;          /**< the run's id in it */
} run_ctx;

/* ---- results database (reports/db.h) */

/* Records the run's start; on failure prints why and returns -1. */
static int run_db_begin(run_ctx *c, const run_opts *o, const props *p, const scen_set *ss)
{
    const char *path = db_opts_path(&o->db);
    db_step *steps;
    const char **snames;
    db_run_info ri;
    db_agent_info ai;
    char name[256], host[256], err[1024];

    if (path == NULL)
        return 0;
    c->db = db_open(path, err, sizeof(err));
    if (c->db == NULL) {
        fprintf(stderr, "quern run: results database: %s\n", err);
        return -1;
    }
    steps = xcalloc(ss->nsteps + 1, sizeof(*steps));
    snames = xcalloc(ss->nscens + 1, sizeof(*snames));
    for (size_t i = 0; i < ss->nsteps; i++) {
        steps[i].id = ss->steps[i]->id;
        steps[i].label = ss->steps[i]->label;
        steps[i].scenario = ss->steps[i]->scen->name;
    }
    for (size_t i = 0; i < ss->nscens; i++)
        snames[i] = ss->scens[i]->name;
    memset(&ri, 0, sizeof(ri));
    ri.name = db_opts_name(&o->db, o->script, name, sizeof(name));
    ri.tags = o->db.tags;
    ri.script = o->script;
    ri.props = p;
    ri.vus = o->vus;
    ri.started_us = clock_wall_us();
    ri.steps = steps;
    ri.nsteps = ss->nsteps;
    ri.scen_names = snames;
    ri.nscens = ss->nscens;
    c->db_run = db_run_begin(c->db, &ri, err, sizeof(err));
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    memset(&ai, 0, sizeof(ai));
    ai.name = "local";
    ai.host = host;
    ai.workers = 1;
    ai.vus = o->vus;
    if (c->db_run < 0 || db_agent(c->db, c->db_run, 0, &ai, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: results database: %s\n", err);
        db_close(c->db);
        c->db = NULL;
    }
    xfree(steps);
    xfree(snames);
    return c->db != NULL ? 0 : -1;
}

/* A write failed: say so once and record nothing more. */
static void run_db_failed(run_ctx *c, const char *err)
{
    log_msg(LOG_ERROR, "results database: %s; the rest of this run is not recorded", err);
    db_close(c->db);
    c->db = NULL;
}

static void on_interval(void *ud, const engine_interval *iv)
{
    run_ctx *c = ud;
    const step_stats *l;

    for (size_t i = 0; i < iv->nscens; i++) {
        c->runs[i] = iv->scens[i].runs;
        c->missed[i] = iv->scens[i].missed_pacing;
    }
    agg_add(&c->agg, iv->steps, c->runs, c->missed, iv->length_us, iv->active_vus);
    if (c->db != NULL) {
        db_iv div = {iv->second, iv->start_wall_us, iv->length_us, iv->active_vus, iv->steps,
                     iv->nsteps, c->runs,           c->missed,     iv->nscens};
        char err[1024];
        if (db_interval(c->db, c->db_run, &div, err, sizeof(err)) != 0)
            run_db_failed(c, err);
    }
    /* The last interval of a run is short: its rate would mislead. */
    if (c->quiet || iv->length_us < 900000)
        return;
    l = &c->agg.last;
    fprintf(stderr, "[%5.0fs] VUs %5u  TPS %9.1f  errors %llu (technical %llu, functional %llu)\n",
            (double)c->agg.elapsed_us / 1e6, iv->active_vus,
            iv->length_us > 0 ? (double)l->count * 1e6 / (double)iv->length_us : 0.0,
            (unsigned long long)(l->err_tech + l->err_func), (unsigned long long)l->err_tech,
            (unsigned long long)l->err_func);
}

static int bad_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "quern run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see quern help run)\n");
    return RUN_EXIT_USAGE;
}

static int parse_dur(const char *flag, const char *val, int64_t *out)
{
    char err[256];
    if (dur_parse(val, out, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s: %s\n", flag, err);
        return -1;
    }
    return 0;
}

static int parse_uint(const char *flag, const char *val, unsigned max, unsigned *out)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(val, &end, 10);
    if (errno != 0 || end == val || *end != '\0' || val[0] == '-' || n > max) {
        fprintf(stderr, "quern run: %s: \"%s\" is not a whole number from 0 to %u\n", flag, val,
                max);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

/* Parses argv into o and p; returns -1 after printing the one error. */
static int parse_args(int argc, char **argv, run_opts *o, props *p)
{
    char err[512];

    for (int i = 1; i < argc; i++) {
        char *a = argv[i], *val = NULL;
        char flag[64];
        char *eq;

        if (a[0] != '-' || a[1] == '\0') {
            if (o->script != NULL) {
                bad_usage("one script only, got also \"%s\"", a);
                return -1;
            }
            o->script = a;
            continue;
        }
        snprintf(flag, sizeof(flag), "%s", a);
        eq = strchr(flag, '=');
        if (eq != NULL && strncmp(flag, "--", 2) == 0) {
            *eq = '\0';
            val = a + (eq - flag) + 1;
        }
#define NEEDS_VALUE()                                                                              \
    do {                                                                                           \
        if (val == NULL) {                                                                         \
            if (i + 1 >= argc) {                                                                   \
                bad_usage("%s needs a value", flag);                                               \
                return -1;                                                                         \
            }                                                                                      \
            val = argv[++i];                                                                       \
        }                                                                                          \
    } while (0)
        if (strcmp(flag, "--vus") == 0 || strcmp(flag, "-u") == 0) {
            NEEDS_VALUE();
            if (parse_uint(flag, val, 10000000, &o->vus) != 0)
                return -1;
            if (o->vus == 0) {
                bad_usage("%s must be at least 1", flag);
                return -1;
            }
        } else if (strcmp(flag, "--duration") == 0 || strcmp(flag, "-d") == 0) {
            NEEDS_VALUE();
            if (parse_dur(flag, val, &o->duration_us) != 0)
                return -1;
        } else if (strcmp(flag, "--runs") == 0) {
            NEEDS_VALUE();
            if (parse_uint(flag, val, 1000000000, &o->runs) != 0)
                return -1;
        } else if (strcmp(flag, "--ramp-up") == 0) {
            NEEDS_VALUE();
            if (parse_dur(flag, val, &o->ramp_us) != 0)
                return -1;
        } else if (strcmp(flag, "--grace") == 0) {
            NEEDS_VALUE();
            if (parse_dur(flag, val, &o->grace_us) != 0)
                return -1;
        } else if (strcmp(flag, "-p") == 0 || strcmp(flag, "--property") == 0) {
            NEEDS_VALUE();
            if (props_set_arg(p, val, err, sizeof(err)) != 0) {
                fprintf(stderr, "quern run: %s: %s\n", flag, err);
                return -1;
            }
        } else if (strcmp(flag, "--properties") == 0) {
            NEEDS_VALUE();
            o->props_file = val;
        } else if (strcmp(flag, "--summary-json") == 0) {
            NEEDS_VALUE();
            o->summary_json = val;
        } else if (strcmp(flag, "-q") == 0 || strcmp(flag, "--quiet") == 0) {
            o->quiet = 1;
        } else if (db_opts_flag(flag)) {
            NEEDS_VALUE();
            if (db_opts_set(&o->db, flag, val, err, sizeof(err)) != 0) {
                fprintf(stderr, "quern run: %s: %s\n", flag, err);
                return -1;
            }
        } else {
            bad_usage("unknown option %s", flag);
            return -1;
        }
#undef NEEDS_VALUE
    }
    if (o->script == NULL) {
        bad_usage("%s", "no script given");
        return -1;
    }
    return 0;
}

props *run_load_props(const char *script, const char *file, const props *overrides, char *err,
                      size_t errlen)
{
    props *p = props_new();
    char def[4096];
    struct stat st;

    if (file == NULL) {
        char *dup = xstrdup(script);
        snprintf(def, sizeof(def), "%s/quern.properties", dirname(dup));
        xfree(dup);
        if (stat(def, &st) == 0)
            file = def;
    }
    if (file != NULL && props_load_file(p, file, err, errlen) != 0) {
        props_free(p);
        return NULL;
    }
    for (size_t i = 0; i < props_count(overrides); i++)
        props_set(p, props_key(overrides, i), props_value(overrides, i));
    return p;
}

int run_main(int argc, char **argv)
{
    run_opts o = {.vus = 1, .grace_us = 5000000};
    props *over = props_new(), *p = NULL;
    engine *e = NULL;
    run_ctx c;
    engine_cfg cfg;
    const scen_set *ss;
    const char **ids = NULL, **labels = NULL, **names = NULL, **snames = NULL;
    char err[2048];
    int rc = RUN_EXIT_USAGE;
    enum engine_status st;
    summary_info si;

    memset(&c, 0, sizeof(c));
    if (parse_args(argc, argv, &o, over) != 0)
        goto out;
    if (access(o.script, R_OK) != 0) {
        fprintf(stderr, "quern run: cannot read script %s: %s\n", o.script, strerror(errno));
        goto out;
    }
    if (o.duration_us == 0 && o.runs == 0)
        o.runs = 1;
    p = run_load_props(o.script, o.props_file, over, err, sizeof(err));
    if (p == NULL) {
        fprintf(stderr, "quern run: %s\n", err);
        goto out;
    }

    memset(&cfg, 0, sizeof(cfg));
    cfg.script = o.script;
    cfg.props = p;
    cfg.vus_total = o.vus;
    cfg.vu_first = 1;
    cfg.vu_stride = 1;
    cfg.vu_count = o.vus;
    cfg.duration_us = o.duration_us;
    cfg.ramp_us = o.ramp_us;
    cfg.runs = o.runs;
    cfg.grace_us = o.grace_us;
    cfg.sink = on_interval;
    cfg.sink_ud = &c;
    cfg.handle_signals = 1;
    e = engine_new(&cfg, err, sizeof(err));
    if (e == NULL) {
        fprintf(stderr, "%s\n", err);
        goto out;
    }
    ss = engine_scens(e);
    agg_init(&c.agg, ss->nsteps, ss->nscens);
    c.scens = ss;
    c.quiet = o.quiet;
    c.runs = xcalloc(ss->nscens, sizeof(*c.runs));
    c.missed = xcalloc(ss->nscens, sizeof(*c.missed));
    if (run_db_begin(&c, &o, p, ss) != 0) {
        rc = RUN_EXIT_START;
        goto out;
    }

    if (!o.quiet)
        fprintf(stderr, "quern: running %s: %u VUs, %zu scenario(s), %zu step(s)\n", o.script,
                o.vus, ss->nscens, ss->nsteps);
    st = engine_run(e);

    ids = xcalloc(ss->nsteps + 1, sizeof(*ids));
    labels = xcalloc(ss->nsteps + 1, sizeof(*labels));
    names = xcalloc(ss->nsteps + 1, sizeof(*names));
    snames = xcalloc(ss->nscens + 1, sizeof(*snames));
    for (size_t i = 0; i < ss->nsteps; i++) {
        ids[i] = ss->steps[i]->id;
        labels[i] = ss->steps[i]->label;
        names[i] = ss->steps[i]->name;
    }
    for (size_t i = 0; i < ss->nscens; i++)
        snames[i] = ss->scens[i]->name;
    si.status = st == ENGINE_COMPLETED ? "completed" : st == ENGINE_STOPPED ? "stopped" : "aborted";
    if (c.db != NULL) {
        db_run_end_info ei = {si.status, clock_wall_us(), c.agg.elapsed_us, c.agg.total,
                              ss->nsteps};
        if (db_run_end(c.db, c.db_run, &ei, err, sizeof(err)) != 0)
            run_db_failed(&c, err);
    }
    si.vus = o.vus;
    si.step_ids = ids;
    si.step_labels = labels;
    si.step_names = names;
    si.scen_names = snames;
    summary_print(stdout, &c.agg, &si);
    rc = st == ENGINE_ABORTED ? RUN_EXIT_START : RUN_EXIT_OK;
    if (o.summary_json != NULL &&
        summary_write_json(o.summary_json, &c.agg, &si, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: --summary-json: %s\n", err);
        rc = RUN_EXIT_START;
    }
out:
    xfree(ids);
    xfree(labels);
    xfree(names);
    xfree(snames);
    xfree(c.runs);
    xfree(c.missed);
    db_close(c.db);
    db_opts_free(&o.db);
    if (c.scens != NULL)
        agg_free(&c.agg);
    engine_free(e);
    props_free(p);
    props_free(over);
    return rc;
}
