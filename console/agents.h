/* agents — the console's side of its agents: the listening socket, each
 * connection's handshake (Hello, proof of the token, the sealed link),
 * registration, the messages an agent sends during a run, and the
 * connections' housekeeping (timeouts, silence, pings).
 *
 * What it is for: run.c listens (agents_listen) and watches the socket
 * (agents_watch); every accepted peer becomes an aconn in run->conns. A peer
 * is refused and dropped, with a rate-limited line, unless it says Hello as
 * an agent of our protocol and proves it knows the token; handshakes in
 * progress are bounded (AGENTS_PENDING_*) apart from registered agents, and
 * one makes room for another from the network and address holding the most
 * (agents_victim), so peers that never authenticate, however many and fast,
 * cannot keep an agent elsewhere out. Once registered, an agent's StepsDef,
 * Interval and RunFinished go up to the run's control (console/control.h)
 * through the agents_up table it gives (run.up): this file calls nothing
 * of the control, the steering or the live page's feed. A lost agent is
 * reported at once (agents_lost): its data so far is kept and the run ends
 * degraded. */
#ifndef QUERN_AGENTS_H
#define QUERN_AGENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/handshake.h"
#include "proto/peer.h"

struct run;

#define AGENTS_CONN_MAX 2048           /**< authenticated connections (agents) at once */
#define AGENTS_PENDING_MAX 64          /**< handshakes in progress at once, apart from agents */
#define AGENTS_PENDING_PER_ADDR 8      /**< of them from one address */
#define AGENTS_HANDSHAKE_US 5000000    /**< a peer must have registered by then */
#define AGENTS_REFUSAL_LOG_US 10000000 /**< lines about refused peers: a few per 10 s */
#define AGENTS_REFUSAL_BURST 5         /**< ... this many at once */
#define AGENTS_WORKERS_MAX 1024        /**< workers an agent may register with */
#define AGENTS_SILENCE_US 5000000      /**< an agent silent this long is lost */
/** During a run an agent that is in it gets every 2nd Ping of the console's
 *  seconds, not each (the console sends it nothing else, and a sealed Ping
 *  to every agent each second was most of the console's system time at
 *  1,000 agents). An agent still leaves a console silent for 5 s
 *  (AGENT_SILENCE_US): the pings at most 2.2 s apart (the 0.1 s tick), a
 *  console whose loop stalls for under 2.8 s keeps its agents (3.9 s with a
 *  Ping each second, and outside a run). */
#define AGENTS_RUN_PING_EVERY 2
/** What may wait to be sent to one agent: a whole bundle frame and more. */
#define AGENTS_QUEUE_MAX (FRAME_MAX_DEFAULT + 65536u)

/** Where a connection stands. */
enum aconn_state {
    AC_HELLO,    /**< waiting for the peer's Hello */
    AC_PROOF,    /**< waiting for its proof of the token */
    AC_REGISTER, /**< authenticated, the link sealed: waiting for Register */
    AC_AGENT,    /**< a registered agent */
    AC_CLOSING,  /**< closing once what is queued has left */
    AC_GONE,     /**< closed */
};

/** One connection: a peer being authenticated, or a registered agent. */
typedef struct aconn {
    struct run *r; /**< borrowed: the run it belongs to */
    peer link;
    enum aconn_state state;
    char addr[64]; /**< peer address, for logs */
    char ip[48];   /**< peer address without the port: handshakes per address */
    char net[64];  /**< its network ("10.1.2.0/24", "2001:db8::/64"): handshakes shared fairly */
    int authed;    /**< the peer proved the token (the link is sealed) */
    handshake hs;  /**< the connection's nonces and keys (proto/handshake.h) */
    int64_t since_us, last_rx_us, closing_at_us;
    /* Once registered: */
    char name[128];
    char host[128];
    unsigned workers; /**< workers it will use for this run */
    unsigned index;
    /* In the run: */
    int in_run, steps_ok, ready, finished, lost;
    uint32_t vus;         /**< VU slots given: the ids of its VUs (the open model's pool, the
                               ceiling of a steered load), not the VUs running */
    uint32_t active;      /**< VUs active at the end of its last interval */
    uint32_t active_peak; /**< the most of them in one interval of the run */
    uint32_t started;     /**< the closed model's VUs that began a first run on it */
    uint64_t requests, errors;
    char status[32];
} aconn;

/** Where an agent's frames of the run go up: the run's control
 *  (control_up, console/control.h), set in run.up by run_init. */
typedef struct agents_up {
    /** An agent's StepsDef of this run. */
    void (*steps_def)(struct run *r, aconn *c, const Quern__StepsDef *sd);
    /** An agent's Interval, while it is in the run. */
    void (*interval)(struct run *r, aconn *c, const Quern__Interval *m);
    /** Merges the seconds every running agent has sent (force: all of
     *  them); called with 0 when an agent finished. */
    void (*flush)(struct run *r, int force);
} agents_up;

/** What the connections are doing, counted by agents_tick. */
typedef struct agents_counts {
    unsigned registered; /**< registered agents */
    unsigned in_run;     /**< agents given the run */
    unsigned ready;      /**< of them, ready and not lost */
    unsigned done;       /**< of them, finished or lost */
} agents_counts;

/** Listens on run->o.listen (HOST:PORT; needs a token file, and refuses a
 *  non-loopback address without one), writes --port-file, sets run->port.
 *  0 ok; -1 with err. */
int agents_listen(struct run *r, char *err, size_t errlen);
/** The VUs that ran on c: the most active at once, or, when more, those
 *  that began a run (the closed model's; runs shorter than a second end
 *  between the seconds' counts). */
uint32_t agents_vus_ran(const aconn *c);
/** Starts accepting agents on run->loop. */
void agents_watch(struct run *r);
/** Once per tick: closes what is closing, times out handshakes and silent
 *  agents, pings the agents once a second (those in a run every
 *  AGENTS_RUN_PING_EVERY seconds while it runs), resumes a paused accept,
 *  forgets closed connections, and counts what is left into *n. */
void agents_tick(struct run *r, int64_t now_us, agents_counts *n);

/** The peer callbacks of an agent's connection (public for the fuzz target). */
void agents_on_msg(peer *l, const Quern__Envelope *env, void *ud);
/** @copydoc agents_on_msg */
void agents_on_close(peer *l, const char *why, void *ud);

/** Which of the n connections goes to make room for a new handshake: among
 *  those still pending (not authenticated), from ip only when ip is not
 *  NULL, one of the network (aconn.net) holding the most, then of its address
 *  holding the most, then one that has not said Hello, then the oldest.
 *  Its index, or SIZE_MAX when none is pending. */
size_t agents_victim(aconn *const *conns, size_t n, const char *ip);

/** Marks c lost: during the run the run ends degraded; before Go the start
 *  fails. Says so. */
void agents_lost(struct run *r, aconn *c, const char *why);
/** Sends env to every agent in the run that is not lost. */
void agents_send_all(struct run *r, Quern__Envelope *env);
/** Agents given the run. */
unsigned agents_in_run(const struct run *r);
/** Agents in the run and not lost. */
unsigned agents_alive(const struct run *r);
/** Agents in the run, not lost and not finished: those a second waits for
 *  (kept between calls, counted again once r->running_known is cleared). */
unsigned agents_running(struct run *r);
/** Prints the end-of-run table of the agents (VUs, requests, errors, status). */
void agents_breakdown(const struct run *r, FILE *out);
/** Closes and frees every connection. */
void agents_free(struct run *r);

#endif
