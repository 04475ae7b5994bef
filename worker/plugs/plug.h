/* plug — how a protocol plugs into the engine: the transfers it owns, the end
 * of a VU's phase, the end of the engine.
 *
 * What it is for: a protocol (a page's resources, a batch, WebSocket, SSE,
 * gRPC server streams, and the VU's own request: vureq.h) runs its
 * transfers on the engine's multi handle, and some hold streams past a
 * request. The engine drives every protocol through this table without
 * knowing which one it is: when a transfer ends, each plug in turn is asked
 * whether the handle is one of its own (xfer_done returns 1: taken and
 * handled); when a VU is killed with its request in flight, each drops what
 * fans out of that request (vu_abort); when the VU's samples are recorded,
 * each records those it kept pending (vu_finalize); when a VU's phase ends
 * or is cut short (stop, halt, kill), each closes what the VU still holds
 * (vu_end); when a VU is freed, what it kept of it goes (vu_free); when the
 * engine is freed, each frees what is left (engine_end), before the easy
 * handles and the multi.
 *
 * A new protocol is a file with its `const plug NAME_plug` and one line in
 * worker/plugs/plugs.c; nothing else moves.
 *
 * Usage (the engine's side):
 *     if (!plugs_xfer_done(v, easy, rc)) ...       // in the multi's done loop
 *     plugs_vu_abort(v); plugs_vu_finalize(v);     // vu_kill; vu_finalize
 *     plugs_vu_end(v);                             // a phase ended
 *     plugs_vu_free(v);                            // vu_free
 *     plugs_engine_end(e);                         // engine_free, first
 * Internal to worker/. */
#ifndef QUERN_PLUG_H
#define QUERN_PLUG_H

#include <curl/curl.h>
#include <stddef.h>

struct engine;
struct vu;

/** One protocol's entry points; a NULL one has nothing to do there. */
typedef struct plug {
    const char *name; /**< borrowed (static): "websocket" */
    /** easy, of v, ended with rc: 1 when it was this protocol's (handled,
     *  off the multi as it needs), 0 when not */
    int (*xfer_done)(struct vu *v, CURL *easy, CURLcode rc);
    /** v is killed with its own request in flight: drops what fans out of
     *  that request (no sample) */
    void (*vu_abort)(struct vu *v);
    /** v's samples are recorded: records those this protocol kept pending */
    void (*vu_finalize)(struct vu *v);
    /** v's phase ended: closes or hands off what v holds */
    void (*vu_end)(struct vu *v);
    /** v is freed: frees what this protocol kept of it */
    void (*vu_free)(struct vu *v);
    /** the engine is freed: frees what its VUs still hold */
    void (*engine_end)(struct engine *e);
} plug;

/** The plugs, in the order the engine asks them (worker/plugs/plugs.c). */
extern const plug *const plugs[];
/** Entries in plugs. */
extern const size_t nplugs;

/** Asks each plug whether easy is its own; 1 when one took it. */
int plugs_xfer_done(struct vu *v, CURL *easy, CURLcode rc);
/** Each plug's vu_abort, in order. */
void plugs_vu_abort(struct vu *v);
/** Each plug's vu_finalize, in order. */
void plugs_vu_finalize(struct vu *v);
/** Each plug's vu_end, in order. */
void plugs_vu_end(struct vu *v);
/** Each plug's vu_free, in order. */
void plugs_vu_free(struct vu *v);
/** Each plug's engine_end, in order. */
void plugs_engine_end(struct engine *e);

#endif
