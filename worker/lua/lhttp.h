/* lhttp — HTTP requests from Lua: the request methods of steps
 * (step:get(url, opts), ..., step:request(method, url, opts)) and the
 * `quern.http` module (the same, untimed).
 *
 * A request sets the VU's easy handle up, adds it to the engine's multi handle
 * and yields the VU's coroutine; the engine resumes it when the transfer
 * completes and the continuation returns a response object (lresponse.h). Strings
 * given to libcurl (URL, body) stay on the suspended coroutine's stack, so they
 * live as long as the transfer without a copy.
 *
 * lhttp_build sets any handle of the VU up from (method, url, opts), so that
 * a batch (lbatch.h) builds its requests as single ones are.
 *
 * Use: lhttp_register() when the Step metatable is made (lquern.h);
 * lhttp_open as the loader of "quern.http" (lscript.h). Internal to
 * worker/. */
#ifndef QUERN_LHTTP_H
#define QUERN_LHTTP_H

#include <curl/curl.h>
#include <lua.h>

struct reqopt;
struct urlc_ent;
struct vu;
struct xh;

/** One request to build (lhttp_build): where it goes, what it gives back. */
typedef struct lhttp_req {
    struct xh *x;             /**< borrowed: the handle, attached to the VU */
    struct curl_slist **hdrs; /**< borrowed: where its header list is made (NULL on entry);
                                   the list is owned by whoever owns *hdrs, kept until the
                                   transfer ends */
    char *trace_id;           /**< borrowed: TRACEID_HEX_LEN + 1 bytes, its traceparent's
                                   trace id */
    struct urlc_ent **url;    /**< borrowed: where its URL cache entry (borrowed) is set */
    long timeout_ms;          /**< out: the request's timeout */
    const struct reqopt *rro; /**< borrowed, out: its own connection options, on the stack;
                                   NULL none */
    int is_head;              /**< out: a HEAD request */
} lhttp_req;

/** Stack: 1 step|nil, 2 method (upper case), 3 url, 4 opts|nil. Reads the
 *  options (raising a Lua error on a bad one) and sets q->x's easy handle
 *  up for the request; the values it pushes (URL, body, options) must stay
 *  referenced until the transfer ends. Adds nothing to the multi handle. */
void lhttp_build(lua_State *L, struct vu *v, lhttp_req *q);

/** Registers the step request methods into the methods table at index
 *  methods, and creates the responses' metatable (lresponse.h). */
void lhttp_register(lua_State *L, int methods);
/** Loader of `quern.http`. */
int lhttp_open(lua_State *L);
/** 1 when key is an option of an HTTP request (step:get(url, opts) and the
 *  others): what a request checks when it is made, and what `quern check`
 *  reads in the script's text before any request (agent/preflight.h). */
int lhttp_option_known(const char *key);

#endif
