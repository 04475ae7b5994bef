/* opts — the options of `quern run`; see opts.h.
 *
 * One table holds each flag's getopt_long entry and its help, so `quern help
 * run` is printed from the same rows the parser reads. */
#include "console/opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "common/dur.h"
#include "common/mem.h"
#include "common/props.h"

/* getopt_long values of the flags without a short form. */
enum {
    OPT_RUNS = 256,
    OPT_RAMP_UP,
    OPT_GRACE,
    OPT_PROPERTIES,
    OPT_SUMMARY_JSON,
    OPT_DB,
    OPT_NAME,
    OPT_TAG,
    OPT_LISTEN,
    OPT_AGENTS,
    OPT_TOKEN_FILE,
    OPT_WAIT,
    OPT_WORKERS,
    OPT_ALLOW_AGENT_LOSS,
    OPT_PORT_FILE,
    OPT_METRICS,
    OPT_METRICS_PORT_FILE,
    OPT_METRICS_LINGER,
    OPT_SOURCE_ADDRS,
    OPT_THRESHOLD,
    OPT_ABORT_ON_FAIL,
    OPT_ALLOW_ERRORS,
    OPT_JUNIT,
    OPT_JTL,
    OPT_GRINDER_LOGS,
};

/* A row of the help: a flag (name != NULL) with its left column and its
 * text, or a paragraph of its own (name == NULL). A '\n' in text starts a
 * continuation line under the text's column. */
typedef struct opt_row {
    const char *name; /* long name, without "--" */
    int has_arg;      /* getopt_long's no_argument, required_argument, optional_argument */
    int val;          /* the short flag, or an OPT_ value */
    const char *left; /* "--vus N", "-p, --property K=V" */
    const char *text;
    size_t str; /* a plain string option: offsetof its run_opts field + 1, else 0 */
    size_t set; /* a switch: offsetof its int field in run_opts + 1, else 0 */
} opt_row;

#define STR(field) offsetof(run_opts, field) + 1, 0
#define SET(field) 0, offsetof(run_opts, field) + 1
#define APPLY 0, 0 /* handled by apply() */

static const opt_row rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern run SCRIPT.lua [options]\n\n"
     "Plays the scenarios of SCRIPT.lua with virtual users and reports per-step\n"
     "statistics: a line per second while it runs, a table at the end.\n\n"
     "options:",
     APPLY},
    {"vus", required_argument, 'u', "--vus N", "virtual users (default 1)", APPLY},
    {"duration", required_argument, 'd', "--duration D", "stop after D (e.g. 30s, 5m, 1m30s)",
     APPLY},
    {"runs", required_argument, OPT_RUNS, "--runs R",
     "stop each VU after R runs (default 1 when no --duration)", APPLY},
    {"ramp-up", required_argument, OPT_RAMP_UP, "--ramp-up D",
     "start VU i at (i-1) * D / N (default 0: all at once)", APPLY},
    {"grace", required_argument, OPT_GRACE, "--grace D",
     "time VUs get to finish their request at the end (default 5s)", APPLY},
    {"property", required_argument, 'p', "-p, --property K=V",
     "set a property (overrides the properties file)", APPLY},
    {"properties", required_argument, OPT_PROPERTIES, "--properties FILE",
     "properties file (default: quern.properties beside the\nscript, when present)",
     STR(props_file)},
    {"summary-json", required_argument, OPT_SUMMARY_JSON, "--summary-json FILE",
     "write the summary as JSON", STR(summary_json)},
    {"quiet", no_argument, 'q', "-q, --quiet", "no line per second", SET(quiet)},
    {"db", required_argument, OPT_DB, "--db FILE",
     "results database (default ./quern-results.db, or $QUERN_DB);\n--db none records nothing",
     APPLY},
    {"name", required_argument, OPT_NAME, "--name NAME",
     "run name in the database (default: the script's base name)", APPLY},
    {"tag", required_argument, OPT_TAG, "--tag KEY=VALUE", "tag the run (repeatable)", APPLY},
    {NULL, 0, 0, NULL,
     "\nDurations: 250ms, 2s, 1m30s, 1h, or a number of seconds.\n\n"
     "exit status:\n"
     "  0  the run completed (or was stopped with Ctrl-C) and every threshold passed,\n"
     "     the default ones too: errors<=0% (unless --allow-errors or a threshold about\n"
     "     errors) and count>=1\n"
     "  1  a threshold failed (or --abort-on-fail stopped the run), nothing completed,\n"
     "     or a degraded run\n"
     "  2  usage or script error (no request was sent)\n"
     "  3  the run could not start or was aborted\n\n"
     "distributed run (console) options:",
     APPLY},
    {"listen", required_argument, OPT_LISTEN, "--listen HOST:PORT",
     "accept agents here (default " OPTS_LISTEN_DEFAULT ")", STR(listen)},
    {"agents", required_argument, OPT_AGENTS, "--agents N",
     "wait for N agents, then run on all of them", APPLY},
    {"token-file", required_argument, OPT_TOKEN_FILE, "--token-file FILE",
     "shared secret the agents must prove they know (mode 600)", STR(token_file)},
    {"wait", required_argument, OPT_WAIT, "--wait D",
     "how long to wait for the agents (default 60s; exit 3)", APPLY},
    {"workers", required_argument, OPT_WORKERS, "--workers P",
     "at most P worker processes per agent", APPLY},
    {"allow-agent-loss", no_argument, OPT_ALLOW_AGENT_LOSS, "--allow-agent-loss",
     "a run that lost an agent or a worker exits 0, not 1", SET(allow_loss)},
    {"port-file", required_argument, OPT_PORT_FILE, "--port-file FILE",
     "write the port listened on (useful with port 0)", STR(port_file)},
    {"source-addrs", required_argument, OPT_SOURCE_ADDRS, "--source-addrs A,B",
     "local IP addresses the VUs' connections leave from, spread\n"
     "over the VUs by index (the injector must own them)",
     APPLY},
    {NULL, 0, 0, NULL, "\nPrometheus:", APPLY},
    {"metrics", required_argument, OPT_METRICS, "--metrics HOST:PORT",
     "serve GET /metrics (Prometheus text) while the run lasts;\n"
     "a non-loopback address needs --token-file, whose token\n"
     "scrapes send as \"Authorization: Bearer TOKEN\"",
     STR(metrics)},
    {"metrics-port-file", required_argument, OPT_METRICS_PORT_FILE, "--metrics-port-file",
     "FILE: write the metrics port there (useful with port 0)", STR(metrics_port_file)},
    {"metrics-linger", required_argument, OPT_METRICS_LINGER, "--metrics-linger D",
     "keep serving D after the run, for a last scrape (default 5s)", APPLY},
    {NULL, 0, 0, NULL, "\npass/fail:", APPLY},
    {"threshold", required_argument, OPT_THRESHOLD, "--threshold EXPR",
     "a condition the run must meet (repeatable), e.g.\n"
     "'p95<500ms', 'errors<1%', 'tps>100', 'count>=1000',\n"
     "'SC-CONSULTATION-PROFIL-STEP-2: p99<1s', 'SC-*-STEP-1: mean<200ms'\n"
     "(metrics: pN, mean, max, errors, errors.technical,\n"
     "errors.functional, tps, count; a bare number is ms)",
     APPLY},
    {"abort-on-fail", no_argument, OPT_ABORT_ON_FAIL, "--abort-on-fail",
     "stop the run once a threshold can no longer pass (after\n"
     "10 s and 100 samples for rates and percentiles; exit 1)",
     SET(abort_on_fail)},
    {"allow-errors", no_argument, OPT_ALLOW_ERRORS, "--allow-errors",
     "errors do not fail the run by themselves (without it or a\n"
     "threshold about errors, the default errors<=0% applies)",
     SET(allow_errors)},
    {"junit", required_argument, OPT_JUNIT, "--junit FILE",
     "JUnit XML: a test case per step and per threshold", STR(junit)},
    {"jtl", required_argument, OPT_JTL, "--jtl FILE",
     "JMeter CSV results: a line per step sample and per untimed\n"
     "request, from every agent (Jenkins Performance plugin)",
     STR(jtl)},
    {"grinder-logs", required_argument, OPT_GRINDER_LOGS, "--grinder-logs DIR",
     "The Grinder 3 logs of every worker: data_AGENT-N.log and\n"
     "out_AGENT-N.log (Jenkins Grinder plugin, Grinder Analyzer)",
     STR(grinder_dir)},
    {NULL, 0, 0, NULL, "\ndebugging:", APPLY},
    {"trace", optional_argument, 'v', "--trace, -v",
     "print each request and response of VU 1 (method, URL,\n"
     "status, headers, the body's first KB, timings) to stderr;\n"
     "implies -q. With --vus > 1 only VU 1 is traced, with a\n"
     "warning; --trace=all traces every VU",
     APPLY},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
#define HELP_COL 21 /* width of the left column */

void opts_usage(FILE *out)
{
    for (size_t i = 0; i < NROWS; i++) {
        const char *t = rows[i].text;
        if (rows[i].name == NULL) {
            fprintf(out, "%s\n", t);
            continue;
        }
        fprintf(out, "  %-*s", HELP_COL - 1, rows[i].left);
        for (;;) {
            const char *nl = strchr(t, '\n');
            int n = nl != NULL ? (int)(nl - t) : (int)strlen(t);
            fprintf(out, " %.*s\n", n, t);
            if (nl == NULL)
                break;
            t = nl + 1;
            fprintf(out, "  %-*s", HELP_COL - 1, "");
        }
    }
}

void opts_init(run_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof(*o));
    o->grace_us = 5000000;
    o->wait_us = 60000000;
    o->metrics_linger_us = OPTS_METRICS_LINGER_US;
    o->vus = 1;
    o->argc = argc;
    o->argv = argv;
}

void opts_free(run_opts *o)
{
    for (size_t i = 0; i < o->nth; i++)
        thresh_free(o->th[i]);
    xfree(o->th);
    o->th = NULL;
    o->nth = 0;
    for (size_t i = 0; i < o->nsrc; i++)
        xfree(o->src[i]);
    xfree(o->src);
    o->src = NULL;
    o->nsrc = 0;
    db_opts_free(&o->db);
}

static int parse_u(const char *flag, const char *v, unsigned lo, unsigned max, unsigned *out)
{
    char *end;
    unsigned long n;

    errno = 0;
    n = strtoul(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || n < lo || n > max) {
        fprintf(stderr, "quern run: %s: \"%s\" is not a whole number from %u to %u\n", flag, v, lo,
                max);
        return -1;
    }
    *out = (unsigned)n;
    return 0;
}

static int parse_d(const char *flag, const char *v, int64_t *out)
{
    char err[256];

    if (dur_parse(v, out, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s: %s\n", flag, err);
        return -1;
    }
    return 0;
}

/* --source-addrs A,B,...: local IP addresses the VUs' connections leave
 * from (VU i uses the ((i-1) mod n)-th), so that a load balancer sees many
 * clients and one injector is not limited to one address's ports. */
static int parse_addrs(const char *flag, const char *v, run_opts *o)
{
    char *list = xstrdup(v), *save = NULL;

    for (char *a = strtok_r(list, ",", &save); a != NULL; a = strtok_r(NULL, ",", &save)) {
        unsigned char buf[sizeof(struct in6_addr)];
        if (inet_pton(AF_INET, a, buf) != 1 && inet_pton(AF_INET6, a, buf) != 1) {
            fprintf(stderr, "quern run: %s: \"%s\" is not an IP address\n", flag, a);
            xfree(list);
            return -1;
        }
        o->src = xrealloc(o->src, (o->nsrc + 1) * sizeof(*o->src));
        o->src[o->nsrc++] = xstrdup(a);
    }
    xfree(list);
    if (o->nsrc == 0) {
        fprintf(stderr, "quern run: %s: give one address or more\n", flag);
        return -1;
    }
    return 0;
}

/* How many VUs start before the end of the run when the ramp-up outlasts
 * it: VU k (from 0) starts k * ramp / vus after the start, as the workers
 * compute it (worker/engine.c). */
static int64_t ramp_start_of(const run_opts *o, unsigned k)
{
    return (int64_t)((double)k * (double)o->ramp_us / (double)o->vus);
}

static unsigned ramp_started(const run_opts *o)
{
    unsigned n = (unsigned)((double)o->duration_us * (double)o->vus / (double)o->ramp_us);

    while (n > 0 && ramp_start_of(o, n - 1) >= o->duration_us)
        n--;
    while (n < o->vus && ramp_start_of(o, n) < o->duration_us)
        n++;
    return n;
}

/* The flag of row val as the messages name it: its long form. */
static const char *flag_name(int val, char *buf, size_t len)
{
    for (size_t i = 0; i < NROWS; i++)
        if (rows[i].name != NULL && rows[i].val == val) {
            snprintf(buf, len, "--%s", rows[i].name);
            return buf;
        }
    snprintf(buf, len, "-%c", val > 0 && val < 128 ? val : '?');
    return buf;
}

/* The flag the user typed at av[i], without its "=value". */
static const char *typed_flag(const char *a, char *buf, size_t len)
{
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;

    snprintf(buf, len, "%.*s", eq != NULL ? (int)(eq - a) : (int)strlen(a), a);
    return buf;
}

/* Applies one option with its value v (NULL when it has none). */
static int apply(run_opts *o, int val, const char *flag, const char *v, props *over)
{
    char err[512];

    for (size_t i = 0; i < NROWS; i++) {
        if (rows[i].name == NULL || rows[i].val != val)
            continue;
        if (rows[i].str != 0) {
            *(const char **)((char *)o + rows[i].str - 1) = v;
            return 0;
        }
        if (rows[i].set != 0) {
            *(int *)((char *)o + rows[i].set - 1) = 1;
            return 0;
        }
    }
    switch (val) {
    case 'u':
        return parse_u(flag, v, 1, 10000000, &o->vus);
    case 'd':
        return parse_d(flag, v, &o->duration_us);
    case OPT_RUNS:
        return parse_u(flag, v, 0, 1000000000, &o->runs);
    case OPT_RAMP_UP:
        return parse_d(flag, v, &o->ramp_us);
    case OPT_GRACE:
        return parse_d(flag, v, &o->grace_us);
    case OPT_WAIT:
        return parse_d(flag, v, &o->wait_us);
    case OPT_METRICS_LINGER:
        return parse_d(flag, v, &o->metrics_linger_us);
    case 'p':
        if (props_set_arg(over, v, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern run: %s: %s\n", flag, err);
            return -1;
        }
        return 0;
    case OPT_DB:
    case OPT_NAME:
    case OPT_TAG:
        if (db_opts_set(&o->db, flag, v, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern run: %s: %s\n", flag, err);
            return -1;
        }
        return 0;
    case OPT_AGENTS:
        return parse_u(flag, v, 1, OPTS_AGENTS_MAX, &o->agents);
    case OPT_WORKERS:
        return parse_u(flag, v, 1, 1024, &o->workers);
    case OPT_SOURCE_ADDRS:
        return parse_addrs(flag, v, o);
    case OPT_THRESHOLD: {
        thresh *t = thresh_parse(v, err, sizeof(err));
        if (t == NULL) {
            fprintf(stderr, "quern run: --threshold %s (see quern help run)\n", err);
            return -1;
        }
        o->th = xrealloc(o->th, (o->nth + 1) * sizeof(*o->th));
        o->th[o->nth++] = t;
        return 0;
    }
    case 'v':
        if (v != NULL && strcmp(v, "all") != 0) {
            cli_usage_err("run", "--trace=%s: the only value is \"all\"", v);
            return -1;
        }
        o->trace = v != NULL ? 2 : 1;
        o->quiet = 1; /* the live display would write over the trace */
        return 0;
    }
    return -1;
}

/* Settles what the flags imply once all are read. */
static void resolve(run_opts *o)
{
    if (o->trace == 1 && o->vus > 1)
        fprintf(stderr, "quern run: --trace traces VU 1 only of %u (--trace=all: every VU)\n",
                o->vus);
    if (o->agents == 0 && o->listen == NULL) {
        o->embedded = 1;
        o->listen = "127.0.0.1:0";
    }
    if (o->agents == 0)
        o->agents = 1;
    if (o->listen == NULL)
        o->listen = OPTS_LISTEN_DEFAULT;
    if (o->duration_us == 0 && o->runs == 0)
        o->runs = 1;
    if (o->duration_us > 0 && o->ramp_us > o->duration_us) {
        char rb[DUR_FORMAT_MAX], dbuf[DUR_FORMAT_MAX];
        fprintf(stderr,
                "quern run: warning: --ramp-up %s is longer than --duration %s: only %u of the "
                "%u VUs will start\n",
                dur_format(o->ramp_us, rb, sizeof(rb)),
                dur_format(o->duration_us, dbuf, sizeof(dbuf)), ramp_started(o), o->vus);
    }
}

int opts_parse(run_opts *o, int argc, char **argv, props *overrides)
{
    struct option lopts[NROWS + 1];
    char shorts[64], flag[64];
    size_t nl = 0, ns = 0;
    /* getopt_long reorders what it parses; the database records argv as given */
    char **av = xcalloc((size_t)argc + 1, sizeof(*av));
    int c, rc = -1;

    memcpy(av, argv, (size_t)argc * sizeof(*av));
    shorts[ns++] = ':'; /* a missing value returns ':', not '?' */
    for (size_t i = 0; i < NROWS; i++) {
        if (rows[i].name == NULL)
            continue;
        lopts[nl].name = rows[i].name;
        lopts[nl].has_arg = rows[i].has_arg;
        lopts[nl].flag = NULL;
        lopts[nl++].val = rows[i].val;
        if (rows[i].val < 128) {
            shorts[ns++] = (char)rows[i].val;
            if (rows[i].has_arg == required_argument)
                shorts[ns++] = ':';
        }
    }
    memset(&lopts[nl], 0, sizeof(lopts[nl]));
    shorts[ns] = '\0';
    opterr = 0;
    optind = 0; /* glibc: start afresh */
    while ((c = getopt_long(argc, av, shorts, lopts, NULL)) != -1) {
        if (c == '?') {
            /* av[optind - 1] holds the bad option, short or long */
            const char *a = av[optind - 1];
            if (strncmp(a, "--", 2) != 0) {
                snprintf(flag, sizeof(flag), "-%c", optopt);
                cli_usage_err("run", "unknown option %s", flag);
            } else if (optopt != 0) {
                cli_usage_err("run", "%s takes no value", typed_flag(a, flag, sizeof(flag)));
            } else {
                cli_usage_err("run", "unknown option %s", typed_flag(a, flag, sizeof(flag)));
            }
            goto out;
        }
        if (c == ':') {
            cli_usage_err("run", "%s needs a value", flag_name(optopt, flag, sizeof(flag)));
            goto out;
        }
        if (apply(o, c, flag_name(c, flag, sizeof(flag)), optarg, overrides) != 0)
            goto out;
    }
    for (int i = optind; i < argc; i++) {
        if (o->script != NULL) {
            cli_usage_err("run", "one script only, got also \"%s\"", av[i]);
            goto out;
        }
        o->script = av[i];
    }
    if (o->script == NULL) {
        cli_usage_err("run", "%s", "no script given");
        goto out;
    }
    resolve(o);
    rc = 0;
out:
    xfree(av);
    return rc;
}

props *opts_load_props(const char *script, const char *file, const props *overrides, char *err,
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
