/* reqopt — the connection options of a request: TLS trust and client
 * certificates, the HTTP version, names resolved without DNS, credentials,
 * compression and the connect timeout.
 *
 * What it is for: these options come from three levels, the run's (`quern
 * run --resolve`), a scenario's `request = { ... }` defaults and the request's
 * own table, the nearest level winning field by field. A scenario's defaults
 * are read once, when the script loads (a missing file is a load-time error
 * there); a request's own are read at each request that gives some. libcurl
 * copies most of them into the easy handle, so reqopt_apply sets a handle's
 * options only when the levels it got last time changed (reqopt_mark).
 *
 * Use:
 *     reqopt *ro = lreqopt_push(L);                // the Lua side: lreqopt.h
 *     lreqopt_read(L, tbl, dir, 1, ro, run, 1);
 *     ...
 *     reqopt_apply(easy, &xh->ro, req, scen_ro, run, https, env);
 *
 * Nothing here needs Lua: the plugs merge and apply the levels, the
 * bindings read them (lreqopt.h). Internal to worker/. */
#ifndef QUERN_REQOPT_H
#define QUERN_REQOPT_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/wire/embed.h"

/** Which HTTP versions a request may use. */
enum reqopt_http {
    REQOPT_HTTP1 = 1, /**< HTTP/1.1 only (the default) */
    REQOPT_HTTP2 = 2  /**< HTTP/2: by ALPN over TLS, with prior knowledge on http: */
};

/** The kinds of credentials (auth.type). */
enum reqopt_auth { REQOPT_AUTH_BASIC = 1, REQOPT_AUTH_DIGEST, REQOPT_AUTH_BEARER };

/** Bits of reqopt.set: the fields a level gives. */
enum {
    REQOPT_CA = 1u << 0,
    REQOPT_CERT = 1u << 1,
    REQOPT_KEY = 1u << 2,
    REQOPT_KEY_PASSWORD = 1u << 3,
    REQOPT_INSECURE = 1u << 4,
    REQOPT_TLS_MIN = 1u << 5,
    REQOPT_HTTPV = 1u << 6,
    REQOPT_RESOLVE = 1u << 7,
    REQOPT_AUTH = 1u << 8,
    REQOPT_COMPRESSED = 1u << 9,
    REQOPT_CONNECT_TIMEOUT = 1u << 10,
    REQOPT_TIMEOUT = 1u << 11,   /**< only in a scenario's defaults */
    REQOPT_REDIRECTS = 1u << 12, /**< only in a scenario's defaults */
    REQOPT_RESOURCES = 1u << 13,
    REQOPT_CACHE = 1u << 14
};

/** The options one level gives. */
typedef struct reqopt {
    uint64_t serial;               /**< unique in the process: tells two levels apart */
    unsigned set;                  /**< REQOPT_* bits of the fields given */
    char *ca;                      /**< owned: CA bundle file, absolute */
    char *cert;                    /**< owned: client certificate file, absolute */
    char *key;                     /**< owned: its private key file, absolute */
    char *key_password;            /**< owned: the key's pass phrase (a secret) */
    int insecure;                  /**< 1: the server's certificate is not verified */
    long tls_min;                  /**< CURL_SSLVERSION_TLSv1_x */
    int http;                      /**< enum reqopt_http */
    struct curl_slist *resolve;    /**< owned: "host:port:address" entries */
    int auth;                      /**< enum reqopt_auth */
    char *user, *password, *token; /**< owned: the credentials (secrets) */
    int compressed;                /**< 1: Accept-Encoding of what libcurl decodes */
    long connect_timeout_ms;
    long timeout_ms;
    long max_redirs;
    int resources;         /**< 1: load what an HTML answer embeds (pageres.h) */
    embed_filter res_filt; /**< owned: the resources' include/exclude patterns */
    int cache;             /**< 0: the VU's resource cache is not used (default 1) */
} reqopt;

/** What an easy handle was last set up with (zero: nothing yet). */
typedef struct reqopt_mark {
    uint64_t req, scen; /**< serials of the request's and scenario's levels, 0: none */
    int https;          /**< the URL's scheme was https */
    int valid;          /**< 1 once reqopt_apply ran on the handle */
    int digest;         /**< 1 once digest auth was set: the handle holds a nonce and its
                             count, which belong to the VU that used it (vu_attach) */
} reqopt_mark;

/** The CA bundle used when no level gives `ca`: $CURL_CA_BUNDLE, else
 *  $SSL_CERT_FILE, else libcurl's built-in one (read from a fresh handle);
 *  NULL when there is none. Returns an owned copy: read it once. */
char *reqopt_env_ca(void);

/** Parses a TLS version "1.0", "1.1", "1.2" or "1.3" into *out
 *  (CURL_SSLVERSION_TLSv1_x). 0, or -1 for anything else. */
int reqopt_tls_version(const char *s, long *out);
/** The enum reqopt_auth of "basic", "digest" or "bearer"; -1 otherwise. */
int reqopt_auth_type(const char *s);
/** Writes path into out, joined to dir when it is relative. Returns the
 *  length of the whole result (>= outlen: truncated). */
size_t reqopt_path(const char *dir, const char *path, char *out, size_t outlen);
/** 1 when a request option's name is one of reqopt's (tls, http1, http2,
 *  resolve, auth, compressed, connect_timeout, resources, cache). */
int reqopt_is_key(const char *k);

/** Adds one resolve entry (checked by hostres_check, common/hostres.h) to ro, the
 *  run's level made without Lua. 0, or -1 with the reason in err. */
int reqopt_add_resolve(reqopt *ro, const char *entry, char *err, size_t errlen);
/** Frees what ro owns (not ro itself) and zeroes it. */
void reqopt_clear(reqopt *ro);

/** The level (nearest first, each may be NULL) that gives bit, or NULL. */
const reqopt *reqopt_pick(unsigned bit, const reqopt *req, const reqopt *scen, const reqopt *run);
/** 1 when the levels (each may be NULL, nearest first) ask for HTTP/2. */
int reqopt_http2(const reqopt *req, const reqopt *scen, const reqopt *run);
/** 1 when the levels (each may be NULL, nearest first) ask for a compressed
 *  answer (the default). */
int reqopt_compressed(const reqopt *req, const reqopt *scen, const reqopt *run);
/** The Accept-Encoding header line of what this libcurl decodes, as it
 *  would send it for CURLOPT_ACCEPT_ENCODING "" ("Accept-Encoding: deflate,
 *  gzip, br, zstd" on Debian 12): sent in the request's header list, where
 *  libcurl copies it once, instead of formatting it twice per request. */
const char *reqopt_accept_encoding(void);

/** Sets the connection options of easy from the levels (each may be NULL;
 *  req before scen before run, field by field; the defaults where none
 *  gives one: certificates verified against env_ca, HTTP/1.1, compressed,
 *  no credentials beyond the URL's, libcurl's connect timeout). Does
 *  nothing when mark says easy has these levels already; updates mark. The
 *  levels' resolve lists must live until the transfer starts. */
void reqopt_apply(CURL *easy, reqopt_mark *mark, const reqopt *req, const reqopt *scen,
                  const reqopt *run, int https, const char *env_ca);

#endif
