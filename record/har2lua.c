#include "record/har2lua.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/err.h"
#include "common/ofile.h"
#include "common/dbuf.h"
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
     "(FILE:LINE:COLUMN: what); 3 the script cannot be written, or would be longer\n"
     "than 64 MiB (the request at fault is named).",
     OPTTAB_NONE},
};
/* "--" ends the flags quietly: what follows it is not read */
static const opttab h2l_tab = {
    h2l_rows,        sizeof(h2l_rows) / sizeof(h2l_rows[0]), 24, .shorts = "ho:", .refuse_empty = 1,
    .dashdash_ok = 1};

void har2lua_usage(FILE *out)
{
    opttab_usage(&h2l_tab, out);
}

int har2lua_convert(const char *text, size_t len, const replay_opts *o, dbuf *out, char *err,
                    size_t errlen)
{
    har h;
    int rc;

    if (har_parse(text, len, &h, err, errlen) != 0)
        return -1;
    rc = replay_write(&h, o, out, err, errlen) != 0 ? -2 : 0;
    har_free(&h);
    return rc;
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
        xfree(buf);
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

/* What the command line asked. */
typedef struct h2l_args {
    replay_opts *o;   /* borrowed: the conversion's options */
    const char *in;   /* borrowed: FILE.har */
    const char *outp; /* borrowed: -o (NULL: standard output) */
} h2l_args;

/* opttab_parse's handler of one flag or argument. */
static int h2l_opt(void *ctx, int val, const char *flag, const char *v, char *err, size_t errlen)
{
    h2l_args *a = ctx;
    replay_opts *o = a->o;

    (void)flag;
    switch (val) {
    case 'h':
        har2lua_usage(stdout);
        return OPTTAB_DONE;
    case 'o':
        a->outp = v;
        return 0;
    case 'n':
        o->name = v;
        return 0;
    case 'b':
        o->prop = v;
        return 0;
    case 'r':
        if (strcmp(v, "auto") == 0)
            o->resources = REPLAY_RES_AUTO;
        else if (strcmp(v, "list") == 0)
            o->resources = REPLAY_RES_LIST;
        else if (strcmp(v, "none") == 0)
            o->resources = REPLAY_RES_NONE;
        else {
            err_set(err, errlen, "--resources %s: expected auto, list or none", v);
            return -1;
        }
        return 0;
    case 'i':
    case 'x':
        if ((val == 'i' ? o->ninclude : o->nexclude) == REPLAY_PATTERNS) {
            err_set(err, errlen, "%s: at most 16 patterns", val == 'i' ? "--include" : "--exclude");
            return -1;
        }
        if (val == 'i')
            o->include[o->ninclude++] = v;
        else
            o->exclude[o->nexclude++] = v;
        return 0;
    default: /* OPTTAB_ARG: the HAR file */
        if (a->in != NULL) {
            err_set(err, errlen, "one HAR file only, got a second: %s", v);
            return -1;
        }
        a->in = v;
        return 0;
    }
}

int har2lua_main(int argc, char **argv)
{
    replay_opts o = {.prop = "base_url", .resources = REPLAY_RES_AUTO};
    h2l_args args = {&o, NULL, NULL};
    const char *in, *outp;
    char name[128], err[ERR_MAX], *text = NULL;
    size_t len = 0;
    int rc = 2, crc;
    dbuf script;
    int prc = opttab_parse(&h2l_tab, argc, argv, h2l_opt, &args, err, sizeof(err));

    if (prc != 0)
        return prc > 0 ? 0 : cli_usage_err("har2lua", "%s", err);
    in = args.in;
    outp = args.outp;
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
    dbuf_init(&script, REPLAY_SCRIPT_MAX);
    crc = har2lua_convert(text, len, &o, &script, err, sizeof(err));
    if (crc != 0) {
        /* not a HAR: FILE:LINE:COLUMN: what; too long: FILE: what */
        fprintf(stderr, "quern har2lua: %s:%s%s\n", in, crc == -2 ? " " : "", err);
        rc = crc == -2 ? 3 : 2;
        goto out;
    }
    if (outp == NULL) {
        rc = fwrite(script.p, 1, script.len, stdout) == script.len && fflush(stdout) == 0 ? 0 : 3;
    } else {
        char oerr[ERR_MAX];
        rc = 0;
        if (ofile_put(outp, OFILE_REPLACE, script.p, script.len, oerr, sizeof(oerr)) != 0) {
            fprintf(stderr, "quern har2lua: cannot write %s\n", oerr);
            rc = 3;
        }
    }
out:
    dbuf_free(&script);
    xfree(text);
    return rc;
}
