/* wfile — an output file written through one big buffer, with a bound on
 * its lines: the worker's JTL and Grinder logs (reqlog.h) are written
 * through it while the load runs.
 *
 * Off the hot path: the buffer is allocated once, when the file is opened; a
 * line is formatted straight into it (wfile_reserve, then wfile_commit) and
 * the buffer is written with one blocking write() only when the next line
 * might not fit, and at the end. A write to a local file of WFILE_BUF_BYTES
 * takes well under a millisecond, so the loop is held up for that once every
 * few thousand lines; nothing is allocated per line. After a failed write
 * the file is abandoned (its lines are counted as dropped) and the load goes
 * on.
 *
 * Use: wfile_open(), then per line p = wfile_reserve(f); if p: write up to
 * WFILE_LINE_MAX bytes at p and wfile_commit(f, n); wfile_close() at the
 * end (0, or -1 if a write ever failed). */
#ifndef QUERN_WFILE_H
#define QUERN_WFILE_H

#include <stddef.h>
#include <stdint.h>

/** Size of the buffer of each of the worker's log files. */
#define WFILE_BUF_BYTES (256u * 1024u)
/** Longest line (writers cut their fields to fit). */
#define WFILE_LINE_MAX 4096u

/** A file written through one big buffer. */
typedef struct wfile {
    int fd;         /**< owned: -1 when not open */
    char *buf;      /**< owned: cap bytes */
    size_t len;     /**< bytes waiting in buf */
    size_t cap;     /**< size of buf */
    int err;        /**< errno of the first failed write (then lines are dropped) */
    uint64_t lines; /**< lines committed */
    uint64_t dropped;
    uint64_t flushes; /**< write() calls made */
} wfile;

/** Creates (truncates) path, never through a symbolic link as its last
 *  part, and allocates a cap-byte buffer (cap >=
 *  WFILE_LINE_MAX). 0, or -1 with err set (f is then closed: wfile_close
 *  is fine on it). */
int wfile_open(wfile *f, const char *path, size_t cap, char *err, size_t errlen);
/** Room for a line of up to WFILE_LINE_MAX bytes at the end of the buffer
 *  (the buffer is flushed first if it could not take one); NULL when the file
 *  is not open or has failed. Follow with wfile_commit. */
char *wfile_reserve(wfile *f);
/** Keeps n bytes (n <= WFILE_LINE_MAX) written at the reserved place. */
void wfile_commit(wfile *f, size_t n);
/** Appends n bytes (any size), flushing as needed. */
void wfile_append(wfile *f, const char *p, size_t n);
/** Writes what the buffer holds. 0, or -1 (errno in f->err). */
int wfile_flush(wfile *f);
/** Flushes, closes and frees; 0, or -1 if a write ever failed. Fine twice. */
int wfile_close(wfile *f);

#endif
