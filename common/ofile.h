/* ofile — every file quern writes for its user, by the one rule.
 *
 * What it is for: the report, the comparison page, the JUnit and JTL files,
 * the summary JSON, the --out jsonl file, the port files, the scripts of
 * quern new and har2lua. What the user names decides how it is written:
 * - a new path, or an existing regular file: written whole into a temporary
 *   file of the same folder (".NAME.tmpPID.N"), made durable, then renamed
 *   onto the path at ofile_commit, so a reader never sees half a file and a
 *   failed write leaves the old file as it was; a replaced file keeps its
 *   permission bits, a new one gets 0666 less the umask;
 * - an existing character device or FIFO (/dev/stdout, /dev/null, a pipe
 *   read by another program): opened and written through, never renamed
 *   over; a Unix stream socket: connected to and written through;
 * - a symbolic link: followed; what it names is written by these rules and
 *   the link stays a link (a link with nothing at its end is written through
 *   the link, which creates its target, as a shell's ">" does);
 * - a directory or a block device: refused.
 * OFILE_NEW (quern new: never over an existing file) refuses an existing
 * regular file or symbolic link, and creates a new path without a race
 * (the temporary file is linked, not renamed, onto it).
 * No other code renames onto an output path (tests/lint/outfile.sh).
 *
 * Usage:
 *     ofile o;
 *     if (ofile_open(&o, path, OFILE_REPLACE, err, sizeof(err)) != 0) ... err: "PATH: why" ...
 *     FILE *f = ofile_stream(&o);     // or write(o.fd, ...): one or the other
 *     ... write ...
 *     if (ofile_commit(&o, err, sizeof(err)) != 0) ... nothing of it is at path ...
 *     // or, on a failure of the caller's own: ofile_abort(&o);
 * One call for a file built in memory: ofile_put(path, OFILE_REPLACE, p, n, err, errlen). */
#ifndef QUERN_OFILE_H
#define QUERN_OFILE_H

#include <stddef.h>
#include <stdio.h>

/** ofile_open's modes. */
enum ofile_mode {
    OFILE_REPLACE = 0, /**< an existing regular file is replaced */
    OFILE_NEW = 1,     /**< an existing regular file or link is refused (EEXIST) */
};

/** An output file being written. */
typedef struct ofile {
    int fd;     /**< owned: where the bytes go; -1 once committed or aborted */
    FILE *f;    /**< owned, on fd: NULL until ofile_stream */
    char *path; /**< owned: the path written (a link's target), renamed onto at commit */
    char *tmp;  /**< owned: the temporary file; NULL when written through */
    int mode;   /**< enum ofile_mode */
} ofile;

/** Opens path for writing by the rule above; 0, or -1 with errno kept and
 *  err "PATH: why" (nothing is created then). */
int ofile_open(ofile *o, const char *path, int mode, char *err, size_t errlen);
/** A stdio stream on o (made once, owned by o); NULL when it cannot be made. */
FILE *ofile_stream(ofile *o);
/** Ends the writing: flushes the stream, then for a temporary file makes it
 *  durable and renames (links, for OFILE_NEW) it onto the path. 0, or -1
 *  with err and nothing new at the path. o is closed either way. */
int ofile_commit(ofile *o, char *err, size_t errlen);
/** Ends the writing without keeping it: the temporary file is removed (what
 *  was written through a device or FIFO is gone already). Safe on a closed
 *  or zeroed ofile. */
void ofile_abort(ofile *o);
/** ofile_open, n bytes of p, ofile_commit: 0, or -1 with err. */
int ofile_put(const char *path, int mode, const void *p, size_t n, char *err, size_t errlen);

#endif
