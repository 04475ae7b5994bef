/* glog — The Grinder 3 worker logs (--grinder-logs): data_HOST-N.log, one
 * line per step sample, and out_HOST-N.log, the final statistics table.
 *
 * What it is for: tools that read Grinder results (the Jenkins Grinder
 * plugin, Grinder Analyzer) read quern's results unchanged.
 *
 * What a line is:
 *   - data_: one line per step sample; Test is the step's index in the run
 *     plus 1 (unique even when two scenarios both declare a step 1); the
 *     out_ table names each test with the step's display name. Untimed
 *     requests are not Grinder tests: they have no line there.
 *   - out_: the final statistics table of The Grinder, where, as in The
 *     Grinder, Tests counts successful samples only and errors go to the
 *     Errors column; the times are those of the successful samples.
 *
 * The data_ log is written through a wfile (no allocation per sample); the
 * out_ log is written once, at the end, from per-step totals.
 *
 * Use: glog_open() (either file may be NULL), glog_begin() once the steps
 * are known, glog_sample() per step sample, glog_end() after the run,
 * glog_close(). */
#ifndef QUERN_GLOG_H
#define QUERN_GLOG_H

#include <stddef.h>
#include <stdint.h>

#include "worker/wire/wfile.h"

struct scen_set;

/** The data_ header line (without its newline). */
#define GLOG_DATA_HEADER                                                                           \
    "Thread, Run, Test, Start time (ms since Epoch), Test time, Errors, HTTP response code, "      \
    "HTTP response length, HTTP response errors, Time to resolve host, Time to establish "         \
    "connection, Time to first byte, New connections"

/** A step's totals for the out_ table (successful samples, but errors). */
typedef struct glog_stat {
    uint64_t tests, errors, resp_errors;
    double sum_ms, sumsq_ms, bytes, dns_ms, conn_ms, ttfb_ms;
} glog_stat;

/** One step sample, as The Grinder sees it. */
typedef struct glog_rec {
    uint32_t thread;  /**< the VU's index in the worker */
    uint32_t run;     /**< 0-based */
    size_t step;      /**< the step's index in the run (Test is step + 1) */
    int64_t start_ms; /**< wall clock */
    int64_t elapsed_ms;
    int ok;            /**< the sample succeeded */
    int status;        /**< HTTP status of its response, 0 when none */
    uint64_t bytes_in; /**< response bytes */
    uint64_t dns_us, connect_us, ttfb_us, new_conns;
} glog_rec;

/** The Grinder logs of one worker. */
typedef struct glog {
    wfile data;            /**< the data_ log (fd -1 when none) */
    char *out_path;        /**< owned: NULL when no out_ log */
    char process[160];     /**< "HOST-N", for the out_ log */
    glog_stat *st;         /**< owned: one per step */
    size_t nsteps;         /**< entries of st */
    int64_t start_wall_us; /**< first sample's start, for the out_ log */
} glog;

/** Opens the data_ log at data_path (its header written) and keeps
 *  out_path; either may be NULL. 0, or -1 with err set (g is then safe to
 *  glog_close). */
int glog_open(glog *g, const char *data_path, const char *out_path, const char *process, char *err,
              size_t errlen);
/** Sizes the per-step totals. */
void glog_begin(glog *g, size_t nsteps);
/** Counts s into its step's totals and writes its data_ line. */
void glog_sample(glog *g, const glog_rec *s);
/** The run is over (elapsed_us long): closes the data_ log and writes the
 *  out_ table naming the steps of ss. 0, or -1 with err set. */
int glog_end(glog *g, const struct scen_set *ss, int64_t elapsed_us, char *err, size_t errlen);
/** Closes and frees what g holds; fine twice. */
void glog_close(glog *g);

#endif
