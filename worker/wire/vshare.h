/* vshare — the libcurl shares that hold the VUs' connections.
 *
 * libcurl 7.88 gives each share with a connection cache an easy handle of
 * its own (for closing connections) and a 103-slot table: 9 KB, more than
 * the connection itself costs. So a share holds the connections of a group
 * of VSHARE_GROUP VUs, and each VU's connections stay its own by their
 * cache key: a VU's transfers carry its id as CURLOPT_ADDRESS_SCOPE, which
 * libcurl puts in the key of a connection (and uses for nothing else but
 * IPv6 link-local addresses), so a VU reuses only the connections it
 * opened, as it did with a share of its own. Cookies are not in these
 * shares: a VU's jar is its own (cookiejar.h).
 *
 * A group's connections are checked for liveness by libcurl once a second,
 * all of them: groups keep that check small.
 *
 * Internal to worker/. */
#ifndef QUERN_VSHARE_H
#define QUERN_VSHARE_H

#include <curl/curl.h>
#include <stdint.h>

/** VUs whose connections one share holds. */
#define VSHARE_GROUP 64

/** The shares of one engine, by group. */
typedef struct vshare_set {
    CURLSH **sh; /**< owned array of n shares (each owned, NULL until used) */
    uint32_t n;  /**< entries in sh */
} vshare_set;

/** The share of the VU at index idx of the engine's VUs, made the first
 *  time its group needs it; NULL if libcurl cannot make one. */
CURLSH *vshare_get(vshare_set *s, uint32_t idx);

/** Frees every share (after every easy handle that used them). */
void vshare_free(vshare_set *s);

#endif
