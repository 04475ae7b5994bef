/* frame — length-prefixed protobuf frames between console, agents and workers.
 *
 * On the wire a frame is a 4-byte big-endian length N (1 <= N <= max_frame)
 * followed by N bytes: one protobuf-c encoded Quern__Envelope (proto/quern.proto).
 *
 * Receiving: a frame_reader is fed bytes as they arrive (frame_reader_feed, or
 * frame_reader_read_fd on a non-blocking fd) and hands out complete envelopes
 * (frame_reader_next). A length above max_frame, or 0, is refused as soon as
 * its 4 header bytes arrive, before any of the body is buffered; the caller
 * must then close the connection. Typical loop on a readable fd:
 *
 *     ssize_t n = frame_reader_read_fd(r, fd, err, sizeof(err));
 *     if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
 *         close the connection (err says why when it is set);
 *     Quern__Envelope *env;
 *     int rc;
 *     while ((rc = frame_reader_next(r, &env, err, sizeof(err))) == 1) {
 *         handle(env);
 *         quern__envelope__free_unpacked(env, NULL);
 *     }
 *     if (rc < 0)
 *         close the connection (malformed frame);
 *
 * Drain with frame_reader_next after every feed or read: the reader holds
 * whatever has been fed and not yet taken. Its buffer is compacted as frames
 * are taken and shrinks back after a large frame, so a long-lived connection
 * does not keep growing.
 *
 * Sending: frame_encode makes one frame in a new buffer; a frame_writer queues
 * encoded frames (up to a bound, so a slow peer cannot make us grow forever)
 * and writes them to a non-blocking fd as it accepts them.
 *
 * Sealed frames (console <-> agent after the handshake, proto/seal.h): from
 * frame_writer_seal on, a writer seals each frame it queues; from
 * frame_reader_seal on, a reader opens each frame before decoding it and
 * fails on one that does not open. The length prefix then counts the tag.
 * A reader made for small frames (FRAME_MAX_PREAUTH) keeps a buffer of about
 * one frame, so an unauthenticated peer costs a few KiB.
 *
 * Neither object is thread-safe; one per connection. */
#ifndef QUERN_FRAME_H
#define QUERN_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "proto/interval_decode.h"
#include "proto/quern.pb-c.h"
#include "proto/seal.h"

/** Bytes of the length prefix in front of every frame. */
#define FRAME_HEADER_LEN 4
/** Maximum frame (body) size before the peer is authenticated: a handshake
 *  message is a few dozen bytes, so nobody unauthenticated makes us buffer
 *  or decode more than this. */
#define FRAME_MAX_PREAUTH (4u * 1024u)
/** Default maximum frame (body) size console <-> agent: a StartRun carries the script bundle. */
#define FRAME_MAX_DEFAULT (16u * 1024u * 1024u)
/** Maximum frame size that suffices for statistics and control (agent <-> worker stats). */
#define FRAME_MAX_SMALL (1024u * 1024u)

/** Incremental frame decoder for one connection; owns its buffer. */
typedef struct frame_reader frame_reader;

/** New reader refusing frames whose body is larger than max_frame bytes
 *  (max_frame is clamped to 1 .. UINT32_MAX). Free with frame_reader_free. */
frame_reader *frame_reader_new(size_t max_frame);

/** Frees the reader and everything it buffers; NULL is fine. */
void frame_reader_free(frame_reader *r);

/** Appends len received bytes (any split: partial headers are fine).
 *  Returns 0, or -1 if a frame announces a length of 0 or above max_frame; err
 *  then says "frame of N bytes exceeds maximum M" (or "empty frame") and the
 *  connection must be closed: the reader stays failed, and every later feed,
 *  read or next returns -1 with the same message. */
int frame_reader_feed(frame_reader *r, const uint8_t *data, size_t len, char *err, size_t errlen);

/** Takes the next complete frame. Returns 1 with *env set (the caller frees it
 *  with quern__envelope__free_unpacked(*env, NULL)), 0 if no frame is complete
 *  yet, or -1 with err set if the frame does not decode as an Envelope (the
 *  frame is skipped; the peer is broken and the connection should be closed),
 *  or if the reader failed earlier. A decoded envelope may have body_case
 *  QUERN__ENVELOPE__BODY__NOT_SET (a message kind this build does not know). */
int frame_reader_next(frame_reader *r, Quern__Envelope **env, char *err, size_t errlen);
/** As frame_reader_next, but an Envelope holding an Interval is decoded into
 *  *iv without copying (proto/interval_decode.h) when interval_decode reads it, *env then
 *  being &iv->env, which borrows the reader's buffer until the next call on
 *  r. Release what it gives with frame_env_free(env, iv), before that call. */
int frame_reader_next_iv(frame_reader *r, Quern__Envelope **env, interval_decode *iv, char *err,
                         size_t errlen);
/** Releases an envelope from frame_reader_next_iv (or frame_reader_next,
 *  with iv NULL); NULL env is fine. */
void frame_env_free(Quern__Envelope *env, interval_decode *iv);

/** Reads what a non-blocking fd has into the reader: loops until the fd would
 *  block, a read returns less than it asked (the fd is then drained, or
 *  nearly), it reaches end of file, or about 1 MiB was read (then call again
 *  when the fd is still readable; level-triggered polling does that by itself).
 *  Returns the number of bytes read (> 0); 0 at end of file with nothing read;
 *  -1 with errno EAGAIN/EWOULDBLOCK if nothing was available (wait for the fd
 *  to become readable); -1 with errno set and err "read: ..." on a read error;
 *  -1 with errno EMSGSIZE and err set if a frame header is refused as in
 *  frame_reader_feed. Bytes read before an error stay in the reader. */
ssize_t frame_reader_read_fd(frame_reader *r, int fd, char *err, size_t errlen);

/** Bytes fed and not yet taken by frame_reader_next (complete and partial frames). */
size_t frame_reader_buffered(const frame_reader *r);

/** Bytes currently allocated for the reader's buffer, for monitoring and tests. */
size_t frame_reader_capacity(const frame_reader *r);

/** From the next frame_reader_next on, every frame is sealed (proto/seal.h):
 *  its length covers the body and a SEAL_TAG_LEN tag, rx (borrowed: it must
 *  outlive the reader or the next call of this) opens it in place, and a
 *  frame that does not open fails the reader ("frame failed its integrity
 *  check"). max_frame becomes the limit of a body (the tag not counted).
 *  Headers already buffered are checked again under these rules. Returns 0,
 *  or -1 with err set if one of them is refused (or the reader had failed).
 *  Call it between two frame_reader_next, e.g. from the handler of the frame
 *  after which the peer seals. */
int frame_reader_seal(frame_reader *r, seal *rx, size_t max_frame, char *err, size_t errlen);

/** Encodes env as one frame in a newly allocated buffer (*out, the caller
 *  frees it with xfree) of FRAME_HEADER_LEN + body bytes, and returns that
 *  total. Returns -1 (and leaves *out NULL) if the body is larger than
 *  max_frame or empty (an Envelope with no body set encodes to nothing and
 *  would be refused by the receiver). */
ssize_t frame_encode(const Quern__Envelope *env, size_t max_frame, uint8_t **out);

/** Queue of encoded frames waiting to be written to one non-blocking fd. */
typedef struct frame_writer frame_writer;

/** New writer holding at most max_queued bytes of unsent frames (headers
 *  included). Make it at least FRAME_HEADER_LEN + the largest frame to send. */
frame_writer *frame_writer_new(size_t max_queued);

/** Frees the writer and drops unsent frames; NULL is fine. */
void frame_writer_free(frame_writer *w);

/** Encodes env and queues it after the frames already queued. Returns 0, or
 *  -1 with nothing queued: errno EMSGSIZE if the body is empty or larger than
 *  max_frame, ENOBUFS if it does not fit in max_queued next to what is
 *  pending (the peer is not reading; drop it or retry after a flush). */
int frame_writer_push(frame_writer *w, const Quern__Envelope *env, size_t max_frame);

/** Every frame pushed from now on is sealed by tx (borrowed: it must outlive
 *  the writer); frames already queued stay as they were. A push then fails
 *  with errno EIO if sealing fails. */
void frame_writer_seal(frame_writer *w, seal *tx);

/** Writes as much of the queue as fd accepts without blocking. Returns 1 when
 *  everything is written, 0 if data is still pending (wait until the fd is
 *  writable, e.g. EPOLLOUT, and call again), -1 on a write error (errno set;
 *  EPIPE when the peer has gone, never SIGPIPE on a socket). */
int frame_writer_flush(frame_writer *w, int fd);

/** Bytes queued and not yet written. */
size_t frame_writer_pending(const frame_writer *w);

#endif
