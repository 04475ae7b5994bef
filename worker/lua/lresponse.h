/* lresponse — the response object a request returns to Lua: its fields
 * (r.status, r.body, r.headers, r.time, r.ok, r.error, r.url, r.size,
 * r.timings) and its checks (r:expect, r:contains, r:match, r:json,
 * r:xpath, r:xpath_all, r:header).
 *
 * A failed check counts against the response's step sample while it is
 * pending (or as an error of its step afterwards), then raises, ending the
 * run as a functional error. The body and raw headers are kept as Lua
 * strings in the userdata's user values; the header table is parsed on
 * first use.
 *
 * Use: lresponse_metatable() once (lhttp_register does it); lresponse_push() when a
 * VU's transfer completed (lhttp.c), lresponse_push_xfer() for each of a
 * batch's (lbatch.c). Internal to worker/. */
#ifndef QUERN_LRESPONSE_H
#define QUERN_LRESPONSE_H

#include <lua.h>
#include <stdint.h>

#include "worker/engine/vu.h"

/** Creates the responses' metatable. */
void lresponse_metatable(lua_State *L);
/** Pushes the response of v's completed transfer (v->x, its handle's body
 *  and headers); url_idx is the stack index of the URL it was asked for.
 *  Returns 1 (values pushed). */
int lresponse_push(lua_State *L, struct vu *v, int url_idx);
/** Pushes the response of a transfer: x its result, h its handle (body,
 *  headers, error message); seq and sidx its sample's (step index) (0 and -1: none);
 *  item its place in a batch, 1-based (0: none), for r:expect
 *  (batch_accept); url_idx the stack index of the URL it was asked for.
 *  Returns 1. */
int lresponse_push_xfer(lua_State *L, const xfer_result *x, const xh *h, uint32_t seq, int sidx,
                        int item, int url_idx);

#endif
