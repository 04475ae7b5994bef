/* outinflux — `--out influxdb=URL`: each push as InfluxDB line protocol.
 *
 * A second gives one point per step in measurement "quern" (fields count,
 * errors, err_technical, err_functional, bytes_received, bytes_sent as
 * integers; mean, p50, p90, p95, p99, max in ms as floats) and one point in
 * "quern_run" (vus; arrivals_scheduled, _started, _late, _dropped in an
 * open model); the end gives the run's totals in "quern_total" (so that
 * sum(count) over "quern" stays the run's count) and a last "quern_run".
 * Tags: step and scenario (step points), run (the run's id), name (the
 * run's name) and every --tag (but one of those names, or empty).
 * Timestamps: the push's wall clock, ns.
 *
 * Usage:
 *     size_t len;
 *     char *body = outinflux_render(&in, &len);   // owned */
#ifndef QUERN_OUTINFLUX_H
#define QUERN_OUTINFLUX_H

#include <stddef.h>

#include "console/out.h"

/** How outinflux_escape escapes. */
enum outinflux_what {
    OUTINFLUX_MEASUREMENT, /**< commas and spaces */
    OUTINFLUX_KEY,         /**< tag keys, tag values, field keys: commas, '=' and spaces */
    OUTINFLUX_STRING,      /**< a field's string value (without its quotes): '"' and '\\' */
};

/** Appends s escaped as what says to buf (NUL-terminated, at most buflen
 *  bytes in all). Outside strings a backslash is literal, doubled where it
 *  would escape the next character (InfluxDB 2.x reads one, 1.x two); the
 *  backslashes that end a key or value are left out, as InfluxDB 1.x
 *  refuses them in any form. Newlines and other control characters, which
 *  line protocol cannot carry, become spaces. Returns the length
 *  the whole result needs (>= buflen: truncated). */
size_t outinflux_escape(const char *s, enum outinflux_what what, char *buf, size_t buflen);

/** Renders in as line protocol (*len bytes, NUL-terminated). Owned: free
 *  with xfree. */
char *outinflux_render(const out_input *in, size_t *len);

#endif
