/* rdframe — the piece of a socket's input a script asks for: some bytes, n
 * bytes, a line, the bytes before a delimiter; no I/O.
 *
 * What it is for: a TCP connection of a VU (worker/plugs/sock.h) reads into
 * a buffer and hands the script the piece it asked for once the buffer
 * holds it. This file says whether it does, where the piece ends, and what
 * it consumes: a line ends at LF, its CR before the LF stripped too (a lone
 * CR is part of the line); a delimiter is consumed and not returned; "some"
 * is whatever is held, one byte at least.
 *
 * Bounds: a piece never needs more than max buffered bytes. n > max, or max
 * bytes held without the line's end or the delimiter, is past the bound
 * (-1): the caller fails the read, it does not grow the buffer.
 *
 * Searching is incremental: *scanned keeps how far the buffer was searched
 * without a match, so bytes arriving in many reads are searched once (a
 * delimiter cut between two reads is found: the search resumes len - 1
 * bytes before its end).
 *
 * Use:
 *     rdframe w = {RDFRAME_LINE, 0, NULL, 0};
 *     size_t scanned = 0, take, drop;
 *     switch (rdframe_find(&w, buf, len, SOCK_IN_MAX, &scanned, &take, &drop)) {
 *     case 1: ... the piece is buf[0, take); drop bytes leave the buffer ...
 *     case 0: ... read more (scanned kept while the buffer only grows) ...
 *     case -1: ... past the bound ...
 *     }
 * Internal to worker/. */
#ifndef QUERN_RDFRAME_H
#define QUERN_RDFRAME_H

#include <stddef.h>
#include <stdint.h>

enum rdframe_kind {
    RDFRAME_SOME,  /**< whatever is held, one byte at least */
    RDFRAME_BYTES, /**< exactly n bytes */
    RDFRAME_LINE,  /**< up to LF, the LF and a CR before it stripped */
    RDFRAME_UNTIL  /**< up to delim, delim consumed, not returned */
};

#define RDFRAME_DELIM_MAX 256 /* a delimiter's bytes at most */

/** What the script asked for. */
typedef struct rdframe {
    uint8_t kind;      /**< enum rdframe_kind */
    size_t n;          /**< RDFRAME_BYTES: how many */
    const char *delim; /**< borrowed: RDFRAME_UNTIL's delimiter, dlen bytes, 1 to
                            RDFRAME_DELIM_MAX */
    size_t dlen;
} rdframe;

/** Whether buf's len bytes hold w's piece: 1, with the piece buf[0, *take)
 *  and *drop bytes consumed (the piece and its end); 0 when more bytes are
 *  needed (*scanned: bytes searched, kept by the caller between calls on the
 *  same, growing buffer, 0 after bytes left it); -1 when the piece cannot fit
 *  in max bytes. */
int rdframe_find(const rdframe *w, const char *buf, size_t len, size_t max, size_t *scanned,
                 size_t *take, size_t *drop);

#endif
