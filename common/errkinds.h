/* errkinds — a step's errors by kind, each distinct cause with its count.
 *
 * What it is for: err_tech and err_func count a step's errors, but a run
 * with HTTP 500s, 503s and timeouts needs each cause apart. A kind is the
 * key (class, code, folded message): class technical or functional; code the
 * HTTP status of an unaccepted status, the libcurl error code of a transfer
 * that failed, else 0 (a check or a script error); the message with what
 * varies from one request to the next folded away (errkinds_fold), so that
 * one cause is one row. Each kind keeps its count, its first and last time
 * (epoch ms) and one example: the URL, the status, a bounded excerpt of the
 * body and the trace id of its first request.
 *
 * Bounded: a table holds ERRKIND_MAX kinds; the errors of any further kind
 * are counted in one row per class, the kind ERRKIND_OTHER. The counts of a
 * class's rows add up to its error count. Merging adds counts by exact key
 * (first = min, last = max, the example of the earliest kept), so workers,
 * agents and the console merge the same way; which kinds enter a full table
 * depends on the order they come in.
 *
 * Memory: a step_stats holds a table only from its first error (the success
 * path allocates and folds nothing); errkinds_reset empties it for reuse.
 *
 * Usage:
 *     errkinds *t = errkinds_new();
 *     errkinds_note(t, 1, 503, "HTTP status 503", now_ms, &example);  // folds
 *     errkinds_merge(total, t);                                        // by key
 *     const errkind *rows[ERRKIND_ROWS];
 *     size_t n = errkinds_sorted(total, rows);        // by count, "other" last
 *     errkinds_free(t); */
#ifndef QUERN_ERRKINDS_H
#define QUERN_ERRKINDS_H

#include <stddef.h>
#include <stdint.h>

#include "common/slowest.h"

#define ERRKIND_MAX 32 /**< kinds kept per table (a step's interval, a run's totals) */
#define ERRKIND_ROWS (ERRKIND_MAX + 2) /**< rows of a table: the kinds and two "other" */
#define ERRKIND_MSG_MAX 160            /**< bytes of a folded message, NUL included */
#define ERRKIND_URL_MAX 256            /**< bytes of an example's URL, NUL included */
#define ERRKIND_BODY_MAX 200           /**< bytes of an example's body excerpt */
#define ERRKIND_QUOTE_MAX 24           /**< bytes of a quoted value kept by errkinds_fold */
/** The message of the row that counts the kinds past ERRKIND_MAX (code 0). */
#define ERRKIND_OTHER "(other kinds)"

/** One request that met the kind: the first seen. */
typedef struct errkind_example {
    char url[ERRKIND_URL_MAX];       /**< its URL, passwords redacted; "" unknown */
    int32_t status;                  /**< its HTTP status, 0 none */
    char body[ERRKIND_BODY_MAX + 1]; /**< the start of its body, redacted, valid UTF-8
                                          without control characters; "" none */
    char trace[SLOWEST_TRACE_LEN];   /**< its trace id (--traceparent), "" none */
} errkind_example;

/** One kind and what was counted of it. */
typedef struct errkind {
    uint8_t technical;         /**< 1 technical, 0 functional */
    int32_t code;              /**< HTTP status, libcurl error code, or 0 */
    char msg[ERRKIND_MSG_MAX]; /**< the folded message (errkinds_fold) */
    uint64_t count;
    int64_t first_ms, last_ms; /**< epoch milliseconds of its first and last error */
    errkind_example ex;
} errkind;

/** A bounded table of kinds. */
typedef struct errkinds {
    size_t n; /**< kinds in k */
    errkind k[ERRKIND_MAX];
    errkind other[2]; /**< [technical]: the errors of kinds past the bound */
} errkinds;

/** An empty table; owned by the caller, released with errkinds_free. */
errkinds *errkinds_new(void);
/** Releases t; t may be NULL. */
void errkinds_free(errkinds *t);
/** Empties t (NULL: nothing). */
void errkinds_reset(errkinds *t);
/** Errors counted in t, all rows (0 for NULL). */
uint64_t errkinds_total(const errkinds *t);

/** Folds msg into out (outlen bytes, at most ERRKIND_MSG_MAX kept), so that
 *  one cause gives one text: URL passwords redacted (common/redact.h);
 *  control characters and runs of spaces become one space; a token of 8 or
 *  more hex digits and dashes with a digit and a letter a-f (a UUID, a hash)
 *  or of 16 or more letters and digits with both (a session id) becomes
 *  "ID"; the digits a word starts with ("3000", "200ms") become "N" (digits
 *  after a letter are a name: "e2e", "http2"), except a number equal to
 *  code when it is an HTTP status (code >= 100: "HTTP status 503" stays),
 *  a script's line ("x.lua:12:") and an HTTP status after the word
 *  "status" or "got" ("expected status 200, got 503" stays);
 *  a quoted value ('...' or "...", opened at the start of a word) longer
 *  than ERRKIND_QUOTE_MAX + 3 bytes keeps its first ERRKIND_QUOTE_MAX and
 *  then "..."; bytes that are not UTF-8 become '?'; the text ends at a
 *  word's end. Folding a folded message changes nothing. Returns
 *  strlen(out). */
size_t errkinds_fold(const char *msg, int32_t code, char *out, size_t outlen);

/** Fills ex: url redacted and cut, body[0..len) cut to ERRKIND_BODY_MAX,
 *  made valid UTF-8 without control characters, redacted; trace copied.
 *  Any of url, body, trace may be NULL. */
void errkinds_example_set(errkind_example *ex, const char *url, int status, const char *body,
                          size_t len, const char *trace);

/** Counts one error: folds msg (NULL: "error") and adds it with count 1 at
 *  now_ms; ex (NULL: none) becomes the kind's example when it is new. */
void errkinds_note(errkinds *t, int technical, int32_t code, const char *msg, int64_t now_ms,
                   const errkind_example *ex);
/** Adds k (its msg already folded) by exact key: to its kind, to a new kind
 *  while there is room, else to its class's other row; a k whose msg is
 *  ERRKIND_OTHER and code 0 goes to the other row. first = min, last = max;
 *  the example kept is the one of the earliest first. */
void errkinds_add(errkinds *t, const errkind *k);
/** Adds every row of src to dst (src NULL: nothing). */
void errkinds_merge(errkinds *dst, const errkinds *src);
/** Fills rows with t's rows that have a count, kinds by count (largest
 *  first; ties by first time), then the other rows; returns how many
 *  (at most ERRKIND_ROWS; 0 for NULL). */
size_t errkinds_sorted(const errkinds *t, const errkind *rows[ERRKIND_ROWS]);
/** t's rows summed by class and code, in errkinds_sorted's order of their
 *  first row, into out (msg "" for a code's sum, ERRKIND_OTHER for the
 *  other rows'; no example); returns how many. For outputs that label by
 *  code (Prometheus, InfluxDB), where a message would be too many series. */
size_t errkinds_by_code(const errkinds *t, errkind out[ERRKIND_ROWS]);
/** "technical" or "functional". */
const char *errkinds_class(const errkind *k);
/** 1 when k is an other row. */
int errkinds_is_other(const errkind *k);

#endif
