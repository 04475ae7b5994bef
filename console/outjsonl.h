/* outjsonl — `--out jsonl=FILE`: each push as one JSON line.
 *
 * A second: {"run","run_id","second","late","vus","arrivals"{scheduled,
 * started,late,dropped} (open model only),"steps":[{"step","scenario",
 * "count","errors","err_technical","err_functional","bytes_received",
 * "bytes_sent","mean_ms","p50_ms","p90_ms","p95_ms","p99_ms","max_ms"}],
 * "checks":[{name,passes,fails,pass_pct}],"metrics":[{name,kind,...}] (the
 * script's, as the summary JSON's: console/sumtally.h; only when it has
 * some), "tags"{...}}; the end: the same for the run's totals with "end": true
 * and "seconds" the seconds merged in place of "second".
 *
 * Usage:
 *     size_t len;
 *     char *line = outjsonl_render(&in, &len);   // owned, ends in '\n' */
#ifndef QUERN_OUTJSONL_H
#define QUERN_OUTJSONL_H

#include <stddef.h>

#include "console/out.h"

/** Renders in as one line ending in '\n' (*len bytes, NUL-terminated).
 *  Owned: free with xfree. */
char *outjsonl_render(const out_input *in, size_t *len);

#endif
