/* reqlog — the per-request result files of one worker, as one object the
 * engine feeds: it maps the VU's transfers and step samples to the lines of
 * the JTL (JMeter's CSV result format, --jtl, written by jtl.h) and of The
 * Grinder 3 worker logs (data_ and out_, --grinder-logs, written by glog.h).
 * Where the files are and how the console merges them: proto/workerfiles.h.
 *
 * What it is for: tools that read JMeter or Grinder results (the Jenkins
 * Performance and Grinder plugins, JMeter's HTML dashboard, Grinder
 * Analyzer) read quern's results unchanged.
 *
 * Off the hot path: each file is a wfile (wfile.h), one buffer allocated up
 * front, nothing allocated per request.
 *
 * What a JTL line is: one line per step sample (JMeter writes one line per
 * sampler; a step:time block made of several requests is one sample, one
 * line, its elapsed the block's time, its URL the last request's), written
 * when the sample is recorded, so that `success` reflects the script's
 * checks; and one line per untimed request (quern.http.*), labelled with the
 * URL's path ("http" without one), written when it completes. threadName is
 * "<agent> <worker+1>-<global VU index>". grpThreads and allThreads are the
 * run's active VUs, which no worker knows: the worker's file holds each line
 * behind a prefix (WORKERFILES_JTL_PREFIX) that says which second the sample was
 * recorded in, and the console, which merges every worker's seconds, writes
 * the run's count there (console/gather.h). The Grinder logs have a line per
 * step sample only (glog.h).
 *
 * Use: reqlog_new() before the engine (files opened), reqlog_begin() once
 * the steps and VUs are known, the vu hooks during the run, reqlog_end()
 * after it (flush, out_ table), reqlog_free(). */
#ifndef QUERN_REQLOG_H
#define QUERN_REQLOG_H

#include <stddef.h>
#include <stdint.h>

struct scen_set;
struct sample;
struct urlc_ent;
struct vu;
struct xfer_result;
struct xh;

/** Longest URL kept per VU (longer ones are truncated). */
#define REQLOG_URL_MAX 512u

/** The files of one worker. */
typedef struct reqlog_cfg {
    const char *jtl_path;  /**< borrowed: JTL lines, no header (NULL: none) */
    const char *data_path; /**< borrowed: Grinder data_ log (NULL: none) */
    const char *out_path;  /**< borrowed: Grinder out_ log (NULL: none) */
    const char *agent;     /**< borrowed: agent name, for threadName */
    const char *process;   /**< borrowed: "HOST-N", for the out_ log */
    unsigned worker;       /**< worker number in the agent, 0-based */
} reqlog_cfg;

typedef struct reqlog reqlog;

/** Opens the files; NULL with err set. */
reqlog *reqlog_new(const reqlog_cfg *cfg, char *err, size_t errlen);
/** Sizes the per-step and per-VU state; VUs are first, first + stride, ... */
void reqlog_begin(reqlog *l, size_t nsteps, uint32_t vu_first, uint32_t vu_stride,
                  uint32_t vu_count);
/** A transfer of v completed: x its result (filled), h its handle, ue its
 *  URL cache entry (or NULL), p the sample it adds to (NULL: untimed, its
 *  line written now); call before it is added to p. */
void reqlog_xfer(reqlog *l, struct vu *v, const struct xh *h, const struct urlc_ent *ue,
                 const struct xfer_result *x, const struct sample *p);
/** Notes status, curl_rc and url (as written) as p's, v's sample about to
 *  be recorded: for a request whose sample waited in a batch (batch.h)
 *  while others were noted. */
void reqlog_note(reqlog *l, struct vu *v, const struct sample *p, int status, int curl_rc,
                 const char *url);
/** v's pending sample is being recorded. */
void reqlog_sample(reqlog *l, struct vu *v);
/** The run is over (elapsed_us long): flushes the files and writes the out_
 *  table. 0, or -1 with err set if a file could not be written. */
int reqlog_end(reqlog *l, const struct scen_set *ss, int64_t elapsed_us, char *err, size_t errlen);
/** Closes and frees; NULL is fine. */
void reqlog_free(reqlog *l);

#endif
