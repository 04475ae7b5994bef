/* hsrv — the console's small HTTP servers (--metrics, --web): their address,
 * access rules, bounds and linger, in one place so that both keep the same.
 *
 * What it is for: libmicrohttpd serves on a thread of its own, so a client
 * never makes the console's loop wait. An address is numeric (no DNS on the
 * way to a run); a loopback one serves anyone on this host, any other needs
 * --token-file (hsrv_check: a usage error without it), whose token a
 * request must then carry (hsrv_token_ok compares in constant time; the
 * token is never logged).
 *
 * On a loopback address a request must also name this server in its Host
 * header (hsrv_host_ok: the listening address, localhost or [::1], with
 * this port or none), else it gets 421 Misdirected Request: a web page the
 * user visits during a run cannot read the server through a name of its own
 * rebound to 127.0.0.1 (DNS rebinding). A non-loopback server, which needs
 * the token anyway, answers any Host.
 *
 * Every server is bounded: HSRV_CONN_MAX connections at once, HSRV_PER_IP_MAX
 * from one address (well below the total, so that a client from another
 * address always finds a slot), each closed after HSRV_TIMEOUT_S idle
 * seconds, or HSRV_HEADER_DEADLINE_S seconds after it was accepted (or its
 * previous request ended) if its request's headers are still incomplete by
 * then, however steadily they trickle in (slowloris): a thread of hsrv's own
 * sweeps them every HSRV_SWEEP_MS. HSRV_CONN_MEMORY bytes of memory each (a
 * longer request line or header is refused by libmicrohttpd).
 *
 * Usage:
 *     if (hsrv_check("--web", o.web, o.token_file) != 0) return 2;
 *     hsrv s;   // stays where it is while it serves: MHD's thread points to it
 *     if (hsrv_start(&s, "--web", o.web, o.token_file, o.web_port_file, on_request, ctx,
 *                    "/", err, sizeof(err)) != 0) ...;
 *     ... in on_request (MHD's thread): hsrv_token_ok(&s, given) ...
 *     hsrv_linger(5000000);   // after the run: a SIGINT or SIGTERM ends it
 *     hsrv_stop(&s); */
#ifndef QUERN_HSRV_H
#define QUERN_HSRV_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

/** Most connections served at once, per server. */
#define HSRV_CONN_MAX 64
/** Most connections from one client address. */
#define HSRV_PER_IP_MAX 8
/** Seconds an idle connection is kept (a slow client is closed). */
#define HSRV_TIMEOUT_S 5
/** Seconds a request's headers may take in all, from the connection's accept
 *  (or the end of its previous request) until they are complete. */
#define HSRV_HEADER_DEADLINE_S 10
/** Milliseconds between two sweeps for connections past that deadline. */
#define HSRV_SWEEP_MS 250
/** Memory of one connection, its request line and headers included. */
#define HSRV_CONN_MEMORY 32768

/** One open connection, as the sweep sees it (hsrv.c). */
struct hsrv_conn;

/** A running server. */
typedef struct hsrv {
    struct MHD_Daemon *d; /**< owned */
    char *token;          /**< owned: the token requests must carry; NULL on loopback */
    size_t token_len;
    unsigned port;                /**< the port listened on */
    char host[48];                /**< the address listened on as a Host names it
                                       ("127.0.0.1", "[::1]"); "" when any Host goes */
    MHD_AccessHandlerCallback cb; /**< the server's own handler, called past the checks */
    void *cls;                    /**< borrowed: cb's first argument */
    pthread_mutex_t mu;           /**< guards conns and stopping */
    pthread_cond_t wake;          /**< ends the sweep's wait (hsrv_stop) */
    pthread_t sweeper;            /**< the sweep's thread, while swept */
    struct hsrv_conn *conns;      /**< owned: the open connections, a list */
    int sync_ready;               /**< mu and wake are initialised */
    int swept;                    /**< sweeper runs */
    int stopping;                 /**< hsrv_stop asked the sweep to end */
} hsrv;

/** Checks addr (the value of flag, e.g. "--metrics"): numeric HOST:PORT,
 *  and loopback unless token_file is given. 0 (addr NULL too), or -1 after
 *  one usage line on stderr naming flag. */
int hsrv_check(const char *flag, const char *addr, const char *token_file);

/** 1 when addr (as hsrv_check took it) is not a loopback address: its
 *  server reads the token and asks every request for it. 0 otherwise. */
int hsrv_needs_token(const char *addr);

/** Reads the token (a non-loopback address), binds addr, writes the port
 *  into port_file (NULL: none), serves with cb(cls, ...) and logs
 *  "WHAT at http://HOST:PORT" + path. 0, or -1 with err (s then holds
 *  nothing). */
int hsrv_start(hsrv *s, const char *flag, const char *addr, const char *token_file,
               const char *port_file, MHD_AccessHandlerCallback cb, void *cls, const char *path,
               char *err, size_t errlen);

/** 1 when s needs no token, or tok (NUL-terminated, may be NULL) is the
 *  token; compared in constant time. Any thread. */
int hsrv_token_ok(const hsrv *s, const char *tok);

/** 1 when the Host header value h names s: any h (NULL too) when s
 *  listens on a non-loopback address (s->host ""), else s->host,
 *  "localhost" or "[::1]" (case aside), alone or with ":" and s->port; an
 *  absent Host (NULL) then is not one of them. */
int hsrv_host_ok(const hsrv *s, const char *h);

/** The token of an "Authorization: Bearer TOKEN" header value h (NULL
 *  when h is NULL or another scheme), spaces after "Bearer" skipped. */
const char *hsrv_bearer(const char *h);

/** Queues a copy of body (len bytes; HEAD gets none, as MHD does) with
 *  status, Content-Type ctype and the headers hdrs (NULL, or name, value,
 *  ..., NULL). MHD's thread. */
enum MHD_Result hsrv_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
                           const char *body, size_t len, const char *const *hdrs);

/** Waits linger_us (0: not at all); a SIGINT or SIGTERM ends it early. */
void hsrv_linger(int64_t linger_us);

/** Stops serving and frees what s holds. A zeroed s is fine. */
void hsrv_stop(hsrv *s);

#endif
