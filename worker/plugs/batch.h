/* batch — a VU's requests sent at once (http.batch, step:batch: lbatch.h),
 * their transfers and their samples.
 *
 * What it is for: a VU that loads several resources in parallel, as a
 * browser or a client fanning out calls does. The requests go on the VU's
 * own connections (its share, its cookies: each handle is attached to it,
 * vu_attach), at most PAGERES_PER_HOST at once per origin, as a page's
 * resources (pageres.h); the rest wait in order and start as others end.
 * The VU is resumed once, when the last is in.
 *
 * Samples (enum batch_mode): none (untimed); one per request, each of its
 * own step, kept pending here after the batch so that r:expect on its
 * response can still accept an error status, and recorded by vu_finalize;
 * or one for the whole batch (the VU's pending sample), from the first
 * request's start to the last one's end, its error the first request's
 * error (an error status accepted by r:expect gives way to the next
 * unaccepted one, batch_accept).
 *
 * Use (lbatch.c, vu.c and the engine, on the loop):
 *     b = batch_prepare(v, n, mode);  // items zeroed, handles to fill
 *     ... each b->it[i]: x taken (batch_take), built (lhttp_build) ...
 *     batch_start(b);                 // the VU yields unless b->left is 0
 *     batch_plug.xfer_done(v, easy, rc)    // from the engine, per transfer
 *     ... responses pushed from b->it[i].res and .x ...
 *     batch_release(b);               // handles back to the pool
 *     batch_finalize / batch_sample / batch_accept  // its kept samples
 *     batch_abort(b); batch_free(b);
 * Internal to worker/. */
#ifndef QUERN_BATCH_H
#define QUERN_BATCH_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/plugs/plug.h"
#include "worker/engine/vu.h"

/** Requests in one batch at most. */
#define BATCH_MAX 100

/** What a batch records. */
enum batch_mode {
    BATCH_UNTIMED, /**< no sample (http.batch) */
    BATCH_EACH,    /**< one sample per request, kept in its item */
    BATCH_ONE      /**< one sample for all: the VU's pending sample */
};

/** Where a request of the batch is. */
enum batch_how { BATCH_QUEUED, BATCH_INFLIGHT, BATCH_DONE };

/** One request of a batch. */
typedef struct batch_item {
    xh *x;                   /**< borrowed from the pool, from batch_take to batch_release */
    struct curl_slist *hdrs; /**< owned: its header list (lhttp_req.hdrs) */
    struct urlc_ent *url;    /**< borrowed: its URL cache entry, or NULL */
    const char *urlstr;      /**< borrowed: its URL, a Lua string the VU's stack anchors */
    char *shown;             /**< owned: its URL as result logs write it, for its sample's
                                  line (BATCH_EACH with a reqlog), else NULL */
    size_t origin_len;       /**< bytes of urlstr up to its path (pageres_origin_len) */
    uint32_t origin;         /**< index of the first item of the same origin */
    uint8_t how;             /**< enum batch_how */
    uint8_t accepted;        /**< r:expect accepted its status */
    xfer_result res;         /**< its answer, once done */
    sample s;                /**< BATCH_EACH: its sample (s.step -1: none) */
} batch_item;

/** A VU's batch: the current one's requests, or the last one's, whose
 *  samples may still be pending. */
typedef struct batch {
    vu *v;            /**< borrowed: its VU */
    batch_item *it;   /**< owned: cap items, n in use */
    uint8_t *busy;    /**< owned: cap counters, requests in flight per origin (by item) */
    size_t n, cap;    /**< items in use, allocated */
    size_t left;      /**< requests not done */
    uint8_t mode;     /**< enum batch_mode */
    uint8_t kept;     /**< BATCH_EACH: its samples await batch_finalize */
    uint32_t seq;     /**< BATCH_ONE: its sample's seq, 0 untimed */
    int err_item;     /**< BATCH_ONE: the item whose error status the sample holds, -1 none */
    int64_t first_us; /**< monotonic: the first request's start */
} batch;

/** v's batch made ready for n (at most BATCH_MAX) requests recorded as
 *  mode: the previous batch's samples are recorded first. */
batch *batch_prepare(vu *v, size_t n, enum batch_mode mode);
/** Lends item i a handle from the pool, attached to the VU, its buffers
 *  emptied; the caller then builds the request on it. */
void batch_take(batch *b, size_t i);
/** Sets item i's URL (urlstr, anchored by the caller) and its origin. */
void batch_set_url(batch *b, size_t i, const char *urlstr);
/** Starts what the per-origin limit lets start. When b->left is 0 after it
 *  (every request failed to start), nothing resumes the VU: the caller
 *  goes on at once. */
void batch_start(batch *b);
/** The engine's plug (worker/plugs/plug.h): a transfer finished, one of v's
 *  batch's (handled, 1: the VU is resumed when it was the last) or not (0). */
extern const plug batch_plug;
/** The responses were made: handles back to the pool (the VU's cookies
 *  saved from them), header lists freed. */
void batch_release(batch *b);
/** Records the samples b keeps pending (BATCH_EACH), once; NULL is fine. */
void batch_finalize(batch *b);
/** The pending sample of b whose seq is seq, or NULL; b may be NULL. */
sample *batch_sample(batch *b, uint32_t seq);
/** r:expect accepted item i's status, s its sample: an error status of
 *  that request is no error; in BATCH_ONE, the sample takes the next error
 *  of the batch not accepted, if any. */
void batch_accept(batch *b, sample *s, size_t i);
/** Removes whatever is in flight (the grace is over): no sample of this
 *  batch; a finished one is left as it is; NULL is fine. */
void batch_abort(batch *b);
/** Frees b and what it holds (after the engine's pool is gone); NULL is
 *  fine. */
void batch_free(batch *b);

#endif
