/* agentopt — the options of `quern agent`, their table and their help side
 * by side (see agent/agent_int.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_int.h"
#include "agent/probe.h"
#include "agent/rundir.h"
#include "common/err.h"
#include "common/log.h"
#include "common/mem.h"
#include "common/memsize.h"
#include "common/opttab.h"

enum {
    OPT_CONSOLE = 256,
    OPT_TOKEN_FILE,
    OPT_WORKERS,
    OPT_NAME,
    OPT_WORK_DIR,
    OPT_WORKER_MEMORY,
    OPT_SAME_HOST,
    OPT_PROFILE_ALLOW
};

static const opttab_row agentopt_rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern agent --console HOST:PORT --token-file FILE [options]\n\n"
     "Connects to a console, then runs the tests it sends, one after another.\n"
     "Both prove they know the token, then every frame is encrypted and\n"
     "authenticated. A refused or failed handshake is never final: the agent\n"
     "says why and tries again after a back-off (1 s doubling to 30 s).\n\n"
     "options:",
     OPTTAB_NONE},
    {"console", required_argument, OPT_CONSOLE, "--console HOST:PORT",
     "the console to connect to (default 127.0.0.1:6372)", OPTTAB_NONE},
    {"token-file", required_argument, OPT_TOKEN_FILE, "--token-file FILE",
     "shared secret (mode 600, 16 bytes at least), the same as the console's", OPTTAB_NONE},
    {"workers", required_argument, OPT_WORKERS, "--workers P",
     "worker processes per run (default: online cores)", OPTTAB_NONE},
    {"worker-memory", required_argument, OPT_WORKER_MEMORY, "--worker-memory SIZE",
     "memory each worker's Lua state may hold (256M, 2G) when\n"
     "the console does not say (default: 75 % of this host's\n"
     "memory shared by the workers, at least 64M)",
     OPTTAB_NONE},
    {"name", required_argument, OPT_NAME, "--name NAME",
     "agent name shown by the console (default: host name)", OPTTAB_NONE},
    {"work-dir", required_argument, OPT_WORK_DIR, "--work-dir DIR",
     "where each run's private folder (script, CSV data) is made, mode 700,\n"
     "and removed after the run (default: $TMPDIR, else /tmp); made if missing.\n"
     "It and every folder above it must be this user's or root's, no symbolic\n"
     "link, and writable by nobody else unless sticky (as /tmp)",
     OPTTAB_NONE},
    {"same-host", no_argument, OPT_SAME_HOST, "--same-host",
     "the console runs on this host (`quern run` starts its own agent so):\n"
     "a run may name the script's folder, whose files the agent links\n"
     "into its run folder instead of receiving them (no size limit)",
     OPTTAB_NONE},
    {"profile-allow", required_argument, OPT_PROFILE_ALLOW, "--profile-allow T[,T...]",
     "the processes a console may have this agent profile during a run\n"
     "(quern run --profile): comm:NAME, pid:N, or any (default: none;\n"
     "the console's own agent, --same-host, profiles what its console asks)",
     OPTTAB_NONE},
    {"verbose", no_argument, 'v', "-v, --verbose", "debug messages", OPTTAB_NONE},
    {"quiet", no_argument, 'q', "-q, --quiet", "warnings and errors only", OPTTAB_NONE},
};
/* '+' (OPTTAB_ARGS_NONE): the first argument that is not an option ends the
 * options, and is refused. */
static const opttab agentopt_tab = {agentopt_rows, sizeof(agentopt_rows) / sizeof(agentopt_rows[0]),
                                    21, .args = OPTTAB_ARGS_NONE,
                                    .unknown = "unknown option %s (see quern agent --help)"};

void agentopt_usage(FILE *out)
{
    opttab_usage(&agentopt_tab, out);
}

/* What agentopt_parse fills besides the agent. */
typedef struct agentopt_args {
    agent *a;                /* borrowed: the agent being set up */
    const char *console;     /* borrowed: --console */
    const char **token_file; /* borrowed from the caller: --token-file */
} agentopt_args;

/* opttab_parse's handler of one flag. */
static int agentopt_one(void *ctx, int val, const char *flag, const char *v, char *err,
                        size_t errlen)
{
    agentopt_args *g = ctx;
    agent *a = g->a;

    (void)flag;
    switch (val) {
    case 'v':
        log_set_level(LOG_DEBUG);
        return 0;
    case 'q':
        log_set_level(LOG_WARN); /* warnings and errors only */
        return 0;
    case OPT_CONSOLE:
        g->console = v;
        return 0;
    case OPT_TOKEN_FILE:
        *g->token_file = v;
        return 0;
    case OPT_WORKERS: {
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*v == '\0' || *end != '\0' || n < 1 || n > AGENT_WORKERS_MAX) {
            err_set(err, errlen, "--workers: \"%s\" is not a number from 1 to %d", v,
                    AGENT_WORKERS_MAX);
            return -1;
        }
        a->workers = (unsigned)n;
        return 0;
    }
    case OPT_WORKER_MEMORY: {
        char why[256];
        if (memsize_parse(v, &a->lua_mem, why, sizeof(why)) != 0) {
            err_set(err, errlen, "--worker-memory: %s", why);
            return -1;
        }
        if (a->lua_mem < MEMSIZE_WORKER_MIN || a->lua_mem > MEMSIZE_WORKER_MAX) {
            err_set(err, errlen, "--worker-memory: \"%s\" is not from 16M to 1T", v);
            return -1;
        }
        return 0;
    }
    case OPT_SAME_HOST:
        a->same_host = 1;
        return 0;
    case OPT_PROFILE_ALLOW:
        if (probe_allow_check(v, err, errlen) != 0)
            return -1;
        a->profile_allow = v;
        return 0;
    case OPT_NAME:
        if (v[0] == '\0' || strlen(v) >= sizeof(a->name)) {
            err_set(err, errlen, "--name must have 1 to %zu characters", sizeof(a->name) - 1);
            return -1;
        }
        snprintf(a->name, sizeof(a->name), "%s", v);
        return 0;
    default: /* OPT_WORK_DIR */
        if (rundir_workdir(v, err, errlen) != 0)
            return -1;
        a->work_dir = v;
        return 0;
    }
}

int agentopt_parse(agent *a, int argc, char **argv, const char **token_file)
{
    agentopt_args g = {a, "127.0.0.1:6372", token_file};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const char *console, *colon;
    /* not ERR_MAX: the path and why it is refused (tests/lint/errrule.allow) */
    char err[PATH_MAX + 256];

    a->workers = cores > 0 ? (unsigned)cores : 1;
    gethostname(a->name, sizeof(a->name) - 1);
    if (opttab_parse(&agentopt_tab, argc, argv, agentopt_one, &g, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern agent: %s\n", err);
        return -1;
    }
    console = g.console;
    colon = strrchr(console, ':');
    if (colon == NULL || colon == console || colon[1] == '\0' ||
        strlen(colon + 1) >= sizeof(a->port)) {
        fprintf(stderr, "quern agent: --console wants HOST:PORT, got \"%s\"\n", console);
        return -1;
    }
    snprintf(a->port, sizeof(a->port), "%s", colon + 1);
    a->host = xstrndup(console, (size_t)(colon - console));
    if (*token_file == NULL) {
        fprintf(stderr, "quern agent: --token-file is required (the console's shared secret)\n");
        return -1;
    }
    if (a->work_dir == NULL) {
        /* The default is held to the rule of --work-dir: the agent runs what
         * it finds there. */
        if (rundir_workdir(NULL, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern agent: %s (or choose one with --work-dir)\n", err);
            return -1;
        }
    }
    return 0;
}
