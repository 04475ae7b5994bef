#include "worker/wire/reqopt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/mem.h"
#include "common/hostres.h"

/* --- values ------------------------------------------------------------- */

char *reqopt_env_ca(void)
{
    const char *env = getenv("CURL_CA_BUNDLE");
    char *found = NULL;
    CURL *h;

    if (env == NULL || env[0] == '\0')
        env = getenv("SSL_CERT_FILE");
    if (env != NULL && env[0] != '\0')
        return xstrdup(env);
    h = curl_easy_init();
    if (h != NULL && curl_easy_getinfo(h, CURLINFO_CAINFO, &found) == CURLE_OK && found != NULL)
        found = xstrdup(found);
    else
        found = NULL;
    curl_easy_cleanup(h);
    return found;
}

int reqopt_tls_version(const char *s, long *out)
{
    static const char *const names[] = {"1.0", "1.1", "1.2", "1.3"};
    static const long vals[] = {CURL_SSLVERSION_TLSv1_0, CURL_SSLVERSION_TLSv1_1,
                                CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3};

    for (size_t i = 0; s != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = vals[i];
            return 0;
        }
    }
    return -1;
}

int reqopt_auth_type(const char *s)
{
    if (s == NULL)
        return -1;
    if (strcmp(s, "basic") == 0)
        return REQOPT_AUTH_BASIC;
    if (strcmp(s, "digest") == 0)
        return REQOPT_AUTH_DIGEST;
    if (strcmp(s, "bearer") == 0)
        return REQOPT_AUTH_BEARER;
    return -1;
}

size_t reqopt_path(const char *dir, const char *path, char *out, size_t outlen)
{
    int n;

    if (path[0] == '/' || dir == NULL || dir[0] == '\0')
        n = snprintf(out, outlen, "%s", path);
    else
        n = snprintf(out, outlen, "%s/%s", dir, path);
    return n < 0 ? 0 : (size_t)n;
}

int reqopt_is_key(const char *k)
{
    static const char *const keys[] = {"tls",  "http1",      "http2",           "resolve",
                                       "auth", "compressed", "connect_timeout", "resources",
                                       "cache"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        if (strcmp(k, keys[i]) == 0)
            return 1;
    return 0;
}

/* --- the userdata ------------------------------------------------------- */

void reqopt_clear(reqopt *ro)
{
    if (ro == NULL)
        return;
    xfree(ro->ca);
    xfree(ro->cert);
    xfree(ro->key);
    xfree(ro->key_password);
    xfree(ro->user);
    xfree(ro->password);
    xfree(ro->token);
    curl_slist_free_all(ro->resolve);
    embed_filter_clear(&ro->res_filt);
    memset(ro, 0, sizeof(*ro));
}

int reqopt_add_resolve(reqopt *ro, const char *entry, char *err, size_t errlen)
{
    struct curl_slist *l;

    if (hostres_check(entry, err, errlen) != 0)
        return -1;
    l = curl_slist_append(ro->resolve, entry);
    if (l == NULL)
        xoom("curl_slist_append");
    ro->resolve = l;
    ro->set |= REQOPT_RESOLVE;
    return 0;
}

/* --- setting a handle up ------------------------------------------------ */

const reqopt *reqopt_pick(unsigned bit, const reqopt *a, const reqopt *b, const reqopt *c)
{
    if (a != NULL && (a->set & bit))
        return a;
    if (b != NULL && (b->set & bit))
        return b;
    if (c != NULL && (c->set & bit))
        return c;
    return NULL;
}

int reqopt_http2(const reqopt *req, const reqopt *scen, const reqopt *run)
{
    const reqopt *o = reqopt_pick(REQOPT_HTTPV, req, scen, run);

    return o != NULL && o->http == REQOPT_HTTP2;
}

int reqopt_compressed(const reqopt *req, const reqopt *scen, const reqopt *run)
{
    const reqopt *o = reqopt_pick(REQOPT_COMPRESSED, req, scen, run);

    return o == NULL || o->compressed;
}

const char *reqopt_accept_encoding(void)
{
    /* libcurl's order (content_encoding.c): deflate and gzip with zlib, br,
     * zstd; identity alone when it decodes nothing. */
    static const char *const lines[8] = {
        "Accept-Encoding: identity", "Accept-Encoding: deflate, gzip",
        "Accept-Encoding: br",       "Accept-Encoding: deflate, gzip, br",
        "Accept-Encoding: zstd",     "Accept-Encoding: deflate, gzip, zstd",
        "Accept-Encoding: br, zstd", "Accept-Encoding: deflate, gzip, br, zstd",
    };
    static const char *line; /* found once: a request's list takes it as it is */
    const curl_version_info_data *vi;

    if (line == NULL) {
        vi = curl_version_info(CURLVERSION_NOW);
        line = lines[((vi->features & CURL_VERSION_LIBZ) ? 1 : 0) |
                     ((vi->features & CURL_VERSION_BROTLI) ? 2 : 0) |
                     ((vi->features & CURL_VERSION_ZSTD) ? 4 : 0)];
    }
    return line;
}

void reqopt_apply(CURL *h, reqopt_mark *mark, const reqopt *req, const reqopt *scen,
                  const reqopt *run, int https, const char *env_ca)
{
    uint64_t rs = req != NULL ? req->serial : 0, ss = scen != NULL ? scen->serial : 0;
    const reqopt *o;
    int insecure, http2;

    if (mark->valid && mark->req == rs && mark->scen == ss && mark->https == https)
        return;
    mark->valid = 1;
    mark->req = rs;
    mark->scen = ss;
    mark->https = https;

    o = reqopt_pick(REQOPT_CA, req, scen, run);
    curl_easy_setopt(h, CURLOPT_CAINFO, o != NULL ? o->ca : env_ca);
    o = reqopt_pick(REQOPT_CERT, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLCERT, o != NULL ? o->cert : NULL);
    o = reqopt_pick(REQOPT_KEY, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLKEY, o != NULL ? o->key : NULL);
    o = reqopt_pick(REQOPT_KEY_PASSWORD, req, scen, run);
    curl_easy_setopt(h, CURLOPT_KEYPASSWD, o != NULL ? o->key_password : NULL);
    o = reqopt_pick(REQOPT_INSECURE, req, scen, run);
    insecure = o != NULL && o->insecure;
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, insecure ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, insecure ? 0L : 2L);
    o = reqopt_pick(REQOPT_TLS_MIN, req, scen, run);
    curl_easy_setopt(h, CURLOPT_SSLVERSION, o != NULL ? o->tls_min : (long)CURL_SSLVERSION_DEFAULT);

    http2 = reqopt_http2(req, scen, run);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION,
                     !http2  ? (long)CURL_HTTP_VERSION_1_1
                     : https ? (long)CURL_HTTP_VERSION_2TLS
                             : (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
    /* libcurl before 8.0 fails the second request on an h2c connection
     * with prior knowledge ("Error in the HTTP2 framing layer", curl issue
     * 10634): such a connection serves one request there. */
    curl_easy_setopt(
        h, CURLOPT_FORBID_REUSE,
        http2 && !https && curl_version_info(CURLVERSION_NOW)->version_num < 0x080000 ? 1L : 0L);

    /* Entries load into the multi handle's DNS cache when the transfer
     * starts and stay there. */
    o = reqopt_pick(REQOPT_RESOLVE, req, scen, run);
    curl_easy_setopt(h, CURLOPT_RESOLVE, o != NULL ? o->resolve : NULL);

    o = reqopt_pick(REQOPT_AUTH, req, scen, run);
    if (o != NULL && o->auth == REQOPT_AUTH_BEARER) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, o->token);
        curl_easy_setopt(h, CURLOPT_USERNAME, NULL);
        curl_easy_setopt(h, CURLOPT_PASSWORD, NULL);
    } else {
        if (o != NULL && o->auth == REQOPT_AUTH_DIGEST)
            mark->digest = 1;
        curl_easy_setopt(h, CURLOPT_HTTPAUTH,
                         o != NULL && o->auth == REQOPT_AUTH_DIGEST ? (long)CURLAUTH_DIGEST
                                                                    : (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_XOAUTH2_BEARER, NULL);
        curl_easy_setopt(h, CURLOPT_USERNAME, o != NULL ? o->user : NULL);
        curl_easy_setopt(h, CURLOPT_PASSWORD, o != NULL ? o->password : NULL);
    }

    /* The header itself is in the request's list (reqopt_accept_encoding);
     * this turns decoding on. */
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, reqopt_compressed(req, scen, run) ? "" : NULL);
    o = reqopt_pick(REQOPT_CONNECT_TIMEOUT, req, scen, run);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, o != NULL ? o->connect_timeout_ms : 0L);
}
