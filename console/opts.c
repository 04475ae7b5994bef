/* opts — the options of `quern run`; see opts.h.
 *
 * One table (common/opttab.h) holds each flag's getopt_long entry and its
 * help, so `quern help run` is printed from the same rows the parser reads. */
#include "console/opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "common/dur.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/memsize.h"
#include "common/opttab.h"
#include "common/props.h"
#include "common/slowest.h"
#include "common/hostres.h"
#include "console/monitor_host.h"
#include "console/monitor.h"
#include "agent/profiler.h"
#include "console/out.h"

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
    OPT_ALLOW_SATURATION,
    OPT_STOPPED_OK,
    OPT_PORT_FILE,
    OPT_METRICS,
    OPT_METRICS_PORT_FILE,
    OPT_OUT,
    OPT_OUT_HEADER,
    OPT_OUT_TOKEN_FILE,
    OPT_METRICS_LINGER,
    OPT_WEB,
    OPT_WEB_PORT_FILE,
    OPT_CONTROL,
    OPT_CONTROL_PORT_FILE,
    OPT_SOURCE_ADDRS,
    OPT_MAX_IN_FLIGHT,
    OPT_WORKER_MEMORY,
    OPT_RESOLVE,
    OPT_THRESHOLD,
    OPT_ABORT_ON_FAIL,
    OPT_ALLOW_ERRORS,
    OPT_JUNIT,
    OPT_JTL,
    OPT_GRINDER_LOGS,
    OPT_STAGES,
    OPT_RATE,
    OPT_RATE_STAGES,
    OPT_MAX_VUS,
    OPT_MAX_LAG,
    OPT_MONITOR,
    OPT_MONITOR_METRIC,
    OPT_PROFILE,
    OPT_PROFILE_FREQ,
    OPT_PROFILE_STACKS,
    OPT_CAPACITY,
    OPT_CAPACITY_SETTLE,
    OPT_TRACEPARENT,
    OPT_SLOWEST,
};

static const opttab_row rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern run SCRIPT.lua [options]\n\n"
     "Plays the scenarios of SCRIPT.lua with virtual users and reports per-step\n"
     "statistics: a line per second while it runs, a table at the end.\n\n"
     "options:",
     OPTTAB_NONE},
    {"vus", required_argument, 'u', "--vus N",
     "virtual users (default 1); with --rate or a --capacity of\n"
     "rates, the VUs of the pool made at the start (their init\n"
     "then), up to --max-vus",
     OPTTAB_NONE},
    {"duration", required_argument, 'd', "--duration D", "stop after D (e.g. 30s, 5m, 1m30s)",
     OPTTAB_NONE},
    {"runs", required_argument, OPT_RUNS, "--runs R",
     "stop each VU after R runs (default 1 when no --duration)", OPTTAB_NONE},
    {"ramp-up", required_argument, OPT_RAMP_UP, "--ramp-up D",
     "start VU i at (i-1) * D / N (default 0: all at once)", OPTTAB_NONE},
    {"stages", required_argument, OPT_STAGES, "--stages D:N,...",
     "a staged load: each stage moves the active VUs linearly\n"
     "from the previous target (0 at the start) to N over D,\n"
     "e.g. 3s:20,4s:20,3s:0 (up to 20 in 3s, hold 4s, down to 0\n"
     "in 3s); the run lasts the stages, then the grace. VUs leave\n"
     "after their current run, the highest index first; one that\n"
     "comes back is a new VU. Not with --vus, --ramp-up, --duration",
     OPTTAB_NONE},
    {"rate", required_argument, OPT_RATE, "--rate R",
     "the open model: R arrivals a second (200/s, 30/m, 0.5/s)\n"
     "for --duration, each starting one run at its time whatever\n"
     "the previous runs are doing; a run takes an idle VU, or a\n"
     "new one up to --max-vus (--vus are created before the start)",
     OPTTAB_NONE},
    {"rate-stages", required_argument, OPT_RATE_STAGES, "--rate-stages D:R,...",
     "the open model in stages: each moves the rate linearly\n"
     "from the previous target (0/s at the start) to R over D,\n"
     "e.g. 10s:100/s,30s:100/s,10s:0/s; the run lasts the stages.\n"
     "Not with --rate, --duration, --stages, --ramp-up, --runs",
     OPTTAB_NONE},
    {"max-vus", required_argument, OPT_MAX_VUS, "--max-vus N",
     "the open model's pool of VUs, every agent together\n"
     "(default 1000, at most 1000000; at least one a worker)",
     OPTTAB_NONE},
    {"max-lag", required_argument, OPT_MAX_LAG, "--max-lag D",
     "an arrival that waits for a VU of a full pool is counted\n"
     "late; one whose wait would pass D is dropped (default 10s)",
     OPTTAB_NONE},
    {"capacity", required_argument, OPT_CAPACITY, "--capacity START:STEP:HOLD[:MAX]",
     "a capacity search: hold START for HOLD, then START+STEP,\n"
     "... up to MAX (at most 100 steps); rates (100/s:100/s:30s:\n"
     "2000/s, the open model) or VUs (10:10:1m). Each step is\n"
     "judged on its own samples by --threshold and the script's\n"
     "thresholds (one at least); the first failing step stops\n"
     "the run. The capacity is the last step that passed (exit 0;\n"
     "1 when START failed). Not with --duration, --stages,\n"
     "--rate, --rate-stages, --ramp-up, --runs, --abort-on-fail,\n"
     "nor --vus for a staircase of VUs",
     OPTTAB_NONE},
    {"capacity-settle", required_argument, OPT_CAPACITY_SETTLE, "--capacity-settle D",
     "the first D of each step is not judged: new VUs start,\n"
     "connect and queues fill (default 1s)",
     OPTTAB_NONE},
    {"grace", required_argument, OPT_GRACE, "--grace D",
     "time VUs get to finish their request at the end (default 5s)", OPTTAB_NONE},
    {"property", required_argument, 'p', "-p, --property K=V",
     "set a property (overrides the properties file)", OPTTAB_NONE},
    {"properties", required_argument, OPT_PROPERTIES, "--properties FILE",
     "properties file (default: quern.properties beside the\nscript, when present)",
     OPTTAB_STR(run_opts, props_file)},
    {"summary-json", required_argument, OPT_SUMMARY_JSON, "--summary-json FILE",
     "write the summary as JSON (-: to standard output, every other line\n"
     "then going to stderr)",
     OPTTAB_STR(run_opts, summary_json)},
    {"quiet", no_argument, 'q', "-q, --quiet", "no line per second", OPTTAB_SET(run_opts, quiet)},
    {"db", required_argument, OPT_DB, "--db FILE",
     "results database (default ./quern-results.db, or $QUERN_DB);\n--db none records nothing",
     OPTTAB_NONE},
    {"name", required_argument, OPT_NAME, "--name NAME",
     "run name in the database (default: the script's base name)", OPTTAB_NONE},
    {"tag", required_argument, OPT_TAG, "--tag KEY=VALUE", "tag the run (repeatable)", OPTTAB_NONE},
    {NULL, 0, 0, NULL,
     "\nDurations: 250ms, 2s, 1m30s, 1h, or a number of seconds.\n\n"
     "exit status:\n"
     "  0  the run completed (or was stopped with Ctrl-C) and every threshold passed,\n"
     "     the default ones too: errors<=0% (unless --allow-errors or a threshold about\n"
     "     errors) and count>=1\n"
     "  1  a threshold failed (or --abort-on-fail stopped the run), nothing completed,\n"
     "     a degraded run, or --capacity found no capacity (even START failed)\n"
     "  2  usage or script error (no request was sent)\n"
     "  3  the run could not start or was aborted\n\n"
     "distributed run (console) options:",
     OPTTAB_NONE},
    {"listen", required_argument, OPT_LISTEN, "--listen HOST:PORT",
     "accept agents here (default " OPTS_LISTEN_DEFAULT ")", OPTTAB_STR(run_opts, listen)},
    {"agents", required_argument, OPT_AGENTS, "--agents N",
     "wait for N agents, then run on all of them", OPTTAB_NONE},
    {"token-file", required_argument, OPT_TOKEN_FILE, "--token-file FILE",
     "shared secret the agents must prove they know (mode 600,\n"
     "16 bytes at least: openssl rand -hex 32 >FILE)",
     OPTTAB_STR(run_opts, token_file)},
    {"wait", required_argument, OPT_WAIT, "--wait D",
     "how long to wait for the agents (default 60s; exit 3)", OPTTAB_NONE},
    {"workers", required_argument, OPT_WORKERS, "--workers P",
     "at most P worker processes per agent", OPTTAB_NONE},
    {"allow-agent-loss", no_argument, OPT_ALLOW_AGENT_LOSS, "--allow-agent-loss",
     "a run that lost an agent or a worker exits 0, not 1", OPTTAB_SET(run_opts, allow_loss)},
    {"allow-saturation", no_argument, OPT_ALLOW_SATURATION, "--allow-saturation",
     "a run or a capacity search whose injector did not keep up\n"
     "(more than 5 % of its seconds saturated, two at least or one\n"
     "clearly: CPU and loop lag, start lag; or a threshold failed on\n"
     "quern's own delay) warns and is judged as usual, not\n"
     "inconclusive (exit 1); the JSON verdict says \"allowed\";\n"
     "QUERN_ALLOW_SATURATION=1 makes it the default",
     OPTTAB_SET(run_opts, allow_saturation)},
    {"stopped-ok", no_argument, OPT_STOPPED_OK, "--stopped-ok",
     "a run stopped before its planned end (SIGTERM, SIGINT) is judged on\n"
     "what it did, as a run that ended; without it, it is \"stopped\", exit 1",
     OPTTAB_SET(run_opts, stopped_ok)},
    {"port-file", required_argument, OPT_PORT_FILE, "--port-file FILE",
     "write the port listened on (useful with port 0)", OPTTAB_STR(run_opts, port_file)},
    {"source-addrs", required_argument, OPT_SOURCE_ADDRS, "--source-addrs A,B",
     "local IP addresses the VUs' connections leave from, spread\n"
     "over the VUs by index (the injector must own them)",
     OPTTAB_NONE},
    {"max-in-flight", required_argument, OPT_MAX_IN_FLIGHT, "--max-in-flight N",
     "requests in flight at once at most, every agent together\n"
     "(each worker its share, by its VUs; default: no bound).\n"
     "A VU whose request would pass it waits for one to end;\n"
     "its response time counts the wait, and the end says how\n"
     "many waited. Bounds the injector's memory when every VU\n"
     "is waiting for a slow server (about 9 KB a request)",
     OPTTAB_NONE},
    {"worker-memory", required_argument, OPT_WORKER_MEMORY, "--worker-memory SIZE",
     "memory each worker's Lua state may hold (256M, 2G; 16M\n"
     "to 1T): past it the VU's Lua call fails with \"not enough\n"
     "memory\", a functional error. Default: 75 % of the agent\n"
     "host's memory shared by its workers, at least 64M",
     OPTTAB_NONE},
    {"resolve", required_argument, OPT_RESOLVE, "--resolve HOST:PORT:ADDR",
     "every request to HOST:PORT goes to ADDR, without DNS (as\n"
     "curl's --resolve; repeatable)",
     OPTTAB_NONE},
    {NULL, 0, 0, NULL, "\nPrometheus:", OPTTAB_NONE},
    {"metrics", required_argument, OPT_METRICS, "--metrics HOST:PORT",
     "serve GET /metrics (Prometheus text) while the run lasts;\n"
     "a non-loopback address needs --token-file, whose token\n"
     "scrapes send as \"Authorization: Bearer TOKEN\"",
     OPTTAB_STR(run_opts, metrics)},
    {"metrics-port-file", required_argument, OPT_METRICS_PORT_FILE, "--metrics-port-file FILE",
     "write the metrics port there (useful with port 0)", OPTTAB_STR(run_opts, metrics_port_file)},
    {"out", required_argument, OPT_OUT, "--out KIND=TARGET",
     "push the merged seconds while the run goes, and the totals at\n"
     "the end (repeatable): jsonl=FILE, influxdb=URL (the /write?db=\n"
     "of InfluxDB 1.x, /api/v2/write?org=&bucket= of 2.x) or\n"
     "prometheus-rw=URL (remote write 1.0); a receiver that is down\n"
     "or slow never slows the run: its pushes are dropped and counted",
     OPTTAB_NONE},
    {"out-header", required_argument, OPT_OUT_HEADER, "--out-header 'NAME: VALUE'",
     "an HTTP header every --out push sends (repeatable), such as\n"
     "'Authorization: Bearer TOKEN'",
     OPTTAB_NONE},
    {"out-token-file", required_argument, OPT_OUT_TOKEN_FILE, "--out-token-file FILE",
     "every --out push sends \"Authorization: Bearer TOKEN\", TOKEN\n"
     "read from FILE (kept out of the command line)",
     OPTTAB_STR(run_opts, out_token_file)},
    {"metrics-linger", required_argument, OPT_METRICS_LINGER, "--metrics-linger D",
     "keep serving D after the run, for a last scrape (default 5s;\n"
     "--web too)",
     OPTTAB_NONE},
    {"monitor", required_argument, OPT_MONITOR, "--monitor URL",
     "scrape this Prometheus endpoint of the system under test\n"
     "once a second during the run (prometheus-node-exporter:\n"
     "http://HOST:9100/metrics; repeatable): CPU by mode, run\n"
     "queue, memory, network, disk busy per host, stored with\n"
     "the run and drawn in the report; an endpoint that fails\n"
     "is reported once and the run goes on",
     OPTTAB_NONE},
    {"profile", required_argument, OPT_PROFILE, "--profile TARGET[@AGENT]",
     "profile the server while it is loaded: TARGET is comm:NAME\n"
     "(every process of that command, threads included) or pid:N,\n"
     "on the host of AGENT (default: the run's first agent, the\n"
     "local one of a one-machine run; another agent profiles only\n"
     "the targets its operator allows). On-CPU samples and off-CPU\n"
     "time with call stacks, per second, stored with the run: the\n"
     "capacity verdict names the function and the lock that limit\n"
     "it, the report draws flame graphs (repeatable; a target that\n"
     "cannot be profiled is said at the start and the run goes on)",
     OPTTAB_NONE},
    {"profile-freq", required_argument, OPT_PROFILE_FREQ, "--profile-freq HZ",
     "on-CPU samples a second of the target's CPU time (default 99,\n"
     "from 1 to 999)",
     OPTTAB_NONE},
    {"profile-stacks", required_argument, OPT_PROFILE_STACKS, "--profile-stacks auto|dwarf|fp",
     "how stacks are walked: auto (default: frame pointers on-CPU,\n"
     "DWARF off-CPU, through glibc's lock waits), dwarf (both, for\n"
     "code built without frame pointers), fp (frame pointers only,\n"
     "the cheapest)",
     OPTTAB_NONE},
    {"monitor-metric", required_argument, OPT_MONITOR_METRIC, "--monitor-metric NAME[{L=\"V\"}]",
     "also keep this series of every --monitor endpoint: the sum\n"
     "of the samples matching NAME and the labels given, a rate\n"
     "per second when NAME ends in _total (repeatable)",
     OPTTAB_NONE},
    {NULL, 0, 0, NULL, "\nlive web page:", OPTTAB_NONE},
    {"web", required_argument, OPT_WEB, "--web HOST:PORT",
     "serve a live page of the run (table, charts, agents,\n"
     "thresholds, progress; then the summary), read-only; a\n"
     "non-loopback address needs --token-file: open /?token=TOKEN\n"
     "once (a cookie then), or send it as a bearer token",
     OPTTAB_STR(run_opts, web)},
    {"web-port-file", required_argument, OPT_WEB_PORT_FILE, "--web-port-file FILE",
     "write the page's port there (useful with port 0)", OPTTAB_STR(run_opts, web_port_file)},
    {NULL, 0, 0, NULL, "\nsteering:", OPTTAB_NONE},
    {"control", required_argument, OPT_CONTROL, "--control HOST:PORT",
     "take `quern ctl` commands while the run lasts (pause,\n"
     "resume, vus N, rate R, stop), and the live page's buttons;\n"
     "a non-loopback address needs --token-file, and with\n"
     "--token-file every command must send its token. In the\n"
     "closed model `vus N` may go up to --max-vus when given,\n"
     "else 10 x --vus (at most 1000)",
     OPTTAB_STR(run_opts, control)},
    {"control-port-file", required_argument, OPT_CONTROL_PORT_FILE, "--control-port-file FILE",
     "write the control port there (useful with port 0)", OPTTAB_STR(run_opts, control_port_file)},
    {NULL, 0, 0, NULL, "\npass/fail:", OPTTAB_NONE},
    {"threshold", required_argument, OPT_THRESHOLD, "--threshold EXPR",
     "a condition the run must meet (repeatable), e.g.\n"
     "'p95<500ms', 'errors<1%', 'tps>100', 'count>=1000',\n"
     "'SC-CONSULTATION-PROFIL-STEP-2: p99<1s', 'SC-*-STEP-1: mean<200ms'\n"
     "(metrics: pN, mean, max, errors, errors.technical,\n"
     "errors.functional, tps, count; a bare number is ms);\n"
     "a window holds it in every D seconds: 'p95[10s]<300ms';\n"
     "the script's soft checks and metrics: 'checks>=99%',\n"
     "'checks{status is 200}>=99%', 'metric{orders}>=100',\n"
     "'metric{basket}.p95<200'",
     OPTTAB_NONE},
    {"abort-on-fail", no_argument, OPT_ABORT_ON_FAIL, "--abort-on-fail",
     "stop the run once a threshold can no longer pass (after\n"
     "10 s and 100 samples for rates and percentiles; exit 1)",
     OPTTAB_SET(run_opts, abort_on_fail)},
    {"allow-errors", no_argument, OPT_ALLOW_ERRORS, "--allow-errors",
     "errors do not fail the run by themselves (without it or a\n"
     "threshold about errors, the default errors<=0% applies)",
     OPTTAB_SET(run_opts, allow_errors)},
    {"junit", required_argument, OPT_JUNIT, "--junit FILE",
     "JUnit XML: a test case per step and per threshold", OPTTAB_STR(run_opts, junit)},
    {"jtl", required_argument, OPT_JTL, "--jtl FILE",
     "JMeter CSV results: a line per step sample and per untimed\n"
     "request, from every agent (Jenkins Performance plugin)",
     OPTTAB_STR(run_opts, jtl)},
    {"traceparent", no_argument, OPT_TRACEPARENT, "--traceparent",
     "every request carries a fresh W3C traceparent header\n"
     "(sampled); its trace id is kept with the error samples,\n"
     "the slowest samples, --trace and the JTL (traceId column)",
     OPTTAB_SET(run_opts, traceparent)},
    {"slowest", required_argument, OPT_SLOWEST, "--slowest N",
     "keep each step's N slowest samples of the run (latency,\n"
     "start, VU, trace id) for the summary, database and report\n"
     "(default 10, at most 1000; 0: none)",
     OPTTAB_NONE},
    {"grinder-logs", required_argument, OPT_GRINDER_LOGS, "--grinder-logs DIR",
     "The Grinder 3 logs of every worker: data_AGENT-N.log and\n"
     "out_AGENT-N.log (Jenkins Grinder plugin, Grinder Analyzer)",
     OPTTAB_STR(run_opts, grinder_dir)},
    {NULL, 0, 0, NULL, "\ndebugging:", OPTTAB_NONE},
    {"trace", optional_argument, 'v', "--trace, -v",
     "print each request and response of VU 1 (method, URL,\n"
     "status, headers, the body's first KB, timings) to stderr;\n"
     "implies -q. With --vus > 1 only VU 1 is traced, with a\n"
     "warning; --trace=all traces every VU",
     OPTTAB_NONE},
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
/* The script anywhere among the flags; a flag named by its row ("--vus"
 * for -u) in every message. */
static const opttab tab = {rows, NROWS, 21, .args = OPTTAB_ARGS_AFTER, .named = 1};

void opts_usage(FILE *out)
{
    opttab_usage(&tab, out);
}

void opts_init(run_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof(*o));
    o->grace_us = 5000000;
    o->wait_us = 60000000;
    o->metrics_linger_us = OPTS_METRICS_LINGER_US;
    o->vus = 1;
    o->max_vus = OPTS_MAX_VUS_DEFAULT;
    o->max_lag_us = OPTS_MAX_LAG_US;
    o->slowest = SLOWEST_DEFAULT;
    o->cap_settle_us = CAPACITY_SETTLE_US;
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
    for (size_t i = 0; i < o->nresolve; i++)
        xfree(o->resolve[i]);
    xfree(o->resolve);
    o->resolve = NULL;
    o->nresolve = 0;
    db_opts_free(&o->db);
    xfree(o->stages);
    o->stages = NULL;
    o->nstages = 0;
    xfree(o->rate_stages);
    o->rate_stages = NULL;
    o->nrate_stages = 0;
    xfree(o->monitor);
    o->monitor = NULL;
    o->nmonitor = 0;
    xfree(o->profile);
    o->profile = NULL;
    o->nprofile = 0;
    xfree(o->out);
    o->out = NULL;
    o->nout = 0;
    xfree(o->out_header);
    o->out_header = NULL;
    o->nout_header = 0;
    xfree(o->msel);
    xfree(o->msel_text);
    o->msel = NULL;
    o->msel_text = NULL;
    o->nmsel = 0;
    xfree(o->cap);
    o->cap = NULL;
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

static int parse_worker_memory(const char *flag, const char *v, uint64_t *out)
{
    char err[ERR_MAX];

    if (memsize_parse(v, out, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s: %s\n", flag, err);
        return -1;
    }
    if (*out < MEMSIZE_WORKER_MIN || *out > MEMSIZE_WORKER_MAX) {
        fprintf(stderr, "quern run: %s: \"%s\" is not from 16M to 1T\n", flag, v);
        return -1;
    }
    return 0;
}

static int parse_d(const char *flag, const char *v, int64_t *out)
{
    char err[ERR_MAX];

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
        o->src = xreallocarray(o->src, (o->nsrc + 1), sizeof(*o->src));
        o->src[o->nsrc++] = xstrdup(a);
    }
    xfree(list);
    if (o->nsrc == 0) {
        fprintf(stderr, "quern run: %s: give one address or more\n", flag);
        return -1;
    }
    return 0;
}

/* --stages D:N,...: a staged load (common/stages.h). */
static int parse_stages(const char *flag, const char *v, run_opts *o)
{
    char err[ERR_MAX];
    stage *st = xcalloc(STAGES_MAX, sizeof(*st));
    size_t n;

    if (stages_parse(v, st, STAGES_MAX, &n, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s: %s\n", flag, err);
        xfree(st);
        return -1;
    }
    if (stages_ids(st, n) > STAGES_VUS_MAX) {
        fprintf(stderr,
                "quern run: %s: the stages use %llu VUs in all (each climb adds new ones), "
                "more than %u\n",
                flag, (unsigned long long)stages_ids(st, n), STAGES_VUS_MAX);
        xfree(st);
        return -1;
    }
    xfree(o->stages);
    o->stages = st;
    o->nstages = n;
    return 0;
}

/* How many VUs start before the end of the run when the ramp-up outlasts
 * it: VU k (from 0) starts k * ramp / vus after the start, as the workers
 * compute it (worker/engine/engine.c). */
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

/* One usage error line of the open model's flags: "quern run: ..." and the
 * pointer to the help, as cli_usage_err writes them. */
static void usage_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void usage_line(const char *fmt, ...)
{
    va_list ap;

    fputs("quern run: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see quern help run)\n", stderr);
}

/* --rate R (one stage at R, its length set by --duration in resolve) and
 * --rate-stages D:R,... (common/rate.h). */
static int parse_rate(const char *flag, const char *v, int staged, run_opts *o)
{
    char err[ERR_MAX];
    rate_stage *st = xcalloc(staged ? RATE_STAGES_MAX : 2, sizeof(*st));
    size_t n = 2;

    if (o->rate_stages != NULL) {
        usage_line("--rate and --rate-stages: give one of them, once");
        xfree(st);
        return -1;
    }
    if (staged ? rate_stages_parse(v, st, RATE_STAGES_MAX, &n, err, sizeof(err))
               : rate_parse(v, 0, &st[1].per_s, err, sizeof(err))) {
        usage_line("%s: %s", flag, err);
        xfree(st);
        return -1;
    }
    if (!staged)
        st[0].per_s = st[1].per_s; /* a jump to R at the start, then R */
    else
        o->given |= OPTS_GIVEN_RATE_STAGES;
    o->rate_stages = st;
    o->nrate_stages = n;
    return 0;
}

/* --capacity START:STEP:HOLD[:MAX] (common/capacity.h). */
static int parse_capacity(const char *flag, const char *v, run_opts *o)
{
    char err[ERR_MAX];
    capacity_plan p;

    if (o->cap != NULL) {
        usage_line("%s: give it once", flag);
        return -1;
    }
    if (capacity_parse(v, &p, err, sizeof(err)) != 0) {
        usage_line("%s: %s", flag, err);
        return -1;
    }
    o->cap = xmalloc(sizeof(*o->cap));
    *o->cap = p;
    return 0;
}

/* --capacity sets the load and the run's length: it is played as --stages
 * or --rate-stages would be, the flags that shape a load otherwise refused
 * by name. */
static int check_capacity(run_opts *o)
{
    static const struct {
        unsigned bit;
        const char *flag; /* borrowed: a literal */
    } other[] = {{OPTS_GIVEN_VUS, "--vus"},
                 {OPTS_GIVEN_RAMP, "--ramp-up"},
                 {OPTS_GIVEN_DURATION, "--duration"},
                 {OPTS_GIVEN_RUNS, "--runs"},
                 {OPTS_GIVEN_RATE_STAGES, "--rate-stages"}};
    char err[ERR_MAX];

    if (o->cap == NULL) {
        if (o->given & OPTS_GIVEN_SETTLE) {
            usage_line("--capacity-settle needs --capacity");
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        /* an open search's --vus is its pool made at the start (their init
         * in the first step's settle time), not a load */
        if ((o->given & other[i].bit) && !(other[i].bit == OPTS_GIVEN_VUS && o->cap->open)) {
            usage_line("--capacity and %s cannot be used together (the staircase sets the load "
                       "and the run's length)",
                       other[i].flag);
            return -1;
        }
    if (o->stages != NULL || o->rate_stages != NULL || o->abort_on_fail) {
        usage_line("--capacity and %s cannot be used together (the staircase sets the load; "
                   "its steps stop the run)",
                   o->stages != NULL        ? "--stages"
                   : o->rate_stages != NULL ? "--rate"
                                            : "--abort-on-fail");
        return -1;
    }
    if (capacity_check_settle(o->cap, o->cap_settle_us, err, sizeof(err)) != 0) {
        usage_line("--capacity-settle: %s", err);
        return -1;
    }
    if (o->cap->open) {
        o->rate_stages = xcalloc(2 * o->cap->nsteps, sizeof(*o->rate_stages));
        o->nrate_stages = capacity_rate_stages(o->cap, o->rate_stages);
        o->given |= OPTS_GIVEN_RATE_STAGES;
    } else {
        o->stages = xcalloc(2 * o->cap->nsteps, sizeof(*o->stages));
        o->nstages = capacity_stages(o->cap, o->stages);
    }
    return 0;
}

/* Applies one option with its value v (NULL when it has none). */
/* A flag that may be given more than once, each value added to its list
 * (--resolve, --out, --out-header, --monitor, --monitor-metric,
 * --threshold), checked and bounded. 0, or -1 after its usage line. */
static int add_listed(run_opts *o, int val, const char *flag, const char *v)
{
    char err[ERR_MAX];

    switch (val) {
    case OPT_RESOLVE:
        if (o->nresolve >= HOSTRES_ENTRIES_MAX) {
            fprintf(stderr, "quern run: %s: at most %d entries\n", flag, HOSTRES_ENTRIES_MAX);
            return -1;
        }
        if (hostres_check(v, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern run: %s: %s\n", flag, err);
            return -1;
        }
        o->resolve = xreallocarray(o->resolve, (o->nresolve + 1), sizeof(*o->resolve));
        o->resolve[o->nresolve++] = xstrdup(v);
        return 0;
    case OPT_OUT:
        if (o->nout >= OUT_MAX) {
            usage_line("%s: at most %d outputs", flag, OUT_MAX);
            return -1;
        }
        o->out = xreallocarray(o->out, (o->nout + 1), sizeof(*o->out));
        o->out[o->nout++] = v;
        return 0;
    case OPT_OUT_HEADER:
        if (o->nout_header >= OUT_MAX) {
            usage_line("%s: at most %d headers", flag, OUT_MAX);
            return -1;
        }
        o->out_header = xreallocarray(o->out_header, (o->nout_header + 1), sizeof(*o->out_header));
        o->out_header[o->nout_header++] = v;
        return 0;
    case OPT_MONITOR:
        if (o->nmonitor >= MONITOR_URLS_MAX) {
            usage_line("%s: at most %d endpoints", flag, MONITOR_URLS_MAX);
            return -1;
        }
        if (monitor_check_url(v, err, sizeof(err)) != 0) {
            usage_line("%s: %s", flag, err);
            return -1;
        }
        o->monitor = xreallocarray(o->monitor, (o->nmonitor + 1), sizeof(*o->monitor));
        o->monitor[o->nmonitor++] = v;
        return 0;
    case OPT_PROFILE: {
        char target[128];
        const char *at = strchr(v, '@');
        size_t tl = at != NULL ? (size_t)(at - v) : strlen(v);
        if (o->nprofile >= OPTS_PROFILE_MAX) {
            usage_line("%s: at most %d targets", flag, OPTS_PROFILE_MAX);
            return -1;
        }
        if (tl >= sizeof(target) || (at != NULL && at[1] == '\0')) {
            usage_line("%s: \"%s\" is not TARGET[@AGENT]", flag, v);
            return -1;
        }
        memcpy(target, v, tl);
        target[tl] = '\0';
        if (profiler_parse(target, err, sizeof(err)) != 0) {
            usage_line("%s: %s", flag, err);
            return -1;
        }
        o->profile = xreallocarray(o->profile, (o->nprofile + 1), sizeof(*o->profile));
        o->profile[o->nprofile++] = v;
        return 0;
    }
    case OPT_MONITOR_METRIC:
        if (o->nmsel >= MONITOR_HOST_SELS_MAX) {
            usage_line("%s: at most %d series", flag, MONITOR_HOST_SELS_MAX);
            return -1;
        }
        o->msel = xreallocarray(o->msel, (o->nmsel + 1), sizeof(*o->msel));
        o->msel_text = xreallocarray(o->msel_text, (o->nmsel + 1), sizeof(*o->msel_text));
        if (monitor_expo_sel_parse(v, &o->msel[o->nmsel], err, sizeof(err)) != 0) {
            usage_line("%s: %s", flag, err);
            return -1;
        }
        o->msel_text[o->nmsel++] = v;
        return 0;
    case OPT_THRESHOLD: {
        thresh *t = thresh_parse(v, err, sizeof(err));
        if (t == NULL) {
            fprintf(stderr, "quern run: --threshold %s (see quern help run)\n", err);
            return -1;
        }
        o->th = xreallocarray(o->th, (o->nth + 1), sizeof(*o->th));
        o->th[o->nth++] = t;
        return 0;
    }
    }
    return -1;
}

static int apply(run_opts *o, int val, const char *flag, const char *v, props *over)
{
    char err[ERR_MAX];

    if (opttab_plain(&tab, val, v, o))
        return 0;
    switch (val) {
    case 'u':
        o->given |= OPTS_GIVEN_VUS;
        return parse_u(flag, v, 1, 10000000, &o->vus);
    case 'd':
        o->given |= OPTS_GIVEN_DURATION;
        return parse_d(flag, v, &o->duration_us);
    case OPT_STAGES:
        return parse_stages(flag, v, o);
    case OPT_RATE:
        return parse_rate(flag, v, 0, o);
    case OPT_RATE_STAGES:
        return parse_rate(flag, v, 1, o);
    case OPT_CAPACITY:
        return parse_capacity(flag, v, o);
    case OPT_CAPACITY_SETTLE:
        o->given |= OPTS_GIVEN_SETTLE;
        return parse_d(flag, v, &o->cap_settle_us);
    case OPT_MAX_VUS:
        o->given |= OPTS_GIVEN_MAX_VUS;
        return parse_u(flag, v, 1, OPTS_MAX_VUS_MAX, &o->max_vus);
    case OPT_MAX_LAG:
        if (parse_d(flag, v, &o->max_lag_us) != 0)
            return -1;
        if (o->max_lag_us <= 0) {
            usage_line("%s: the lag must be above 0", flag);
            return -1;
        }
        return 0;
    case OPT_RUNS:
        o->given |= OPTS_GIVEN_RUNS;
        return parse_u(flag, v, 0, 1000000000, &o->runs);
    case OPT_RAMP_UP:
        o->given |= OPTS_GIVEN_RAMP;
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
    case OPT_MAX_IN_FLIGHT:
        return parse_u(flag, v, 1, OPTS_MAX_VUS_MAX, &o->max_in_flight);
    case OPT_SLOWEST:
        return parse_u(flag, v, 0, SLOWEST_MAX, &o->slowest);
    case OPT_WORKER_MEMORY:
        return parse_worker_memory(flag, v, &o->worker_memory);
    case OPT_SOURCE_ADDRS:
        return parse_addrs(flag, v, o);
    case OPT_RESOLVE:
    case OPT_OUT:
    case OPT_OUT_HEADER:
    case OPT_MONITOR:
    case OPT_MONITOR_METRIC:
    case OPT_PROFILE:
    case OPT_THRESHOLD:
        return add_listed(o, val, flag, v);
    case OPT_PROFILE_FREQ: {
        char *end;
        unsigned long hz = strtoul(v, &end, 10);
        if (*v == '\0' || *end != '\0' || hz < 1 || hz > 999) {
            usage_line("%s: \"%s\" is not a frequency from 1 to 999", flag, v);
            return -1;
        }
        o->profile_freq = (unsigned)hz;
        return 0;
    }
    case OPT_PROFILE_STACKS:
        if (strcmp(v, "auto") == 0)
            o->profile_stacks = 0;
        else if (strcmp(v, "dwarf") == 0)
            o->profile_stacks = 1;
        else if (strcmp(v, "fp") == 0)
            o->profile_stacks = 2;
        else {
            usage_line("%s: \"%s\" is not auto, dwarf or fp", flag, v);
            return -1;
        }
        return 0;
    case 'v':
        if (v != NULL && strcmp(v, "all") != 0) {
            usage_line("--trace=%s: the only value is \"all\"", v);
            return -1;
        }
        o->trace = v != NULL ? 2 : 1;
        o->quiet = 1; /* the live display would write over the trace */
        return 0;
    }
    return -1;
}

/* --stages replaces --vus, --ramp-up and --duration: one line naming both
 * flags when they meet. */
static int check_stages(const run_opts *o)
{
    static const struct {
        unsigned bit;
        const char *flag; /* borrowed: a literal */
    } other[] = {{OPTS_GIVEN_VUS, "--vus"},
                 {OPTS_GIVEN_RAMP, "--ramp-up"},
                 {OPTS_GIVEN_DURATION, "--duration"}};

    if (o->stages == NULL)
        return 0;
    for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
        if (o->given & other[i].bit) {
            usage_line("--stages and %s cannot be used together (the stages set the VUs, "
                       "their ramps and the run's length)",
                       other[i].flag);
            return -1;
        }
    return 0;
}

/* The open model: --rate needs --duration (its length), --rate-stages set
 * it; neither goes with the closed model's shapes. One line naming the
 * flags. */
static int check_rate(run_opts *o)
{
    const char *rate = (o->given & OPTS_GIVEN_RATE_STAGES) ? "--rate-stages" : "--rate";

    if (o->rate_stages == NULL)
        return 0;
    if (o->stages != NULL || (o->given & (OPTS_GIVEN_RAMP | OPTS_GIVEN_RUNS))) {
        usage_line("%s and %s cannot be used together (arrivals start the runs: no ramp of "
                   "VUs, no runs per VU)",
                   rate,
                   o->stages != NULL              ? "--stages"
                   : (o->given & OPTS_GIVEN_RAMP) ? "--ramp-up"
                                                  : "--runs");
        return -1;
    }
    if (!(o->given & OPTS_GIVEN_RATE_STAGES) && !(o->given & OPTS_GIVEN_DURATION)) {
        usage_line("--rate needs --duration (how long the arrivals go on)");
        return -1;
    }
    if ((o->given & OPTS_GIVEN_RATE_STAGES) && (o->given & OPTS_GIVEN_DURATION)) {
        usage_line("--rate-stages and --duration cannot be used together (the stages "
                   "set the run's length)");
        return -1;
    }
    if (o->vus > o->max_vus) {
        usage_line("--vus %u is more than --max-vus %u (the pool's size)", o->vus, o->max_vus);
        return -1;
    }
    if (!(o->given & OPTS_GIVEN_RATE_STAGES)) {
        o->rate_stages[1].dur_us = o->duration_us;
        if (rate_stages_check(o->rate_stages, 2, NULL, 0) != 0) {
            usage_line("--rate over --duration: no arrival at all");
            return -1;
        }
    }
    o->duration_us = rate_total_us(o->rate_stages, o->nrate_stages);
    return 0;
}

/* Settles what the flags imply once all are read. */
static void resolve(run_opts *o)
{
    if (o->stages != NULL) {
        o->vus = stages_max(o->stages, o->nstages);
        o->duration_us = stages_total_us(o->stages, o->nstages);
        o->vu_ids = (unsigned)stages_ids(o->stages, o->nstages);
    } else if (o->rate_stages != NULL) {
        o->vu_ids = o->max_vus; /* the pool; each worker's share is created as needed */
    } else {
        o->vu_ids = o->vus;
    }
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

/* What opts_one works on. */
typedef struct opts_args {
    run_opts *o; /* borrowed: the options being filled */
    props *over; /* borrowed: the -p overrides */
} opts_args;

/* opttab_parse's handler: a flag goes to apply, which says why it refuses
 * one; the script is the one argument. */
static int opts_one(void *ctx, int val, const char *flag, const char *v, char *err, size_t errlen)
{
    opts_args *g = ctx;

    if (val != OPTTAB_ARG)
        return apply(g->o, val, flag, v, g->over);
    if (g->o->script != NULL) {
        err_set(err, errlen, "one script only, got also \"%s\"", v);
        return -1;
    }
    g->o->script = v;
    return 0;
}

int opts_parse(run_opts *o, int argc, char **argv, props *overrides)
{
    opts_args g = {o, overrides};
    /* not ERR_MAX: a usage error quotes the value given (tests/lint/errrule.allow) */
    char err[1024];
    /* getopt_long reorders what it parses; the database records argv as given */
    char **av = xcalloc((size_t)argc + 1, sizeof(*av));
    int rc = -1;

    memcpy(av, argv, (size_t)argc * sizeof(*av));
    /* --allow-saturation's default, for a box known to be slower than its
     * target (a CI job on a sanitizer build) */
    if (getenv(OPTS_ALLOW_SATURATION_ENV) != NULL &&
        strcmp(getenv(OPTS_ALLOW_SATURATION_ENV), "1") == 0)
        o->allow_saturation = 1;
    if (opttab_parse(&tab, argc, av, opts_one, &g, err, sizeof(err)) != 0) {
        if (err[0] != '\0')
            cli_usage_err("run", "%s", err);
        goto out;
    }
    if (o->script == NULL) {
        cli_usage_err("run", "%s", "no script given");
        goto out;
    }
    if (check_capacity(o) != 0 || check_stages(o) != 0 || check_rate(o) != 0)
        goto out;
    if (o->nmsel > 0 && o->nmonitor == 0) {
        usage_line("--monitor-metric needs --monitor (the endpoints to read it from)");
        goto out;
    }
    resolve(o);
    rc = 0;
out:
    xfree(av);
    return rc;
}

int opts_scen_stages(run_opts *o, int has_shared, uint64_t staged_ids, uint64_t staged_max,
                     int64_t stages_us, char *err, size_t errlen)
{
    unsigned shared = o->vu_ids;

    if (staged_ids == 0)
        return 0;
    if (!has_shared) {
        const char *flag = o->cap != NULL                 ? "--capacity"
                           : o->stages != NULL            ? "--stages"
                           : (o->given & OPTS_GIVEN_VUS)  ? "--vus"
                           : (o->given & OPTS_GIVEN_RAMP) ? "--ramp-up"
                                                          : NULL;
        if (flag != NULL) {
            err_set(err, errlen,
                    "quern run: %s: every scenario of %s has stages of its own: no VU is left "
                    "for it",
                    flag, o->script);
            return -1;
        }
        shared = 0;
    }
    if ((uint64_t)shared + staged_ids > STAGES_VUS_MAX) {
        err_set(err, errlen,
                "quern run: the run and its scenarios' stages use %llu VUs, more than %u",
                (unsigned long long)shared + staged_ids, STAGES_VUS_MAX);
        return -1;
    }
    o->staged_ids = (unsigned)staged_ids;
    o->vu_ids = shared + o->staged_ids;
    o->vus = (has_shared ? o->vus : 0) + (unsigned)staged_max;
    if (stages_us > o->duration_us) {
        /* one run each was only the default of a run with no length */
        if (o->duration_us == 0 && !(o->given & OPTS_GIVEN_RUNS))
            o->runs = 0;
        o->duration_us = stages_us;
    }
    return 0;
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

int opts_scen_rate(run_opts *o, const rate_stage *st, size_t n, int constant, int closed,
                   const char *script_err, char *err, size_t errlen)
{
    const char *flag = o->cap != NULL                                  ? "--capacity"
                       : o->rate_stages != NULL                        ? "--rate or --rate-stages"
                       : o->stages != NULL                             ? "--stages"
                       : (o->given & OPTS_GIVEN_RAMP)                  ? "--ramp-up"
                       : (o->given & OPTS_GIVEN_RUNS)                  ? "--runs"
                       : constant || !(o->given & OPTS_GIVEN_DURATION) ? NULL
                                                                       : "--duration";

    if (n == 0)
        return 0;
    if (script_err != NULL && script_err[0] != '\0') {
        err_set(err, errlen, "%s", script_err);
        return -1;
    }
    if (flag != NULL) {
        err_set(err, errlen,
                "quern run: %s: a scenario of %s has a rate of its own (the open model), which "
                "sets the arrivals%s",
                flag, o->script, constant ? "" : " and the run's length");
        return -1;
    }
    if (constant && !(o->given & OPTS_GIVEN_DURATION)) {
        err_set(err, errlen,
                "quern run: a scenario of %s has a rate: give --duration (how long the arrivals "
                "go on)",
                o->script);
        return -1;
    }
    if (!closed && o->vus > o->max_vus) {
        err_set(err, errlen, "quern run: --vus %u is more than --max-vus %u (the pool's size)",
                o->vus, o->max_vus);
        return -1;
    }
    o->rate_stages = xcalloc(n, sizeof(*o->rate_stages));
    memcpy(o->rate_stages, st, n * sizeof(*st));
    o->nrate_stages = n;
    if (constant)
        o->rate_stages[1].dur_us = o->duration_us;
    if (rate_stages_check(o->rate_stages, n, err, errlen) != 0)
        return -1;
    o->duration_us = rate_total_us(o->rate_stages, n);
    o->vu_ids = o->max_vus;
    o->closed_vus = 0;
    if (closed) {
        o->closed_vus = o->vus; /* ids 1..vus; the pool's after them */
        o->vu_ids = o->vus + o->max_vus;
    }
    o->runs = 0;
    return 0;
}

size_t opts_own_files(const run_opts *o, const char **out)
{
    const char *all[OPTS_OWN_FILES_MAX] = {o->jtl,
                                           o->junit,
                                           o->grinder_dir,
                                           o->port_file,
                                           o->web_port_file,
                                           o->metrics_port_file,
                                           db_opts_path(&o->db)};
    size_t n = 0;

    if (o->summary_json != NULL && strcmp(o->summary_json, "-") != 0)
        out[n++] = o->summary_json;
    for (size_t i = 0; i < 7; i++)
        if (all[i] != NULL)
            out[n++] = all[i];
    return n;
}
