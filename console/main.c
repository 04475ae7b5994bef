/* quern — one binary, subcommands. */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "agent/agent.h"
#include "common/log.h"
#include "common/salloc.h"
#include "console/preview.h"
#include "console/ctl.h"
#include "console/opts.h"
#include "console/runcmd.h"
#include "console/scaffold.h"
#include "reports/compare.h"
#include "reports/report.h"
#include "reports/runs.h"
#include "record/har2lua.h"
#include "common/version.h"

static void usage(FILE *out)
{
    fputs("usage: quern COMMAND [options]\n"
          "\n"
          "commands:\n"
          "  run SCRIPT.lua    play a load test and report its statistics\n"
          "  check SCRIPT.lua  what a run would do, nothing sent (quern help check)\n"
          "  new NAME          write NAME.lua, a first scenario (quern help new)\n"
          "  agent             serve a console as a load injector (quern help agent)\n"
          "  runs              list the runs in the results database (quern help runs)\n"
          "  report [RUN]      write a run's HTML report (quern help report)\n"
          "  compare [A [B]]   compare two runs step by step (quern help compare)\n"
          "  har2lua FILE.har  turn a browser's recording into a scenario (quern help har2lua)\n"
          "  ctl COMMAND       pause, resume, rescale or stop a running run (quern help ctl)\n"
          "  help [COMMAND]    show help for a command\n"
          "  version           print the version\n"
          "\n"
          "`quern help run` lists the options of a run.\n",
          out);
}

/* Every VU holds a connection: take all the descriptors the system allows
 * this user (the soft limit is often 1024, the hard one much higher). */
static void raise_fd_limit(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    int rc;

    log_init("quern");
    /* A peer closing a socket must not kill us; libcurl is told not to use
     * signals (CURLOPT_NOSIGNAL) so it never installs a handler per call. */
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "run") == 0) {
            opts_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "check") == 0) {
            preview_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "new") == 0) {
            scaffold_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "agent") == 0) {
            agent_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "runs") == 0) {
            runs_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "report") == 0) {
            report_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "compare") == 0) {
            compare_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "har2lua") == 0) {
            har2lua_usage(stdout);
            return 0;
        }
        if (strcmp(argv[2], "ctl") == 0) {
            ctl_usage(stdout);
            return 0;
        }
        fprintf(stderr, "quern help: unknown command \"%s\"\n", argv[2]);
        return 2;
    }
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
        printf("quern %s\n", QUERN_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "agent") == 0)
        return agent_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "runs") == 0)
        return runs_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "ctl") == 0)
        return ctl_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "report") == 0)
        return report_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "compare") == 0)
        return compare_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "har2lua") == 0)
        return har2lua_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "new") == 0)
        return scaffold_main(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") == 0) {
        if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
            preview_usage(stdout);
            return 0;
        }
        if (salloc_curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            fprintf(stderr, "quern: cannot initialise libcurl\n");
            return 3;
        }
        rc = run_check(argc - 1, argv + 1);
        curl_global_cleanup();
        return rc;
    }
    if (strcmp(argv[1], "run") == 0) {
        if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
            opts_usage(stdout);
            return 0;
        }
        if (salloc_curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
            fprintf(stderr, "quern: cannot initialise libcurl\n");
            return 3;
        }
        rc = run_main(argc - 1, argv + 1);
        curl_global_cleanup();
        return rc;
    }
    fprintf(stderr, "quern: unknown command \"%s\" (see quern --help)\n", argv[1]);
    return 2;
}
