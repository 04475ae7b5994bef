#include "console/run.h"

#include <libgen.h>
#include <stdio.h>
#include <sys/stat.h>

#include "common/mem.h"
#include "common/props.h"
#include "console/dist.h"
#include "reports/db.h"

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
          "  0  the run completed (or was stopped with Ctrl-C) and every threshold passed,\n"
          "     the default ones too: errors<=0% (unless --allow-errors or a threshold about\n"
          "     errors) and count>=1\n"
          "  1  a threshold failed (or --abort-on-fail stopped the run), nothing completed,\n"
          "     or a degraded run\n"
          "  2  usage or script error (no request was sent)\n"
          "  3  the run could not start or was aborted\n\n",
          out);
    dist_usage(out);
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
    /* One machine or many, a run is the same: a console and its agents.
     * Without --agents, the console starts a local agent itself. */
    return dist_main(argc, argv);
}
