/* plug — how a protocol plugs into the engine: the transfers it owns, the end
 * of a VU's phase, the end of the engine.
 *
 * What it is for: a protocol (a page's resources, a batch, WebSocket, SSE,
 * gRPC server streams) runs its transfers on the engine's multi handle beside
 * the VUs' own requests, and holds streams past a request. The engine drives
 * every protocol through this table without knowing which one it is: when a
 * transfer ends, each plug in turn is asked whether the handle is one of its
 * own (xfer_done returns 1: taken and handled), the VU's own request being
 * the rest; when a VU's phase ends or is cut short (stop, halt, kill), each
 * closes what the VU still holds (vu_end); when the engine is freed, each
 * frees what is left (engine_end), before the easy handles and the multi.
 *
 * A new protocol is a file with its `const plug NAME_plug` and one line in
 * worker/plugs/plugs.c; nothing else moves.
 *
 * Usage (the engine's side):
 *     if (plugs_xfer_done(v, easy, rc)) continue;   // in the multi's done loop
 *     plugs_vu_end(v);                             // a phase ended
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
    /** v's phase ended: closes or hands off what v holds */
    void (*vu_end)(struct vu *v);
    /** the engine is freed: frees what its VUs still hold */
    void (*engine_end)(struct engine *e);
} plug;

/** The plugs, in the order the engine asks them (worker/plugs/plugs.c). */
extern const plug *const plugs[];
/** Entries in plugs. */
extern const size_t nplugs;

/** Asks each plug whether easy is its own; 1 when one took it. */
int plugs_xfer_done(struct vu *v, CURL *easy, CURLcode rc);
/** Each plug's vu_end, in order. */
void plugs_vu_end(struct vu *v);
/** Each plug's engine_end, in order. */
void plugs_engine_end(struct engine *e);

#endif
