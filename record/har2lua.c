#include "record/har2lua.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/err.h"
#include "common/mem.h"
#include "common/mem.h"
#include "common/opttab.h"
#include "record/har.h"
#include "record/replay.h"

#define HAR_MAX_BYTES (512L * 1024 * 1024) /* a larger file is refused */

/* The options and their help: one table. */
static const opttab_row h2l_rows[] = {
    {NULL, 0, 0, NULL,
     "usage: quern har2lua FILE.har [-o SCRIPT.lua] [--name SCENARIO]\n"
     "         [--base-url-property NAME] [--resources auto|list|none]\n"
     "         [--include GLOB] [--exclude GLOB]\n\n"
     "Turns a browser's recording (HAR 1.2, as Chromium's, Firefox's devtools and\n"
     "Playwright save it) into a scenario: one step per page (a navigation with its\n"
     "redirects, or an XHR/fetch call), labelled with the page's title or path, each\n"
     "expecting its recorded status; think times as recorded; bodies as form = {...}\n"
     "or json = ...; the browser's own headers and cookies left to the VU. A value the\n"
     "server handed out (a hidden input, a JSON field, an id in a Location header) and\n"
     "sent back later is extracted from its response (r:xpath, r:json, match) into a\n"
     "local, with a comment saying where it came from. The recorded origin becomes a\n"
     "property: quern run SCRIPT.lua -p base_url=http://other-host:8080.\n\n"
     "options:",
     OPTTAB_NONE},
    {"output", required_argument, 'o', "-o FILE", "the script (default: standard output)",
     OPTTAB_NONE},
    {"name", required_argument, 'n', "--name NAME",
     "the scenario's name (default: the file's, in\n"
     "capitals): its steps are SC-NAME-STEP-n",
     OPTTAB_NONE},
    {"base-url-property", required_argument, 'b', "--base-url-property P",
     "the property holding the origin (default base_url)", OPTTAB_NONE},
    {"resources", required_argument, 'r', "--resources MODE",
     "a page's static files: auto (default):\n"
     "resources = true on the page's request, which\n"
     "needs quern's embedded resources; list: each\n"
     "recorded file requested, the page and its files\n"
     "timed as one sample; none: left out",
     OPTTAB_NONE},
    {"include", required_argument, 'i', "--include GLOB",
     "keep the requests whose URL matches, though of\n"
     "another origin (repeatable; other origins are\n"
     "left out and listed in the script's header)",
     OPTTAB_NONE},
    {"exclude", required_argument, 'x', "--exclude GLOB",
     "leave out the requests whose URL matches\n"
     "(repeatable; wins over --include)",
     OPTTAB_NONE},
    {"help", no_argument, 'h', NULL, NULL, OPTTAB_NONE},
    {NULL, 0, 0, NULL,
     "\nexit status: 0 written; 2 usage error, or a file that is not JSON or not a HAR\n"
     "(FILE:LINE:COLUMN: what); 3 the script cannot be written.",
     OPTTAB_NONE},
};
static const opttab h2l_tab = {h2l_rows, sizeof(h2l_rows) / sizeof(h2l_rows[0]), 24};

void har2lua_usage(FILE *out)
{
    opttab_usage(&h2l_tab, out);
}

int har2lua_convert(const char *text, size_t len, const replay_opts *o, FILE *out, char *err,
                    size_t errlen)
{
    har h;

    if (har_parse(text, len, &h, err, errlen) != 0)
        return -1;
    replay_write(&h, o, out);
    har_free(&h);
    return 0;
}

/* ---------------------------------------------------------------- command */

/* The scenario's default name: the file's, without folder and extension,
 * in capitals, other characters as '-'. */
static void default_name(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/');
    size_t o = 0;

    b = b != NULL ? b + 1 : path;
    for (const char *p = b; *p && *p != '.' && o + 1 < len; p++)
        out[o++] = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '-';
    out[o] = '\0';
    if (o == 0)
        snprintf(out, len, "RECORDED");
}

/* Reads the whole file; NULL with errno set. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (f == NULL)
        return NULL;
    n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    if (n > HAR_MAX_BYTES) {
        fclose(f);
        errno = EFBIG;
        return NULL;
    }
    buf = xmalloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
        errno = EIO;
    }
    fclose(f);
    if (buf != NULL) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

int har2lua_main(int argc, char **argv)
{
    replay_opts o = {.prop = "base_url", .resources = REPLAY_RES_AUTO};
    const char *in = NULL, *outp = NULL;
    char name[128], err[ERR_MAX], *text = NULL, *buf = NULL;
    size_t len = 0, blen = 0;
    int c, rc = 2;
    FILE *mem;
    struct option lopts[sizeof(h2l_rows) / sizeof(h2l_rows[0]) + 1];

    opttab_longopts(&h2l_tab, lopts);
    opterr = 0;
    optind = 0; /* 0, not 1: glibc then starts afresh */
    while ((c = getopt_long(argc, argv, "-:ho:", lopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            har2lua_usage(stdout);
            return 0;
        case 'o':
        case 'n':
        case 'b':
        case 'r':
        case 'i':
        case 'x':
            if (optarg[0] == '\0')
                return cli_usage_err("har2lua", "%s needs a value", cli_flag(argv, optind, optarg));
            if (c == 'o')
                outp = optarg;
            else if (c == 'n')
                o.name = optarg;
            else if (c == 'b')
                o.prop = optarg;
            else if (c == 'r') {
                if (strcmp(optarg, "auto") == 0)
                    o.resources = REPLAY_RES_AUTO;
                else if (strcmp(optarg, "list") == 0)
                    o.resources = REPLAY_RES_LIST;
                else if (strcmp(optarg, "none") == 0)
                    o.resources = REPLAY_RES_NONE;
                else
                    return cli_usage_err("har2lua", "--resources %s: expected auto, list or none",
                                         optarg);
            } else if ((c == 'i' ? o.ninclude : o.nexclude) == REPLAY_PATTERNS) {
                return cli_usage_err("har2lua", "%s: at most 16 patterns",
                                     c == 'i' ? "--include" : "--exclude");
            } else if (c == 'i')
                o.include[o.ninclude++] = optarg;
            else
                o.exclude[o.nexclude++] = optarg;
            break;
        case ':':
            return cli_usage_err("har2lua", "%s needs a value", cli_flag(argv, optind, NULL));
        case 1:
            if (in != NULL)
                return cli_usage_err("har2lua", "one HAR file only, got a second: %s", optarg);
            in = optarg;
            break;
        default:
            return cli_usage_err("har2lua", "unknown option %s", cli_flag(argv, optind, NULL));
        }
    }
    if (in == NULL)
        return cli_usage_err("har2lua", "%s", "no HAR file given");
    if (o.name == NULL) {
        default_name(in, name, sizeof(name));
        o.name = name;
    }
    o.source = strrchr(in, '/') != NULL ? strrchr(in, '/') + 1 : in;
    text = read_all(in, &len);
    if (text == NULL) {
        fprintf(stderr, "quern har2lua: cannot read %s: %s\n", in, strerror(errno));
        return 2;
    }
    /* the script is built in memory: an error leaves no half-written file */
    mem = open_memstream(&buf, &blen);
    if (mem == NULL) {
        fprintf(stderr, "quern har2lua: out of memory\n");
        rc = 3;
        goto out;
    }
    if (har2lua_convert(text, len, &o, mem, err, sizeof(err)) != 0) {
        fclose(mem);
        fprintf(stderr, "quern har2lua: %s:%s\n", in, err);
        goto out;
    }
    fclose(mem);
    if (outp == NULL) {
        rc = fwrite(buf, 1, blen, stdout) == blen && fflush(stdout) == 0 ? 0 : 3;
    } else {
        FILE *f = fopen(outp, "w");
        rc = 3;
        if (f != NULL && fwrite(buf, 1, blen, f) == blen && fclose(f) == 0)
            rc = 0;
        else if (f != NULL)
            fclose(f);
        if (rc != 0)
            fprintf(stderr, "quern har2lua: cannot write %s: %s\n", outp, strerror(errno));
    }
out:
    free(buf);
    free(text);
    return rc;
}
