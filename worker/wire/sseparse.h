/* sseparse — the parser of a server-sent events stream (text/event-stream),
 * as the HTML standard's "event stream interpretation" says; no I/O.
 *
 * What it is for: an SSE step (worker/plugs/sse.h) feeds it the response body as
 * libcurl hands it over, in pieces cut anywhere; it calls back once per
 * event dispatched. Lines end in CR, LF or CRLF (a CRLF cut between two
 * pieces is one line end); one leading byte order mark is dropped; lines
 * starting with ':' are comments; "field: value" loses one space after the
 * colon; data lines are joined by LF; a blank line dispatches the event,
 * unless no data line came; the event type defaults to "message"; an id
 * holding a NUL is ignored; retry is taken only when all ASCII digits;
 * unknown fields are ignored. Bytes pass as they came (no UTF-8 check).
 *
 * Bounds: a line of more than SSEPARSE_LINE_MAX bytes, or an event whose
 * data passes SSEPARSE_DATA_MAX bytes, fails the parser for good (a stream
 * that never ends a line must not grow the heap).
 *
 * Use:
 *     sseparse p;
 *     sseparse_init(&p);
 *     rc = sseparse_feed(&p, buf, len, on_event, ud, err, sizeof(err));  // per piece
 *     ... p.last_id is the stream's last event ID
 *     sseparse_free(&p);
 * Internal to worker/. */
#ifndef QUERN_SSEPARSE_H
#define QUERN_SSEPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "common/dbuf.h"

#define SSEPARSE_LINE_MAX (1u << 20) /* a line's bytes at most, its end apart */
#define SSEPARSE_DATA_MAX (1u << 20) /* an event's data bytes at most */

/** One event dispatched: every pointer is borrowed from the parser, valid
 *  during the callback only; none is NUL-terminated. */
typedef struct sseparse_event {
    const char *id; /**< borrowed: the last event ID (may be empty) */
    size_t id_len;
    const char *event; /**< borrowed: the event type, "message" when none was given */
    size_t event_len;
    const char *data; /**< borrowed: the data lines joined by LF */
    size_t data_len;
    int64_t retry; /**< the reconnection time the stream set last, ms; -1 none */
} sseparse_event;

/** Called per event; a non-zero return stops the feed, which returns it. */
typedef int (*sseparse_fn)(void *ud, const sseparse_event *ev);

/** The parser's state between two pieces. */
typedef struct sseparse {
    dbuf line;        /**< the line begun in an earlier piece */
    dbuf data;        /**< the data buffer: each line's value and an LF */
    dbuf event;       /**< the event type buffer */
    dbuf idbuf;       /**< the last event ID buffer */
    dbuf last_id;     /**< the last event ID string (set at each dispatch) */
    int64_t retry;    /**< the last retry taken, ms; -1 none */
    uint8_t bom;      /**< bytes of a leading BOM matched so far */
    uint8_t started;  /**< past the BOM check */
    uint8_t after_cr; /**< the last byte was a CR: an LF next ends no line */
    uint8_t failed;   /**< a bound was passed: every feed fails */
    uint64_t events;  /**< events dispatched so far */
} sseparse;

/** An empty parser at a stream's start. */
void sseparse_init(sseparse *p);
/** Releases its buffers (it may be initialised again). */
void sseparse_free(sseparse *p);
/** Parses len bytes of the stream, calling fn(ud, ev) for each event.
 *  0 when every byte was taken; fn's non-zero return when it stopped the
 *  feed (the rest of the piece is not parsed); -1 when a bound was passed,
 *  with the reason in err (errlen may be 0), after which every feed fails. */
int sseparse_feed(sseparse *p, const char *buf, size_t len, sseparse_fn fn, void *ud, char *err,
                  size_t errlen);

#endif
