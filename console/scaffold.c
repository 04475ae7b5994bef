/* scaffold — `quern new`: a first scenario; see scaffold.h. */
#include "console/scaffold.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/ofile.h"

/* The scenario, in three parts around its name (twice) and its URL. */
static const char head[] =
    "-- %s: a first quern scenario (docs/scenarios.md has the whole API).\n"
    "--\n"
    "--   quern check %s                  what a run would do, nothing sent\n"
    "--   quern run %s --vus 10 --ramp-up 10s --duration 1m\n"
    "--\n"
    "-- It logs in to the demo target (bin/quern-target --port 8080) and\n"
    "-- reads the profile; give another target with -p base_url=...\n"
    "local quern = require \"quern\"\n"
    "local http = require \"quern.http\"\n"
    "\n"
    "-- Properties: -p key=value, or a quern.properties file beside this one.\n"
    "local base = quern.property(\"base_url\", \"%s\")\n";

static const char body[] =
    "-- The demo target takes any password. Against a real one drop the default,\n"
    "-- quern.property(\"password\"): a run without -p password=... then stops\n"
    "-- before it starts, naming the property (its value is never shown).\n"
    "local password = quern.property(\"password\", \"secret\")\n"
    "\n"
    "local sc = quern.scenario(\"%s\", {\n"
    "  pacing  = \"1s\",                           -- a VU starts a run once a second at most\n"
    "  think   = { min = \"100ms\", max = \"300ms\" }, -- a pause before each step but the first\n"
    "  cookies = \"keep\",                         -- the session survives from run to run\n"
    "  -- the run fails (exit 1) when one of them fails; scoped to this scenario's steps\n"
    "  thresholds = { \"p95<500ms\", \"errors<1%%\" },\n"
    "})\n"
    "\n"
    "-- Each step is a test id in the results: SC-%s-STEP-1, ...\n"
    "local login   = sc:step(1, \"Login\")\n"
    "local profile = sc:step(2, \"Profile\")\n"
    "\n"
    "-- Once per VU, before its runs: the login form's one-time token, then the\n"
    "-- POST, timed together as one sample of the Login step.\n"
    "function sc.init(vu)\n"
    "  login:time(function()\n"
    "    local csrf = http.get(base .. "
    "\"/login\"):expect(200):xpath(\"//input[@name='csrf']/@value\")\n"
    "    http.post(base .. \"/login\", { form = {\n"
    "      user = string.format(\"user%%04d\", vu.id), password = password, csrf = csrf,\n"
    "    } }):expect(200)\n"
    "  end)\n"
    "end\n"
    "\n"
    "-- Each run of a VU.\n"
    "function sc.run(vu)\n"
    "  profile:get(base .. \"/profile\"):expect(200):contains(\"Profil\")\n"
    "end\n";

void scaffold_usage(FILE *out)
{
    fputs("usage: quern new NAME [--url URL]\n"
          "\n"
          "Writes NAME.lua, a commented scenario (a login, a step, thresholds, pacing,\n"
          "think time) that passes `quern check` and plays against the demo target as it\n"
          "is. An existing file is not overwritten.\n"
          "\n"
          "options:\n"
          "  --url URL   the base_url property's default (default " SCAFFOLD_URL_DEFAULT ")\n"
          "\n"
          "exit status: 0 written; 2 a bad argument, the file exists or cannot be written.\n",
          out);
}

/* A URL that can stand in a Lua string as it is: http(s)://, printable,
 * no quote nor backslash. */
static int url_ok(const char *u)
{
    if (strncmp(u, "http://", 7) != 0 && strncmp(u, "https://", 8) != 0)
        return 0;
    for (const char *p = u; *p != '\0'; p++)
        if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            return 0;
    return strlen(u) < 1024;
}

int scaffold_main(int argc, char **argv)
{
    const char *name = NULL, *url = SCAFFOLD_URL_DEFAULT;
    char path[4096], scen[128];
    const char *base;
    size_t len, k = 0;
    char oerr[ERR_MAX];
    ofile o;
    FILE *f;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--url") == 0 && i + 1 < argc)
            url = argv[++i];
        else if (strncmp(argv[i], "--url=", 6) == 0)
            url = argv[i] + 6;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            scaffold_usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' || name != NULL) {
            fprintf(stderr, "quern new: unexpected argument \"%s\" (quern help new)\n", argv[i]);
            return 2;
        } else
            name = argv[i];
    }
    if (name == NULL || name[0] == '\0') {
        fprintf(stderr, "quern new: NAME is missing: quern new NAME [--url URL]\n");
        return 2;
    }
    if (!url_ok(url)) {
        fprintf(stderr, "quern new: --url: \"%s\" is not an http:// or https:// URL\n", url);
        return 2;
    }
    len = strlen(name);
    if (snprintf(path, sizeof(path), "%s%s", name,
                 len > 4 && strcmp(name + len - 4, ".lua") == 0 ? "" : ".lua") >=
        (int)sizeof(path)) {
        fprintf(stderr, "quern new: NAME is too long\n");
        return 2;
    }
    /* the scenario's name: the file's, in capitals, what a name may hold */
    base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
    for (const char *p = base; *p != '\0' && strcmp(p, ".lua") != 0 && k + 1 < sizeof(scen); p++) {
        char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        scen[k++] = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '-';
    }
    scen[k] = '\0';
    if (k == 0) {
        fprintf(stderr, "quern new: NAME \"%s\" leaves no scenario name\n", name);
        return 2;
    }
    /* never over an existing file: a device or FIFO is written through */
    if (ofile_open(&o, path, OFILE_NEW, oerr, sizeof(oerr)) != 0) {
        fprintf(stderr, "quern new: %s\n", oerr);
        return 2;
    }
    f = ofile_stream(&o);
    if (f == NULL) {
        ofile_abort(&o);
        fprintf(stderr, "quern new: %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(f, head, base, path, path, url);
    fprintf(f, body, scen, scen);
    if (ofile_commit(&o, oerr, sizeof(oerr)) != 0) {
        fprintf(stderr, "quern new: %s\n", oerr);
        return 2;
    }
    printf("%s written: quern check %s, then quern run %s\n", path, path, path);
    return 0;
}
