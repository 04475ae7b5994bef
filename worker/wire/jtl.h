/* jtl — JMeter's CSV result format (a .jtl file, as --jtl writes it): the
 * line of one sample, with CSV quoting and the prefix the console removes
 * (proto/workerfiles.h).
 *
 * What it is for: tools that read JMeter results (the Jenkins Performance
 * plugin, JMeter's HTML dashboard) read quern's results unchanged. What a
 * line stands for (a step sample, an untimed request) is decided by
 * reqlog.h; this file only writes it.
 *
 * Every line fits in WFILE_LINE_MAX whatever its strings: each field has a
 * budget and is cut, still well-formed, to fit it.
 *
 * Use: fill a jtl_rec, then jtl_write() it into the worker's file; or
 * jtl_line() to format one into a buffer (the tests). */
#ifndef QUERN_JTL_H
#define QUERN_JTL_H

#include <stddef.h>
#include <stdint.h>

#include "worker/wire/wfile.h"

/** Writes s as one CSV field into out (room bytes, no terminating NUL),
 *  quoted, with quotes doubled, when it holds a comma, a quote, CR or LF;
 *  a field that does not fit is cut (still well-formed). Returns bytes
 *  written. */
size_t jtl_csv_field(char *out, size_t room, const char *s);

/** One JTL line's fields, filled by the caller for one jtl_line or
 *  jtl_write call. */
typedef struct jtl_rec {
    int64_t start_ms;    /**< timeStamp: the sample's start, ms since the epoch */
    int64_t elapsed_ms;  /**< elapsed: its response time, ms */
    const char *label;   /**< borrowed from the caller: the sample's label */
    const char *code;    /**< borrowed: responseCode; jtl_write sets it to a buffer of its own,
                              valid during that call only */
    const char *message; /**< borrowed: responseMessage; set by jtl_write as code is */
    const char *thread;  /**< borrowed from the caller: threadName */
    int success;         /**< 1: success true, 0: false */
    const char *failure; /**< borrowed from the caller: failureMessage ("" when none) */
    uint64_t bytes;      /**< bytes received, headers included */
    uint64_t sent;       /**< sentBytes */
    uint32_t grp;        /**< grpThreads: set by jtl_write (the active VUs) */
    uint32_t all;        /**< allThreads: set by jtl_write, as grp */
    const char *url;     /**< borrowed from the caller: the sample's URL */
    int64_t latency_ms;  /**< Latency: to the first byte of the response, ms */
    int64_t connect_ms;  /**< Connect: DNS, TCP and TLS setup, ms (0 on a reused connection) */
    const char *trace;   /**< borrowed from the caller; NULL: no traceId column (--traceparent off);
                              else the sample's trace id, "" when none
                              (WORKERFILES_JTL_TRACE_COLUMN) */
} jtl_rec;

/** Formats one JTL line with its newline into out (room >= WFILE_LINE_MAX -
 *  WORKERFILES_JTL_PREFIX_MAX); returns its length. threads_at (may be NULL)
 *  receives the offset of the grpThreads column. */
size_t jtl_line(char *out, size_t room, const jtl_rec *r, size_t *threads_at);

/** Writes r as one line of f behind its prefix (the interval second and the
 *  worker's active VUs, which also fill grpThreads and allThreads). The
 *  responseCode and responseMessage come from status (an HTTP status), or,
 *  when it is 0, from curl_rc and cmsg (a transport error, URLs in it
 *  redacted). r->code, r->message, r->grp and r->all are set here. */
void jtl_write(wfile *f, jtl_rec *r, int status, int curl_rc, const char *cmsg, uint64_t second,
               uint32_t active);

#endif
