#include "worker/wire/jtl.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "common/lbuf.h"
#include "common/redact.h"
#include "proto/workerfiles.h"

/* A CSV field cut to at most max bytes of output. */
static void csv_field(lbuf *w, const char *s, size_t max)
{
    size_t room = w->cap - w->len;
    w->len += jtl_csv_field(w->p + w->len, room < max ? room : max, s);
}

size_t jtl_csv_field(char *out, size_t room, const char *s)
{
    size_t n = 0;
    int quote;

    if (s == NULL)
        return 0;
    quote = strpbrk(s, ",\"\r\n") != NULL;
    if (!quote) {
        n = strlen(s);
        if (n > room)
            n = room;
        memcpy(out, s, n);
        return n;
    }
    if (room < 2)
        return 0;
    out[n++] = '"';
    for (; *s != '\0'; s++) {
        size_t need = *s == '"' ? 2 : 1;
        if (n + need + 1 > room) /* keep room for the closing quote */
            break;
        out[n++] = *s;
        if (*s == '"')
            out[n++] = '"';
    }
    out[n++] = '"';
    return n;
}

size_t jtl_line(char *out, size_t room, const jtl_rec *r, size_t *threads_at)
{
    lbuf w = {out, 0, room};

    /* Budgets keep the line under WFILE_LINE_MAX whatever the strings. */
    lbuf_fmt(&w, "%" PRId64 ",%" PRId64 ",", r->start_ms, r->elapsed_ms);
    csv_field(&w, r->label, 600);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->code, 200);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->message, 400);
    lbuf_put(&w, ",", 1);
    csv_field(&w, r->thread, 300);
    lbuf_fmt(&w, ",text,%s,", r->success ? "true" : "false");
    csv_field(&w, r->failure, 400);
    lbuf_fmt(&w, ",%" PRIu64 ",%" PRIu64 ",", r->bytes, r->sent);
    if (threads_at != NULL)
        *threads_at = w.len;
    lbuf_fmt(&w, "%u,%u,", r->grp, r->all);
    csv_field(&w, r->url, 1100);
    lbuf_fmt(&w, ",%" PRId64 ",0,%" PRId64, r->latency_ms, r->connect_ms);
    if (r->trace != NULL) /* JMeter has no column for it: one more, last (proto/workerfiles.h) */
        lbuf_fmt(&w, ",%.32s", r->trace);
    lbuf_put(&w, "\n", 1);
    if (w.len == w.cap) /* cut: the line still ends */
        w.p[w.len - 1] = '\n';
    return w.len;
}

/* The reason phrase of an HTTP status, for responseMessage. */
static const char *reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 101:
        return "Switching Protocols";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 206:
        return "Partial Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 303:
        return "See Other";
    case 304:
        return "Not Modified";
    case 307:
        return "Temporary Redirect";
    case 308:
        return "Permanent Redirect";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Payload Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    default:
        return "";
    }
}

void jtl_write(wfile *f, jtl_rec *r, int status, int curl_rc, const char *cmsg, uint64_t second,
               uint32_t active)
{
    char code[96], msg[256];
    char line[WFILE_LINE_MAX - WORKERFILES_JTL_PREFIX_MAX];
    char *out = wfile_reserve(f);
    size_t n, at = 0;
    int k;

    if (out == NULL)
        return;
    if (status > 0) {
        snprintf(code, sizeof(code), "%d", status);
        err_set(msg, sizeof(msg), "%s", reason(status));
    } else {
        char tmp[sizeof(msg)];
        snprintf(code, sizeof(code), "Non HTTP response code: %s",
                 curl_easy_strerror((CURLcode)curl_rc));
        snprintf(tmp, sizeof(tmp), "Non HTTP response message: %s", cmsg);
        redact_url(tmp, msg, sizeof(msg));
    }
    r->code = code;
    r->message = msg;
    /* The worker's count, and what the console needs to write the run's
     * (see WORKERFILES_JTL_PREFIX): the second the sample counts in. */
    r->grp = r->all = active;
    n = jtl_line(line, sizeof(line), r, &at);
    k = snprintf(out, WORKERFILES_JTL_PREFIX_MAX, WORKERFILES_JTL_PREFIX, second, active, at);
    if (k <= 0 || (size_t)k >= WORKERFILES_JTL_PREFIX_MAX)
        return;
    memcpy(out + k, line, n);
    wfile_commit(f, (size_t)k + n);
}
