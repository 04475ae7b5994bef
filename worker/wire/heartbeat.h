/* heartbeat — a connection's keepalive bytes: when they are due, and what
 * of them is still to send; no I/O.
 *
 * What it is for: a protocol on step:tcp (MQTT's PINGREQ, a line a server
 * waits for) must send something when it has been silent for a while, even
 * while its VU thinks or sleeps. The connection (worker/plugs/sock.h) keeps
 * this struct and one ev_timer; this file decides. As libev's "timer with
 * a last-activity timestamp": a send only stores its time in last (no timer
 * is touched per send); when the timer fires, heartbeat_due says whether
 * the connection has been silent for every seconds, or how long to wait
 * before asking again.
 *
 * A beat is written whole before any other byte: heartbeat_begin starts
 * one; heartbeat_rest and heartbeat_wrote follow what the socket took of
 * it, so that a socket that takes part of it gets the rest first.
 *
 * Times are the loop's (ev_now), in seconds. Internal to worker/. */
#ifndef QUERN_HEARTBEAT_H
#define QUERN_HEARTBEAT_H

#include <stddef.h>

#define HEARTBEAT_MAX 64       /* bytes of one beat at most */
#define HEARTBEAT_MIN_S 0.01   /* the shortest interval */
#define HEARTBEAT_MAX_S 86400. /* the longest: a day */

/** One connection's heartbeat. */
typedef struct heartbeat {
    double every;              /**< seconds of silence before a beat */
    double last;               /**< when a byte was last sent */
    size_t len;                /**< bytes of a beat, 1 to HEARTBEAT_MAX */
    size_t off;                /**< bytes of the current beat sent; len when none is begun */
    char bytes[HEARTBEAT_MAX]; /**< the beat */
} heartbeat;

/** Sets h to send len bytes after every seconds of silence, counted from
 *  last: 0, or -1 when len or every is out of bounds (h unchanged). */
int heartbeat_set(heartbeat *h, double every, const char *bytes, size_t len, double last);
/** At now: 1 when a beat is due, else 0 with *after the seconds to wait. */
int heartbeat_due(const heartbeat *h, double now, double *after);
/** Starts a beat: its bytes are the rest to send. */
void heartbeat_begin(heartbeat *h);
/** The bytes of the beat not sent yet, *len of them (0: none). */
const char *heartbeat_rest(const heartbeat *h, size_t *len);
/** n bytes of the beat were sent, at now. */
void heartbeat_wrote(heartbeat *h, size_t n, double now);

#endif
