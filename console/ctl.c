/* ctl — `quern ctl`, the client of --control; see ctl.h. */
#include "console/ctl.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/rate.h"
#include "proto/auth.h"

/* The console answers at once; past this it is not the console. */
#define CTL_TIMEOUT_MS 5000L
/* Most bytes of an answer kept (a line of reason). */
#define CTL_BODY_MAX 512

void ctl_usage(FILE *out)
{
    fputs("usage: quern ctl --console HOST:PORT [--token-file FILE] COMMAND\n"
          "\n"
          "Steers a run started with `quern run --control HOST:PORT`.\n"
          "\n"
          "commands:\n"
          "  pause      hold every VU at its next request or sleep (requests in\n"
          "             flight finish); the time paused is left out of the rates,\n"
          "             the percentiles and the run's duration, and the planned\n"
          "             end comes later by it\n"
          "  resume     go on\n"
          "  vus N      the closed model: N VUs from now on (up to the run's\n"
          "             --max-vus, default 10 x --vus at most 1000)\n"
          "  rate R     the open model: R arrivals a second from now on (200/s)\n"
          "  stop       end the run as SIGTERM does: verdict stopped, exit 1\n"
          "\n"
          "options:\n"
          "  --console HOST:PORT   the run's --control address\n"
          "  --token-file FILE     the run's --token-file (sent as a bearer token)\n"
          "\n"
          "exit status:\n"
          "  0  the console took the command (a line says what it does)\n"
          "  1  the console refused it now: the run is not under way, is paused\n"
          "     already, or has the other model (vus is the closed model's, rate the\n"
          "     open one's)\n"
          "  2  a usage error (the argument named), a console not reached (--console)\n"
          "     or a token refused (401: --token-file)\n",
          out);
}

typedef struct ctl_body {
    char buf[CTL_BODY_MAX];
    size_t len;
} ctl_body;

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    ctl_body *b = ud;
    size_t len = size * n, room = sizeof(b->buf) - 1 - b->len;

    memcpy(b->buf + b->len, p, len < room ? len : room);
    b->len += len < room ? len : room;
    b->buf[b->len] = '\0';
    return len;
}

/* The command's path into path, and what to say once it is taken into
 * done: 0, or 2 after a usage line. */
static int command_path(int argc, char **argv, int i, char *path, size_t len, char *done,
                        size_t donelen)
{
    const char *cmd = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
    int nargs = strcmp(cmd, "vus") == 0 || strcmp(cmd, "rate") == 0;
    char err[ERR_MAX];

    if (argc - i - 1 != nargs) {
        fprintf(stderr, "quern ctl: %s %s\n", cmd,
                nargs ? "takes one argument" : "takes no argument");
        return 2;
    }
    if (strcmp(cmd, "pause") == 0 || strcmp(cmd, "resume") == 0 || strcmp(cmd, "stop") == 0) {
        snprintf(path, len, "/%s", cmd);
        snprintf(done, donelen, "%s",
                 strcmp(cmd, "pause") == 0    ? "paused"
                 : strcmp(cmd, "resume") == 0 ? "resumed"
                                              : "stopping");
    } else if (strcmp(cmd, "vus") == 0) {
        char *end = NULL;
        unsigned long n = arg[0] >= '0' && arg[0] <= '9' ? strtoul(arg, &end, 10) : 0;
        if (end == NULL || *end != '\0' || n < 1 || n > 10000000) {
            fprintf(stderr, "quern ctl: vus N: \"%s\" is not a number of VUs from 1\n", arg);
            return 2;
        }
        snprintf(path, len, "/vus?n=%lu", n);
        snprintf(done, donelen, "%lu VUs from now on", n);
    } else if (strcmp(cmd, "rate") == 0) {
        double r;
        char rb[64];
        if (rate_parse(arg, 1, &r, err, sizeof(err)) != 0) {
            fprintf(stderr, "quern ctl: rate R: %s\n", err);
            return 2;
        }
        snprintf(path, len, "/rate?r=%s", rate_format(r, rb, sizeof(rb))); /* '/' fits a query */
        snprintf(done, donelen, "%s from now on", rb);
    } else {
        fprintf(stderr, "quern ctl: unknown command \"%s\" (pause, resume, vus N, rate R, stop)\n",
                cmd);
        return 2;
    }
    return 0;
}

/* POSTs path to the console (done: the line printed once it took it); the
 * exit status. */
static int post(const char *console, const char *path, const char *done, const char *token,
                size_t token_len)
{
    CURL *c = curl_easy_init();
    struct curl_slist *h = NULL;
    char url[1024], *auth = NULL, cerr[CURL_ERROR_SIZE] = "";
    ctl_body body = {.len = 0};
    long status = 0;
    CURLcode rc;
    int ret = 2;

    if (c == NULL)
        return 2;
    snprintf(url, sizeof(url), "http://%s%s", console, path);
    if (token != NULL) {
        auth = xmalloc(token_len + 32);
        snprintf(auth, token_len + 32, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, CTL_TIMEOUT_MS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_NOPROXY, "*"); /* the console, not a proxy */
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
    rc = curl_easy_perform(c);
    if (rc != CURLE_OK) {
        fprintf(stderr, "quern ctl: cannot reach the console at --console %s: %s\n", console,
                cerr[0] ? cerr : curl_easy_strerror(rc));
        goto out;
    }
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    while (body.len > 0 && (body.buf[body.len - 1] == '\n' || body.buf[body.len - 1] == '\r'))
        body.buf[--body.len] = '\0';
    if (status == 200) {
        printf("%s\n", done);
        ret = 0;
    } else if (status == 401) {
        fprintf(stderr, "quern ctl: the console refused the request (401): %s\n",
                token == NULL ? "it asks for a token: give --token-file, the run's"
                              : "--token-file is not the run's token");
    } else if (status == 400 || status == 404) {
        fprintf(stderr, "quern ctl: %s\n", body.buf);
    } else if (status == 421) {
        fprintf(stderr, "quern ctl: --console %s: name the console by its address\n", console);
    } else {
        fprintf(stderr, "quern ctl: refused (%ld): %s\n", status, body.buf);
        ret = 1;
    }
out:
    curl_slist_free_all(h);
    if (auth != NULL) {
        memset(auth, 0, token_len + 32);
        xfree(auth);
    }
    curl_easy_cleanup(c);
    return ret;
}

int ctl_main(int argc, char **argv)
{
    const char *console = NULL, *token_file = NULL;
    char path[128], done[128], err[ERR_MAX], *token = NULL;
    size_t token_len = 0;
    int i, rc;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ctl_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--console") == 0 || strcmp(argv[i], "--token-file") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "quern ctl: %s needs a value\n", argv[i]);
                return 2;
            }
            *(strcmp(argv[i], "--console") == 0 ? &console : &token_file) = argv[i + 1];
            i++;
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "quern ctl: unknown option %s (quern help ctl)\n", argv[i]);
            return 2;
        }
        break;
    }
    if (console == NULL || console[0] == '\0' || strchr(console, '/') != NULL ||
        strchr(console, ':') == NULL) {
        fprintf(stderr, "quern ctl: give --console HOST:PORT (the run's --control)\n");
        return 2;
    }
    if (i >= argc) {
        fprintf(stderr, "quern ctl: give a command: pause, resume, vus N, rate R or stop\n");
        return 2;
    }
    rc = command_path(argc, argv, i, path, sizeof(path), done, sizeof(done));
    if (rc != 0)
        return rc;
    if (token_file != NULL &&
        auth_read_token_file(token_file, &token, &token_len, err, sizeof(err)) != 0) {
        fprintf(stderr, "quern ctl: --token-file: %s\n", err);
        return 2;
    }
    rc = post(console, path, done, token, token_len);
    auth_token_free(token, token_len);
    return rc;
}
