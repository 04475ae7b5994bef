/* wsbound — where a WebSocket's incoming frames begin and end, from the
 * bytes that pass; no I/O.
 *
 * What it is for: an idle WebSocket (worker/plugs/websocket.h) keeps no
 * wslay context, whose buffers are 8.8 KB a connection. wslay holds bytes
 * of a frame it has not finished, and the pieces of a message it has not
 * finished, and says neither; this file follows the same bytes and says
 * when both are empty: the bytes fed end at a frame's end, and no data
 * message is cut between frames (a text or binary frame without FIN not
 * yet followed by its last continuation). Control frames between the
 * fragments of a message leave the message open.
 *
 * It reads headers only (2 to 14 bytes a frame); payloads are skipped in
 * one step. It checks nothing: wslay judges the frames.
 *
 * Use:
 *     wsbound b = {0};
 *     wsbound_feed(&b, bytes, n);      (every byte handed to wslay, in order)
 *     if (wsbound_idle(&b)) ... wslay holds nothing of the input ...
 * Internal to worker/. */
#ifndef QUERN_WSBOUND_H
#define QUERN_WSBOUND_H

#include <stddef.h>
#include <stdint.h>

#define WSBOUND_HEADER_MAX 14 /* 2 + 8 (64-bit length) + 4 (mask key) */

/** The position in the input: zeroed is before the first frame. */
typedef struct wsbound {
    uint64_t left;                   /**< payload bytes of the current frame not yet fed */
    uint8_t hdr[WSBOUND_HEADER_MAX]; /**< the current header's bytes so far */
    uint8_t hlen;                    /**< how many, 0 between frames */
    uint8_t frag;                    /**< a data message is open: its last frame not yet in */
} wsbound;

/** Follows n more bytes of input. */
void wsbound_feed(wsbound *b, const uint8_t *p, size_t n);
/** 1 when the bytes fed end at a frame's end and no message is open. */
int wsbound_idle(const wsbound *b);

#endif
