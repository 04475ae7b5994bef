/* outprw — `--out prometheus-rw=URL`: each push as a Prometheus remote
 * write 1.0 request (proto/prw.proto, snappy block-compressed).
 *
 * The series and labels are those --metrics serves (console/prom.h): the
 * text prom_render writes is read back into time series, so both outputs
 * can never differ; each series gains the label name (the run's name, as
 * run is already that) and every --tag (its key made a label name: other
 * characters than letters, digits and '_' become '_'), its labels sorted by name as the
 * protocol wants, its one sample stamped with the push's wall clock (ms).
 * POSTed with Content-Encoding: snappy, Content-Type:
 * application/x-protobuf, X-Prometheus-Remote-Write-Version: 0.1.0.
 *
 * Usage:
 *     size_t len;
 *     char *text = outprw_text(&in, &len);          // on the loop
 *     uint8_t *body = outprw_encode(text, run, tags, ms, &len);   // off it */
#ifndef QUERN_OUTPRW_H
#define QUERN_OUTPRW_H

#include <stddef.h>
#include <stdint.h>

#include "common/props.h"
#include "console/out.h"

/** Renders in (its a, the totals so far) as a compressed WriteRequest of
 *  *len bytes: outprw_text then outprw_encode. Owned: free with xfree.
 *  NULL when the text or the request would pass their bounds
 *  (PROM_TEXT_MAX, OUT_PUSH_MAX). */
uint8_t *outprw_render(const out_input *in, size_t *len);

/** The first half, on the loop: the totals as exposition text (prom.h's,
 *  *len bytes; owned, xfree), or NULL past PROM_TEXT_MAX. */
char *outprw_text(const out_input *in, size_t *len);

/** The second half, on a sender's thread (it costs several times the
 *  text's rendering): text as a compressed WriteRequest of *len bytes,
 *  each series labelled name=run and with the tags (borrowed, may be
 *  NULL), stamped ts_ms. Owned, xfree; NULL past OUT_PUSH_MAX. */
uint8_t *outprw_encode(const char *text, const char *run, const props *tags, int64_t ts_ms,
                       size_t *len);

/** Reads the exposition text (NUL-terminated) into a WriteRequest
 *  (uncompressed, *len bytes; owned, xfree), every series with the extra
 *  labels (nextra name/value pairs, borrowed) and timestamp ts_ms.
 *  NULL past OUT_PUSH_MAX. */
uint8_t *outprw_from_text(const char *text, const char *const *extra, size_t nextra, int64_t ts_ms,
                          size_t *len);

#endif
