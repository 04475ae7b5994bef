/* dgram — one UDP socket of a VU (step:udp), on the worker's loop.
 *
 * What it is for: the datagram protocols behind a service (DNS, statsd,
 * syslog, a game's or a VoIP server's) are load-tested too. A socket is
 * connected to one peer (connect(2) on a UDP socket: only its datagrams
 * are received, and an ICMP "port unreachable" comes back as a refusal),
 * made at once: nothing goes on the network until the script sends, so
 * opening is no sample. The peer is a numeric address: a name would need a
 * DNS lookup, which libcurl does for TCP but nothing here would do without
 * blocking the loop.
 *
 * Nothing is buffered here: the kernel holds the datagrams that came (its
 * socket buffer is the bound; past it the kernel drops them, as UDP does);
 * the script's receive takes one, straight into a Lua string. A send that
 * the kernel cannot take now waits for the socket to be writable (the
 * bytes are the script's string, kept on the VU's stack meanwhile). An
 * ev_io of its own watches the socket only while the VU waits on it.
 *
 * Counting: the bytes sent and received count against the sample of the
 * step:time block they are made in, else against the step that opened the
 * socket, in the current second (vu_count_bytes).
 *
 * Ownership: a socket belongs to its VU's list (vu.dgram) until the VU's
 * phase ends, when it is closed and freed; the Lua object only points at it
 * (slot). Internal to worker/. */
#ifndef QUERN_DGRAM_H
#define QUERN_DGRAM_H

#include <ev.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "worker/engine/vu.h"
#include "worker/plugs/inbox.h"
#include "worker/plugs/plug.h"

struct engine;

#define DGRAM_MAX 65507 /* the largest UDP payload over IPv4 */

enum dgram_state {
    DGRAM_OPEN,  /**< datagrams flow */
    DGRAM_CLOSED /**< closed by the script or an error (err says which) */
};

/** One socket. */
typedef struct dgram {
    struct engine *eng;  /**< borrowed */
    struct vu *owner;    /**< borrowed: its VU */
    struct dgram **slot; /**< borrowed: the Lua object's pointer to it, or NULL */
    struct dgram *next;  /**< borrowed: the next in its VU's list */
    int step;            /**< the step its bytes count against, -1 none */
    uint8_t state;       /**< enum dgram_state */
    int fd;              /**< the socket, -1 once closed */
    ev_io io;            /**< its socket, armed while the VU waits on it */
    inbox in;            /**< the VU's waits (a datagram, the socket writable): no messages */
    char err[ERR_MAX];   /**< why it closed, "" none */
} dgram;

/** What dgram_open needs beside the VU. */
typedef struct dgram_cfg {
    const char *host;   /**< borrowed: a numeric IPv4 or IPv6 address, or "localhost" */
    int port;           /**< 1 to 65535 */
    const char *source; /**< borrowed: the address to send from (--source-addr), NULL any */
    int step;           /**< the step its bytes count against, -1 none */
} dgram_cfg;

/** A new socket of v connected to cfg's peer, linked in v's list; NULL with
 *  the reason in err. */
dgram *dgram_open(struct vu *v, const dgram_cfg *cfg, char *err, size_t errlen);
/** Sends one datagram of len bytes: 1 sent, 0 the socket cannot take it now
 *  (dgram_watch, then again), -1 refused by the peer (an ICMP answer to an
 *  earlier one: c stays open), -2 an error (c closed, err says why). */
int dgram_send(dgram *c, const char *data, size_t len);
/** Receives one datagram into buf (cap bytes): its length (a longer one is
 *  cut to cap, *cut set), -1 none now, -2 refused by the peer (c stays
 *  open), -3 an error (c closed). */
ssize_t dgram_recv(dgram *c, char *buf, size_t cap, int *cut);
/** Watches the socket for events (EV_READ, EV_WRITE) while the VU waits on
 *  c's inbox; 0 stops watching. */
void dgram_watch(dgram *c, int events);
/** Closes the socket now (nothing waits); the struct stays its VU's. */
void dgram_close(dgram *c, const char *why);
/** The engine's plug (worker/plugs/plug.h): at a phase's end the VU's
 *  sockets are closed and freed, the Lua objects' pointers cleared; at the
 *  engine's end, every one freed. */
extern const plug dgram_plug;

#endif
