#include "console/dist.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/bundle.h"
#include "proto/ivsum.h"
#include "proto/ivwin.h"
#include "proto/peer.h"
#include "common/clock.h"
#include "common/dur.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/props.h"
#include "common/ratelog.h"
#include "console/agg.h"
#include "console/gather.h"
#include "console/local.h"
#include "reports/junit.h"
#include "console/thresh.h"
#include "console/live.h"
#include "console/run.h"
#include "worker/engine.h"
#include "console/summary.h"
#include "console/verdict.h"
#include "proto/auth.h"
#include "proto/seal.h"
#include "reports/db.h"
#include "common/version.h"

#define DIST_CONN_MAX 2048           /* authenticated connections (agents) at once */
#define DIST_PENDING_MAX 64          /* handshakes in progress at once, apart from agents */
#define DIST_PENDING_PER_ADDR 8      /* of them from one address */
#define DIST_HANDSHAKE_US 5000000    /* a peer must have registered by then */
#define DIST_REFUSAL_LOG_US 10000000 /* lines about refused peers: a few per 10 s */
#define DIST_REFUSAL_BURST 5
#define DIST_AGENT_WORKERS_MAX 1024    /* workers an agent may register with */
#define DIST_SILENCE_US 5000000        /* an agent silent this long is lost */
#define DIST_READY_US 60000000         /* the start barrier waits this long */
#define DIST_MERGE_GRACE_US 2000000    /* merge a second without a late agent after this */
#define DIST_FINISH_MARGIN_US 15000000 /* after the planned end, wait this long at most */
#define DIST_STOP_WAIT_US 15000000     /* after Stop, wait this long for RunFinished */
#define DIST_QUEUE_MAX (FRAME_MAX_DEFAULT + 65536u)

enum dconn_state { DC_HELLO, DC_PROOF, DC_REGISTER, DC_AGENT, DC_CLOSING, DC_GONE };
enum dphase { DP_WAIT, DP_START, DP_RUN, DP_END };

struct dist;

/* One connection: a peer being authenticated, or a registered agent. */
typedef struct dconn {
    struct dist *d; /**< borrowed */
    peer link;
    enum dconn_state state;
    char addr[64]; /**< peer address, for logs */
    char ip[48];   /**< peer address without the port: handshakes per address */
    int authed;    /**< the peer proved the token (the link is sealed) */
    uint8_t nonce[AUTH_NONCE_LEN], anonce[AUTH_NONCE_LEN];
    uint8_t kx_priv[KX_LEN], kx_pub[KX_LEN]; /**< our key pair for it (wiped once sealed) */
    uint8_t akx[KX_LEN];                     /**< the agent's Hello.kx */
    int64_t since_us, last_rx_us, closing_at_us;
    /* Once registered: */
    char name[128];
    char host[128];
    unsigned workers; /**< workers it will use for this run */
    unsigned index;
    /* In the run: */
    int in_run, steps_ok, ready, finished, lost;
    uint32_t vus;
    uint64_t requests, errors;
    char status[32];
} dconn;

typedef struct dopts {
    const char *script;
    unsigned vus, runs, workers, agents;
    int64_t duration_us, ramp_us, grace_us, wait_us;
    const char *props_file, *summary_json, *listen, *token_file, *port_file;
    int quiet, allow_loss;
    int allow_errors; /**< --allow-errors: no default "errors<=0%" threshold */
    int embedded;     /**< no --agents nor --listen: a local agent of our own */
    thresh **th;      /**< owned array of owned thresholds (--threshold) */
    size_t nth;
    int abort_on_fail; /**< stop the run once a threshold can no longer pass */
    const char *junit; /**< --junit FILE */
    char **src;        /**< owned: --source-addrs, owned strings */
    size_t nsrc;
    const char *jtl;         /**< --jtl FILE */
    const char *grinder_dir; /**< --grinder-logs DIR */
    db_opts db;              /**< --db, --name, --tag */
    unsigned trace;          /**< --trace: 0 off, 1 VU 1 only, 2 every VU */
    int argc;                /**< with argv (borrowed): the arguments, for the database */
    char **argv;
} dopts;

typedef struct dist {
    dopts o;
    props *p;             /**< owned: merged properties */
    struct ev_loop *loop; /**< owned */
    int lfd;              /**< owned: listening socket */
    ev_io accept_io;
    ev_timer tick;
    ev_signal sigint, sigterm;
    char *token; /**< owned */
    size_t token_len;
    dconn **conns; /**< owned array of owned connections */
    size_t nconns;
    unsigned next_index;
    enum dphase phase;
    int64_t phase_us; /**< when the phase began */
    int64_t go_us, stop_us, end_us;
    uint64_t run_id;
    Quern__BundleFile **files; /**< owned: the bundle */
    size_t nfiles;
    char script_name[256];
    /* Steps, from the first agent's StepsDef. */
    size_t nsteps, nscens;
    char **ids, **labels, **names, **scen_names; /**< owned arrays of owned strings */
    agg agg;
    int have_agg;
    ivwin win; /**< the seconds being merged from the agents */
    uint64_t last_line_s;
    int interrupted, aborted, degraded, start_error, rc;
    char start_msg[2048];
    uint64_t ping_seq;
    int64_t last_ping_us;
    db *db;                   /**< owned: results database, NULL when not recording */
    int64_t db_run;           /**< the run's id in it (0: not begun) */
    int db_failed;            /**< a write failed: no more progress is recorded */
    int64_t db_start_us;      /**< wall clock at Go */
    unsigned port;            /**< the port listened on */
    int64_t accept_paused_us; /**< accepting paused (out of descriptors) since, 0: not */
    live *live;               /**< owned: the live display, once the steps are known */
    int threshold_stop;       /**< --abort-on-fail stopped the run */
    char **th_src;            /**< owned: per o.th, NULL (--threshold) or owned "file:line" */
    size_t nth_user;          /**< o.th[nth_user..] are the defaults (console/verdict.h) */
    char degraded_why[512];   /**< what degraded the run, when not only a lost agent */
    local_agent la;           /**< the embedded agent, when o.embedded */
    ratelog refused_log;      /**< lines about peers refused during the handshake */
    ratelog token_log;        /**< lines about peers with a wrong token */
    gather *gather;           /**< owned: --jtl / --grinder-logs files, NULL without */
} dist;

void dist_usage(FILE *out)
{
    fputs("distributed run (console) options:\n"
          "  --listen HOST:PORT   accept agents here (default " DIST_LISTEN_DEFAULT ")\n"
          "  --agents N           wait for N agents, then run on all of them\n"
          "  --token-file FILE    shared secret the agents must prove they know (mode 600)\n"
          "  --wait D             how long to wait for the agents (default 60s; exit 3)\n"
          "  --workers P          at most P worker processes per agent\n"
          "  --allow-agent-loss   a run that lost an agent or a worker exits 0, not 1\n"
          "  --port-file FILE     write the port listened on (useful with port 0)\n"
          "  --source-addrs A,B   local IP addresses the VUs' connections leave from, spread\n"
          "                       over the VUs by index (the injector must own them)\n"
          "\n"
          "pass/fail:\n"
          "  --threshold EXPR     a condition the run must meet (repeatable), e.g.\n"
          "                       'p95<500ms', 'errors<1%', 'tps>100', 'count>=1000',\n"
          "                       'SC-CONSULTATION-PROFIL-STEP-2: p99<1s', 'SC-*-STEP-1: "
          "mean<200ms'\n"
          "                       (metrics: pN, mean, max, errors, errors.technical,\n"
          "                       errors.functional, tps, count; a bare number is ms)\n"
          "  --abort-on-fail      stop the run once a threshold can no longer pass (after\n"
          "                       10 s and 100 samples for rates and percentiles; exit 1)\n"
          "  --allow-errors       errors do not fail the run by themselves (without it or a\n"
          "                       threshold about errors, the default errors<=0% applies)\n"
          "  --junit FILE         JUnit XML: a test case per step and per threshold\n"
          "  --jtl FILE           JMeter CSV results: a line per step sample and per untimed\n"
          "                       request, from every agent (Jenkins Performance plugin)\n"
          "  --grinder-logs DIR   The Grinder 3 logs of every worker: data_AGENT-N.log and\n"
          "                       out_AGENT-N.log (Jenkins Grinder plugin, Grinder Analyzer)\n"
          "\n"
          "debugging:\n"
          "  --trace, -v          print each request and response of VU 1 (method, URL,\n"
          "                       status, headers, the body's first KB, timings) to stderr;\n"
          "                       implies -q. With --vus > 1 only VU 1 is traced, with a\n"
          "                       warning; --trace=all traces every VU\n",
          out);
}

/* ---------------------------------------------------------------- arguments */

static int usage_err(const char *fmt, const char *arg)
{
    fprintf(stderr, "quern run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see quern help run)\n");
    return -1;
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
static int parse_addrs(const char *flag, const char *v, dopts *o)
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

/* The options that take a value (FLAG VALUE or --FLAG=VALUE). */
static int takes_value(const char *flag)
{
    static const char *const flags[] = {"--vus",
                                        "-u",
                                        "--duration",
                                        "-d",
                                        "--runs",
                                        "--ramp-up",
                                        "--grace",
                                        "--wait",
                                        "-p",
                                        "--property",
                                        "--properties",
                                        "--summary-json",
                                        "--listen",
                                        "--agents",
                                        "--workers",
                                        "--token-file",
                                        "--threshold",
                                        "--jtl",
                                        "--grinder-logs",
                                        "--junit",
                                        "--source-addrs",
                                        "--port-file"};

    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (strcmp(flag, flags[i]) == 0)
            return 1;
    return db_opts_flag(flag);
}

/* How many VUs start before the end of the run when the ramp-up outlasts
 * it: VU k (from 0) starts k * ramp / vus after the start, as the workers
 * compute it (worker/engine.c). */
static int64_t ramp_start_of(const dopts *o, unsigned k)
{
    return (int64_t)((double)k * (double)o->ramp_us / (double)o->vus);
}

static unsigned ramp_started(const dopts *o)
{
    unsigned n = (unsigned)((double)o->duration_us * (double)o->vus / (double)o->ramp_us);

    while (n > 0 && ramp_start_of(o, n - 1) >= o->duration_us)
        n--;
    while (n < o->vus && ramp_start_of(o, n) < o->duration_us)
        n++;
    return n;
}

static int parse_args(int argc, char **argv, dopts *o, props *over)
{
    char err[512];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        char flag[64];
        char *eq;

        if (a[0] != '-' || a[1] == '\0') {
            if (o->script != NULL)
                return usage_err("one script only, got also \"%s\"", a);
            o->script = a;
            continue;
        }
        snprintf(flag, sizeof(flag), "%s", a);
        eq = strchr(flag, '=');
        if (eq != NULL && strncmp(flag, "--", 2) == 0) {
            *eq = '\0';
            v = a + (eq - flag) + 1;
        }
        if (strcmp(flag, "-q") == 0 || strcmp(flag, "--quiet") == 0) {
            o->quiet = 1;
            continue;
        }
        if (strcmp(flag, "--allow-agent-loss") == 0) {
            o->allow_loss = 1;
            continue;
        }
        if (strcmp(flag, "--abort-on-fail") == 0) {
            o->abort_on_fail = 1;
            continue;
        }
        if (strcmp(flag, "--trace") == 0 || strcmp(flag, "-v") == 0) {
            if (v != NULL && strcmp(v, "all") != 0)
                return usage_err("--trace=%s: the only value is \"all\"", v);
            o->trace = v != NULL ? 2 : 1;
            o->quiet = 1; /* the live display would write over the trace */
            continue;
        }
        if (strcmp(flag, "--allow-errors") == 0) {
            o->allow_errors = 1;
            continue;
        }
        if (!takes_value(flag))
            return usage_err("unknown option %s", flag);
        if (v == NULL) {
            if (i + 1 >= argc)
                return usage_err("%s needs a value", flag);
            v = argv[++i];
        }
        if (strcmp(flag, "--vus") == 0 || strcmp(flag, "-u") == 0) {
            if (parse_u(flag, v, 1, 10000000, &o->vus) != 0)
                return -1;
        } else if (strcmp(flag, "--duration") == 0 || strcmp(flag, "-d") == 0) {
            if (parse_d(flag, v, &o->duration_us) != 0)
                return -1;
        } else if (strcmp(flag, "--runs") == 0) {
            if (parse_u(flag, v, 0, 1000000000, &o->runs) != 0)
                return -1;
        } else if (strcmp(flag, "--ramp-up") == 0) {
            if (parse_d(flag, v, &o->ramp_us) != 0)
                return -1;
        } else if (strcmp(flag, "--grace") == 0) {
            if (parse_d(flag, v, &o->grace_us) != 0)
                return -1;
        } else if (strcmp(flag, "--wait") == 0) {
            if (parse_d(flag, v, &o->wait_us) != 0)
                return -1;
        } else if (strcmp(flag, "-p") == 0 || strcmp(flag, "--property") == 0) {
            if (props_set_arg(over, v, err, sizeof(err)) != 0) {
                fprintf(stderr, "quern run: %s: %s\n", flag, err);
                return -1;
            }
        } else if (strcmp(flag, "--properties") == 0) {
            o->props_file = v;
        } else if (strcmp(flag, "--summary-json") == 0) {
            o->summary_json = v;
        } else if (strcmp(flag, "--listen") == 0) {
            o->listen = v;
        } else if (strcmp(flag, "--agents") == 0) {
            if (parse_u(flag, v, 1, DIST_CONN_MAX / 2, &o->agents) != 0)
                return -1;
        } else if (strcmp(flag, "--workers") == 0) {
            if (parse_u(flag, v, 1, 1024, &o->workers) != 0)
                return -1;
        } else if (strcmp(flag, "--token-file") == 0) {
            o->token_file = v;
        } else if (strcmp(flag, "--threshold") == 0) {
            thresh *t = thresh_parse(v, err, sizeof(err));
            if (t == NULL) {
                fprintf(stderr, "quern run: --threshold %s (see quern help run)\n", err);
                return -1;
            }
            o->th = xrealloc(o->th, (o->nth + 1) * sizeof(*o->th));
            o->th[o->nth++] = t;
        } else if (strcmp(flag, "--jtl") == 0) {
            o->jtl = v;
        } else if (strcmp(flag, "--grinder-logs") == 0) {
            o->grinder_dir = v;
        } else if (strcmp(flag, "--junit") == 0) {
            o->junit = v;
        } else if (strcmp(flag, "--source-addrs") == 0) {
            if (parse_addrs(flag, v, o) != 0)
                return -1;
        } else if (strcmp(flag, "--port-file") == 0) {
            o->port_file = v;
        } else if (db_opts_flag(flag)) {
            if (db_opts_set(&o->db, flag, v, err, sizeof(err)) != 0) {
                fprintf(stderr, "quern run: %s: %s\n", flag, err);
                return -1;
            }
        }
    }
    if (o->script == NULL)
        return usage_err("%s", "no script given");
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
        o->listen = DIST_LISTEN_DEFAULT;
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
    return 0;
}

/* ---------------------------------------------------------------- bundle */

static int bundle_skip(const char *name)
{
    static const char *const ext[] = {".db", ".db-wal", ".db-shm", ".log"};
    size_t n = strlen(name);

    if (name[0] == '.')
        return 1;
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t e = strlen(ext[i]);
        if (n > e && strcmp(name + n - e, ext[i]) == 0)
            return 1;
    }
    return 0;
}

static int read_whole(const char *path, size_t size, uint8_t **out, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t *buf;
    size_t off = 0;

    if (fd < 0) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    buf = xmalloc(size ? size : 1);
    while (off < size) {
        ssize_t n = read(fd, buf + off, size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "cannot read %s: %s", path, n < 0 ? strerror(errno) : "short");
            xfree(buf);
            close(fd);
            return -1;
        }
        off += (size_t)n;
    }
    close(fd);
    *out = buf;
    return 0;
}

/* Adds the files under root/rel (rel "" for root itself), depth-limited. */
static int bundle_walk(dist *d, const char *root, const char *rel, int depth, size_t *total,
                       char *err, size_t errlen)
{
    char dirpath[PATH_MAX];
    DIR *dir;
    struct dirent *de;
    int rc = 0;

    snprintf(dirpath, sizeof(dirpath), "%s%s%s", root, rel[0] ? "/" : "", rel);
    dir = opendir(dirpath);
    if (dir == NULL) {
        snprintf(err, errlen, "cannot read folder %s: %s", dirpath, strerror(errno));
        return -1;
    }
    while (rc == 0 && (de = readdir(dir)) != NULL) {
        char relp[BUNDLE_PATH_MAX + 1], full[PATH_MAX];
        struct stat st;

        if (bundle_skip(de->d_name))
            continue;
        if ((size_t)snprintf(relp, sizeof(relp), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
            sizeof(relp))
            continue;
        snprintf(full, sizeof(full), "%s/%s", root, relp);
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 8)
                rc = bundle_walk(d, root, relp, depth + 1, total, err, errlen);
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        if (d->nfiles >= BUNDLE_MAX_FILES || *total + (size_t)st.st_size > BUNDLE_MAX_BYTES) {
            snprintf(err, errlen,
                     "the scenario's folder %s is too big to ship (at most %d files, %u MiB; "
                     "move data elsewhere)",
                     root, BUNDLE_MAX_FILES, BUNDLE_MAX_BYTES >> 20);
            rc = -1;
            break;
        }
        Quern__BundleFile *f = xmalloc(sizeof(*f));
        quern__bundle_file__init(f);
        if (read_whole(full, (size_t)st.st_size, &f->data.data, err, errlen) != 0) {
            xfree(f);
            rc = -1;
            break;
        }
        f->data.len = (size_t)st.st_size;
        f->path = xstrdup(relp);
        f->mode = st.st_mode & 0755;
        *total += f->data.len;
        d->files = xrealloc(d->files, (d->nfiles + 1) * sizeof(*d->files));
        d->files[d->nfiles++] = f;
    }
    closedir(dir);
    return rc;
}

static int bundle_build(dist *d, char *err, size_t errlen)
{
    char *a = xstrdup(d->o.script), *b = xstrdup(d->o.script);
    const char *root = dirname(a);
    size_t total = 0;
    int rc = bundle_walk(d, root, "", 0, &total, err, errlen);

    snprintf(d->script_name, sizeof(d->script_name), "%s", basename(b));
    if (rc == 0)
        log_msg(LOG_DEBUG, "bundle: %zu file(s), %zu bytes from %s", d->nfiles, total, root);
    xfree(a);
    xfree(b);
    return rc;
}

/* ---------------------------------------------------------------- connections */

static void conn_send_result(dconn *c, int ok, const char *reason)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__AuthResult ar = QUERN__AUTH_RESULT__INIT;

    ar.ok = ok ? 1 : 0;
    ar.reason = (char *)(reason != NULL ? reason : "");
    env.body_case = QUERN__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &ar;
    peer_send(&c->link, &env);
}

/* A line about a peer refused before it authenticated: anyone can cause
 * those at will, so a few per DIST_REFUSAL_LOG_US and a count of the rest. */
static void refusal(ratelog *rl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refusal(ratelog *rl, const char *fmt, ...)
{
    char msg[512];
    unsigned more = 0;
    va_list ap;

    if (!ratelog_ok(rl, clock_mono_us(), DIST_REFUSAL_LOG_US, DIST_REFUSAL_BURST, &more))
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (more > 0)
        log_msg(LOG_WARN, "%s (and %u more refused peer(s) not shown)", msg, more);
    else
        log_msg(LOG_WARN, "%s", msg);
}

/* 1 while c is a handshake in progress: not yet authenticated. */
static int conn_pending(const dconn *c)
{
    return !c->authed && (c->state == DC_HELLO || c->state == DC_PROOF || c->state == DC_CLOSING);
}

/* Derives the connection's keys: from now on what we send is sealed, and
 * what the agent sends after its proof must be. */
static int conn_seal(dist *d, dconn *c)
{
    seal_hs hs = {c->anonce, c->nonce, c->akx, c->kx_pub, NULL};

    return peer_seal_link(&c->link, d->token, d->token_len, &hs, c->kx_priv, c->akx, 1,
                          FRAME_MAX_SMALL);
}

/* Closes after what is queued has left (bounded by the tick). */
static void conn_close_soon(dconn *c)
{
    c->state = DC_CLOSING;
    c->closing_at_us = clock_mono_us() + 1000000;
}

static void agent_lost(dist *d, dconn *c, const char *why)
{
    unsigned left = 0;

    c->lost = 1;
    for (size_t i = 0; i < d->nconns; i++)
        left += d->conns[i]->in_run && !d->conns[i]->lost && !d->conns[i]->finished;
    if (d->phase == DP_RUN) {
        d->degraded = 1;
        log_msg(LOG_ERROR, "agent %s lost (%s): its statistics so far are kept; %u agent(s) go on",
                c->name, why, left);
    } else if (d->phase == DP_START) {
        if (!d->start_error) {
            d->start_error = 3;
            snprintf(d->start_msg, sizeof(d->start_msg), "agent %s lost before the start (%s)",
                     c->name, why);
        }
    }
}

static void on_conn_close(peer *l, const char *why, void *ud)
{
    dconn *c = ud;
    dist *d = c->d;

    if (c->state == DC_AGENT && c->in_run && !c->finished && !c->lost)
        agent_lost(d, c, why);
    else if (c->state == DC_AGENT)
        log_msg(LOG_INFO, "agent %s disconnected (%s)", c->name, why);
    else if (c->authed)
        log_msg(LOG_WARN, "connection from %s closed before it registered: %s", c->addr, why);
    else if (c->state != DC_CLOSING)
        refusal(&d->refused_log, "connection from %s closed during the handshake: %s", c->addr,
                why);
    c->state = DC_GONE;
}

static void on_second(void *ud, uint64_t second, const ivsum *sum, int late);
static void send_stop(dist *d, const char *reason, int immediate);
static void live_clear_cb(void *ud);

static void add_step_defs(dist *d, dconn *c, const Quern__StepsDef *sd)
{
    if (d->ids == NULL) {
        d->nsteps = sd->n_steps;
        d->ids = xcalloc(sd->n_steps + 1, sizeof(char *));
        d->labels = xcalloc(sd->n_steps + 1, sizeof(char *));
        d->names = xcalloc(sd->n_steps + 1, sizeof(char *));
        d->scen_names = xcalloc(sd->n_steps + 1, sizeof(char *));
        for (size_t i = 0; i < sd->n_steps; i++) {
            const Quern__StepDef *s = sd->steps[i];
            size_t j, len = strlen(s->id) + strlen(s->label) + 2;
            d->ids[i] = xstrdup(s->id);
            d->labels[i] = xstrdup(s->label);
            d->names[i] = xmalloc(len);
            snprintf(d->names[i], len, "%s)%s", s->id, s->label);
            for (j = 0; j < d->nscens; j++)
                if (strcmp(d->scen_names[j], s->scenario) == 0)
                    break;
            if (j == d->nscens)
                d->scen_names[d->nscens++] = xstrdup(s->scenario);
        }
        agg_init(&d->agg, d->nsteps, d->nscens);
        ivwin_init(&d->win, d->nsteps, d->nscens, DIST_MERGE_GRACE_US, on_second, d);
        d->have_agg = 1;
        for (size_t i = 0; i < d->o.nth && !d->start_error; i++) {
            char err[512];
            if (thresh_check_scope(d->o.th[i], (const char *const *)d->ids,
                                   (const char *const *)d->names, d->nsteps, err,
                                   sizeof(err)) != 0) {
                d->start_error = 2; /* a usage error: nothing was sent yet */
                snprintf(d->start_msg, sizeof(d->start_msg), "--threshold %s", err);
            }
        }
        d->live = live_new(stderr, d->o.quiet ? LIVE_QUIET : LIVE_AUTO,
                           (const char *const *)d->names, d->nsteps, d->o.duration_us);
        log_set_before(live_clear_cb, d->live);
    } else {
        int same = sd->n_steps == d->nsteps;
        for (size_t i = 0; same && i < sd->n_steps; i++)
            same = strcmp(sd->steps[i]->id, d->ids[i]) == 0;
        if (!same && !d->start_error) {
            d->start_error = 3;
            snprintf(d->start_msg, sizeof(d->start_msg),
                     "agent %s loaded different steps than the others", c->name);
        }
    }
    c->steps_ok = 1;
}

static void live_clear_cb(void *ud)
{
    live_clear(ud);
}

/* ---- results database (reports/db.h) */

/* A write failed: say so once, record nothing more, and end the run
 * degraded. The database stays open: at the end the run's row still gets
 * its status and the reason (db_run_end_reason), so that it never stays
 * "running" when the disk has that much room left. */
static void dist_db_failed(dist *d, const char *err)
{
    if (d->db_failed)
        return;
    log_msg(LOG_ERROR,
            "results database: %s; the rest of this run is not recorded and it ends "
            "degraded",
            err);
    d->db_failed = 1;
    d->degraded = 1;
    snprintf(d->degraded_why, sizeof(d->degraded_why), "results database: %s", err);
}

/* The database to write the run's progress to: NULL when not recording or
 * after a failed write. */
static db *dist_db(const dist *d)
{
    return d->db_failed ? NULL : d->db;
}

/* Writes (or updates) a row per agent of the run. */
static void dist_db_agents(dist *d)
{
    char err[1024];

    for (size_t i = 0; dist_db(d) != NULL && i < d->nconns; i++) {
        const dconn *c = d->conns[i];
        db_agent_info ai = {c->name, c->host,   c->workers,  c->vus,
                            c->lost, c->status, c->requests, c->errors};
        if (c->in_run && db_agent(d->db, d->db_run, c->index, &ai, err, sizeof(err)) != 0)
            dist_db_failed(d, err);
    }
}

/* Records the run's start (at Go: the steps are known by then). */
static void dist_db_begin(dist *d)
{
    db_step *steps;
    db_run_info ri;
    char name[256], err[1024];

    if (dist_db(d) == NULL)
        return;
    steps = xcalloc(d->nsteps + 1, sizeof(*steps));
    for (size_t i = 0; i < d->nsteps; i++) {
        steps[i].id = d->ids[i];
        steps[i].label = d->labels[i];
        steps[i].scenario = "";
        /* "SC-<scenario>-STEP-<n>" names its scenario. */
        for (size_t j = 0; j < d->nscens; j++) {
            size_t n = strlen(d->scen_names[j]);
            if (strncmp(d->ids[i], "SC-", 3) == 0 &&
                strncmp(d->ids[i] + 3, d->scen_names[j], n) == 0 &&
                strncmp(d->ids[i] + 3 + n, "-STEP-", 6) == 0)
                steps[i].scenario = d->scen_names[j];
        }
    }
    memset(&ri, 0, sizeof(ri));
    ri.name = db_opts_name(&d->o.db, d->o.script, name, sizeof(name));
    ri.tags = d->o.db.tags;
    ri.script = d->o.script;
    ri.props = d->p;
    ri.vus = d->o.vus;
    ri.started_us = d->db_start_us = clock_wall_us();
    ri.steps = steps;
    ri.nsteps = d->nsteps;
    ri.scen_names = (const char *const *)d->scen_names;
    ri.nscens = d->nscens;
    ri.req_duration_us = d->o.duration_us;
    ri.req_ramp_up_us = d->o.ramp_us;
    ri.req_runs = d->o.runs;
    ri.argc = d->o.argc;
    ri.argv = (const char *const *)d->o.argv;
    d->db_run = db_run_begin(d->db, &ri, err, sizeof(err));
    xfree(steps);
    if (d->db_run < 0)
        dist_db_failed(d, err);
    else
        dist_db_agents(d);
}

static unsigned agents_in_run(const dist *d)
{
    unsigned n = 0;
    for (size_t i = 0; i < d->nconns; i++)
        n += d->conns[i]->in_run;
    return n;
}

static unsigned agents_alive(const dist *d)
{
    unsigned n = 0;
    for (size_t i = 0; i < d->nconns; i++)
        n += d->conns[i]->in_run && !d->conns[i]->lost;
    return n;
}

/* --abort-on-fail: the first threshold that can no longer pass stops the run
 * gracefully (VUs finish their request in flight). */
static void check_abort(dist *d)
{
    double el = (double)d->agg.elapsed_us / 1e6;

    for (size_t i = 0; i < d->nth_user; i++) { /* the defaults judge at the end only */
        thresh_result r;
        if (thresh_eval(d->o.th[i], &d->agg, (const char *const *)d->ids,
                        (const char *const *)d->names, el, &r) ||
            thresh_can_still_pass(d->o.th[i], &r, el))
            continue;
        log_msg(LOG_WARN, "threshold '%s' failed: %s; stopping the run (--abort-on-fail)",
                d->o.th[i]->expr, r.desc);
        d->threshold_stop = 1;
        d->interrupted = 1;
        send_stop(d, "threshold failed", 0);
        return;
    }
}

/* A merged second goes to the database, the totals and the live line. */
static void on_second(void *ud, uint64_t second, const ivsum *sum, int late)
{
    dist *d = ud;

    if (dist_db(d) != NULL) {
        db_iv div = {second,     d->db_start_us + (int64_t)second * 1000000,
                     1000000,    sum->active_vus,
                     sum->steps, d->nsteps,
                     sum->runs,  sum->missed,
                     d->nscens};
        char err[1024];
        if (db_interval(d->db, d->db_run, &div, err, sizeof(err)) != 0)
            dist_db_failed(d, err);
    }
    /* A late second adds to the totals without adding time. */
    agg_add(&d->agg, sum->steps, sum->runs, sum->missed, late ? 0 : 1000000, sum->active_vus);
    gather_second(d->gather, second, sum->active_vus, late); /* the JTL's thread counts */
    if (late)
        return;
    live_update(d->live, &d->agg, sum->steps, agents_alive(d),
                d->o.embedded ? 0 : agents_in_run(d));
    if (d->o.abort_on_fail && !d->interrupted && !d->threshold_stop)
        check_abort(d);
}

static unsigned alive_agents(const dist *d)
{
    unsigned n = 0;
    for (size_t i = 0; i < d->nconns; i++)
        n += d->conns[i]->in_run && !d->conns[i]->lost && !d->conns[i]->finished;
    return n;
}

static void merge_flush(dist *d, int force)
{
    ivwin_flush(&d->win, alive_agents(d), force);
}

static void add_interval(dist *d, dconn *c, const Quern__Interval *m)
{
    char err[256];

    if (!d->have_agg || m->run_id != d->run_id)
        return;
    if (ivwin_add(&d->win, m, (const char *const *)d->scen_names, alive_agents(d), err,
                  sizeof(err)) != 0) {
        log_msg(LOG_ERROR, "agent %s sent a bad interval (%s): dropping it", c->name, err);
        peer_fail(&c->link, "bad interval");
        return;
    }
    for (size_t i = 0; i < m->n_steps; i++) {
        c->requests += m->steps[i]->count;
        c->errors += m->steps[i]->errors_technical + m->steps[i]->errors_functional;
    }
}

static void register_agent(dist *d, dconn *c, const Quern__Register *rg)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Registered r = QUERN__REGISTERED__INIT;
    char base[100];
    int n = 1;

    if (rg->workers > DIST_AGENT_WORKERS_MAX || (rg->name[0] == '\0' && rg->host[0] == '\0')) {
        log_msg(LOG_WARN, "refused agent %s: it registers with %u worker(s) (1 to %d) or no name",
                c->addr, rg->workers, DIST_AGENT_WORKERS_MAX);
        r.ok = 0;
        r.reason = (char *)"workers out of 1..1024, or no name";
        env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
        env.registered = &r;
        peer_send(&c->link, &env);
        conn_close_soon(c);
        return;
    }
    snprintf(base, sizeof(base), "%s", rg->name[0] ? rg->name : rg->host);
    for (;;) {
        int dup = 0;
        if (n == 1)
            snprintf(c->name, sizeof(c->name), "%s", base);
        else
            snprintf(c->name, sizeof(c->name), "%s-%d", base, n);
        for (size_t i = 0; i < d->nconns; i++)
            dup |= d->conns[i] != c && d->conns[i]->state == DC_AGENT &&
                   strcmp(d->conns[i]->name, c->name) == 0;
        if (!dup)
            break;
        n++;
    }
    snprintf(c->host, sizeof(c->host), "%s", rg->host);
    c->workers = rg->workers > 0 ? rg->workers : 1;
    if (d->o.workers > 0 && c->workers > d->o.workers)
        c->workers = d->o.workers;
    c->index = d->next_index++;
    c->state = DC_AGENT;
    r.ok = 1;
    r.agent_index = c->index;
    env.body_case = QUERN__ENVELOPE__BODY_REGISTERED;
    env.registered = &r;
    peer_send(&c->link, &env);
    if (!d->o.embedded)
        log_msg(LOG_INFO, "agent %s registered from %s (host %s, %u worker(s), pid %u)", c->name,
                c->addr, c->host, c->workers, rg->pid);
}

static void on_conn_msg(peer *l, const Quern__Envelope *env, void *ud)
{
    dconn *c = ud;
    dist *d = c->d;
    Quern__Envelope out = QUERN__ENVELOPE__INIT;

    c->last_rx_us = clock_mono_us();
    switch (c->state) {
    case DC_HELLO: {
        const Quern__Hello *h = env->hello;
        Quern__Hello mine = QUERN__HELLO__INIT;
        if (env->body_case != QUERN__ENVELOPE__BODY_HELLO || h->version != AUTH_PROTO_VERSION ||
            strcmp(h->role, "agent") != 0 || h->nonce.len != AUTH_NONCE_LEN ||
            h->kx.len != KX_LEN) {
            refusal(&d->refused_log, "refused peer %s: not a quern agent of protocol %d", c->addr,
                    AUTH_PROTO_VERSION);
            peer_fail(l, "bad hello");
            return;
        }
        memcpy(c->anonce, h->nonce.data, AUTH_NONCE_LEN);
        memcpy(c->akx, h->kx.data, KX_LEN);
        if (auth_nonce(c->nonce) != 0 || kx_keypair(c->kx_priv, c->kx_pub) != 0) {
            peer_fail(l, "no random numbers");
            return;
        }
        mine.version = AUTH_PROTO_VERSION;
        mine.role = (char *)"console";
        mine.nonce.data = c->nonce;
        mine.nonce.len = AUTH_NONCE_LEN;
        mine.kx.data = c->kx_pub;
        mine.kx.len = KX_LEN;
        mine.quern_version = (char *)QUERN_VERSION;
        out.body_case = QUERN__ENVELOPE__BODY_HELLO;
        out.hello = &mine;
        peer_send(l, &out);
        c->state = DC_PROOF;
        return;
    }
    case DC_PROOF: {
        Quern__AuthProof pr = QUERN__AUTH_PROOF__INIT;
        uint8_t mac[AUTH_MAC_LEN];
        if (env->body_case != QUERN__ENVELOPE__BODY_AUTH_PROOF) {
            peer_fail(l, "expected an authentication proof");
            return;
        }
        if (!auth_verify(d->token, d->token_len, "agent", c->nonce, c->anonce,
                         env->auth_proof->mac.data, env->auth_proof->mac.len)) {
            refusal(&d->token_log, "refused peer %s: wrong token", c->addr);
            conn_send_result(c, 0, "wrong token: the agent's token is not the console's");
            conn_close_soon(c);
            return;
        }
        {
            size_t authed = 0;
            for (size_t i = 0; i < d->nconns; i++)
                authed += d->conns[i]->authed && d->conns[i]->state != DC_GONE;
            if (authed >= DIST_CONN_MAX) {
                log_msg(LOG_WARN, "refused agent %s: already %d agents", c->addr, DIST_CONN_MAX);
                conn_send_result(c, 0, "the console has too many agents");
                conn_close_soon(c);
                return;
            }
        }
        auth_proof(d->token, d->token_len, "console", c->anonce, c->nonce, mac);
        pr.mac.data = mac;
        pr.mac.len = sizeof(mac);
        out.body_case = QUERN__ENVELOPE__BODY_AUTH_PROOF;
        out.auth_proof = &pr;
        peer_send(l, &out);
        conn_send_result(c, 1, NULL);
        /* The switch: AuthResult(ok) is our last plain frame, the agent's
         * proof was its last one. */
        if (conn_seal(d, c) != 0)
            return;
        c->authed = 1;
        c->state = DC_REGISTER;
        return;
    }
    case DC_REGISTER:
        if (env->body_case != QUERN__ENVELOPE__BODY_REGISTER) {
            peer_fail(l, "expected Register");
            return;
        }
        register_agent(d, c, env->register_);
        if (d->o.embedded)
            local_token_drop(&d->la); /* our agent has proved it knows it */
        return;
    case DC_AGENT:
        break;
    default:
        return;
    }
    switch (env->body_case) {
    case QUERN__ENVELOPE__BODY_PING:
        peer_pong(l, env->ping);
        break;
    case QUERN__ENVELOPE__BODY_STEPS_DEF:
        if (c->in_run && env->steps_def->run_id == d->run_id)
            add_step_defs(d, c, env->steps_def);
        break;
    case QUERN__ENVELOPE__BODY_READY:
        if (!c->in_run || env->ready->run_id != d->run_id)
            break;
        if (!env->ready->ok) {
            if (!d->start_error) {
                d->start_error = 2;
                snprintf(d->start_msg, sizeof(d->start_msg), "agent %s: %s", c->name,
                         env->ready->error);
            }
        } else if (!c->steps_ok) {
            peer_fail(l, "Ready before StepsDef");
        } else {
            c->ready = 1;
            c->vus = env->ready->vus;
        }
        break;
    case QUERN__ENVELOPE__BODY_INTERVAL:
        if (c->in_run)
            add_interval(d, c, env->interval);
        break;
    case QUERN__ENVELOPE__BODY_WORKER_STATE:
        if (c->in_run && env->worker_state->run_id == d->run_id) {
            log_msg(LOG_WARN, "agent %s: %s", c->name, env->worker_state->message);
            /* Its VUs stopped and its last second is lost: not a full run. */
            if (strcmp(env->worker_state->state, "crashed") == 0)
                d->degraded = 1;
        }
        break;
    case QUERN__ENVELOPE__BODY_LOG_LINE:
        if (d->o.embedded)
            log_raw(env->log_line->text);
        else
            log_msg(LOG_INFO, "agent %s: %s", c->name, env->log_line->text);
        break;
    case QUERN__ENVELOPE__BODY_FILE_PART:
        if (c->in_run && !c->finished && env->file_part->run_id == d->run_id && d->gather != NULL) {
            char err[512];
            if (gather_part(d->gather, env->file_part, err, sizeof(err)) != 0)
                log_msg(LOG_ERROR, "agent %s: %s", c->name, err);
        }
        break;
    case QUERN__ENVELOPE__BODY_RUN_FINISHED:
        if (c->in_run && env->run_finished->run_id == d->run_id && !c->finished) {
            c->finished = 1;
            snprintf(c->status, sizeof(c->status), "%s", env->run_finished->status);
            if (env->run_finished->message[0])
                log_msg(LOG_WARN, "agent %s finished: %s", c->name, env->run_finished->message);
            merge_flush(d, 0);
        }
        break;
    default:
        break;
    }
}

/* Handshakes in progress are bounded apart from the agents' slots: when a
 * new one from host would pass DIST_PENDING_PER_ADDR from that address or
 * DIST_PENDING_MAX in all, the oldest in that scope is dropped, one that has
 * not even said Hello first. Peers that hold connections open without
 * authenticating cannot keep an agent out: its handshake takes one round
 * trip, theirs never ends. */
static void make_room(dist *d, const char *host)
{
    size_t pending = 0, from_host = 0, victim = SIZE_MAX;
    int by_host;

    for (size_t i = 0; i < d->nconns; i++) {
        if (!conn_pending(d->conns[i]))
            continue;
        pending++;
        from_host += strcmp(d->conns[i]->ip, host) == 0;
    }
    if (from_host < DIST_PENDING_PER_ADDR && pending < DIST_PENDING_MAX)
        return;
    by_host = from_host >= DIST_PENDING_PER_ADDR;
    for (size_t i = 0; i < d->nconns; i++) {
        const dconn *c = d->conns[i], *v = victim != SIZE_MAX ? d->conns[victim] : NULL;
        if (!conn_pending(c) || (by_host && strcmp(c->ip, host) != 0))
            continue;
        if (v == NULL || (c->state == DC_HELLO && v->state != DC_HELLO) ||
            ((c->state == DC_HELLO) == (v->state == DC_HELLO) && c->since_us < v->since_us))
            victim = i;
    }
    if (victim == SIZE_MAX)
        return;
    refusal(&d->refused_log, "dropped the pending handshake of %s: too many handshakes at once%s",
            d->conns[victim]->addr, by_host ? " from that address" : "");
    peer_close(&d->conns[victim]->link);
    xfree(d->conns[victim]);
    memmove(d->conns + victim, d->conns + victim + 1, (d->nconns - victim - 1) * sizeof(*d->conns));
    d->nconns--;
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    dist *d = w->data;
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int fd = accept4(d->lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    dconn *c;
    char host[48] = "?";

    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE) {
            /* Out of descriptors: the pending connection would wake us at
             * once, forever. Pause accepting for a second (on_tick). */
            log_msg(LOG_WARN, "cannot accept agents: %s; pausing for a second", strerror(errno));
            ev_io_stop(loop, w);
            d->accept_paused_us = clock_mono_us();
        }
        return;
    }
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
    make_room(d, host);
    c = xcalloc(1, sizeof(*c));
    c->d = d;
    c->state = DC_HELLO;
    snprintf(c->ip, sizeof(c->ip), "%s", host);
    c->since_us = c->last_rx_us = clock_mono_us();
    snprintf(c->addr, sizeof(c->addr), "%s:%u", host,
             ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                     : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
    /* Small frames until the peer has proved the token (conn_seal). */
    peer_init(&c->link, loop, fd, FRAME_MAX_PREAUTH, DIST_QUEUE_MAX, on_conn_msg, on_conn_close, c);
    d->conns = xrealloc(d->conns, (d->nconns + 1) * sizeof(*d->conns));
    d->conns[d->nconns++] = c;
}

/* Forgets closed connections that are not part of the run. */
static void reap_conns(dist *d)
{
    size_t j = 0;

    for (size_t i = 0; i < d->nconns; i++) {
        dconn *c = d->conns[i];
        if (c->state == DC_GONE && !c->in_run) {
            peer_close(&c->link);
            xfree(c);
            continue;
        }
        d->conns[j++] = c;
    }
    d->nconns = j;
}

/* ---------------------------------------------------------------- run control */

static void send_all(dist *d, Quern__Envelope *env)
{
    for (size_t i = 0; i < d->nconns; i++)
        if (d->conns[i]->in_run && !d->conns[i]->lost)
            peer_send(&d->conns[i]->link, env);
}

static void send_stop(dist *d, const char *reason, int immediate)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Stop st = QUERN__STOP__INIT;

    st.run_id = d->run_id;
    st.reason = (char *)reason;
    st.immediate = immediate ? 1 : 0;
    env.body_case = QUERN__ENVELOPE__BODY_STOP;
    env.stop = &st;
    send_all(d, &env);
    if (d->stop_us == 0)
        d->stop_us = clock_mono_us();
}

static void start_run(dist *d)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__StartRun sr = QUERN__START_RUN__INIT;
    Quern__Schedule sch = QUERN__SCHEDULE__INIT;
    Quern__Property *pv = xcalloc(props_count(d->p) + 1, sizeof(*pv));
    Quern__Property **pp = xcalloc(props_count(d->p) + 1, sizeof(*pp));
    dconn **part = xcalloc(d->o.agents, sizeof(*part));
    unsigned np = 0, W = 0, off = 0;
    char run_name[64];

    for (size_t i = 0; i < d->nconns && np < d->o.agents; i++)
        if (d->conns[i]->state == DC_AGENT)
            part[np++] = d->conns[i];
    for (unsigned i = 0; i < np; i++)
        W += part[i]->workers;
    for (size_t i = 0; i < props_count(d->p); i++) {
        quern__property__init(&pv[i]);
        pv[i].key = (char *)props_key(d->p, i);
        pv[i].value = (char *)props_value(d->p, i);
        pp[i] = &pv[i];
    }
    d->run_id = ((uint64_t)clock_wall_us() << 8) | 1;
    snprintf(run_name, sizeof(run_name), "%s", d->script_name);
    sch.duration_us = (uint64_t)d->o.duration_us;
    sch.ramp_up_us = (uint64_t)d->o.ramp_us;
    sch.runs = d->o.runs;
    sch.grace_us = (uint64_t)d->o.grace_us;
    sr.run_id = d->run_id;
    sr.script_name = d->script_name;
    sr.script_display = (char *)d->o.script;
    sr.source_addrs = d->o.src;
    sr.n_source_addrs = d->o.nsrc;
    sr.files = d->files;
    sr.n_files = d->nfiles;
    sr.props = pp;
    sr.n_props = props_count(d->p);
    sr.vus_total = d->o.vus;
    sr.schedule = &sch;
    sr.run_name = run_name;
    sr.jtl = d->o.jtl != NULL;
    sr.grinder_logs = d->o.grinder_dir != NULL;
    sr.trace = d->o.trace;
    env.body_case = QUERN__ENVELOPE__BODY_START_RUN;
    env.start_run = &sr;
    /* Interleave: in each block of W consecutive global indices, agent a owns
     * the contiguous run [off_a + 1, off_a + workers_a]. */
    for (unsigned a = 0; a < np; a++) {
        dconn *c = part[a];
        size_t nblocks = (d->o.vus + W - 1) / W, n = 0;
        Quern__VuRange *rs = xcalloc(nblocks + 1, sizeof(*rs));
        Quern__VuRange **rp = xcalloc(nblocks + 1, sizeof(*rp));
        uint32_t vus = 0;

        for (size_t b = 0; b < nblocks; b++) {
            uint64_t first = (uint64_t)b * W + off + 1, last = first + c->workers - 1;
            if (first > d->o.vus)
                break;
            if (last > d->o.vus)
                last = d->o.vus;
            quern__vu_range__init(&rs[n]);
            rs[n].first = (uint32_t)first;
            rs[n].count = (uint32_t)(last - first + 1);
            vus += rs[n].count;
            rp[n] = &rs[n];
            n++;
        }
        off += c->workers;
        sr.vu_ranges = rp;
        sr.n_vu_ranges = n;
        sr.workers = c->workers;
        c->in_run = 1;
        c->vus = vus;
        snprintf(c->status, sizeof(c->status), "running");
        if (peer_send(&c->link, &env) != 0)
            agent_lost(d, c, "cannot send the run");
        xfree(rs);
        xfree(rp);
    }
    if (!d->o.quiet)
        fprintf(stderr, "quern: starting %s on %u agent(s), %u worker(s), %u VUs\n", d->o.script,
                np, W, d->o.vus);
    d->phase = DP_START;
    d->phase_us = clock_mono_us();
    xfree(part);
    xfree(pv);
    xfree(pp);
}

static void send_go(dist *d)
{
    Quern__Envelope env = QUERN__ENVELOPE__INIT;
    Quern__Go go = QUERN__GO__INIT;

    go.run_id = d->run_id;
    env.body_case = QUERN__ENVELOPE__BODY_GO;
    env.go = &go;
    send_all(d, &env);
    d->phase = DP_RUN;
    d->go_us = d->phase_us = clock_mono_us();
    dist_db_begin(d);
    if (d->interrupted)
        send_stop(d, "interrupted", 0);
}

static void end_phase(dist *d)
{
    d->phase = DP_END;
    d->end_us = clock_mono_us();
    ev_break(d->loop, EVBREAK_ALL);
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    dist *d = w->data;
    int64_t now = clock_mono_us();
    unsigned registered = 0, in_run = 0, ready = 0, done = 0;
    int ping = now - d->last_ping_us >= 1000000;
    Quern__Envelope env = QUERN__ENVELOPE__INIT;

    if (d->accept_paused_us != 0 && now - d->accept_paused_us >= 1000000) {
        d->accept_paused_us = 0;
        ev_io_start(loop, &d->accept_io);
    }
    Quern__Ping pi = QUERN__PING__INIT;

    pi.seq = ++d->ping_seq;
    pi.sent_us = clock_wall_us();
    env.body_case = QUERN__ENVELOPE__BODY_PING;
    env.ping = &pi;
    if (ping)
        d->last_ping_us = now;
    for (size_t i = 0; i < d->nconns; i++) {
        dconn *c = d->conns[i];
        if (c->state == DC_CLOSING && (peer_pending(&c->link) == 0 || now >= c->closing_at_us)) {
            peer_close(&c->link);
            c->state = DC_GONE;
        } else if ((c->state == DC_HELLO || c->state == DC_PROOF || c->state == DC_REGISTER) &&
                   now - c->since_us > DIST_HANDSHAKE_US) {
            if (c->authed)
                log_msg(LOG_WARN, "agent %s: authenticated but not registered within 5 s", c->addr);
            else
                refusal(&d->refused_log, "refused peer %s: no complete handshake within 5 s",
                        c->addr);
            c->state = DC_CLOSING; /* said once: on_conn_close adds nothing */
            peer_fail(&c->link, "handshake timeout");
        } else if (c->state == DC_AGENT && now - c->last_rx_us > DIST_SILENCE_US) {
            peer_fail(&c->link, "silent for 5 s");
        } else if (c->state == DC_AGENT && ping) {
            peer_send(&c->link, &env);
        }
        registered += c->state == DC_AGENT;
        in_run += c->in_run;
        ready += c->in_run && c->ready && !c->lost;
        done += c->in_run && (c->finished || c->lost);
    }
    reap_conns(d);
    switch (d->phase) {
    case DP_WAIT:
        if (d->interrupted) {
            d->start_error = 3;
            snprintf(d->start_msg, sizeof(d->start_msg), "interrupted while waiting for agents");
            end_phase(d);
        } else if (registered >= d->o.agents) {
            start_run(d);
        } else if (now - d->phase_us > d->o.wait_us) {
            char buf[DUR_FORMAT_MAX];
            d->start_error = 3;
            snprintf(d->start_msg, sizeof(d->start_msg),
                     "only %u of %u agent(s) connected within %s", registered, d->o.agents,
                     dur_format(d->o.wait_us, buf, sizeof(buf)));
            end_phase(d);
        }
        break;
    case DP_START:
        if (d->start_error == 0 && now - d->phase_us > DIST_READY_US) {
            d->start_error = 3;
            snprintf(d->start_msg, sizeof(d->start_msg), "the agents were not ready within 60 s");
        }
        if (d->start_error != 0) {
            send_stop(d, "start aborted", 1);
            end_phase(d);
        } else if (ready == in_run) {
            send_go(d);
        }
        break;
    case DP_RUN: {
        int64_t planned = d->o.duration_us > 0 ? d->o.duration_us + d->o.grace_us : 0;
        merge_flush(d, 0);
        if (done == in_run) {
            merge_flush(d, 1);
            end_phase(d);
        } else if (d->stop_us != 0 && now - d->stop_us > DIST_STOP_WAIT_US) {
            log_msg(LOG_ERROR, "agents did not finish within 15 s of the stop: giving up");
            d->degraded = 1;
            merge_flush(d, 1);
            end_phase(d);
        } else if (planned > 0 && d->stop_us == 0 &&
                   now - d->go_us > planned + DIST_FINISH_MARGIN_US) {
            log_msg(LOG_ERROR, "the run overran its schedule: stopping it");
            send_stop(d, "schedule overrun", 1);
        }
        break;
    }
    case DP_END:
        break;
    }
}

static void on_sig(struct ev_loop *loop, ev_signal *w, int revents)
{
    dist *d = w->data;

    if (d->interrupted) {
        log_msg(LOG_WARN, "second interrupt: aborting now");
        d->aborted = 1;
        send_stop(d, "aborted", 1);
        d->stop_us = clock_mono_us() - DIST_STOP_WAIT_US + 2000000; /* wait 2 s at most */
        return;
    }
    d->interrupted = 1;
    if (d->phase == DP_RUN) {
        log_msg(LOG_INFO, "interrupted: stopping the agents (VUs finish their request in "
                          "flight; interrupt again to abort)");
        send_stop(d, "interrupted", 0);
    }
}

/* ---------------------------------------------------------------- listen */

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->sa_family == AF_INET6)
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    return 0;
}

static int listen_on(dist *d, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    const char *colon = strrchr(d->o.listen, ':');
    char host[256], port[16];
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int one = 1, rc = -1, gai;

    if (colon == NULL || colon == d->o.listen || (size_t)(colon - d->o.listen) >= sizeof(host) ||
        colon[1] == '\0' || strlen(colon + 1) >= sizeof(port)) {
        snprintf(err, errlen, "--listen wants HOST:PORT, got \"%s\"", d->o.listen);
        return -1;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - d->o.listen), d->o.listen);
    snprintf(port, sizeof(port), "%s", colon + 1);
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "--listen %s: %s", d->o.listen, gai_strerror(gai));
        return -1;
    }
    if (d->o.token_file == NULL) {
        if (!is_loopback(res->ai_addr))
            snprintf(err, errlen,
                     "refusing to listen on %s without --token-file: agents run the code the "
                     "console sends, so every agent must prove it knows a shared secret",
                     d->o.listen);
        else
            snprintf(err, errlen,
                     "--token-file is required to accept agents (a file of mode 600 holding a "
                     "shared secret; give the agents the same one)");
        goto out;
    }
    d->lfd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->lfd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        goto out;
    }
    setsockopt(d->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(d->lfd, res->ai_addr, res->ai_addrlen) != 0 || listen(d->lfd, SOMAXCONN) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", d->o.listen, strerror(errno));
        goto out;
    }
    if (getsockname(d->lfd, (struct sockaddr *)&ss, &len) == 0) {
        unsigned p = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                             : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        d->port = p;
        if (!d->o.embedded)
            log_msg(LOG_INFO, "console listening on %s:%u, waiting for %u agent(s)", host, p,
                    d->o.agents);
        if (d->o.port_file != NULL) {
            char tmp[PATH_MAX];
            FILE *f;
            snprintf(tmp, sizeof(tmp), "%s.tmp", d->o.port_file);
            f = fopen(tmp, "w");
            if (f == NULL || fprintf(f, "%u\n", p) < 0 || fclose(f) != 0 ||
                rename(tmp, d->o.port_file) != 0) {
                snprintf(err, errlen, "--port-file %s: %s", d->o.port_file, strerror(errno));
                goto out;
            }
        }
    }
    rc = 0;
out:
    freeaddrinfo(res);
    return rc;
}

/* ---------------------------------------------------------------- main */

/* Adds the thresholds the script declared (quern.threshold, a scenario's
 * thresholds option) after those of the command line, each checked against
 * the script's steps: a bad one is a script error ("file:line: threshold
 * ...") before anything is sent. Workers keep them but never use them. */
static int script_thresholds(dist *d, const scen_set *ss, char *err, size_t errlen)
{
    const char **ids = xcalloc(ss->nsteps + 1, sizeof(*ids));
    const char **names = xcalloc(ss->nsteps + 1, sizeof(*names));
    char msg[1024];
    int rc = -1;

    const char *dflt[2];
    size_t ndflt;

    d->th_src = xcalloc(d->o.nth + ss->nthresholds + 3, sizeof(*d->th_src));
    for (size_t i = 0; i < ss->nsteps; i++) {
        ids[i] = ss->steps[i]->id;
        names[i] = ss->steps[i]->name;
    }
    for (size_t i = 0; i < ss->nthresholds; i++) {
        const scen_threshold *st = &ss->thresholds[i];
        thresh *t = thresh_parse(st->expr, msg, sizeof(msg));
        if (t == NULL) {
            snprintf(err, errlen, "%s: threshold %s", st->where, msg);
            goto out;
        }
        d->o.th = xrealloc(d->o.th, (d->o.nth + 1) * sizeof(*d->o.th));
        d->th_src[d->o.nth] = xstrdup(st->where);
        d->o.th[d->o.nth++] = t;
        if (thresh_check_scope(t, ids, names, ss->nsteps, msg, sizeof(msg)) != 0) {
            snprintf(err, errlen, "%s: threshold %s", st->where, msg);
            goto out;
        }
    }
    d->nth_user = d->o.nth;
    ndflt = verdict_defaults((const thresh *const *)d->o.th, d->o.nth, d->o.allow_errors,
                             ss->nsteps, dflt);
    for (size_t i = 0; i < ndflt; i++) {
        d->o.th = xrealloc(d->o.th, (d->o.nth + 1) * sizeof(*d->o.th));
        d->th_src[d->o.nth] = xstrdup(VERDICT_DEFAULT);
        d->o.th[d->o.nth++] = thresh_parse(dflt[i], msg, sizeof(msg));
    }
    rc = 0;
out:
    xfree(ids);
    xfree(names);
    return rc;
}

/* Loads the script here first, as every worker will: a broken script is
 * reported with its own file:line and nothing is sent to any agent. */
static int preflight(dist *d, char *err, size_t errlen)
{
    engine_cfg cfg;
    engine *e;

    memset(&cfg, 0, sizeof(cfg));
    cfg.script = d->o.script;
    cfg.props = d->p;
    cfg.vus_total = d->o.vus;
    cfg.vu_first = 1;
    e = engine_new(&cfg, err, errlen);
    if (e == NULL)
        return -1;
    if (script_thresholds(d, engine_scens(e), err, errlen) != 0) {
        engine_free(e);
        return -1;
    }
    engine_free(e);
    return 0;
}

/* Evaluates every threshold on the run's totals and prints its verdict;
 * returns how many failed. */
static size_t print_thresholds(dist *d, thresh_result *rs)
{
    double el = (double)d->agg.elapsed_us / 1e6;
    size_t failed = 0;

    fprintf(stdout, "\nThresholds:\n");
    for (size_t i = 0; i < d->o.nth; i++) {
        const char *src = d->th_src != NULL ? d->th_src[i] : NULL;
        thresh_eval(d->o.th[i], &d->agg, (const char *const *)d->ids, (const char *const *)d->names,
                    el, &rs[i]);
        failed += !rs[i].passed;
        fprintf(stdout, "  %s  %-40s %s%s%s%s\n", rs[i].passed ? "PASS" : "FAIL", d->o.th[i]->expr,
                rs[i].desc, src != NULL ? " (" : "", src != NULL ? src : "",
                src != NULL ? ")" : "");
    }
    return failed;
}

/* Records the verdicts rs of the thresholds with the run. */
static void dist_db_thresholds(dist *d, const thresh_result *rs)
{
    db_threshold *ts;
    char err[1024];

    if (dist_db(d) == NULL || d->db_run <= 0 || d->o.nth == 0)
        return;
    ts = xcalloc(d->o.nth, sizeof(*ts));
    for (size_t i = 0; i < d->o.nth; i++) {
        const thresh *t = d->o.th[i];
        ts[i].expr = t->expr;
        ts[i].source = d->th_src != NULL && d->th_src[i] != NULL ? d->th_src[i] : "cli";
        ts[i].passed = rs[i].passed;
        ts[i].measurable = thresh_measured(t, &rs[i]);
        ts[i].measured = rs[i].measured;
        ts[i].limit = rs[i].limit;
        ts[i].unit = thresh_unit(t);
        ts[i].description = rs[i].desc;
    }
    if (db_thresholds(d->db, d->db_run, ts, d->o.nth, err, sizeof(err)) != 0)
        dist_db_failed(d, err);
    xfree(ts);
}

/* --junit: a test case per step and per threshold (rs, NULL when none), or
 * one failed case when the run could not start (start_msg). */
static void write_junit(dist *d, const thresh_result *rs, const char *start_msg)
{
    char name[256], err[1024];
    thresh_junit j;
    double el = (double)d->agg.elapsed_us / 1e6;
    int rc;

    if (d->o.junit == NULL)
        return;
    db_opts_name(&d->o.db, d->o.script, name, sizeof(name));
    if (start_msg != NULL) {
        junit_case c;
        char cls[300];
        memset(&c, 0, sizeof(c));
        snprintf(cls, sizeof(cls), "quern.%s", name);
        c.classname = cls;
        c.name = "start";
        c.failed = 1;
        c.failure_message = start_msg;
        rc = junit_write(d->o.junit, name, &c, 1, 0.0, err, sizeof(err));
    } else {
        thresh_junit_cases(&j, name, &d->agg, (const char *const *)d->ids,
                           (const char *const *)d->names, el, (const thresh *const *)d->o.th, rs,
                           rs != NULL ? d->o.nth : 0);
        rc = junit_write(d->o.junit, name, j.cases, j.n, el, err, sizeof(err));
        thresh_junit_free(&j);
    }
    if (rc != 0) {
        fprintf(stderr, "quern run: --junit: %s\n", err);
        d->rc = RUN_EXIT_START;
    }
}

static void print_breakdown(dist *d)
{
    fprintf(stdout, "\nAgents:\n  %-24s %8s %12s %10s  %s\n", "agent", "VUs", "requests", "errors",
            "status");
    for (size_t i = 0; i < d->nconns; i++) {
        dconn *c = d->conns[i];
        if (!c->in_run)
            continue;
        fprintf(stdout, "  %-24s %8u %12llu %10llu  %s\n", c->name, c->vus,
                (unsigned long long)c->requests, (unsigned long long)c->errors,
                c->lost ? "lost" : c->status);
    }
}

static void dist_free(dist *d)
{
    for (size_t i = 0; i < d->nconns; i++) {
        peer_close(&d->conns[i]->link);
        xfree(d->conns[i]);
    }
    xfree(d->conns);
    ivwin_free(&d->win);
    live_free(d->live);
    for (size_t i = 0; i < d->o.nth; i++) {
        thresh_free(d->o.th[i]);
        if (d->th_src != NULL)
            xfree(d->th_src[i]);
    }
    xfree(d->o.th);
    for (size_t i = 0; i < d->o.nsrc; i++)
        xfree(d->o.src[i]);
    xfree(d->o.src);
    xfree(d->th_src);
    for (size_t i = 0; i < d->nfiles; i++) {
        xfree(d->files[i]->path);
        xfree(d->files[i]->data.data);
        xfree(d->files[i]);
    }
    xfree(d->files);
    for (size_t i = 0; d->ids != NULL && i < d->nsteps; i++) {
        xfree(d->ids[i]);
        xfree(d->labels[i]);
        xfree(d->names[i]);
    }
    for (size_t i = 0; d->scen_names != NULL && i < d->nscens; i++)
        xfree(d->scen_names[i]);
    xfree(d->ids);
    xfree(d->labels);
    xfree(d->names);
    xfree(d->scen_names);
    if (d->have_agg)
        agg_free(&d->agg);
    if (d->loop != NULL) {
        ev_signal_stop(d->loop, &d->sigint);
        ev_signal_stop(d->loop, &d->sigterm);
        ev_loop_destroy(d->loop);
    }
    if (d->lfd >= 0)
        close(d->lfd);
    auth_token_free(d->token, d->token_len);
    props_free(d->p);
    db_close(d->db);
    db_opts_free(&d->o.db);
    gather_free(d->gather);
}

int dist_main(int argc, char **argv)
{
    dist d;
    props *over = props_new();
    char err[2048];
    summary_info si;
    const char *status;
    thresh_result *rs = NULL; /* owned: the thresholds' verdicts */
    verdict_in vi;
    verdict v;

    memset(&d, 0, sizeof(d));
    d.lfd = -1;
    d.rc = RUN_EXIT_USAGE;
    d.o.grace_us = 5000000;
    d.o.wait_us = 60000000;
    d.o.vus = 1;
    d.o.argc = argc, d.o.argv = argv;
    if (parse_args(argc, argv, &d.o, over) != 0)
        goto out;
    if (access(d.o.script, R_OK) != 0) {
        snprintf(err, sizeof(err), "cannot read script %s: %s", d.o.script, strerror(errno));
        goto fail;
    }
    d.p = run_load_props(d.o.script, d.o.props_file, over, err, sizeof(err));
    if (d.p == NULL)
        goto fail;
    if (preflight(&d, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err); /* file:line: message, as the script's own */
        snprintf(d.start_msg, sizeof(d.start_msg), "%s", err);
        goto out;
    }
    if (d.o.embedded) {
        d.rc = RUN_EXIT_START;
        if (local_token(&d.la, err, sizeof(err)) != 0)
            goto fail;
        d.rc = RUN_EXIT_USAGE;
        d.o.token_file = d.la.token_path;
    }
    if (d.o.token_file != NULL &&
        auth_read_token_file(d.o.token_file, &d.token, &d.token_len, err, sizeof(err)) != 0)
        goto fail;
    if (bundle_build(&d, err, sizeof(err)) != 0)
        goto fail;
    d.rc = RUN_EXIT_START;
    if (db_opts_path(&d.o.db) != NULL) {
        char dberr[sizeof(err) - 32];
        d.db = db_open(db_opts_path(&d.o.db), dberr, sizeof(dberr));
        if (d.db == NULL) {
            snprintf(err, sizeof(err), "results database: %s", dberr);
            goto fail;
        }
    }
    if (d.o.jtl != NULL || d.o.grinder_dir != NULL) {
        d.gather = gather_new(d.o.jtl, d.o.grinder_dir, err, sizeof(err));
        if (d.gather == NULL)
            goto fail;
    }
    if (listen_on(&d, err, sizeof(err)) != 0) {
        d.rc = d.o.token_file == NULL ? RUN_EXIT_USAGE : RUN_EXIT_START;
        goto fail;
    }
    if (d.o.embedded && local_agent_start(&d.la, d.port, d.o.workers, err, sizeof(err)) != 0)
        goto fail;
    d.loop = ev_loop_new(EVFLAG_AUTO);
    ev_io_init(&d.accept_io, on_accept, d.lfd, EV_READ);
    ev_timer_init(&d.tick, on_tick, 0.1, 0.1);
    ev_signal_init(&d.sigint, on_sig, SIGINT);
    ev_signal_init(&d.sigterm, on_sig, SIGTERM);
    d.accept_io.data = d.tick.data = d.sigint.data = d.sigterm.data = &d;
    ev_io_start(d.loop, &d.accept_io);
    ev_timer_start(d.loop, &d.tick);
    ev_signal_start(d.loop, &d.sigint);
    ev_signal_start(d.loop, &d.sigterm);
    d.phase = DP_WAIT;
    d.phase_us = clock_mono_us();
    ev_run(d.loop, 0);
    live_finish(d.live);
    log_set_before(NULL, NULL);

    if (d.start_error != 0) {
        fprintf(stderr, "quern run: the run could not start: %s\n", d.start_msg);
        d.rc = d.start_error == 2 ? RUN_EXIT_USAGE : RUN_EXIT_START;
        goto out;
    }
    d.agg.elapsed_us = d.end_us - d.go_us;
    status = d.aborted || d.threshold_stop ? "aborted"
             : d.degraded                  ? "degraded"
             : d.interrupted               ? "stopped"
                                           : "completed";
    for (size_t i = 0; i < d.nconns; i++)
        if (d.conns[i]->in_run && !d.conns[i]->lost && strcmp(d.conns[i]->status, "aborted") == 0 &&
            !d.interrupted)
            status = "aborted";
    memset(&si, 0, sizeof(si));
    memset(&vi, 0, sizeof(vi));
    si.status = status;
    si.vus = d.o.vus;
    si.step_ids = (const char *const *)d.ids;
    si.step_labels = (const char *const *)d.labels;
    si.step_names = (const char *const *)d.names;
    si.scen_names = (const char *const *)d.scen_names;
    if (d.db != NULL && d.db_run > 0) {
        db_run_end_info ei = {status, clock_wall_us(), d.agg.elapsed_us, d.agg.total, d.nsteps};
        int failed_before = d.db_failed;
        dist_db_agents(&d);
        /* 1: the status, end and reason were written, not the totals */
        int rc = db_run_end_reason(d.db, d.db_run, &ei, d.db_failed ? d.degraded_why : NULL, err,
                                   sizeof(err));
        if (rc != 0) {
            if (failed_before && rc < 0)
                log_msg(LOG_ERROR,
                        "results database: cannot end the run's row either (%s): "
                        "quern runs will show it abandoned",
                        err);
            else if (!failed_before)
                dist_db_failed(&d, err);
        }
        if (d.db_failed && strcmp(status, "aborted") != 0)
            si.status = status = "degraded";
    }
    summary_print(stdout, &d.agg, &si);
    if (!d.o.embedded)
        print_breakdown(&d);
    rs = xcalloc(d.o.nth + 1, sizeof(*rs));
    if (d.o.nth > 0) {
        print_thresholds(&d, rs);
        dist_db_thresholds(&d, rs);
        si.thresholds = (const thresh *const *)d.o.th;
        si.threshold_results = rs;
        si.threshold_sources = (const char *const *)d.th_src;
        si.nthresholds = d.o.nth;
    }
    vi.aborted = strcmp(status, "aborted") == 0 && !d.threshold_stop;
    vi.threshold_stop = d.threshold_stop;
    vi.degraded = d.degraded;
    vi.allow_loss = d.o.allow_loss;
    vi.loss_only = d.degraded_why[0] == '\0';
    vi.why_degraded = d.degraded_why;
    vi.ts = (const thresh *const *)d.o.th;
    vi.rs = rs;
    vi.sources = (const char *const *)d.th_src;
    vi.nt = d.o.nth;
    for (size_t i = 0; i < d.nsteps; i++)
        vi.samples += d.agg.total[i].count;
    for (size_t i = 0; i < d.nscens; i++)
        vi.runs += d.agg.runs[i];
    verdict_decide(&vi, &v);
    d.rc = v.rc;
    if (dist_db(&d) != NULL && d.db_run > 0 &&
        db_run_verdict(d.db, d.db_run, v.passed, v.why, err, sizeof(err)) != 0)
        log_msg(LOG_ERROR, "results database: %s", err);
    si.verdict_passed = v.passed;
    si.verdict = v.why;
    fprintf(stdout, "\nVerdict: %s\n", v.why);
    write_junit(&d, rs, NULL);
    if (d.gather != NULL && gather_close(d.gather, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: %s\n", err);
        d.rc = RUN_EXIT_START;
    }
    if (d.o.summary_json != NULL &&
        summary_write_json(d.o.summary_json, &d.agg, &si, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern run: --summary-json: %s\n", err);
        d.rc = RUN_EXIT_START;
    }
    goto out;
fail:
    /* A run that cannot go on: one line, and a failed --junit case. */
    fprintf(stderr, "quern run: %s\n", err);
    snprintf(d.start_msg, sizeof(d.start_msg), "%s", err);
out:
    if (d.start_msg[0] != '\0')
        write_junit(&d, NULL, d.start_msg);
    xfree(rs);
    local_agent_stop(&d.la);
    dist_free(&d);
    props_free(over);
    return d.rc;
}
