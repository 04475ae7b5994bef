/* reqlog — per-request result files a worker writes while it runs: the JTL
 * (JMeter's CSV result format, --jtl) and The Grinder 3 worker logs
 * (data_HOST-N.log and out_HOST-N.log, --grinder-logs).
 *
 * What it is for: tools that read JMeter or Grinder results (the Jenkins
 * Performance and Grinder plugins, JMeter's HTML dashboard, Grinder
 * Analyzer) read quern's results unchanged.
 *
 * Off the hot path: each file has one buffer allocated up front
 * (REQLOG_BUF_BYTES); a line is formatted straight into it and the buffer is
 * written with one blocking write() only when the next line might not fit,
 * and at the end. A write to a local file of that size takes well under a
 * millisecond, so the loop is held up for that once every few thousand
 * requests; nothing is allocated per request. After a failed write the file
 * is abandoned (its lines are counted as dropped) and the load goes on.
 *
 * What a line is:
 *   - JTL: one line per step sample (JMeter writes one line per sampler; a
 *     step:time block made of several requests is one sample, one line, its
 *     elapsed the block's time, its URL the last request's), written when the
 *     sample is recorded, so that `success` reflects the script's checks; and
 *     one line per untimed request (quern.http.*), labelled with the URL's
 *     path ("http" without one), written when it completes.
 *     threadName is "<agent> <worker+1>-<global VU index>". grpThreads and
 *     allThreads are the run's active VUs, which no worker knows: the
 *     worker's file holds each line behind a prefix (REQLOG_JTL_PREFIX) that
 *     says which second the sample was recorded in, and the console, which
 *     merges every worker's seconds, writes the run's count there
 *     (console/gather.h).
 *   - Grinder data_: one line per step sample; Test is the step's index in the
 *     run plus 1 (unique even when two scenarios both declare a step 1); the
 *     out_ table names each test with the step's display name. Untimed
 *     requests are not Grinder tests: they have no line there.
 *   - Grinder out_: the final statistics table of The Grinder, where, as in
 *     The Grinder, Tests counts successful samples only and errors go to the
 *     Errors column; the times are those of the successful samples.
 *
 * Use: reqlog_new() before the engine (files opened), reqlog_begin() once
 * the steps and VUs are known, the vu hooks during the run, reqlog_end()
 * after it (flush, out_ table), reqlog_free(). */
#ifndef QUERN_REQLOG_H
#define QUERN_REQLOG_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

struct vu;
struct scen_set;

/** Size of each file's buffer. */
#define REQLOG_BUF_BYTES (256u * 1024u)
/** Longest line (fields are truncated to fit). */
#define REQLOG_LINE_MAX 4096u
/** Longest URL kept per VU (longer ones are truncated). */
#define REQLOG_URL_MAX 512u

/** Where worker N writes its files in the agent's run directory (printf
 *  formats of N); the agent sends them up when the run is over. */
#define REQLOG_JTL_FILE ".quern-jtl.%u"
#define REQLOG_DATA_FILE ".quern-data.%u"
#define REQLOG_OUT_FILE ".quern-out.%u"

/** The prefix of each line of a worker's JTL file, removed by the console:
 *  the interval the sample was recorded in (the engine's second, as in its
 *  Interval messages), the worker's active VUs then, and the byte offset in
 *  the line of its grpThreads column, which holds "ACTIVE,ACTIVE" until the
 *  console writes the run's counts there. */
#define REQLOG_JTL_PREFIX "%" PRIu64 " %" PRIu32 " %zu\t"
/** Room kept for the prefix in a line of REQLOG_LINE_MAX. */
#define REQLOG_JTL_PREFIX_MAX 48u

/** The JTL header line (without its newline). */
#define REQLOG_JTL_HEADER                                                                          \
    "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,"            \
    "failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
/** The Grinder data_ header line (without its newline). */
#define REQLOG_GRINDER_HEADER                                                                      \
    "Thread, Run, Test, Start time (ms since Epoch), Test time, Errors, HTTP response code, "      \
    "HTTP response length, HTTP response errors, Time to resolve host, Time to establish "         \
    "connection, Time to first byte, New connections"

/** A file written through one big buffer. */
typedef struct reqlog_file {
    int fd;         /**< owned: -1 when not open */
    char *buf;      /**< owned: cap bytes */
    size_t len;     /**< bytes waiting in buf */
    size_t cap;     /**< size of buf */
    int err;        /**< errno of the first failed write (then lines are dropped) */
    uint64_t lines; /**< lines committed */
    uint64_t dropped;
    uint64_t flushes; /**< write() calls made */
} reqlog_file;

/** Creates (truncates) path and allocates a cap-byte buffer (cap >=
 *  REQLOG_LINE_MAX). 0, or -1 with err set. */
int reqlog_file_open(reqlog_file *f, const char *path, size_t cap, char *err, size_t errlen);
/** Room for a line of up to REQLOG_LINE_MAX bytes at the end of the buffer
 *  (the buffer is flushed first if it could not take one); NULL when the file
 *  is not open or has failed. Follow with reqlog_file_commit. */
char *reqlog_file_reserve(reqlog_file *f);
/** Keeps n bytes (n <= REQLOG_LINE_MAX) written at the reserved place. */
void reqlog_file_commit(reqlog_file *f, size_t n);
/** Appends n bytes (any size), flushing as needed. */
void reqlog_file_append(reqlog_file *f, const char *p, size_t n);
/** Writes what the buffer holds. 0, or -1 (errno in f->err). */
int reqlog_file_flush(reqlog_file *f);
/** Flushes, closes and frees; 0, or -1 if a write ever failed. Fine twice. */
int reqlog_file_close(reqlog_file *f);

/** Writes s as one CSV field into out (room bytes, no terminating NUL),
 *  quoted, with quotes doubled, when it holds a comma, a quote, CR or LF;
 *  a field that does not fit is cut (still well-formed). Returns bytes
 *  written. */
size_t reqlog_csv_field(char *out, size_t room, const char *s);

/** One JTL line's fields (borrowed strings). */
typedef struct reqlog_jtl {
    int64_t start_ms, elapsed_ms;
    const char *label;
    const char *code;    /**< responseCode */
    const char *message; /**< responseMessage */
    const char *thread;  /**< threadName */
    int success;
    const char *failure; /**< failureMessage ("" when none) */
    uint64_t bytes, sent;
    uint32_t grp, all;
    const char *url;
    int64_t latency_ms, connect_ms;
} reqlog_jtl;

/** Formats one JTL line with its newline into out (room >= REQLOG_LINE_MAX -
 *  REQLOG_JTL_PREFIX_MAX); returns its length. threads_at (may be NULL)
 *  receives the offset of the grpThreads column. */
size_t reqlog_jtl_line(char *out, size_t room, const reqlog_jtl *r, size_t *threads_at);

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
/** A transfer of v completed (v->x filled); call before it is added to the
 *  pending sample. An untimed request is written now. */
void reqlog_xfer(reqlog *l, struct vu *v);
/** v's pending sample is being recorded. */
void reqlog_sample(reqlog *l, struct vu *v);
/** The run is over (elapsed_us long): flushes the files and writes the out_
 *  table. 0, or -1 with err set if a file could not be written. */
int reqlog_end(reqlog *l, const struct scen_set *ss, int64_t elapsed_us, char *err, size_t errlen);
/** Closes and frees; NULL is fine. */
void reqlog_free(reqlog *l);

#endif
